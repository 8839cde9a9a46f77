//===- NamesExtensionFuzzer.cpp - Fuzz the names extension reader ----------===//
//
// Whatever extension the reader accepts must survive a write and a read
// unchanged: every function, every location and every module path it
// described.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/ProfileNames.h"
#include <cstdlib>

using namespace memprof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Buf(reinterpret_cast<const char *>(Data), Size);
  NamesExtensionInfo Info;
  auto N = readNamesExtension(Buf, &Info);
  if (!N) {
    llvm::consumeError(N.takeError());
    return 0;
  }
  // A profile with a frame at every located line offset, and at offset 0.
  IndexedMemProf P;
  for (const auto &KV : N->functions())
    P.addCallStack({Frame{KV.first, 0, 0, false}});
  for (const auto &KV : N->locations())
    if (N->function(KV.first.first))
      P.addCallStack({Frame{KV.first.first, KV.first.second, 0, false}});
  llvm::SmallVector<char, 0> Out;
  auto W = appendNamesExtension(Out, P, *N);
  if (!W)
    abort(); // anything read must be writable
  auto Back = readNamesExtension(llvm::StringRef(Out.data(), Out.size()));
  if (!Back)
    abort(); // and readable again
  for (const auto &[G, F] : N->functions()) {
    const FunctionNameInfo *B = Back->function(G);
    if (!B || !(*B == F))
      abort();
    // The path of its module, when the table gave one.
    if (Back->modulePath(F.BuildId) != N->modulePath(F.BuildId))
      abort();
  }
  for (const auto &KV : P.Frames) {
    const Frame &F = KV.second;
    if (Back->location(F.Function, F.LineOffset) !=
        N->location(F.Function, F.LineOffset))
      abort();
  }
  return 0;
}
