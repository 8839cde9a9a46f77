//===- MergePropertyTest.cpp - Partial merges in any shape equal one merge -===//
//
// Random raw profiles behind a fake symbolizer whose inline chains repeat
// functions (a small pool of GUIDs: templates inlined twice, inlined
// recursion), addresses that symbolize alike, runtime frames and addresses
// no symbol covers, each input with its module loaded at an address of its
// own (so a merge meets the same contexts at other PCs). The truth is summed here
// from the generated blocks; the library's indexed output must hold it after
// every write, read and re-merge, and every shape of partial merges must give
// the bytes of one merge.
//
//===----------------------------------------------------------------------===//
#include "ChainModule.h"
#include "RawBuilder.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Merge.h"
#include "gtest/gtest.h"
#include <map>
#include <random>
#include <set>
#include <algorithm>
#include <tuple>

using namespace memprof;
using namespace memprof::test;

namespace {

using FrameKey = std::tuple<GUID, uint32_t, uint32_t, bool>;
using StackKey = std::vector<FrameKey>;
struct Totals {
  uint64_t Count = 0, Size = 0, Lifetime = 0;
  bool operator==(const Totals &O) const {
    return Count == O.Count && Size == O.Size && Lifetime == O.Lifetime;
  }
};

StackKey keyOf(llvm::ArrayRef<Frame> Fs) {
  StackKey K;
  for (const Frame &F : Fs)
    K.emplace_back(F.Function, F.LineOffset, F.Column, F.IsInlineFrame);
  return K;
}

struct World {
  std::mt19937_64 Rng;
  ChainModule Mod;
  OneLocator Loc{&Mod};
  std::vector<uint64_t> PCs;
  std::vector<std::string> Raws;       // raw profile bytes
  std::map<StackKey, Totals> Truth;    // summed over every input
  uint64_t RuntimeFrames = 0;          // in the contexts of every input
  IndexedWriterOptions Opts;

  uint64_t pick(uint64_t N) { return Rng() % N; }

  explicit World(uint64_t Seed) : Rng(Seed) {
    Opts.MemProfVersion = 2 + Seed % 3;
    Opts.FullSchema = Seed % 2;
    // Twelve addresses; each an inline chain of 1-4 frames drawn from five
    // functions, so chains often name a function twice. One address in four
    // symbolizes like an earlier one (two raw stacks, one context).
    for (uint64_t I = 0; I < 12; ++I) {
      uint64_t PC = 0x1010 + 0x10 * I; // Start < PC <= End
      PCs.push_back(PC);
      if (I > 0 && pick(4) == 0) {
        Mod.Chains[PC] = Mod.Chains[PCs[pick(I)]];
        continue;
      }
      size_t Len = 1 + pick(4);
      std::vector<Frame> Chain;
      for (size_t J = 0; J < Len; ++J)
        Chain.push_back({1 + pick(5), uint32_t(pick(3)), uint32_t(pick(2)),
                         J + 1 < Len});
      Mod.Chains[PC] = Chain;
    }
    // A runtime frame and an address without symbols: dropped from contexts.
    PCs.push_back(0x1010 + 0x10 * 12);
    Mod.Runtime.insert(PCs.back());
    PCs.push_back(0x1010 + 0x10 * 13);
    size_t Inputs = 2 + pick(9);
    // Stacks the inputs share (one program's contexts recur in its runs),
    // beside stacks of their own.
    for (int I = 0; I < 6; ++I)
      Common.push_back(randomStack());
    for (size_t I = 0; I < Inputs; ++I)
      Raws.push_back(makeRaw());
  }

  std::vector<std::vector<uint64_t>> Common;
  std::vector<uint64_t> randomStack() {
    std::vector<uint64_t> Stack;
    size_t Depth = 1 + pick(4);
    for (size_t J = 0; J < Depth; ++J)
      Stack.push_back(PCs[pick(PCs.size())]);
    return Stack;
  }

  std::string makeRaw() {
    RawBuilder B;
    // Where this process loaded the module: PCs are the linked ones plus the
    // difference. Loads 16 bytes apart make one raw PC another address in
    // another input.
    const uint64_t Load =
        pick(2) ? 0x1000 + 0x100000 * pick(4) : 0x1000 + 0x10 * pick(8);
    // The module's segments (a segment holds Start < PC <= End): one; two
    // that meet at a PC (it lies in the first, the next PC in the second);
    // two that overlap; or one that ends at a PC, the PCs after it outside
    // every segment, where a context is cut.
    uint64_t Cut = ~0ULL; // the last linked address inside
    const uint64_t At = PCs[pick(PCs.size())] - 0x1000;
    switch (pick(4)) {
    case 0:
      B.Segs.push_back({Load, Load + 0x1000, 0, "chains"});
      break;
    case 1:
      B.Segs.push_back({Load, Load + At, 0, "chains"});
      B.Segs.push_back({Load + At, Load + 0x1000, At, "chains"});
      break;
    case 2:
      B.Segs.push_back({Load, Load + 0x1000, 0, "chains"});
      B.Segs.push_back({Load + 0x80, Load + 0x1000, 0x80, "chains"});
      break;
    default:
      B.Segs.push_back({Load, Load + At, 0, "chains"});
      Cut = 0x1000 + At;
    }
    std::set<std::vector<uint64_t>> Seen;
    size_t N = 1 + pick(6);
    for (size_t I = 0; I < N; ++I) {
      std::vector<uint64_t> Stack =
          pick(3) ? Common[pick(Common.size())] : randomStack();
      if (!Seen.insert(Stack).second)
        continue; // the runtime keeps one block per stack
      StackKey K;
      uint64_t Runtime = 0;
      for (uint64_t PC : Stack) {
        if (PC > Cut)
          break; // outside every segment: the context ends here
        Runtime += Mod.Runtime.count(PC);
        auto It = Mod.Chains.find(PC);
        if (It != Mod.Chains.end())
          for (const FrameKey &F : keyOf(It->second))
            K.push_back(F);
      }
      if (K.empty())
        continue; // nothing symbolized: the merge would drop it
      RuntimeFrames += Runtime;
      uint64_t Count = 1 + pick(5), Size = 1 + pick(1000);
      MemInfoBlock M = MemInfoBlock::forAllocation(Size, pick(50), 0,
                                                   uint32_t(1 + pick(300)), 0, 0);
      M.AllocCount = Count;
      M.TotalSize = Count * Size;
      M.TotalLifetime = Count * (1 + pick(300));
      uint64_t Id = B.Stacks.size() + 1;
      B.MIBs.push_back({Id, M, {}});
      for (uint64_t &PC : Stack)
        PC += Load - 0x1000;
      B.Stacks.push_back({Id, Stack});
      Totals &T = Truth[K];
      T.Count += Count;
      T.Size += M.TotalSize;
      T.Lifetime += M.TotalLifetime;
    }
    return B.build();
  }

  /// One memprof-merge call: the same order rule as the tool (one raw input
  /// alone keeps llvm-profdata's order).
  std::string merge(const std::vector<const std::string *> &In,
                    uint64_t *RuntimeFramesDropped = nullptr) {
    ProfileMerger M(&Loc);
    size_t RawCount = 0;
    for (const std::string *Bytes : In) {
      if (isIndexedProfile(*Bytes)) {
        IndexedProfileInfo Info;
        auto P = readIndexedProfile(*Bytes, &Info);
        EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
        M.addIndexed(*P, Info.Schema);
        continue;
      }
      ++RawCount;
      auto P = readRawProfile(*Bytes);
      EXPECT_TRUE(bool(P));
      if (llvm::Error E = M.addRaw(*P))
        ADD_FAILURE() << llvm::toString(std::move(E));
    }
    RecordOrder Order = In.size() == 1 && RawCount == 1
                            ? RecordOrder::FirstAppearance
                            : RecordOrder::Canonical;
    if (RuntimeFramesDropped)
      *RuntimeFramesDropped = M.stats().RuntimeFramesDropped;
    llvm::SmallVector<char, 0> Out;
    auto W = writeIndexedProfile(M.build(Order), Opts, Out);
    EXPECT_TRUE(bool(W));
    return std::string(Out.data(), Out.size());
  }

  std::map<StackKey, Totals> contextsOf(const std::string &Bytes) {
    auto P = readIndexedProfile(Bytes);
    EXPECT_TRUE(bool(P));
    std::map<StackKey, Totals> Got;
    for (const IndexedContext &C : indexedContexts(*P)) {
      Totals &T = Got[keyOf(P->stackFrames(C.Id))];
      EXPECT_EQ(T.Count, 0u) << "a context listed twice";
      T = {C.Info.AllocCount, C.Info.TotalSize, C.Info.TotalLifetime};
    }
    return Got;
  }
};

std::vector<const std::string *> ptrs(const std::vector<std::string> &V) {
  std::vector<const std::string *> Out;
  for (const std::string &S : V)
    Out.push_back(&S);
  return Out;
}

TEST(MergeProperty, ContextsRepeatedInTheirInlineChainCountOnce) {
  // Inl appears twice in the leading chain: its record holds the context
  // twice, and reading it back must not count it twice.
  ChainModule Mod;
  OneLocator Loc(&Mod);
  Mod.Chains[0x1010] = {{7, 1, 0, true}, {8, 2, 0, true}, {7, 3, 0, false}};
  Mod.Chains[0x1020] = {{9, 0, 0, false}};
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0, "chains"});
  MemInfoBlock M = MemInfoBlock::forAllocation(64, 0, 0, 5, 0, 0);
  M.AllocCount = 6;
  M.TotalSize = 384;
  B.MIBs.push_back({1, M, {}});
  B.Stacks.push_back({1, {0x1010, 0x1020}});
  auto Raw = readRawProfile(B.build());
  ASSERT_TRUE(bool(Raw));
  ProfileMerger One(&Loc);
  ASSERT_FALSE(bool(One.addRaw(*Raw)));
  for (RecordOrder Order : {RecordOrder::FirstAppearance, RecordOrder::Canonical}) {
    IndexedMemProf P = One.build(Order);
    ASSERT_EQ(P.Records[7].AllocSites.size(), 2u); // LLVM's shape
    ASSERT_EQ(P.Records[8].AllocSites.size(), 1u);
    auto Ctx = indexedContexts(P);
    ASSERT_EQ(Ctx.size(), 1u);
    EXPECT_EQ(Ctx[0].Info.AllocCount, 6u);
    EXPECT_EQ(Ctx[0].Info.TotalSize, 384u);
    // Merged again, three times over: the same totals each time.
    IndexedMemProf Again = P;
    for (int I = 0; I < 3; ++I) {
      ProfileMerger Re(&Loc);
      Re.addIndexed(Again, fullSchema());
      Again = Re.build(RecordOrder::Canonical);
      auto C = indexedContexts(Again);
      ASSERT_EQ(C.size(), 1u);
      EXPECT_EQ(C[0].Info.AllocCount, 6u);
      EXPECT_EQ(C[0].Info.TotalSize, 384u);
    }
  }
}

TEST(MergeProperty, TwoStacksThatSymbolizeAlikeAreSummed) {
  // Two raw stacks, one context: llvm-profdata's shape keeps two entries
  // (each copied per repeat of the leaf function); both count.
  ChainModule Mod;
  OneLocator Loc(&Mod);
  Mod.Chains[0x1010] = {{7, 1, 0, true}, {7, 1, 0, false}};
  Mod.Chains[0x1018] = Mod.Chains[0x1010];
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0, "chains"});
  MemInfoBlock A = MemInfoBlock::forAllocation(8, 0, 0, 5, 0, 0);
  MemInfoBlock C = MemInfoBlock::forAllocation(100, 0, 0, 5, 0, 0);
  B.MIBs.push_back({1, A, {}});
  B.Stacks.push_back({1, {0x1010}});
  B.MIBs.push_back({2, C, {}});
  B.Stacks.push_back({2, {0x1018}});
  auto Raw = readRawProfile(B.build());
  ASSERT_TRUE(bool(Raw));
  ProfileMerger One(&Loc);
  ASSERT_FALSE(bool(One.addRaw(*Raw)));
  IndexedMemProf P = One.build(RecordOrder::FirstAppearance);
  ASSERT_EQ(P.Records[7].AllocSites.size(), 4u);
  auto Ctx = indexedContexts(P);
  ASSERT_EQ(Ctx.size(), 1u);
  EXPECT_EQ(Ctx[0].Info.AllocCount, 2u);
  EXPECT_EQ(Ctx[0].Info.TotalSize, 108u);
  EXPECT_EQ(Ctx[0].Info.MinSize, 8u);
  EXPECT_EQ(Ctx[0].Info.MaxSize, 100u);
}

TEST(MergeProperty, PartialMergesInAnyShapeEqualOneMerge) {
  for (uint64_t Seed = 1; Seed <= 60; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    World W(Seed);
    uint64_t RuntimeFrames = 0;
    const std::string One = W.merge(ptrs(W.Raws), &RuntimeFrames);
    // Write, read: every context once, with the truth summed here.
    ASSERT_EQ(W.contextsOf(One), W.Truth);
    EXPECT_EQ(RuntimeFrames, W.RuntimeFrames);
    // Each input alone (llvm-profdata's order for one raw input) and each
    // re-merged: its own contexts, exactly.
    for (const std::string &Raw : W.Raws) {
      std::string Alone = W.merge({&Raw});
      EXPECT_EQ(W.contextsOf(W.merge({&Alone})), W.contextsOf(Alone));
    }
    // Re-merging memprof-merge's output of several inputs changes no byte,
    // however often.
    std::string Again = One;
    for (int I = 0; I < 3; ++I) {
      Again = W.merge({&Again});
      ASSERT_EQ(Again, One) << "re-merge " << I + 1;
    }

    // A random split into parts, each merged from its raw inputs.
    std::vector<std::string> Shuffled = W.Raws;
    std::shuffle(Shuffled.begin(), Shuffled.end(), W.Rng);
    std::vector<std::string> Parts;
    for (size_t I = 0; I < Shuffled.size();) {
      size_t N = 1 + W.pick(3);
      std::vector<const std::string *> In;
      for (; N && I < Shuffled.size(); --N, ++I)
        In.push_back(&Shuffled[I]);
      Parts.push_back(W.merge(In));
    }
    // A chain: each part merged into the running result.
    std::string Chain = Parts[0];
    for (size_t I = 1; I < Parts.size(); ++I)
      Chain = W.merge({&Chain, &Parts[I]});
    EXPECT_EQ(Chain, One) << "chain of " << Parts.size() << " parts";
    // A tree of fan-in 2, the parts reversed.
    std::vector<std::string> Level(Parts.rbegin(), Parts.rend());
    while (Level.size() > 1) {
      std::vector<std::string> Next;
      for (size_t I = 0; I < Level.size(); I += 2)
        Next.push_back(I + 1 < Level.size() ? W.merge({&Level[I], &Level[I + 1]})
                                            : W.merge({&Level[I]}));
      Level = std::move(Next);
    }
    EXPECT_EQ(Level[0], One) << "tree";
    // One input at a time, each merged alone first.
    std::string Acc = W.merge({&W.Raws[0]});
    for (size_t I = 1; I < W.Raws.size(); ++I) {
      std::string Alone = W.merge({&W.Raws[I]});
      Acc = W.merge({&Acc, &Alone});
    }
    EXPECT_EQ(Acc, One) << "one at a time";
  }
}

} // namespace
