//===- HeapMergeTest.cpp - Heap data through the merger --------------------===//
//
// The merge rules of docs/heap-data.md behind a fake symbolizer: raw stacks
// that symbolize alike add up, a dropped context drops its values, weights
// and dumps count runs, the timeline of the highest peak is kept whatever
// the order, pruning moves values to the context that takes the MIB. Then a
// property test: random raw profiles with heap sections, whose sums the test
// computes itself, merged in one go and in partial merges of every shape,
// must give the same bytes (LLVM part and extension) and hold those sums.
//
//===----------------------------------------------------------------------===//
#include "ChainModule.h"
#include "RawBuilder.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Merge.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>

using namespace memprof;
using namespace memprof::test;

namespace {

MemInfoBlock block(uint64_t Count, uint64_t Size) {
  MemInfoBlock M = MemInfoBlock::forAllocation(Size, 0, 0, 5, 0, 0);
  M.AllocCount = Count;
  M.TotalSize = Count * Size;
  return M;
}

RawBuilder rawOf(std::vector<std::pair<uint64_t, std::vector<uint64_t>>> Stacks,
                 uint64_t Count = 4) {
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0, "chains"});
  for (auto &[Id, PCs] : Stacks) {
    B.MIBs.push_back({Id, block(Count, 16), {}});
    B.Stacks.push_back({Id, PCs});
  }
  return B;
}

RawProfile read(const std::string &Bytes) {
  auto P = readRawProfile(Bytes);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : RawProfile();
}

/// The bytes memprof-merge writes: the LLVM part, then the extension.
std::string write(const ProfileMerger &M, RecordOrder Order,
                  const IndexedWriterOptions &Opts = {}) {
  IndexedMemProf P = M.build(Order);
  llvm::SmallVector<char, 0> Out;
  EXPECT_TRUE(bool(writeIndexedProfile(P, Opts, Out)));
  HeapProfile H = M.heap();
  EXPECT_TRUE(bool(appendNamesExtension(Out, P, M.names(), &H)));
  return std::string(Out.data(), Out.size());
}

/// Adds an indexed file as memprof-merge reads it.
void addIndexedFile(ProfileMerger &M, const std::string &Bytes,
                    uint64_t Weight = 1) {
  NamesExtensionInfo NI;
  HeapProfile Heap;
  auto N = readNamesExtension(Bytes, &NI, &Heap);
  ASSERT_TRUE(bool(N)) << llvm::toString(N.takeError());
  IndexedProfileInfo Info;
  auto P = readIndexedProfile(
      NI.Present ? llvm::StringRef(Bytes).take_front(NI.Offset) : Bytes, &Info);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_FALSE(bool(checkHeapContexts(Heap, *P)));
  M.addIndexed(*P, Info.Schema, &*N, Weight, &Heap);
}

struct Fixture {
  ChainModule Mod;
  OneLocator Loc{&Mod};
  Fixture() {
    Mod.Chains[0x1010] = {{7, 1, 0, false}};
    Mod.Chains[0x1020] = {{7, 1, 0, false}}; // symbolizes as 0x1010
    Mod.Chains[0x1040] = {{8, 2, 0, false}};
    Mod.Chains[0x1050] = {{9, 0, 0, false}};
    // 0x1030 symbolizes to nothing.
  }
  CallStackId idOf(std::vector<Frame> Fs) {
    IndexedMemProf P;
    return P.addCallStack(Fs);
  }
};

TEST(HeapMerge, RawStacksThatSymbolizeAlikeAddUpAndDroppedOnesDrop) {
  Fixture F;
  RawBuilder B = rawOf({{1, {0x1010, 0x1050}},
                        {2, {0x1020, 0x1050}},
                        {3, {0x1040}},
                        {4, {0x1030}}});
  RawHeapSection H;
  H.Flags = 1;
  H.DumpTimeMs = 90;
  H.PeakTimeMs = 50;
  H.PeakBytes = 700;
  H.PeakBlocks = 7;
  H.Contexts = {{1, 100, 1, 200, 2},
                {2, 50, 1, 0, 0},
                {3, 16, 1, 16, 1},
                {4, 32, 2, 480, 3}};
  H.Samples = {{50, 700, {{4, 480}, {1, 200}, {3, 16}}},
               {80, 300, {{1, 150}, {2, 150}, {4, 0}}}};
  B.Heap = H;
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(read(B.build()))));
  const CallStackId A = F.idOf({{7, 1, 0, false}, {9, 0, 0, false}});
  const CallStackId C = F.idOf({{8, 2, 0, false}});
  ASSERT_TRUE(M.hasHeap());
  HeapProfile Got = M.heap();
  EXPECT_EQ(Got.Summary, (HeapSummary{1, 1, 700, 7}));
  ASSERT_EQ(Got.Contexts.size(), 2u); // stack 4 dropped with its MIB
  EXPECT_EQ(Got.Contexts[A], (HeapStats{150, 2, 200, 2}));
  EXPECT_EQ(Got.Contexts[C], (HeapStats{16, 1, 16, 1}));
  EXPECT_EQ(Got.Timeline.PeakTimeMs, 50u);
  EXPECT_EQ(Got.Timeline.PeakBytes, 700u);
  ASSERT_EQ(Got.Timeline.Samples.size(), 2u);
  EXPECT_EQ(Got.Timeline.Samples[0].TotalBytes, 700u); // totals stay whole
  using Top = llvm::SmallVector<HeapTopEntry, 8>;
  EXPECT_EQ(Got.Timeline.Samples[0].Top, (Top{{A, 200}, {C, 16}}));
  EXPECT_EQ(Got.Timeline.Samples[1].Top, (Top{{A, 300}}));
  EXPECT_EQ(M.heapStats(C), (HeapStats{16, 1, 16, 1}));
}

TEST(HeapMerge, DumpsAndWeightsCountRuns) {
  Fixture F;
  RawBuilder First = rawOf({{1, {0x1010}}});
  First.Heap = RawHeapSection{1, 10, 5, 64, 1, {{1, 16, 1, 64, 1}}, {}};
  RawBuilder Exit = rawOf({{1, {0x1010}}});
  Exit.Heap = RawHeapSection{1, 20, 5, 32, 2, {{1, 32, 2, 32, 2}}, {}};
  RawBuilder None = rawOf({{1, {0x1010}}}); // recorded no heap data
  const std::string Bytes = First.build() + None.build() + Exit.build();
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(read(Bytes), 3)));
  HeapProfile H = M.heap();
  EXPECT_EQ(H.Summary, (HeapSummary{6, 6, 288, 9}));
  const CallStackId A = F.idOf({{7, 1, 0, false}});
  EXPECT_EQ(H.Contexts[A], (HeapStats{144, 9, 288, 9}));
  // The kept timeline is one run's, not weighted.
  EXPECT_EQ(H.Timeline.PeakBytes, 64u);
  // A weighted indexed input counts as many times.
  ProfileMerger Re(&F.Loc);
  addIndexedFile(Re, write(M, RecordOrder::Canonical), 2);
  HeapProfile Twice = Re.heap();
  EXPECT_EQ(Twice.Summary, (HeapSummary{12, 12, 576, 18}));
  EXPECT_EQ(Twice.Contexts[A], (HeapStats{288, 18, 576, 18}));
  EXPECT_EQ(Twice.Timeline, H.Timeline);
}

TEST(HeapMerge, TheTimelineOfTheHighestPeakWhateverTheOrder) {
  Fixture F;
  auto Run = [&](uint64_t Peak, uint64_t PeakTime) {
    RawBuilder B = rawOf({{1, {0x1010}}, {2, {0x1040}}});
    B.Heap = RawHeapSection{0, 100, PeakTime, Peak, 2,
                            {{1, 0, 0, Peak / 2, 1}, {2, 0, 0, Peak / 2, 1}},
                            {{PeakTime, Peak, {{2, Peak / 2}}}}};
    return B.build();
  };
  // Two runs tie at the highest peak: the earlier peak time sorts first.
  std::vector<std::string> Runs = {Run(100, 10), Run(300, 40), Run(300, 30)};
  std::vector<size_t> Order = {0, 1, 2};
  std::optional<HeapProfile> First;
  do {
    ProfileMerger M(&F.Loc);
    for (size_t I : Order)
      ASSERT_FALSE(bool(M.addRaw(read(Runs[I]))));
    HeapProfile H = M.heap();
    EXPECT_EQ(H.Timeline.PeakBytes, 300u);
    EXPECT_EQ(H.Timeline.PeakTimeMs, 30u);
    EXPECT_EQ(H.Summary.PeakBytes, 700u);
    if (!First)
      First = H;
    EXPECT_EQ(H, *First);
  } while (std::next_permutation(Order.begin(), Order.end()));
}

TEST(HeapMerge, PruningMovesValuesToTheContextThatTakesTheMIB) {
  Fixture F;
  // Two contexts of one site (7 called from 9, and 7 called from 8): folded
  // below 1,000 bytes, both become the site's remainder.
  RawBuilder B = rawOf({{1, {0x1010, 0x1050}}, {2, {0x1010, 0x1040}}});
  B.Heap = RawHeapSection{0, 100, 50, 96, 3,
                          {{1, 16, 1, 64, 2}, {2, 32, 1, 32, 1}},
                          {{50, 96, {{1, 64}, {2, 32}}}}};
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(read(B.build()))));
  PruneOptions O;
  O.MinBytes = 1000;
  PruneStats S = M.prune(O);
  EXPECT_EQ(S.Folded, 2u);
  const CallStackId Site = F.idOf({{7, 1, 0, false}});
  HeapProfile H = M.heap();
  ASSERT_EQ(H.Contexts.size(), 1u);
  EXPECT_EQ(H.Contexts[Site], (HeapStats{48, 2, 96, 3}));
  using Top = llvm::SmallVector<HeapTopEntry, 8>;
  EXPECT_EQ(H.Timeline.Samples[0].Top, (Top{{Site, 96}}));
  // And the pruned file reads back to the same heap data.
  ProfileMerger Re(&F.Loc);
  addIndexedFile(Re, write(M, RecordOrder::Canonical));
  EXPECT_EQ(Re.heap(), H);
}

//===----------------------------------------------------------------------===//
// Property: partial merges in any shape equal one merge, and hold the sums.
//===----------------------------------------------------------------------===//

using StackKey = std::vector<std::tuple<GUID, uint32_t, uint32_t, bool>>;

StackKey keyOf(llvm::ArrayRef<Frame> Fs) {
  StackKey K;
  for (const Frame &F : Fs)
    K.emplace_back(F.Function, F.LineOffset, F.Column, F.IsInlineFrame);
  return K;
}

/// A timeline with its top entries named by stack and summed: how the test
/// compares the kept timeline with the run it computed.
using KeyedSample = std::tuple<uint64_t, uint64_t, std::map<StackKey, uint64_t>>;
struct KeyedTimeline {
  uint64_t PeakTimeMs = 0, PeakBytes = 0;
  std::vector<KeyedSample> Samples;
  bool operator==(const KeyedTimeline &O) const {
    return PeakTimeMs == O.PeakTimeMs && PeakBytes == O.PeakBytes &&
           Samples == O.Samples;
  }
};

struct World {
  std::mt19937_64 Rng;
  ChainModule Mod;
  OneLocator Loc{&Mod};
  std::vector<uint64_t> PCs;
  std::vector<std::string> Raws;
  // The truth, summed here (plain sums: nothing here saturates).
  std::array<uint64_t, 4> Sum{}; // runs, exit runs, peak bytes, peak blocks
  std::map<StackKey, std::array<uint64_t, 4>> Stats; // live, peak

  std::vector<std::pair<uint64_t, KeyedTimeline>> Timelines; // peak, run's
  IndexedWriterOptions Opts;

  uint64_t pick(uint64_t N) { return Rng() % N; }

  explicit World(uint64_t Seed) : Rng(Seed) {
    Opts.MemProfVersion = 2 + Seed % 3;
    // Named functions, so that every merge writes the names extension.
    std::vector<GUID> Funcs;
    for (const char *Name : {"f1", "f2", "f3", "f4"}) {
      Funcs.push_back(functionGUID(Name));
      Mod.Names[Funcs.back()] = Name;
    }
    // Ten addresses of one or two frames; one in four symbolizes like an
    // earlier one; 0x10f0 symbolizes to nothing (its contexts are dropped).
    for (uint64_t I = 0; I < 10; ++I) {
      uint64_t PC = 0x1010 + 0x10 * I;
      PCs.push_back(PC);
      if (I > 0 && pick(4) == 0) {
        Mod.Chains[PC] = Mod.Chains[PCs[pick(I)]];
        continue;
      }
      std::vector<Frame> Chain;
      for (size_t J = 0, Len = 1 + pick(2); J < Len; ++J)
        Chain.push_back({Funcs[pick(4)], uint32_t(pick(3)), 0, J + 1 < Len});
      Mod.Chains[PC] = Chain;
    }
    PCs.push_back(0x10f0);
    for (size_t I = 0, N = 2 + pick(7); I < N; ++I)
      Raws.push_back(makeRaw());
  }

  StackKey keyOfStack(const std::vector<uint64_t> &Stack) {
    StackKey K;
    for (uint64_t PC : Stack) {
      auto It = Mod.Chains.find(PC);
      if (It != Mod.Chains.end())
        for (const auto &F : keyOf(It->second))
          K.push_back(F);
    }
    return K;
  }

  /// One file of one or two dumps over one set of stacks; most dumps have a
  /// heap section consistent with their MIBs.
  std::string makeRaw() {
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> Stacks;
    std::set<std::vector<uint64_t>> Seen;
    for (size_t I = 0, N = 1 + pick(6); I < N; ++I) {
      std::vector<uint64_t> Stack;
      // The first stack always keeps a frame, so no file loses every one.
      for (size_t J = 0, D = 1 + pick(3); J < D; ++J)
        Stack.push_back(I == 0 ? PCs[pick(PCs.size() - 1)]
                               : PCs[pick(PCs.size())]);
      if (Seen.insert(Stack).second)
        Stacks.push_back({Stacks.size() + 1, Stack});
    }
    std::string Bytes;
    for (size_t Dump = 0, Dumps = 1 + pick(2); Dump < Dumps; ++Dump) {
      RawBuilder B;
      B.Segs.push_back({0x1000, 0x2000, 0, "chains"});
      std::map<uint64_t, uint64_t> Counts;
      for (const auto &S : Stacks) {
        if (Dump && pick(3) == 0)
          continue; // a stack this dump did not see
        uint64_t Count = 1 + pick(4);
        B.MIBs.push_back({S.first, block(Count, 1 + pick(100)), {}});
        B.Stacks.push_back(S);
        Counts[S.first] = Count;
      }
      if (B.MIBs.empty() || pick(5) == 0) {
        if (B.MIBs.empty()) {
          B.MIBs.push_back({Stacks[0].first, block(1, 8), {}});
          B.Stacks.push_back(Stacks[0]);
        }
        Bytes += B.build();
        continue; // no heap data in this dump
      }
      RawHeapSection H;
      H.Flags = pick(2);
      H.DumpTimeMs = 1000 + pick(1000);
      H.PeakTimeMs = pick(H.DumpTimeMs + 1);
      // Peaks often tie, so the order between timelines is exercised.
      H.PeakBytes = 100 * (1 + pick(6));
      H.PeakBlocks = 1 + pick(20);
      for (const auto &[Id, Count] : Counts) {
        RawHeapSection::Context C{Id, 0, pick(Count + 1), 0, pick(Count + 1)};
        if (!C.LiveBlocks && !C.PeakBlocks)
          continue;
        C.LiveBytes = C.LiveBlocks ? pick(1000) : 0;
        C.PeakBytes = C.PeakBlocks ? pick(1000) : 0;
        H.Contexts.push_back(C);
        if (dropped(stackOf(Stacks, Id)))
          continue; // dropped by symbolization, with its MIB
        auto &T = Stats[keyOfStack(stackOf(Stacks, Id))];
        T[0] += C.LiveBytes;
        T[1] += C.LiveBlocks;
        T[2] += C.PeakBytes;
        T[3] += C.PeakBlocks;
      }
      KeyedTimeline Truth{H.PeakTimeMs, H.PeakBytes, {}};
      uint64_t Time = 0;
      for (size_t I = 0, N = pick(5); I < N; ++I) {
        Time = std::min(H.DumpTimeMs, Time + pick(400));
        RawHeapSection::Sample S{Time, pick(H.PeakBytes + 1), {}};
        std::vector<uint64_t> Ids;
        for (const auto &KV : Counts)
          Ids.push_back(KV.first);
        std::shuffle(Ids.begin(), Ids.end(), Rng);
        std::vector<uint64_t> Sizes;
        for (size_t J = 0, K = pick(std::min<size_t>(Ids.size(), 8) + 1);
             J < K; ++J)
          Sizes.push_back(pick(300));
        std::sort(Sizes.rbegin(), Sizes.rend());
        std::map<StackKey, uint64_t> Keyed;
        for (size_t J = 0; J < Sizes.size(); ++J) {
          S.Top.push_back({Ids[J], Sizes[J]});
          const auto &Stack = stackOf(Stacks, Ids[J]);
          if (!dropped(Stack))
            Keyed[keyOfStack(Stack)] += Sizes[J];
        }
        Truth.Samples.push_back({S.TimeMs, S.TotalBytes, Keyed});
        H.Samples.push_back(S);
      }
      Sum[0] += 1;
      Sum[1] += H.Flags;
      Sum[2] += H.PeakBytes;
      Sum[3] += H.PeakBlocks;
      Timelines.push_back({H.PeakBytes, Truth});
      B.Heap = H;
      Bytes += B.build();
    }
    return Bytes;
  }

  static const std::vector<uint64_t> &
  stackOf(const std::vector<std::pair<uint64_t, std::vector<uint64_t>>> &S,
          uint64_t Id) {
    return S[Id - 1].second;
  }
  bool dropped(const std::vector<uint64_t> &Stack) {
    return llvm::all_of(Stack, [](uint64_t PC) { return PC == 0x10f0; });
  }

  std::string merge(const std::vector<const std::string *> &In) {
    ProfileMerger M(&Loc);
    size_t RawCount = 0;
    for (const std::string *Bytes : In) {
      if (isIndexedProfile(*Bytes)) {
        addIndexedFile(M, *Bytes);
        continue;
      }
      ++RawCount;
      if (llvm::Error E = M.addRaw(read(*Bytes)))
        ADD_FAILURE() << llvm::toString(std::move(E));
    }
    return write(M, In.size() == 1 && RawCount == 1
                        ? RecordOrder::FirstAppearance
                        : RecordOrder::Canonical,
                 Opts);
  }

  /// The heap data a merged file holds, named by stacks.
  void heapOf(const std::string &Bytes, HeapSummary &S,
              std::map<StackKey, HeapStats> &Ctx, KeyedTimeline &T) {
    NamesExtensionInfo NI;
    HeapProfile H;
    ASSERT_TRUE(bool(readNamesExtension(Bytes, &NI, &H)));
    auto P = readIndexedProfile(llvm::StringRef(Bytes).take_front(NI.Offset));
    ASSERT_TRUE(bool(P));
    ASSERT_FALSE(bool(checkHeapContexts(H, *P)));
    S = H.Summary;
    for (const auto &[Id, St] : H.Contexts)
      if (!St.empty())
        Ctx[keyOf(P->stackFrames(Id))] = St;
    T = {H.Timeline.PeakTimeMs, H.Timeline.PeakBytes, {}};
    for (const HeapSample &Sm : H.Timeline.Samples) {
      std::map<StackKey, uint64_t> Keyed;
      for (const HeapTopEntry &E : Sm.Top)
        Keyed[keyOf(P->stackFrames(E.Context))] += E.Bytes;
      T.Samples.push_back({Sm.TimeMs, Sm.TotalBytes, Keyed});
    }
  }
};

std::vector<const std::string *> ptrs(const std::vector<std::string> &V) {
  std::vector<const std::string *> Out;
  for (const std::string &S : V)
    Out.push_back(&S);
  return Out;
}

TEST(HeapMergeProperty, PartialMergesInAnyShapeEqualOneMergeAndHoldTheSums) {
  unsigned Checked = 0, Ties = 0;
  for (uint64_t Seed = 1; Seed <= 80; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    World W(Seed);
    if (W.Timelines.empty())
      continue;
    const std::string One = W.merge(ptrs(W.Raws));
    HeapSummary S;
    std::map<StackKey, HeapStats> Ctx;
    KeyedTimeline T;
    W.heapOf(One, S, Ctx, T);
    // The sums computed here.
    EXPECT_EQ(S, (HeapSummary{W.Sum[0], W.Sum[1], W.Sum[2], W.Sum[3]}));
    std::map<StackKey, HeapStats> Want;
    for (const auto &[K, St] : W.Stats)
      if (St[0] || St[1] || St[2] || St[3])
        Want[K] = HeapStats{St[0], St[1], St[2], St[3]};
    EXPECT_EQ(Ctx, Want);
    // The timeline of the run with the highest peak, when only one has it.
    uint64_t Max = 0;
    for (const auto &Tl : W.Timelines)
      Max = std::max(Max, Tl.first);
    std::vector<const KeyedTimeline *> Top;
    for (const auto &Tl : W.Timelines)
      if (Tl.first == Max)
        Top.push_back(&Tl.second);
    if (Top.size() == 1) {
      EXPECT_EQ(T, *Top[0]);
      ++Checked;
    } else {
      ++Ties;
      EXPECT_TRUE(llvm::any_of(Top, [&](const KeyedTimeline *X) {
        return *X == T;
      }));
    }

    // Re-merging changes no byte.
    std::string Again = W.merge({&One});
    EXPECT_EQ(Again, One);
    // A random split into parts, merged as a chain, as a tree, and one
    // input at a time.
    std::vector<std::string> Shuffled = W.Raws;
    std::shuffle(Shuffled.begin(), Shuffled.end(), W.Rng);
    std::vector<std::string> Parts;
    for (size_t I = 0; I < Shuffled.size();) {
      std::vector<const std::string *> In;
      for (size_t N = 1 + W.pick(3); N && I < Shuffled.size(); --N, ++I)
        In.push_back(&Shuffled[I]);
      Parts.push_back(W.merge(In));
    }
    std::string Chain = Parts[0];
    for (size_t I = 1; I < Parts.size(); ++I)
      Chain = W.merge({&Chain, &Parts[I]});
    EXPECT_EQ(Chain, One) << "chain";
    std::vector<std::string> Level(Parts.rbegin(), Parts.rend());
    while (Level.size() > 1) {
      std::vector<std::string> Next;
      for (size_t I = 0; I < Level.size(); I += 2)
        Next.push_back(I + 1 < Level.size()
                           ? W.merge({&Level[I], &Level[I + 1]})
                           : W.merge({&Level[I]}));
      Level = std::move(Next);
    }
    EXPECT_EQ(Level[0], One) << "tree";
    std::string Acc = W.merge({&W.Raws[0]});
    for (size_t I = 1; I < W.Raws.size(); ++I) {
      std::string Alone = W.merge({&W.Raws[I]});
      Acc = W.merge({&Acc, &Alone});
    }
    EXPECT_EQ(Acc, One) << "one at a time";
  }
  // Both kinds of worlds occurred.
  EXPECT_GT(Checked, 20u);
  EXPECT_GT(Ties, 5u);
}

} // namespace
