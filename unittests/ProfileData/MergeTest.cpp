//===- MergeTest.cpp - Merging behind a fake symbolizer --------------------===//
#include "RawBuilder.h"
#include "memprof/ProfileData/Merge.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include <map>

using namespace memprof;
using namespace memprof::test;

namespace {

// A module whose addresses symbolize to whatever the test says.
class FakeModule : public ModuleSymbolizer {
public:
  std::map<uint64_t, PCSymbols> Table;
  unsigned Calls = 0;
  llvm::StringRef path() const override { return "fake"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - S.Offset;
  }
  PCSymbols symbolize(uint64_t Addr) override {
    ++Calls;
    auto It = Table.find(Addr);
    return It == Table.end() ? PCSymbols() : It->second;
  }
  void add(uint64_t Addr, std::vector<Frame> Chain) {
    PCSymbols S;
    S.Status = PCSymbols::Ok;
    for (const Frame &F : Chain)
      S.Frames.push_back({F, "", "", 0, ""});
    Table[Addr] = S;
  }
};

class FakeLocator : public BinaryLocator {
public:
  std::map<std::string, ModuleSymbolizer *> Mods;
  llvm::Expected<ModuleSymbolizer *> find(llvm::StringRef Id) override {
    auto It = Mods.find(Id.str());
    return It == Mods.end() ? nullptr : It->second;
  }
};

const GUID Main = 1, Wrap = 2, AllocA = 3, Inl = 4, Other = 5;

struct Fixture {
  FakeModule Mod;
  FakeLocator Loc;
  Fixture() {
    PCSymbols Runtime;
    Runtime.Status = PCSymbols::Runtime;
    Mod.Table[0x10] = Runtime; // malloc interceptor
    Mod.add(0x20, {{AllocA, 0, 67, false}});
    Mod.add(0x30, {{Wrap, 0, 57, false}});
    Mod.add(0x40, {{Main, 2, 15, false}});
    Mod.add(0x50, {{Main, 6, 13, false}});
    // An inlined allocation: Inl inlined into Wrap.
    Mod.add(0x60, {{Inl, 1, 3, true}, {Wrap, 4, 9, false}});
    Mod.add(0x70, {{Other, 0, 1, false}});
    Loc.Mods["main"] = &Mod;
  }
};

RawProfile run(std::vector<std::pair<std::vector<uint64_t>, MemInfoBlock>> Ctx) {
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0x1000, "main"});
  uint64_t Id = 1;
  for (auto &[PCs, Info] : Ctx) {
    std::vector<uint64_t> Abs;
    for (uint64_t PC : PCs)
      Abs.push_back(PC + 0x1000);
    B.MIBs.push_back({Id, Info, {}});
    B.Stacks.push_back({Id, Abs});
    ++Id;
  }
  auto P = readRawProfile(B.build());
  EXPECT_TRUE(bool(P));
  return std::move(*P);
}

MemInfoBlock mib(uint64_t Count, uint64_t Size) {
  MemInfoBlock M = MemInfoBlock::forAllocation(Size, 1, 0, 0, 0, 0);
  M.AllocCount = Count;
  M.TotalSize = Count * Size;
  return M;
}

TEST(Merge, LLVMRecordShapeForOneInput) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, mib(3, 100)},
                                   {{0x10, 0x50}, mib(1, 48)}}))));
  IndexedMemProf P = M.build(RecordOrder::FirstAppearance);
  // Spec 2.5's example: alloc_a holds the alloc site; wrap and main hold
  // call sites; main also its own alloc site. Records in first-appearance
  // order: alloc sites first, then functions with only call sites.
  ASSERT_EQ(P.Records.size(), 3u);
  auto It = P.Records.begin();
  EXPECT_EQ(It->first, AllocA);
  EXPECT_EQ(It->second.AllocSites.size(), 1u);
  EXPECT_EQ(It->second.AllocSites[0].Info.AllocCount, 3u);
  ++It;
  EXPECT_EQ(It->first, Main);
  EXPECT_EQ(It->second.AllocSites.size(), 1u);
  EXPECT_EQ(It->second.CallSites.size(), 1u);
  ++It;
  EXPECT_EQ(It->first, Wrap);
  EXPECT_EQ(It->second.CallSites.size(), 1u);
  EXPECT_EQ(M.stats().RuntimeFramesDropped, 2u);
  // Each distinct address is symbolized once.
  EXPECT_EQ(F.Mod.Calls, 5u);
}

TEST(Merge, EachAddressIsSymbolizedOnceAcrossInputs) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  for (int I = 0; I < 50; ++I)
    ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, mib(1, 8)},
                                     {{0x10, 0x50}, mib(1, 8)}}))));
  EXPECT_EQ(F.Mod.Calls, 5u);
  EXPECT_EQ(M.stats().DistinctPCsSymbolized, 5u);
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  EXPECT_EQ(P.Records[AllocA].AllocSites[0].Info.AllocCount, 50u);
}

TEST(Merge, InlinedAllocSiteAttachesToCalleeAndCaller) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x60, 0x40}, mib(2, 10)}}))));
  IndexedMemProf P = M.build(RecordOrder::FirstAppearance);
  ASSERT_TRUE(P.Records.count(Inl));
  ASSERT_TRUE(P.Records.count(Wrap));
  EXPECT_EQ(P.Records[Inl].AllocSites.size(), 1u);
  EXPECT_EQ(P.Records[Wrap].AllocSites.size(), 1u);
  EXPECT_EQ(P.Records[Main].AllocSites.size(), 0u);
  // Re-reading the indexed form counts the inlined context once.
  ProfileMerger Again(nullptr);
  Again.addIndexed(P, fullSchema());
  EXPECT_EQ(Again.numContexts(), 1u);
  IndexedMemProf Q = Again.build(RecordOrder::Canonical);
  EXPECT_EQ(Q.Records[Inl].AllocSites[0].Info.AllocCount, 2u);
}

TEST(Merge, ExactSumsAndOrderIndependence) {
  Fixture F;
  RawProfile A = run({{{0x10, 0x20, 0x30, 0x40}, mib(3, 100)}});
  RawProfile B = run({{{0x10, 0x20, 0x30, 0x40}, mib(5, 10)},
                      {{0x10, 0x50}, mib(1, 48)}});
  ProfileMerger AB(&F.Loc), BA(&F.Loc);
  ASSERT_FALSE(bool(AB.addRaw(A)));
  ASSERT_FALSE(bool(AB.addRaw(B)));
  ASSERT_FALSE(bool(BA.addRaw(B)));
  ASSERT_FALSE(bool(BA.addRaw(A)));
  IndexedMemProf X = AB.build(RecordOrder::Canonical);
  IndexedMemProf Y = BA.build(RecordOrder::Canonical);
  ASSERT_EQ(X.Records.size(), Y.Records.size());
  auto XI = X.Records.begin(), YI = Y.Records.begin();
  for (; XI != X.Records.end(); ++XI, ++YI) {
    EXPECT_EQ(XI->first, YI->first);
    ASSERT_EQ(XI->second.AllocSites.size(), YI->second.AllocSites.size());
    for (size_t I = 0; I < XI->second.AllocSites.size(); ++I)
      EXPECT_EQ(XI->second.AllocSites[I].Info, YI->second.AllocSites[I].Info);
  }
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.AllocCount, 8u);
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.TotalSize, 350u);
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.MinSize, 10u);
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.MaxSize, 100u);
}

// An input of weight W merges as W copies of it, raw or indexed, and the
// result does not depend on where the weighted input comes in the order.
TEST(Merge, WeightEqualsRepeatedInputs) {
  Fixture F;
  RawProfile A = run({{{0x10, 0x20, 0x30, 0x40}, mib(3, 100)},
                      {{0x10, 0x60, 0x40}, mib(2, 8)}});
  RawProfile B = run({{{0x10, 0x20, 0x30, 0x40}, mib(5, 10)}});
  ProfileMerger Copies(&F.Loc), Weighted(&F.Loc), Reordered(&F.Loc);
  for (int I = 0; I < 3; ++I)
    ASSERT_FALSE(bool(Copies.addRaw(A)));
  ASSERT_FALSE(bool(Copies.addRaw(B)));
  ASSERT_FALSE(bool(Weighted.addRaw(A, 3)));
  ASSERT_FALSE(bool(Weighted.addRaw(B)));
  ASSERT_FALSE(bool(Reordered.addRaw(B)));
  ASSERT_FALSE(bool(Reordered.addRaw(A, 3)));
  IndexedMemProf X = Copies.build(RecordOrder::Canonical);
  for (ProfileMerger *M : {&Weighted, &Reordered}) {
    IndexedMemProf Y = M->build(RecordOrder::Canonical);
    ASSERT_EQ(X.Records.size(), Y.Records.size());
    for (auto &[G, R] : X.Records) {
      const IndexedRecord &S = Y.Records[G];
      ASSERT_EQ(R.AllocSites.size(), S.AllocSites.size());
      for (size_t I = 0; I < R.AllocSites.size(); ++I) {
        EXPECT_EQ(R.AllocSites[I].CSId, S.AllocSites[I].CSId);
        EXPECT_EQ(R.AllocSites[I].Info, S.AllocSites[I].Info);
      }
    }
  }
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.AllocCount, 3 * 3 + 5u);
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.TotalSize, 3 * 300 + 50u);
  EXPECT_EQ(X.Records[AllocA].AllocSites[0].Info.MaxSize, 100u);

  // An indexed input with a weight: its schema's sums scale too.
  ProfileMerger Part(&F.Loc);
  ASSERT_FALSE(bool(Part.addRaw(A)));
  IndexedMemProf PA = Part.build(RecordOrder::Canonical);
  ProfileMerger FromIndexed(&F.Loc);
  FromIndexed.addIndexed(PA, fullSchema(), nullptr, 3);
  ASSERT_FALSE(bool(FromIndexed.addRaw(B)));
  IndexedMemProf Z = FromIndexed.build(RecordOrder::Canonical);
  for (auto &[G, R] : X.Records)
    for (size_t I = 0; I < R.AllocSites.size(); ++I)
      EXPECT_EQ(R.AllocSites[I].Info, Z.Records[G].AllocSites[I].Info);
}

TEST(Merge, SaturatedSitesAreListedOncePerContext) {
  Fixture F;
  // Inl is inlined into Wrap: the context appears in both records.
  MemInfoBlock Big = mib(0xFFFFFFFFull, 1);
  RawProfile A = run({{{0x10, 0x60, 0x40}, Big},
                      {{0x10, 0x20, 0x30, 0x40}, mib(1, 8)}});
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(A)));
  ASSERT_FALSE(bool(M.addRaw(A)));
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  std::vector<SaturatedSite> Sites = findSaturatedSites(P, hotColdSchema());
  ASSERT_EQ(Sites.size(), 1u);
  EXPECT_EQ(Sites[0].Fields, 1u << (unsigned(MIBTag::AllocCount) - 1));
  ASSERT_EQ(Sites[0].Frames.size(), 3u);
  EXPECT_EQ(Sites[0].Frames[0].Function, Inl);
  // Below every maximum, nothing is listed.
  ProfileMerger One(&F.Loc);
  ASSERT_FALSE(bool(One.addRaw(run({{{0x10, 0x60, 0x40}, mib(0xFFFFFFFEull, 1)}}))));
  EXPECT_TRUE(findSaturatedSites(One.build(RecordOrder::Canonical),
                                 hotColdSchema())
                  .empty());
}

TEST(Merge, PartialMergesEqualOneMerge) {
  Fixture F;
  RawProfile A = run({{{0x10, 0x20, 0x30, 0x40}, mib(3, 100)}});
  RawProfile B = run({{{0x10, 0x60, 0x40}, mib(5, 10)}});
  RawProfile C = run({{{0x10, 0x50}, mib(1, 48)}, {{0x10, 0x20, 0x30, 0x40}, mib(2, 7)}});
  ProfileMerger All(&F.Loc);
  for (auto *P : {&A, &B, &C})
    ASSERT_FALSE(bool(All.addRaw(*P)));
  ProfileMerger Part(&F.Loc);
  ASSERT_FALSE(bool(Part.addRaw(A)));
  ASSERT_FALSE(bool(Part.addRaw(B)));
  IndexedMemProf AB = Part.build(RecordOrder::Canonical);
  ProfileMerger Tree(&F.Loc);
  Tree.addIndexed(AB, fullSchema());
  ASSERT_FALSE(bool(Tree.addRaw(C)));
  IndexedMemProf X = All.build(RecordOrder::Canonical);
  IndexedMemProf Y = Tree.build(RecordOrder::Canonical);
  ASSERT_EQ(X.Records.size(), Y.Records.size());
  for (auto &[G, R] : X.Records) {
    const IndexedRecord &S = Y.Records[G];
    ASSERT_EQ(R.AllocSites.size(), S.AllocSites.size());
    for (size_t I = 0; I < R.AllocSites.size(); ++I) {
      EXPECT_EQ(R.AllocSites[I].CSId, S.AllocSites[I].CSId);
      EXPECT_EQ(R.AllocSites[I].Info, S.AllocSites[I].Info);
    }
    ASSERT_EQ(R.CallSites.size(), S.CallSites.size());
  }
  auto Keys = [](const auto &Map) {
    std::vector<uint64_t> K;
    for (const auto &KV : Map)
      K.push_back(KV.first);
    return K;
  };
  EXPECT_EQ(Keys(X.Frames), Keys(Y.Frames));
  EXPECT_EQ(Keys(X.CallStacks), Keys(Y.CallStacks));
}

TEST(Merge, FieldsAnInputLacksDoNotActAsZeros) {
  Fixture F;
  RawProfile A = run({{{0x10, 0x20, 0x30, 0x40}, mib(3, 100)}});
  ProfileMerger One(&F.Loc);
  ASSERT_FALSE(bool(One.addRaw(A)));
  IndexedMemProf HotCold = One.build(RecordOrder::Canonical);
  // Simulate a hot/cold-schema file: only four fields survive.
  for (auto &KV : HotCold.Records)
    for (auto &AS : KV.second.AllocSites) {
      MemInfoBlock Kept;
      for (uint8_t T : hotColdSchema())
        Kept.set(T, AS.Info.get(T));
      AS.Info = Kept;
    }
  ProfileMerger M(&F.Loc);
  M.addIndexed(HotCold, hotColdSchema());
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, mib(1, 40)}}))));
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  const MemInfoBlock &I = P.Records[AllocA].AllocSites[0].Info;
  EXPECT_EQ(I.AllocCount, 4u);
  EXPECT_EQ(I.TotalSize, 340u);
  EXPECT_EQ(I.MinSize, 40u); // not 0 from the file that lacked MinSize
}

TEST(Merge, UnsymbolizableContextsAreCountedAndAllLostIsAnError) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  // 0x999 symbolizes to nothing; the other context survives.
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x999}, mib(4, 8)},
                                   {{0x10, 0x20}, mib(1, 8)}}))));
  EXPECT_EQ(M.stats().DroppedContexts, 1u);
  EXPECT_EQ(M.stats().DroppedAllocations, 4u);
  EXPECT_EQ(M.stats().DroppedBytes, 32u);
  FakeLocator Empty;
  ProfileMerger N(&Empty);
  llvm::Error E = N.addRaw(run({{{0x10, 0x20}, mib(1, 8)}}));
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("no binary was found for build ids 6d61696e"),
            std::string::npos)
      << Msg;
}

// keepGaps: every frame that cannot be symbolized stays in its place, under
// a GUID of its module and address, with why; runtime frames still go; a
// context cut where its walk left the code keeps a gap for that address and
// nothing after it; no context is dropped and an input whose every frame is
// a gap is no error.
TEST(Merge, GapsStayInPlace) {
  Fixture F;
  PCSymbols NoDebug;
  NoDebug.Status = PCSymbols::NoDebugInfo;
  NoDebug.Frames.push_back({{77, 0, 0, false}, "_start", "", 0, ""});
  F.Mod.Table[0x80] = NoDebug;
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0x1000, "main"});
  B.Segs.push_back({0x5000, 0x6000, 0x4000, "lib", "/opt/lib/libq.so"});
  B.MIBs.push_back({1, mib(2, 8), {}});
  B.Stacks.push_back({1, {0x1010, 0x1020, 0x5123, 0x1999, 0x1080, 0x1040}});
  B.MIBs.push_back({2, mib(3, 8), {}});
  B.Stacks.push_back({2, {0x5200}});          // wholly in the missing module
  B.MIBs.push_back({3, mib(5, 8), {}});
  B.Stacks.push_back({3, {0x1020, 0x9000, 0x1040}}); // cut at 0x9000
  auto P = readRawProfile(B.build());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());

  ProfileMerger M(&F.Loc);
  M.keepGaps();
  ASSERT_FALSE(bool(M.addRaw(*P)));
  EXPECT_EQ(M.stats().DroppedContexts, 0u);
  EXPECT_EQ(M.stats().ContextsCut, 1u);
  std::map<uint64_t, std::vector<std::string>> Got; // by AllocCount
  M.forEachContext([&](CallStackId, llvm::ArrayRef<Frame> Fs,
                       const MemInfoBlock &I, uint32_t) {
    std::vector<std::string> Desc;
    for (const Frame &Fr : Fs) {
      if (const FrameGap *G = M.gap(Fr.Function))
        Desc.push_back(std::string(gapReasonKey(G->Reason)) + " " +
                       G->BuildId + " " + G->Path + " " +
                       llvm::utohexstr(G->Offset) + " " + G->Symbol);
      else
        Desc.push_back(std::to_string(Fr.Function));
    }
    Got[I.AllocCount] = Desc;
  });
  std::vector<std::string> Want1 = {
      std::to_string(AllocA), "no-binary 6c6962 /opt/lib/libq.so 1123 ",
      "not-in-binary 6d61696e fake 999 ", "no-debug-info 6d61696e fake 80 _start",
      std::to_string(Main)};
  EXPECT_EQ(Got[2], Want1);
  std::vector<std::string> Want2 = {"no-binary 6c6962 /opt/lib/libq.so 1200 "};
  EXPECT_EQ(Got[3], Want2);
  std::vector<std::string> Want3 = {std::to_string(AllocA),
                                    "outside-segments   9000 "};
  EXPECT_EQ(Got[5], Want3);
  EXPECT_EQ(M.gaps().size(), 5u);

  // Without keepGaps, as before: the gaps are dropped, the second context
  // with them, and the cut context ends before the address.
  ProfileMerger N(&F.Loc);
  ASSERT_FALSE(bool(N.addRaw(*P)));
  EXPECT_EQ(N.stats().DroppedContexts, 1u);
  EXPECT_TRUE(N.gaps().empty());
  // One address of one module is one gap frame, in every input.
  ProfileMerger Twice(&F.Loc);
  Twice.keepGaps();
  ASSERT_FALSE(bool(Twice.addRaw(*P)));
  ASSERT_FALSE(bool(Twice.addRaw(*P)));
  EXPECT_EQ(Twice.gaps().size(), 5u);
  EXPECT_EQ(Twice.numContexts(), 3u);
}

// A block LLVM's default thresholds call cold (long-lived, never touched)
// or not cold (short-lived).
MemInfoBlock classed(uint64_t Count, uint64_t Size, bool Cold) {
  MemInfoBlock M = mib(Count, Size);
  M.TotalAccessCount = 0;
  M.TotalLifetimeAccessDensity = Cold ? 0 : 100000 * Count;
  M.TotalLifetime = Cold ? 300000 * Count : 0;
  return M;
}

uint64_t totalBytes(const IndexedMemProf &P) {
  uint64_t Sum = 0;
  for (const auto &KV : P.Records)
    for (const auto &AS : KV.second.AllocSites)
      if (P.stackFrames(AS.CSId).front().Function == KV.first)
        Sum += AS.Info.TotalSize;
  return Sum;
}

std::vector<std::vector<GUID>> leafContexts(const IndexedMemProf &P, GUID Leaf) {
  std::vector<std::vector<GUID>> Out;
  auto It = P.Records.find(Leaf);
  if (It == P.Records.end())
    return Out;
  for (const auto &AS : It->second.AllocSites) {
    std::vector<GUID> Fs;
    for (const Frame &F : P.stackFrames(AS.CSId))
      Fs.push_back(F.Function);
    Out.push_back(Fs);
  }
  llvm::sort(Out);
  return Out;
}

TEST(Prune, FoldsSmallContextsIntoTheSiteRemainder) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, mib(100, 10)},
                                   {{0x10, 0x20, 0x70, 0x40}, mib(2, 10)},
                                   {{0x10, 0x20, 0x30, 0x50}, mib(1, 10)}}))));
  uint64_t Before = totalBytes(M.build(RecordOrder::Canonical));
  PruneOptions O;
  O.MinBytes = 100;
  PruneStats S = M.prune(O);
  EXPECT_EQ(S.Folded, 2u);
  EXPECT_EQ(S.FoldedAllocations, 3u);
  EXPECT_EQ(S.FoldedBytes, 30u);
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  EXPECT_EQ(totalBytes(P), Before);
  std::vector<std::vector<GUID>> Want = {{AllocA}, {AllocA, Wrap, Main}};
  EXPECT_EQ(leafContexts(P, AllocA), Want);
  // The remainder holds exactly what was folded.
  for (const auto &AS : P.Records[AllocA].AllocSites)
    if (P.stackFrames(AS.CSId).size() == 1) {
      EXPECT_EQ(AS.Info.AllocCount, 3u);
      EXPECT_EQ(AS.Info.TotalSize, 30u);
    }
}

TEST(Prune, AFoldedContextKeepsATypeOnlyWhenAllAgree) {
  // Two small contexts fold into the site's remainder: their types agree
  // (the remainder keeps it), disagree or one is unknown (no type); the big
  // context keeps its own.
  for (auto [SmallA, SmallB, Want] :
       {std::tuple<llvm::StringRef, llvm::StringRef, llvm::StringRef>{"Foo", "Foo", "Foo"},
        {"Foo", "Bar", ""},
        {"Foo", "", ""},
        {"", "", ""}}) {
    Fixture F;
    ProfileMerger M(&F.Loc);
    ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, mib(100, 10)},
                                     {{0x10, 0x20, 0x70, 0x40}, mib(2, 10)},
                                     {{0x10, 0x20, 0x30, 0x50}, mib(1, 10)}}))));
    M.forEachContext([&](CallStackId Id, llvm::ArrayRef<Frame> Fs,
                         const MemInfoBlock &I, uint32_t) {
      M.names().addType(Id, I.AllocCount == 100 ? llvm::StringRef("Big")
                            : I.AllocCount == 2 ? SmallA
                                                : SmallB);
    });
    PruneOptions O;
    O.MinBytes = 100;
    M.prune(O);
    unsigned Seen = 0;
    M.forEachContext([&](CallStackId Id, llvm::ArrayRef<Frame> Fs,
                         const MemInfoBlock &I, uint32_t) {
      ++Seen;
      EXPECT_EQ(M.names().type(Id), Fs.size() == 1 ? Want : llvm::StringRef("Big"))
          << SmallA.str() << "+" << SmallB.str();
    });
    EXPECT_EQ(Seen, 2u);
    EXPECT_EQ(M.names().types().size(), Want.empty() ? 1u : 2u);
  }
}

TEST(Prune, TrimsToTheDepthThatSeparatesColdFromNotCold) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  // At alloc_a: [alloc_a, wrap, main@2] cold, [alloc_a, wrap, main@6] not
  // cold, [alloc_a, other, main@2] cold. Only the last can be cut (to
  // [alloc_a, other]); the first two differ only at their roots.
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x20, 0x30, 0x40}, classed(2, 8, true)},
                                   {{0x10, 0x20, 0x30, 0x50}, classed(3, 8, false)},
                                   {{0x10, 0x20, 0x70, 0x40}, classed(4, 8, true)},
                                   // One class only at wrap's inlined site:
                                   // all collapse to the site itself.
                                   {{0x10, 0x60, 0x40}, classed(1, 5, false)},
                                   {{0x10, 0x60, 0x70, 0x50}, classed(1, 6, false)}}))));
  uint64_t Before = totalBytes(M.build(RecordOrder::Canonical));
  PruneOptions O;
  O.Trim = true;
  PruneStats S = M.prune(O);
  EXPECT_EQ(S.Trimmed, 3u);
  EXPECT_EQ(S.ContextsAfter, 4u);
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  EXPECT_EQ(totalBytes(P), Before);
  std::vector<std::vector<GUID>> Want = {
      {AllocA, Wrap, Main}, {AllocA, Wrap, Main}, {AllocA, Other}};
  EXPECT_EQ(leafContexts(P, AllocA), Want);
  std::vector<std::vector<GUID>> WantInl = {{Inl, Wrap}};
  EXPECT_EQ(leafContexts(P, Inl), WantInl);
  EXPECT_EQ(P.Records[Inl].AllocSites[0].Info.AllocCount, 2u);
  EXPECT_EQ(P.Records[Inl].AllocSites[0].Info.TotalSize, 11u);
}

TEST(Prune, MaxDepthCutsAtWholeChains) {
  Fixture F;
  ProfileMerger M(&F.Loc);
  ASSERT_FALSE(bool(M.addRaw(run({{{0x10, 0x60, 0x70, 0x40}, mib(1, 8)},
                                   {{0x10, 0x60, 0x30, 0x40}, mib(1, 8)}}))));
  PruneOptions O;
  O.MaxDepth = 3; // [inl, wrap] is one chain of two frames; then other or wrap
  PruneStats S = M.prune(O);
  EXPECT_EQ(S.DepthCut, 2u);
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  std::vector<std::vector<GUID>> Want = {{Inl, Wrap, Wrap}, {Inl, Wrap, Other}};
  EXPECT_EQ(leafContexts(P, Inl), Want);
  PruneOptions One;
  One.MaxDepth = 1; // never below the allocation site's own chain
  M.prune(One);
  std::vector<std::vector<GUID>> Site = {{Inl, Wrap}};
  EXPECT_EQ(leafContexts(M.build(RecordOrder::Canonical), Inl), Site);
}

} // namespace
