//===- RawProfileWriter.cpp - Serialize to LLVM raw MemProf v5 ------------===//
#include "RawProfileWriter.h"

#include <string.h>

namespace memprof {
namespace rt {

namespace {

// The serialized MIB is the packed list of fields at their on-disk widths;
// this must agree with the format header's own size check.
constexpr uint64_t serializedMIBSize() {
  return 0
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) +sizeof(Type)
#include "memprof/format/MIBFields.def"
      ;
}
static_assert(serializedMIBSize() == raw::MIBSizeV4,
              "the raw v4/v5 MemInfoBlock is 144 bytes");
static_assert(raw::RawVersionWritten == 5, "this writer emits raw v5");

class Cursor {
public:
  explicit Cursor(uint8_t *P) : P(P) {}
  void u64(uint64_t V) { put(V, 8); }
  void u32(uint64_t V) { put(V > 0xFFFFFFFFu ? 0xFFFFFFFFu : V, 4); }
  void field(uint64_t V, unsigned Width) { Width == 4 ? u32(V) : u64(V); }
  void bytes(const uint8_t *B, size_t N) {
    memcpy(P, B, N);
    P += N;
  }
  uint8_t *pos() const { return P; }

private:
  // Little-endian on every host, byte by byte.
  void put(uint64_t V, unsigned Width) {
    for (unsigned I = 0; I < Width; ++I)
      *P++ = uint8_t(V >> (8 * I));
  }
  uint8_t *P;
};

void writeMIB(Cursor &C, const MIB &M) {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  C.field(M.Name, sizeof(Type));
#include "memprof/format/MIBFields.def"
}

bool hasWrittenPath(const SegmentInfo &S) {
  return S.Path && S.PathSize && S.PathSize <= raw::ModulePathMaxSize;
}

} // namespace

RawProfileLayout computeRawProfileLayout(const SegmentInfo *Segments,
                                         uint64_t NumSegments, uint64_t NumMIBs,
                                         const StackInfo *Stacks,
                                         uint64_t NumStacks,
                                         uint64_t HistogramEntries,
                                         const HeapInfo *Heap) {
  RawProfileLayout L;
  L.SegmentBytes = raw::alignTo8(8 + raw::SegmentEntrySize * NumSegments);
  L.MIBBytes = raw::alignTo8(8 + NumMIBs * RawMIBRecordSize);
  // As LLVM's runtime sizes it: the histograms' u16 counts sit after their
  // MIBs, and all the padding at the end of the section.
  L.HistogramBytes = raw::alignTo8(HistogramEntries * 2);
  uint64_t StackBytes = 8;
  for (uint64_t I = 0; I < NumStacks; ++I)
    StackBytes += 16 + 8 * Stacks[I].NumPCs;
  L.StackBytes = raw::alignTo8(StackBytes);
  L.SegmentOffset = raw::HeaderSize;
  L.MIBOffset = L.SegmentOffset + L.SegmentBytes;
  L.StackOffset = L.MIBOffset + L.MIBBytes + L.HistogramBytes;
  L.PathsOffset = L.StackOffset + L.StackBytes;
  L.PathsBytes = 0;
  for (uint64_t I = 0; I < NumSegments; ++I)
    if (hasWrittenPath(Segments[I]))
      L.PathsBytes += 16 + raw::alignTo8(Segments[I].PathSize);
  if (L.PathsBytes)
    L.PathsBytes += 16;
  L.HeapOffset = L.PathsOffset + L.PathsBytes;
  L.HeapBytes = 0;
  if (Heap) {
    L.HeapBytes = 8 * (raw::HeapHeaderWords +
                       raw::HeapContextWords * Heap->NumContexts);
    for (uint64_t I = 0; I < Heap->NumSamples; ++I)
      L.HeapBytes += 8 * (3 + 2 * Heap->Samples[I].NumTop);
  }
  L.TotalSize = raw::alignTo8(L.HeapOffset + L.HeapBytes);
  return L;
}

void writeRawProfile(uint8_t *Out, const RawProfileLayout &L,
                     const SegmentInfo *Segments, uint64_t NumSegments,
                     const MIBInfo *MIBs, uint64_t NumMIBs,
                     const StackInfo *Stacks, uint64_t NumStacks,
                     const HeapInfo *Heap) {
  memset(Out, 0, L.TotalSize);
  Cursor C(Out);
  C.u64(raw::RawMagic);
  C.u64(raw::RawVersionWritten);
  C.u64(L.TotalSize);
  C.u64(L.SegmentOffset);
  C.u64(L.MIBOffset);
  C.u64(L.StackOffset);

  C = Cursor(Out + L.SegmentOffset);
  C.u64(NumSegments);
  for (uint64_t I = 0; I < NumSegments; ++I) {
    const SegmentInfo &S = Segments[I];
    uint64_t IdSize = S.BuildIdSize > raw::BuildIdMaxSize ? raw::BuildIdMaxSize
                                                          : S.BuildIdSize;
    C.u64(S.Start);
    C.u64(S.End);
    C.u64(S.Offset);
    C.u64(IdSize);
    uint8_t Id[raw::BuildIdMaxSize] = {};
    memcpy(Id, S.BuildId, IdSize);
    C.bytes(Id, sizeof(Id));
  }

  C = Cursor(Out + L.MIBOffset);
  C.u64(NumMIBs);
  for (uint64_t I = 0; I < NumMIBs; ++I) {
    C.u64(MIBs[I].StackId);
    MIB M = *MIBs[I].Block;
    const uint64_t *Counts =
        reinterpret_cast<const uint64_t *>(MIBs[I].Block->AccessHistogram);
    if (!Counts)
      M.AccessHistogramSize = 0;
    M.AccessHistogram = 0; // a pointer value in LLVM; meaningless on disk
    writeMIB(C, M);
    for (uint64_t J = 0; Counts && J < M.AccessHistogramSize; ++J) {
      uint16_t E = raw::encodeHistogramCount(Counts[J]);
      C.bytes(reinterpret_cast<const uint8_t *>(&E), 2); // little-endian host
    }
  }

  C = Cursor(Out + L.StackOffset);
  C.u64(NumStacks);
  for (uint64_t I = 0; I < NumStacks; ++I) {
    C.u64(Stacks[I].StackId);
    C.u64(Stacks[I].NumPCs);
    for (uint64_t J = 0; J < Stacks[I].NumPCs; ++J)
      C.u64(Stacks[I].PCs[J]);
  }

  if (Heap && L.HeapBytes) {
    C = Cursor(Out + L.HeapOffset);
    C.u64(raw::HeapMagic);
    C.u64(Heap->Flags);
    C.u64(Heap->DumpTimeMs);
    C.u64(Heap->PeakTimeMs);
    C.u64(Heap->PeakBytes);
    C.u64(Heap->PeakBlocks);
    C.u64(Heap->NumContexts);
    C.u64(Heap->NumSamples);
    for (uint64_t I = 0; I < Heap->NumContexts; ++I) {
      const HeapContextInfo &X = Heap->Contexts[I];
      C.u64(X.StackId);
      C.u64(X.LiveBytes);
      C.u64(X.LiveBlocks);
      C.u64(X.PeakBytes);
      C.u64(X.PeakBlocks);
    }
    for (uint64_t I = 0; I < Heap->NumSamples; ++I) {
      const HeapSampleInfo &X = Heap->Samples[I];
      C.u64(X.TimeMs);
      C.u64(X.TotalBytes);
      C.u64(X.NumTop);
      for (uint64_t J = 0; J < X.NumTop; ++J) {
        C.u64(X.TopIds[J]);
        C.u64(X.TopBytes[J]);
      }
    }
  }

  if (!L.PathsBytes)
    return;
  C = Cursor(Out + L.PathsOffset);
  C.u64(raw::ModulePathsMagic);
  uint64_t NumPaths = 0;
  for (uint64_t I = 0; I < NumSegments; ++I)
    NumPaths += hasWrittenPath(Segments[I]);
  C.u64(NumPaths);
  for (uint64_t I = 0; I < NumSegments; ++I) {
    const SegmentInfo &S = Segments[I];
    if (!hasWrittenPath(S))
      continue;
    C.u64(I);
    C.u64(S.PathSize);
    C.bytes(reinterpret_cast<const uint8_t *>(S.Path), S.PathSize);
    C = Cursor(C.pos() + (raw::alignTo8(S.PathSize) - S.PathSize));
  }
}

} // namespace rt
} // namespace memprof
