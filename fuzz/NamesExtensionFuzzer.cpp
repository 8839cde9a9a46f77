//===- NamesExtensionFuzzer.cpp - Fuzz the names extension reader ----------===//
//
// Whatever extension the reader accepts must survive a write and a read
// unchanged: every function, every location, every module path, the
// programs, every context's site module and type it described, and its
// heap table.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include <cstdlib>

using namespace memprof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Buf(reinterpret_cast<const char *>(Data), Size);
  NamesExtensionInfo Info;
  HeapProfile Heap;
  auto N = readNamesExtension(Buf, &Info, &Heap);
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
  // Every context whose site module the table recorded, at the first
  // function (whose own module may or may not be the site's).
  if (!N->functions().empty()) {
    const GUID G0 = N->functions().begin()->first;
    FrameId F0 = P.addFrame(Frame{G0, 0, 0, false});
    for (const auto &KV : N->siteModules()) {
      P.CallStacks.try_emplace(KV.first, llvm::SmallVector<FrameId, 8>{F0});
      P.Records[G0].AllocSites.push_back({KV.first, {}});
    }
    for (const auto &KV : N->types())
      if (P.CallStacks.try_emplace(KV.first, llvm::SmallVector<FrameId, 8>{F0})
              .second)
        P.Records[G0].AllocSites.push_back({KV.first, {}});
  }
  // Every type the table gave names a context of that profile.
  if (llvm::Error E = checkNamesContexts(*N, P)) {
    llvm::consumeError(std::move(E));
    if (!N->functions().empty())
      abort();
  }
  llvm::SmallVector<char, 0> Out;
  auto W = appendNamesExtension(Out, P, *N, &Heap);
  if (!W)
    abort(); // anything read must be writable
  HeapProfile HeapBack;
  auto Back = readNamesExtension(llvm::StringRef(Out.data(), Out.size()),
                                 nullptr, &HeapBack);
  if (!Back)
    abort(); // and readable again
  if (!(HeapBack == Heap))
    abort();
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
  // The programs, and each context's site module (stored or implied).
  if (!N->functions().empty() && Back->programs() != N->programs())
    abort();
  for (const auto &KV : N->siteModules()) {
    const GUID G0 = N->functions().begin()->first;
    if (Back->contextModule(KV.first, G0) != N->contextModule(KV.first, G0))
      abort();
  }
  if (!N->functions().empty())
    for (const auto &KV : N->types())
      if (Back->type(KV.first) != KV.second)
        abort();
  return 0;
}
