//===- ReportTest.cpp - Ranking, classes, filters and printers ------------===//
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
  EXPECT_NE(Text.find("alloc_big()  /s/a.cpp:11:3"), std::string::npos);
}

} // namespace
