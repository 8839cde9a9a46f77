//===- RawReaderFuzzer.cpp - Fuzz the raw MemProf reader -------------------===//
//
// Reads the input as memprof-show does (PCs copied) and as memprof-merge does
// (PCs read in place, from an 8-byte-aligned copy of the bytes), and checks
// that both read alike: the same error, or the same stacks and MIBs.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/RawReader.h"

using memprof::HeapSample;
using memprof::RawHeapDump;
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  auto P = memprof::readRawProfile(Bytes);
  std::vector<uint64_t> Words((Size + 7) / 8);
  if (Size)
    std::memcpy(Words.data(), Data, Size);
  auto Q = memprof::readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Words.data()), Size),
      /*PCsInPlace=*/true);
  if (bool(P) != bool(Q))
    std::abort();
  if (!P) {
    if (llvm::toString(P.takeError()) != llvm::toString(Q.takeError()))
      std::abort();
    return 0;
  }
  // Touch everything the reader returned.
  uint64_t Sum = 0;
  for (const auto &KV : P->MIBs)
    Sum += KV.second.Info.TotalSize + KV.second.Histogram.size();
  if (P->Stacks.size() != Q->Stacks.size() || P->MIBs.size() != Q->MIBs.size())
    std::abort();
  for (size_t I = 0; I < P->Stacks.size(); ++I) {
    const auto &E = P->Stacks.Entries[I];
    Sum += P->Stacks.pcs(E).size();
    if (E.Id != Q->Stacks.Entries[I].Id ||
        P->Stacks.pcs(E) != Q->Stacks.pcs(Q->Stacks.Entries[I]))
      std::abort();
  }
  for (const RawHeapDump &D : P->HeapDumps) {
    for (const auto &C : D.Contexts)
      Sum += C.second.LiveBytes + C.second.PeakBlocks;
    for (const HeapSample &S : D.Samples)
      Sum += S.TotalBytes + S.Top.size();
  }
  return Sum == 42 ? 0 : 0;
}
