//===- ReportTest.cpp - Ranking, classes, filters and printers ------------===//
#include "memprof/ProfileData/Export.h"
#include "memprof/ProfileData/Report.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "gtest/gtest.h"
#include <set>

using namespace memprof;
using namespace llvm;

namespace {

/// Three contexts with full blocks, merged from an indexed profile:
///   big:  alloc_big <- main, 2 allocations of 1000 bytes, short-lived, hot
///   many: alloc_many <- main, 50 allocations of 8 bytes
///   cold: alloc_cold <- main, 1 allocation of 300 bytes, 300 s, untouched
struct Fixture {
  IndexedMemProf P;
  ProfileNames Names;
  ProfileMerger M{nullptr};
  GUID Big = functionGUID("_Z9alloc_bigv"), Many = functionGUID("alloc_many"),
       Cold = functionGUID("alloc_cold"), Main = functionGUID("main");

  void site(GUID Leaf, MemInfoBlock I) {
    auto Id = P.addCallStack({Frame{Leaf, 1, 3, false}, Frame{Main, 5, 7, false}});
    P.Records[Leaf].AllocSites.push_back({Id, I});
  }

  Fixture() {
    MemInfoBlock B;
    B.AllocCount = 2;
    B.TotalSize = 2000;
    B.MinSize = B.MaxSize = 1000;
    B.TotalAccessCount = 4000;
    B.MinAccessCount = 1000;
    B.MaxAccessCount = 3000;
    B.TotalLifetime = 10;
    B.MinLifetime = 4;
    B.MaxLifetime = 6;
    B.TotalAccessDensity = 400;
    B.TotalLifetimeAccessDensity = 80000;
    site(Big, B);
    MemInfoBlock M8;
    M8.AllocCount = 50;
    M8.TotalSize = 400;
    M8.MinSize = M8.MaxSize = 8;
    M8.TotalAccessCount = 50;
    M8.TotalLifetime = 50 * 1000;
    M8.TotalLifetimeAccessDensity = 50 * 1250;
    site(Many, M8);
    MemInfoBlock C;
    C.AllocCount = 1;
    C.TotalSize = 300;
    C.MinSize = C.MaxSize = 300;
    C.TotalLifetime = 300000; // 300 s >= 200 s
    C.TotalLifetimeAccessDensity = 1; // 0.01 accesses/byte/s < 0.05
    site(Cold, C);
    Names.addFunction(Big, {"_Z9alloc_bigv", "alloc_big()", "/s/a.cpp", 10, "\x0a"});
    Names.addFunction(Main, {"main", "main", "/s/a.cpp", 30, "\x0a"});
    M.addIndexed(P, fullSchema(), &Names);
  }

  Report report(ReportOptions O = {}) {
    auto R = buildReport(M, M.names(), {}, O);
    EXPECT_TRUE(bool(R));
    return R ? std::move(*R) : Report();
  }
};

std::vector<GUID> leaves(const Report &R) {
  std::vector<GUID> Out;
  for (const ReportContext &C : R.Contexts)
    Out.push_back(C.Frames.front().Function);
  return Out;
}

TEST(Report, SortKeys) {
  Fixture F;
  ReportOptions O;
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Big, F.Many, F.Cold}));
  O.Sort = SortKey::Count;
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Many, F.Big, F.Cold}));
  O.Sort = SortKey::Accesses;
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Big, F.Many, F.Cold}));
  O.Sort = SortKey::Lifetime; // averages: 5 ms, 1000 ms, 300000 ms
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Cold, F.Many, F.Big}));
  O.Sort = SortKey::Density; // 40000, 1250, 1
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Big, F.Many, F.Cold}));
  O.Reverse = true;
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Cold, F.Many, F.Big}));
  O.TopContexts = 1;
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Cold}));
  EXPECT_EQ(parseSortKey("density"), SortKey::Density);
  EXPECT_FALSE(parseSortKey("size").has_value());
  // The documented --sort names, each naming its own key back.
  const char *Names[] = {"bytes", "count", "accesses", "lifetime", "density"};
  std::set<SortKey> Seen;
  for (const char *N : Names) {
    auto K = parseSortKey(N);
    ASSERT_TRUE(K.has_value()) << N;
    EXPECT_EQ(sortKeyName(*K), N);
    Seen.insert(*K);
  }
  EXPECT_EQ(Seen.size(), 5u);
}

// The headers say what ranked the rows: a key no input stores gives way to
// bytes (and, in a hand-made schema without sizes, to the ids), in text,
// JSON and YAML, and the note says why.
TEST(Report, HeadersSayWhatRanked) {
  Fixture Full;
  ProfileMerger HC(nullptr);
  HC.addIndexed(Full.P, hotColdSchema(), &Full.Names);
  auto Text = [](const Report &R) {
    std::string S;
    raw_string_ostream OS(S);
    printReportText(R, OS);
    return S;
  };
  auto Selection = [](const Report &R) {
    std::string S;
    raw_string_ostream OS(S);
    printReportJSON(R, OS);
    auto V = json::parse(S);
    EXPECT_TRUE(bool(V));
    const json::Object *Sel = V ? V->getAsObject()->getObject("selection") : nullptr;
    return Sel ? (Sel->getString("sort").value_or("?") + "/" +
                  Sel->getString("requested_sort").value_or("?"))
                     .str()
               : std::string("?");
  };
  ReportOptions O;
  O.Sort = SortKey::Accesses;
  // Stored: ranked by it, as asked.
  Report R = Full.report(O);
  EXPECT_EQ(R.RankedBy, SortKey::Accesses);
  EXPECT_NE(Text(R).find("Top 3 of 3 contexts by accesses\n"), std::string::npos);
  EXPECT_EQ(Selection(R), "accesses/accesses");
  EXPECT_TRUE(R.Notes.empty());
  // The hot/cold schema stores no access counts.
  auto HR = buildReport(HC, HC.names(), {}, O);
  ASSERT_TRUE(bool(HR));
  EXPECT_EQ(HR->RankedBy, SortKey::Bytes);
  EXPECT_EQ(leaves(*HR), (std::vector<GUID>{Full.Big, Full.Many, Full.Cold}));
  std::string T = Text(*HR);
  EXPECT_NE(T.find("Top 3 of 3 contexts by bytes (accesses not stored)\n"),
            std::string::npos)
      << T;
  EXPECT_EQ(T.find("by accesses"), std::string::npos);
  EXPECT_EQ(Selection(*HR), "bytes/accesses");
  ASSERT_EQ(HR->Notes.size(), 1u);
  EXPECT_NE(HR->Notes[0].find("contexts are ranked by bytes instead"),
            std::string::npos);
  std::string Y;
  raw_string_ostream YS(Y);
  printReportYAML(*HR, YS);
  EXPECT_NE(Y.find("\n  sort: \"bytes\"\n  requested_sort: \"accesses\"\n"),
            std::string::npos)
      << Y;
  // The other keys are in the hot/cold schema: ranked by them.
  for (SortKey K : {SortKey::Count, SortKey::Lifetime, SortKey::Density}) {
    O.Sort = K;
    auto KR = buildReport(HC, HC.names(), {}, O);
    ASSERT_TRUE(bool(KR));
    EXPECT_EQ(KR->RankedBy, K);
    EXPECT_EQ(leaves(*KR), leaves(Full.report(O)));
  }
  // Groups say so in their words.
  O.Sort = SortKey::Accesses;
  O.Group = GroupBy::Function;
  auto GR = buildReport(HC, HC.names(), {}, O);
  ASSERT_TRUE(bool(GR));
  EXPECT_NE(Text(*GR).find("by bytes (accesses not stored)"), std::string::npos);
  EXPECT_NE(GR->Notes[0].find("functions are ranked by bytes instead"),
            std::string::npos);
  O.Group = GroupBy::Context;
  // A schema of counts only: neither the key nor sizes; the ids order.
  ProfileMerger Counts(nullptr);
  Counts.addIndexed(Full.P, {uint8_t(MIBTag::AllocCount)}, &Full.Names);
  auto CR = buildReport(Counts, Counts.names(), {}, O);
  ASSERT_TRUE(bool(CR));
  EXPECT_FALSE(CR->RankedBy.has_value());
  EXPECT_NE(Text(*CR).find("contexts by id (accesses and bytes not stored)"),
            std::string::npos)
      << Text(*CR);
  EXPECT_EQ(Selection(*CR), "id/accesses");
  EXPECT_NE(CR->Notes[0].find("TotalAccessCount nor TotalSize"),
            std::string::npos);
  O.Sort = SortKey::Bytes;
  CR = buildReport(Counts, Counts.names(), {}, O);
  EXPECT_NE(Text(*CR).find("contexts by id (bytes not stored)"),
            std::string::npos);

  // A comparison ranks by a key only when both sides store it.
  O.Sort = SortKey::Accesses;
  O.TopContexts = SIZE_MAX;
  auto Diff = [&](ProfileMerger &B, ProfileMerger &A) {
    auto RB = buildReport(B, B.names(), {}, O);
    auto RA = buildReport(A, A.names(), {}, O);
    EXPECT_TRUE(RB && RA);
    return diffReports(std::move(*RB), std::move(*RA), O);
  };
  ReportDiff D = Diff(HC, Full.M);
  EXPECT_EQ(D.ComparedBy, SortKey::Bytes);
  ASSERT_EQ(D.Notes.size(), 1u);
  EXPECT_NE(D.Notes[0].find("the base stores no TotalAccessCount"),
            std::string::npos);
  std::string DT;
  raw_string_ostream DS(DT);
  printDiffText(D, DS);
  EXPECT_NE(DT.find("Comparison by bytes of contexts, not accesses (see the "
                    "note)\n"),
            std::string::npos)
      << DT;
  EXPECT_NE(DT.find("changed contexts by change of bytes"), std::string::npos);
  EXPECT_EQ(DT.find("by change of accesses"), std::string::npos);
  std::string DJ;
  raw_string_ostream DJS(DJ);
  printDiffJSON(D, DJS);
  EXPECT_NE(DJ.find("\"sort\": \"bytes\""), std::string::npos) << DJ;
  EXPECT_NE(DJ.find("\"requested_sort\": \"accesses\""), std::string::npos);
  D = Diff(Full.M, HC);
  EXPECT_NE(D.Notes[0].find("the new side stores no"), std::string::npos);
  D = Diff(HC, HC);
  EXPECT_NE(D.Notes[0].find("neither side stores"), std::string::npos);
  D = Diff(Full.M, Full.M);
  EXPECT_EQ(D.ComparedBy, SortKey::Accesses);
  EXPECT_TRUE(D.Notes.empty());
}

TEST(Report, ClassesAndSummary) {
  Fixture F;
  Report R = F.report();
  EXPECT_EQ(R.Summary.All.Contexts, 3u);
  EXPECT_EQ(R.Summary.All.Allocations, 53u);
  EXPECT_EQ(R.Summary.All.Bytes, 2700u);
  EXPECT_EQ(R.Summary.Cold.Contexts, 1u);
  EXPECT_EQ(R.Summary.Cold.Bytes, 300u);
  EXPECT_EQ(R.Summary.NotCold.Contexts, 2u);
  EXPECT_EQ(R.Summary.Hot.Contexts, 0u); // hot hints are off by default
  EXPECT_EQ(R.Summary.Functions, 4u);
  EXPECT_EQ(R.Summary.NamedFunctions, 2u);
  ASSERT_EQ(R.Contexts.size(), 3u);
  EXPECT_EQ(R.Contexts[2].Class, AllocClass::Cold);
  EXPECT_EQ(R.Contexts[0].Class, AllocClass::NotCold);
  // Modules by the allocation site's function: alloc_big's is 0a, the
  // others are unnamed.
  ASSERT_EQ(R.Summary.Modules.size(), 2u);
  EXPECT_EQ(R.Summary.Modules[0].BuildId, "0a");
  EXPECT_EQ(R.Summary.Modules[0].Sites.Bytes, 2000u);
  EXPECT_EQ(R.Summary.Modules[1].BuildId, "");

  const ReportContext &Big = R.Contexts[0];
  EXPECT_EQ(*Big.average(MIBTag::TotalSize), 1000.0);
  EXPECT_EQ(*Big.average(MIBTag::TotalLifetimeAccessDensity), 40000.0);
  ASSERT_EQ(Big.Frames.size(), 2u);
  EXPECT_EQ(Big.Frames[0].Name, "alloc_big()");
  EXPECT_EQ(Big.Frames[0].File, "/s/a.cpp");
  EXPECT_EQ(Big.Frames[0].Line, 11u);
  EXPECT_EQ(Big.Frames[1].Line, 35u);
  EXPECT_TRUE(R.Contexts[1].Frames[0].Name.empty());
}

TEST(Report, FunctionFilter) {
  Fixture F;
  ReportOptions O;
  O.FunctionFilters = {"alloc_b"};
  Report R = F.report(O);
  EXPECT_EQ(leaves(R), (std::vector<GUID>{F.Big}));
  EXPECT_EQ(R.Selected.Bytes, 2000u);
  EXPECT_EQ(R.Summary.All.Bytes, 2700u); // the summary covers everything
  O.FunctionFilters = {"^_Z9alloc_bigv$"}; // the linkage name matches too
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Big}));
  O.FunctionFilters = {"^main$"};
  EXPECT_EQ(F.report(O).Contexts.size(), 3u);
  // Unnamed functions match by their 0x GUID.
  O.FunctionFilters = {utohexstr(F.Cold, /*LowerCase=*/true)};
  EXPECT_EQ(leaves(F.report(O)), (std::vector<GUID>{F.Cold}));
  O.FunctionFilters = {"("};
  auto Bad = buildReport(F.M, F.M.names(), {}, O);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("invalid --function"),
            std::string::npos);
}

TEST(Report, MissingFieldsAreNullNotZero) {
  Fixture F;
  ProfileMerger M(nullptr);
  M.addIndexed(F.P, hotColdSchema(), &F.Names);
  ReportOptions O;
  O.Sort = SortKey::Accesses;
  auto R = buildReport(M, M.names(), {}, O);
  ASSERT_TRUE(bool(R));
  ASSERT_EQ(R->Notes.size(), 1u); // accesses are not stored: ranked by bytes
  EXPECT_EQ(leaves(*R), (std::vector<GUID>{F.Big, F.Many, F.Cold}));
  EXPECT_FALSE(R->Contexts[0].field(MIBTag::MinSize).has_value());
  EXPECT_EQ(*R->Contexts[0].field(MIBTag::TotalSize), 2000u);
  std::string Json;
  raw_string_ostream OS(Json);
  printReportJSON(*R, OS);
  auto V = json::parse(Json);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  const json::Object *C0 =
      V->getAsObject()->getArray("contexts")->front().getAsObject();
  EXPECT_EQ(C0->getObject("size_bytes")->get("min")->kind(), json::Value::Null);
  EXPECT_EQ(C0->getObject("size_bytes")->getInteger("total"), 2000);
}

TEST(Report, JSONAndYAMLAreWellFormed) {
  Fixture F;
  Report R = F.report();
  std::string Json, Yaml, Text;
  raw_string_ostream J(Json), Y(Yaml), T(Text);
  printReportJSON(R, J);
  printReportYAML(R, Y);
  printReportText(R, T);
  auto V = json::parse(Json);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  const json::Object &Root = *V->getAsObject();
  EXPECT_EQ(Root.getInteger("schema_version"), 1);
  EXPECT_EQ(Root.getObject("summary")->getInteger("bytes"), 2700);
  const json::Array &Ctx = *Root.getArray("contexts");
  ASSERT_EQ(Ctx.size(), 3u);
  const json::Object &Top = *Ctx[0].getAsObject();
  EXPECT_EQ(Top.getString("class"), "notcold");
  EXPECT_EQ(Top.getObject("size_bytes")->getNumber("average"), 1000.0);
  EXPECT_EQ(Top.getObject("lifetime_access_density")->getNumber("average"),
            400.0);
  const json::Object &Frame0 =
      *Top.getArray("frames")->front().getAsObject();
  EXPECT_EQ(Frame0.getString("function"), "alloc_big()");
  EXPECT_EQ(Frame0.getInteger("line"), 11);

  SourceMgr SM;
  yaml::Stream S(Yaml, SM);
  unsigned Docs = 0;
  for (yaml::Document &D : S) {
    ++Docs;
    ASSERT_TRUE(D.getRoot());
    D.skip();
  }
  EXPECT_FALSE(S.failed());
  EXPECT_EQ(Docs, 1u);
  EXPECT_NE(Yaml.find("function: \"alloc_big()\""), std::string::npos);
  EXPECT_NE(Text.find("alloc_big  /s/a.cpp:11:3"), std::string::npos);
}

} // namespace

namespace {

/// Contexts at two sites of one function and one of another, through two
/// callers, to sum by site and by function:
///   f:1 <- a <- main   3 x 10 bytes
///   f:1 <- b <- main   2 x 100 bytes  (the same site as above)
///   f:2 <- a <- main   1 x 1000 bytes (another site of f)
///   g:1 <- f:3 <- main 4 x 1 byte, cold
struct GroupFixture {
  IndexedMemProf P;
  ProfileMerger M{nullptr};
  GUID Fn = functionGUID("f"), G = functionGUID("g"), A = functionGUID("a"),
       B = functionGUID("b"), Main = functionGUID("main");

  void add(std::vector<Frame> Fs, uint64_t N, uint64_t Size, bool Cold) {
    MemInfoBlock I;
    I.AllocCount = N;
    I.TotalSize = N * Size;
    I.TotalLifetime = Cold ? N * 300000 : N;
    I.TotalLifetimeAccessDensity = Cold ? 0 : N * 100000;
    GUID Leaf = Fs.front().Function;
    auto Id = P.addCallStack(std::move(Fs));
    P.Records[Leaf].AllocSites.push_back({Id, I});
  }

  explicit GroupFixture(unsigned Scale = 1) {
    add({{Fn, 1, 0, false}, {A, 2, 0, false}, {Main, 3, 0, false}}, 3 * Scale,
        10, false);
    add({{Fn, 1, 0, false}, {B, 2, 0, false}, {Main, 4, 0, false}}, 2, 100,
        false);
    add({{Fn, 2, 0, false}, {A, 3, 0, false}, {Main, 3, 0, false}}, 1, 1000,
        false);
    add({{G, 1, 0, false}, {Fn, 3, 0, false}, {Main, 5, 0, false}}, 4, 1,
        true);
    M.addIndexed(P, hotColdSchema(), nullptr);
  }

  Report report(ReportOptions O) {
    O.TopContexts = SIZE_MAX;
    auto R = buildReport(M, M.names(), {}, O);
    EXPECT_TRUE(bool(R));
    return R ? std::move(*R) : Report();
  }
};

uint64_t bytesOf(const ReportContext &C) {
  return C.field(MIBTag::TotalSize).value_or(0);
}

} // namespace

TEST(Report, GroupBySite) {
  GroupFixture F;
  ReportOptions O;
  O.Group = GroupBy::Site;
  Report R = F.report(O);
  ASSERT_EQ(R.Rows, 3u);
  ASSERT_EQ(R.Contexts.size(), 3u);
  // f:2 (1000), f:1 (30 + 200), g:1 (4).
  EXPECT_EQ(bytesOf(R.Contexts[0]), 1000u);
  EXPECT_EQ(bytesOf(R.Contexts[1]), 230u);
  EXPECT_EQ(R.Contexts[1].field(MIBTag::AllocCount), 5u);
  EXPECT_EQ(R.Contexts[1].Contexts, 2u);
  ASSERT_EQ(R.Contexts[1].Frames.size(), 1u);
  EXPECT_EQ(R.Contexts[1].Frames[0].Function, F.Fn);
  EXPECT_EQ(R.Contexts[1].Frames[0].LineOffset, 1u);
  EXPECT_EQ(R.Contexts[2].Cold.Contexts, 1u);
  EXPECT_EQ(R.Contexts[2].Class, AllocClass::Cold);
  // Rows sum to the whole.
  uint64_t Sum = 0;
  for (const ReportContext &C : R.Contexts)
    Sum += bytesOf(C);
  EXPECT_EQ(Sum, R.Summary.All.Bytes);
}

TEST(Report, GroupByFunction) {
  GroupFixture F;
  ReportOptions O;
  O.Group = GroupBy::Function;
  Report R = F.report(O);
  // Every function is a row: f and g allocate; main, a and b only call.
  ASSERT_EQ(R.Rows, 5u);
  // f: its two sites (1230 bytes in 3 contexts); through it, the cold
  // context of g too (4 contexts, 1234 bytes). g: 4 bytes, through it 4.
  EXPECT_EQ(R.Contexts[0].Frames[0].Function, F.Fn);
  EXPECT_EQ(bytesOf(R.Contexts[0]), 1230u);
  EXPECT_EQ(R.Contexts[0].Contexts, 3u);
  ASSERT_TRUE(R.Contexts[0].Through.has_value());
  EXPECT_EQ(R.Contexts[0].Through->Bytes, 1234u);
  EXPECT_EQ(R.Contexts[0].Through->Contexts, 4u);
  EXPECT_EQ(R.Contexts[1].Frames[0].Function, F.G);
  EXPECT_EQ(R.Contexts[1].Through->Bytes, 4u);
  // Then the callers, by what goes through them: main (all), a (1030),
  // b (200); nothing allocated in them.
  std::vector<GUID> Callers;
  for (size_t I = 2; I < R.Contexts.size(); ++I) {
    Callers.push_back(R.Contexts[I].Frames[0].Function);
    EXPECT_EQ(R.Contexts[I].Contexts, 0u);
    EXPECT_EQ(bytesOf(R.Contexts[I]), 0u);
    EXPECT_FALSE(R.Contexts[I].Class.has_value());
  }
  EXPECT_EQ(Callers, (std::vector<GUID>{F.Main, F.A, F.B}));
  EXPECT_EQ(R.Contexts[2].Through->Bytes, 1234u);
  EXPECT_EQ(R.Contexts[3].Through->Bytes, 1030u);
  // The function filter still selects contexts before they are summed.
  O.FunctionFilters = {"^0x" + utohexstr(F.B, /*LowerCase=*/true) + "$"};
  R = F.report(O);
  ASSERT_EQ(R.Rows, 3u); // f, then main and b
  EXPECT_EQ(bytesOf(R.Contexts[0]), 200u);
  EXPECT_EQ(R.Contexts[1].Through->Bytes, 200u);
}

TEST(Report, Diff) {
  GroupFixture Base, New(/*Scale=*/10);
  // New: f:1 <- a grows from 3 to 30 allocations; a context only in new,
  // and one only in base.
  New.P = IndexedMemProf();
  New.M.~ProfileMerger();
  new (&New.M) ProfileMerger(nullptr);
  New.add({{New.Fn, 1, 0, false}, {New.A, 2, 0, false}, {New.Main, 3, 0, false}},
          30, 10, false);
  New.add({{New.Fn, 2, 0, false}, {New.A, 3, 0, false}, {New.Main, 3, 0, false}},
          1, 1000, false);
  New.add({{New.G, 7, 0, false}, {New.Main, 9, 0, false}}, 2, 50, false);
  New.M.addIndexed(New.P, hotColdSchema(), nullptr);
  Base.M.~ProfileMerger();
  new (&Base.M) ProfileMerger(nullptr);
  Base.P = IndexedMemProf();
  Base.add({{Base.Fn, 1, 0, false}, {Base.A, 2, 0, false}, {Base.Main, 3, 0, false}},
           3, 10, false);
  Base.add({{Base.Fn, 2, 0, false}, {Base.A, 3, 0, false}, {Base.Main, 3, 0, false}},
           1, 1000, false);
  Base.add({{Base.Fn, 1, 0, false}, {Base.B, 2, 0, false}, {Base.Main, 4, 0, false}},
           2, 100, false);
  Base.M.addIndexed(Base.P, hotColdSchema(), nullptr);

  ReportOptions O;
  ReportDiff D = diffReports(Base.report(O), New.report(O), O);
  EXPECT_EQ(D.New, 1u);
  EXPECT_EQ(D.Vanished, 1u);
  EXPECT_EQ(D.Grown, 1u);
  EXPECT_EQ(D.Unchanged, 1u);
  EXPECT_EQ(D.BeforeTotals.Bytes, 1230u);
  EXPECT_EQ(D.AfterTotals.Bytes, 1400u);
  // Ranked by the size of the change: +270, -200, +100; unchanged not listed.
  ASSERT_EQ(D.Rows.size(), 3u);
  EXPECT_EQ(D.Rows[0].Change, 270);
  EXPECT_EQ(D.Rows[0].status(), "grown");
  EXPECT_EQ(D.Rows[1].Change, -200);
  EXPECT_EQ(D.Rows[1].status(), "vanished");
  EXPECT_FALSE(D.Rows[1].After.has_value());
  EXPECT_EQ(D.Rows[2].status(), "new");
  EXPECT_FALSE(D.Rows[2].Before.has_value());
  // --reverse: the largest fall first.
  O.Reverse = true;
  D = diffReports(Base.report(O), New.report(O), O);
  EXPECT_EQ(D.Rows[0].status(), "vanished");
  // By site: f:1 falls from 230 to 300 bytes... it grows by 70.
  O.Reverse = false;
  O.Group = GroupBy::Site;
  D = diffReports(Base.report(O), New.report(O), O);
  ASSERT_EQ(D.Rows.size(), 2u);
  EXPECT_EQ(D.Rows[0].Change, 100); // g:7, new
  EXPECT_EQ(D.Rows[1].Change, 70);  // f:1: 230 -> 300
  EXPECT_EQ(D.Rows[1].Before->Contexts, 2u);
  EXPECT_EQ(D.Rows[1].After->Contexts, 1u);
}

// Exports ask for every context with each distinct frame materialized
// once: the contexts' frames are those of a plain report, by index.
TEST(Report, InternFrames) {
  Fixture F;
  ReportOptions O;
  O.TopContexts = SIZE_MAX;
  Report Plain = F.report(O);
  O.InternFrames = true;
  Report Interned = F.report(O);
  ASSERT_EQ(Interned.Contexts.size(), Plain.Contexts.size());
  ASSERT_EQ(Interned.Contexts.size(), 3u);
  EXPECT_EQ(Interned.FrameTable.size(), 4u); // three sites and main, once
  EXPECT_TRUE(Plain.FrameTable.empty());
  for (size_t I = 0; I < Plain.Contexts.size(); ++I) {
    const ReportContext &A = Plain.Contexts[I], &B = Interned.Contexts[I];
    EXPECT_EQ(A.Id, B.Id);
    EXPECT_TRUE(B.Frames.empty());
    ASSERT_EQ(B.FrameIds.size(), A.Frames.size());
    for (size_t K = 0; K < A.Frames.size(); ++K) {
      ASSERT_LT(B.FrameIds[K], Interned.FrameTable.size());
      const ReportFrame &X = A.Frames[K], &Y = Interned.FrameTable[B.FrameIds[K]];
      EXPECT_EQ(X.Function, Y.Function);
      EXPECT_EQ(X.LineOffset, Y.LineOffset);
      EXPECT_EQ(X.Column, Y.Column);
      EXPECT_EQ(X.IsInlineFrame, Y.IsInlineFrame);
      EXPECT_EQ(X.Name, Y.Name);
      EXPECT_EQ(X.LinkageName, Y.LinkageName);
      EXPECT_EQ(X.File, Y.File);
      EXPECT_EQ(X.Line, Y.Line);
    }
  }
  // The exports see the same frames either way.
  ContextFrames CP(Plain), CI(Interned);
  for (size_t I = 0; I < Plain.Contexts.size(); ++I) {
    ASSERT_EQ(CP.of(I).size(), CI.of(I).size());
    for (size_t K = 0; K < CP.of(I).size(); ++K)
      EXPECT_EQ(frameLabel(CP.frame(CP.of(I)[K]), false),
                frameLabel(CI.frame(CI.of(I)[K]), false));
  }
}

TEST(Report, ShortNames) {
  struct {
    const char *Full, *Short;
  } Cases[] = {
      {"main", "main"},
      {"app::Table::grow(unsigned long)", "app::Table::grow"},
      {"std::__new_allocator<std::vector<char, std::allocator<char>>>::"
       "allocate(unsigned long, void const*)",
       "std::__new_allocator<>::allocate"},
      {"void std::vector<std::__cxx11::basic_string<char, "
       "std::char_traits<char>, std::allocator<char> >, "
       "std::allocator<std::__cxx11::basic_string<char, "
       "std::char_traits<char>, std::allocator<char> > > >::"
       "_M_realloc_insert<char const*&>(__gnu_cxx::__normal_iterator<"
       "std::__cxx11::basic_string<char, std::char_traits<char>, "
       "std::allocator<char> >*, std::vector<std::__cxx11::basic_string<"
       "char, std::char_traits<char>, std::allocator<char> > > >, char "
       "const*&)",
       "std::vector<>::_M_realloc_insert<>"},
      {"std::__cxx11::basic_string<char, std::char_traits<char>, "
       "std::allocator<char> >::_M_create(unsigned long&, unsigned long)",
       "std::string::_M_create"},
      {"Foo::operator()(int) const", "Foo::operator()"},
      {"bool operator==<int>(int const&, int const&)", "operator==<>"},
      {"operator new(unsigned long)", "operator new"},
      {"void* operator new[](unsigned long)", "operator new[]"},
      {"Foo::operator<(Foo const&) const", "Foo::operator<"},
      {"Foo::operator<<(int)", "Foo::operator<<"},
      {"Foo::operator->() const", "Foo::operator->"},
      {"Foo::operator bool() const", "Foo::operator bool"},
      {"(anonymous namespace)::helper(int)", "(anonymous namespace)::helper"},
      {"main::{lambda(int)#1}::operator()(int) const",
       "main::{lambda()#1}::operator()"},
      {"std::__cxx11::list<int, std::allocator<int> >::size[abi:cxx11]() "
       "const",
       "std::list<>::size"},
      {"unsigned long long fold<int>(int)", "fold<>"},
      {"0x1234abcd", "0x1234abcd"},
      {"_ZN3foo3barEv", "_ZN3foo3barEv"},
  };
  for (const auto &C : Cases)
    EXPECT_EQ(shortFunctionName(C.Full), C.Short) << C.Full;
}

// Names that share a short name in one view get back what tells them apart,
// and no more; the others stay short.
TEST(Report, DistinctShortNames) {
  auto Labels = [](std::set<std::string> Names) {
    return distinctShortNames(Names);
  };
  // Three allocators: their element types, as source writes them.
  const std::string A = "std::__new_allocator<char*>::allocate(unsigned long, "
                        "void const*)",
                    B = "std::__new_allocator<std::vector<char, "
                        "std::allocator<char>>>::allocate(unsigned long, "
                        "void const*)",
                    C = "std::__new_allocator<std::map<int, "
                        "std::__cxx11::basic_string<char, "
                        "std::char_traits<char>, std::allocator<char> >, "
                        "std::less<int>, std::allocator<std::pair<int const, "
                        "std::__cxx11::basic_string<char, "
                        "std::char_traits<char>, std::allocator<char> > > > "
                        ">>::allocate(unsigned long, void const*)",
                    Main = "main", Grow = "app::Table::grow(unsigned long)";
  auto L = Labels({A, B, C, Main, Grow});
  EXPECT_EQ(L[A], "std::__new_allocator<char*>::allocate");
  EXPECT_EQ(L[B], "std::__new_allocator<std::vector<char>>::allocate");
  EXPECT_EQ(L[C],
            "std::__new_allocator<std::map<int, std::string>>::allocate");
  EXPECT_EQ(L[Main], "main");
  EXPECT_EQ(L[Grow], "app::Table::grow");
  // Alone in its view, a name stays short.
  EXPECT_EQ(Labels({A, Main})[A], "std::__new_allocator<>::allocate");
  // Only the argument lists that differ come back.
  const std::string I1 = "void std::vector<int, std::allocator<int> >::"
                         "_M_realloc_insert<int const&>(__gnu_cxx::"
                         "__normal_iterator<int*, std::vector<int, "
                         "std::allocator<int> > >, int const&)",
                    I2 = "void std::vector<int, std::allocator<int> >::"
                         "_M_realloc_insert<int>(__gnu_cxx::"
                         "__normal_iterator<int*, std::vector<int, "
                         "std::allocator<int> > >, int&&)";
  L = Labels({I1, I2});
  EXPECT_EQ(L[I1], "std::vector<>::_M_realloc_insert<int const&>");
  EXPECT_EQ(L[I2], "std::vector<>::_M_realloc_insert<int>");
  // Arguments that differ only in a default: whole.
  const std::string V1 = "std::vector<int, std::allocator<int> >::reserve("
                         "unsigned long)",
                    V2 = "std::vector<int, my::alloc<int> >::reserve("
                         "unsigned long)",
                    V3 = "std::vector<int, std::allocator<char> >::reserve("
                         "unsigned long)";
  L = Labels({V1, V2, V3});
  EXPECT_EQ(L[V1], "std::vector<int, std::allocator<int> >::reserve");
  EXPECT_EQ(L[V2], "std::vector<int, my::alloc<int> >::reserve");
  EXPECT_EQ(L[V3], "std::vector<int, std::allocator<char> >::reserve");
  // Overloads: their parameter lists.
  const std::string O1 = "make(int)", O2 = "make(char const*)",
                    O3 = "ns::Box<int>::put(int)",
                    O4 = "ns::Box<int>::put(long)";
  L = Labels({O1, O2, O3, O4});
  EXPECT_EQ(L[O1], "make(int)");
  EXPECT_EQ(L[O2], "make(char const*)");
  EXPECT_EQ(L[O3], "ns::Box<>::put(int)");
  EXPECT_EQ(L[O4], "ns::Box<>::put(long)");
  // A const overload, a return type: nothing shorter tells them apart.
  const std::string Q1 = "Foo::get()", Q2 = "Foo::get() const",
                    R1 = "int conv<int>()", R2 = "long conv<int>()";
  L = Labels({Q1, Q2, R1, R2});
  EXPECT_EQ(L[Q1], Q1);
  EXPECT_EQ(L[Q2], Q2);
  EXPECT_EQ(L[R1], R1);
  EXPECT_EQ(L[R2], R2);
  // Frames are labelled by them; --full-names and unnamed frames are not.
  ReportFrame F;
  F.Name = A;
  std::map<std::string, std::string> M = Labels({A, B});
  EXPECT_EQ(frameLabel(F, false, &M), "std::__new_allocator<char*>::allocate");
  EXPECT_EQ(frameLabel(F, false), "std::__new_allocator<>::allocate");
  EXPECT_EQ(frameLabel(F, true, &M), A);
}

// Line 0 is DWARF's "no one line": printed as unknown, null in JSON.
TEST(Report, LineZeroIsUnknown) {
  EXPECT_EQ(sourceLocationText("/s/a.cpp", 12, 7u), "/s/a.cpp:12:7");
  EXPECT_EQ(sourceLocationText("/s/a.cpp", 12), "/s/a.cpp:12");
  EXPECT_EQ(sourceLocationText("/s/a.cpp", 0, 0u), "/s/a.cpp:?");
  EXPECT_EQ(sourceLocationText("/s/a.cpp", 0), "/s/a.cpp:?");
  Fixture F;
  // alloc_big's site: line 0 of its file.
  ProfileNames Names;
  Names.addFunction(F.Big, {"_Z9alloc_bigv", "alloc_big()", "/s/a.cpp", 10, "\x0a"});
  Names.addLocation(F.Big, 1, SourceLocation{"/s/a.cpp", 0});
  ProfileMerger M(nullptr);
  M.addIndexed(F.P, fullSchema(), &Names);
  ReportOptions O;
  O.TopContexts = 1;
  auto R = buildReport(M, M.names(), {}, O);
  ASSERT_TRUE(bool(R));
  std::string T, J;
  raw_string_ostream TS(T), JS(J);
  printReportText(*R, TS);
  printReportJSON(*R, JS);
  EXPECT_NE(T.find("    alloc_big  /s/a.cpp:?\n"), std::string::npos) << T;
  EXPECT_EQ(T.find(":0"), std::string::npos) << T;
  EXPECT_NE(J.find("\"file\": \"/s/a.cpp\",\n          \"line\": null,"),
            std::string::npos)
      << J;
}
