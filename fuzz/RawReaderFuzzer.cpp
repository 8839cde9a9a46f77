//===- RawReaderFuzzer.cpp - Fuzz the raw MemProf reader -------------------===//
#include "memprof/ProfileData/RawReader.h"

using memprof::HeapSample;
using memprof::RawHeapDump;
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto P = memprof::readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  // Touch everything the reader returned.
  uint64_t Sum = 0;
  for (const auto &KV : P->MIBs)
    Sum += KV.second.Info.TotalSize + KV.second.Histogram.size();
  for (const auto &E : P->Stacks.Entries)
    Sum += P->Stacks.pcs(E).size();
  for (const RawHeapDump &D : P->HeapDumps) {
    for (const auto &C : D.Contexts)
      Sum += C.second.LiveBytes + C.second.PeakBlocks;
    for (const HeapSample &S : D.Samples)
      Sum += S.TotalBytes + S.Top.size();
  }
  return Sum == 42 ? 0 : 0;
}
