//===- IndexedReaderFuzzer.cpp - Fuzz the indexed profile reader -----------===//
//
// Both halves: the MemProf section and the counter records (function table,
// binary ids, vtable names, temporal traces). Whatever reads must also write
// back without an error the writer did not expect.
//
#include "memprof/ProfileData/IndexedProfile.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  memprof::IndexedProfileInfo Info;
  memprof::CounterProfile Counters;
  auto P = memprof::readIndexedProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size), &Info,
      nullptr, &Counters);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  uint64_t Sum = 0;
  for (const auto &KV : P->Records) {
    for (const auto &AS : KV.second.AllocSites)
      Sum += P->stackFrames(AS.CSId).size() + AS.Info.AllocCount;
    for (const auto &CS : KV.second.CallSites)
      Sum += P->stackFrames(CS.CSId).size();
  }
  for (const auto &R : Counters.Records)
    Sum += R.Counts.size() + R.Bitmap.size() + R.Sites[0].size();
  // A file the reader accepts holds nothing the writer refuses.
  llvm::SmallVector<char, 0> Out;
  auto W = memprof::writeIndexedProfile(Counters, nullptr,
                                        memprof::IndexedWriterOptions(), Out);
  if (!W) {
    llvm::consumeError(W.takeError());
    __builtin_trap();
  }
  return Sum == 42 ? 0 : 0;
}
