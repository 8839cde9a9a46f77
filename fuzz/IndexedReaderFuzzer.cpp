//===- IndexedReaderFuzzer.cpp - Fuzz the indexed profile reader -----------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  memprof::IndexedProfileInfo Info;
  auto P = memprof::readIndexedProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size), &Info);
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
  return Sum == 42 ? 0 : 0;
}
