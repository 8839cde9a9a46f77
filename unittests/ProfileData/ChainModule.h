//===- ChainModule.h - A module of given inline chains, for tests -*- C++ -*-===//
//
// The symbolizer the merge property tests give ProfileMerger: each address
// symbolizes to the inline chain the test puts in Chains (leaf first), an
// address in Runtime to a runtime frame, any other address to nothing; a
// function named in Names gets that name and a source file (/src/f.c, line
// 10 + its line offset), others none. The module is linked at 0x1000: a
// segment that starts elsewhere was loaded there (ASLR), its Offset being
// where it starts in the module. OneLocator finds that one module for every
// build id.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_UNITTESTS_CHAINMODULE_H
#define MEMPROF_UNITTESTS_CHAINMODULE_H

#include "memprof/ProfileData/Symbolizer.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace memprof {
namespace test {

class ChainModule : public ModuleSymbolizer {
public:
  std::map<uint64_t, std::vector<Frame>> Chains;
  std::map<GUID, std::string> Names;
  std::set<uint64_t> Runtime;
  llvm::StringRef path() const override { return "chains"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - (S.Start - S.Offset - 0x1000);
  }
  PCSymbols symbolize(uint64_t Addr) override {
    PCSymbols S;
    if (Runtime.count(Addr)) {
      S.Status = PCSymbols::Runtime;
      return S;
    }
    auto It = Chains.find(Addr);
    if (It == Chains.end())
      return S;
    S.Status = PCSymbols::Ok;
    for (const Frame &F : It->second) {
      auto N = Names.find(F.Function);
      if (N == Names.end())
        S.Frames.push_back({F, "", "", 0, ""});
      else
        S.Frames.push_back({F, N->second, "/src/f.c", 10 + F.LineOffset,
                            "/src/f.c"});
    }
    return S;
  }
};

class OneLocator : public BinaryLocator {
public:
  ChainModule *M;
  explicit OneLocator(ChainModule *M) : M(M) {}
  llvm::Expected<ModuleSymbolizer *> find(llvm::StringRef) override {
    return M;
  }
};

} // namespace test
} // namespace memprof

#endif
