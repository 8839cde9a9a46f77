//===- RawProfileWriter.h - Serialize to LLVM raw MemProf v5 ----*- C++ -*-===//
//
// Freestanding (no allocation, no libc beyond memset/memcpy): the caller sizes
// the buffer with computeRawProfileLayout, then writeRawProfile fills exactly
// TotalSize bytes. Layout and padding follow the spec, section 1.6, as the
// LLVM 22 runtime computes them. A unit test pins the bytes
// (unittests/Runtime/RawProfileWriterTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_RAWPROFILEWRITER_H
#define MEMPROF_RUNTIME_RAWPROFILEWRITER_H

#include "MIB.h"
#include "memprof/format/RawProfileFormat.h"
#include <stdint.h>

namespace memprof {
namespace rt {

/// One executable PT_LOAD segment of a loaded module.
struct SegmentInfo {
  uint64_t Start;  ///< load bias + p_vaddr
  uint64_t End;    ///< Start + p_memsz
  uint64_t Offset; ///< the module's load bias (LLVM's reader ignores it)
  uint64_t BuildIdSize;
  uint8_t BuildId[raw::BuildIdMaxSize];
  /// Where the module was loaded from (PathSize bytes, no NUL), for the
  /// module-paths extension; PathSize 0: not known (not written).
  const char *Path;
  uint64_t PathSize;
};

struct MIBInfo {
  uint64_t StackId;
  const MIB *Block;
};

struct StackInfo {
  uint64_t StackId;
  const uint64_t *PCs; ///< leaf first, already "previous instruction" PCs
  uint64_t NumPCs;
};

/// One context's heap values (docs/heap-data.md).
struct HeapContextInfo {
  uint64_t StackId;
  uint64_t LiveBytes, LiveBlocks, PeakBytes, PeakBlocks;
};

/// One timeline sample: the total live bytes, and the live bytes of up to
/// raw::HeapMaxTop contexts.
struct HeapSampleInfo {
  uint64_t TimeMs, TotalBytes, NumTop;
  uint64_t TopIds[raw::HeapMaxTop];
  uint64_t TopBytes[raw::HeapMaxTop];
};

/// The heap section of a dump.
struct HeapInfo {
  uint64_t Flags; ///< raw::HeapFlagExitDump
  uint64_t DumpTimeMs, PeakTimeMs, PeakBytes, PeakBlocks;
  const HeapContextInfo *Contexts; ///< by increasing stack id
  uint64_t NumContexts;
  const HeapSampleInfo *Samples;
  uint64_t NumSamples;
};

struct RawProfileLayout {
  uint64_t SegmentOffset, MIBOffset, StackOffset, TotalSize;
  uint64_t SegmentBytes, MIBBytes, HistogramBytes, StackBytes;
  /// The module-paths extension after the stacks; 0 bytes when no segment
  /// has a path (the file is then laid out exactly as LLVM's runtime does).
  uint64_t PathsOffset, PathsBytes;
  /// The heap section after the paths; 0 bytes without heap data.
  uint64_t HeapOffset, HeapBytes;
};

/// Bytes one MIB record takes in raw v5 without its histogram: the stack id
/// plus the 144-byte packed block.
constexpr uint64_t RawMIBRecordSize = 8 + raw::MIBSizeV4;

/// \p HistogramEntries: the sum of the MIBs' AccessHistogramSize. Paths
/// longer than raw::ModulePathMaxSize are not written.
RawProfileLayout computeRawProfileLayout(const SegmentInfo *Segments,
                                         uint64_t NumSegments, uint64_t NumMIBs,
                                         const StackInfo *Stacks,
                                         uint64_t NumStacks,
                                         uint64_t HistogramEntries = 0,
                                         const HeapInfo *Heap = nullptr);

/// Writes one complete raw profile (header, segments, MIBs, stacks, the
/// module paths when any segment has one, and the heap section with \p Heap) of
/// exactly \p L.TotalSize bytes to \p Out; padding bytes are zero. MIBs and
/// stacks are written in the order given (the runtime sorts them by id).
/// 32-bit fields saturate. Each MIB's access histogram (AccessHistogramSize
/// u64 counts at the address in AccessHistogram) follows it, encoded as raw
/// v5's u16 counts; the AccessHistogram field itself is written as 0.
void writeRawProfile(uint8_t *Out, const RawProfileLayout &L,
                     const SegmentInfo *Segments, uint64_t NumSegments,
                     const MIBInfo *MIBs, uint64_t NumMIBs,
                     const StackInfo *Stacks, uint64_t NumStacks,
                     const HeapInfo *Heap = nullptr);

} // namespace rt
} // namespace memprof

#endif
