//===- PprofTest.cpp - The structure of writePprof's profile.proto -------===//
#include "InternedReport.h"
#include "memprof/ProfileData/Export.h"
#include "memprof/ProfileData/Report.h"
#include "profile.pb.h"
#include "gtest/gtest.h"
#include <zlib.h>

using namespace memprof;
using namespace llvm;
namespace pb = perftools::profiles;

namespace {

constexpr uint32_t bit(MIBTag T) { return 1u << (unsigned(T) - 1); }
constexpr uint32_t HotCold = bit(MIBTag::AllocCount) | bit(MIBTag::TotalSize) |
                             bit(MIBTag::TotalLifetime) |
                             bit(MIBTag::TotalLifetimeAccessDensity);

ReportFrame named(StringRef Name, StringRef Linkage, uint32_t Line,
                  bool Inline = false) {
  ReportFrame F;
  F.Function = Line * 1000 + Name.size();
  F.Name = Name.str();
  F.LinkageName = Linkage.str();
  F.File = "src/a.cpp";
  F.Line = Line;
  F.IsInlineFrame = Inline;
  return F;
}

ReportFrame gap(StringRef BuildId, uint64_t Offset) {
  ReportFrame F;
  F.Function = 0xfeed0000 + Offset;
  FrameGap G;
  G.BuildId = BuildId.str();
  G.Offset = Offset;
  G.Reason = GapReason::NoBinary;
  F.Gap = G;
  return F;
}

ReportContext context(CallStackId Id, std::optional<AllocClass> Class,
                      uint64_t Count, uint64_t Bytes, uint64_t Lifetime,
                      uint64_t Density) {
  ReportContext C;
  C.Id = Id;
  C.Class = Class;
  C.Known = HotCold;
  C.Info.AllocCount = Count;
  C.Info.TotalSize = Bytes;
  C.Info.TotalLifetime = Lifetime;
  C.Info.TotalLifetimeAccessDensity = Density;
  C.ModuleBuildId = "aaaa";
  return C;
}

/// Three contexts of the main binary (build id aaaa, /bin/app):
///   cold:    ns::inl (inlined into) outer <- main:30 <- a gap in bbbb
///   notcold: an unnamed function <- main:30
///   none:    only_site, unclassified, its bytes saturated
Report makeReport() {
  Report R;
  R.Inputs.push_back({});
  R.Inputs.back().Path = "new.profdata";
  ReportContext A = context(0x1111, AllocClass::Cold, 3, 300, 900000, 7);
  A.Frames = {named("ns::inl(int)", "_ZN2ns3inlEi", 10, /*Inline=*/true),
              named("outer()", "_Z5outerv", 20), named("main", "main", 30),
              gap("bbbb", 0x1234)};
  ReportContext B = context(0x2222, AllocClass::NotCold, 5, 50, 10, 1000);
  ReportFrame Unnamed;
  Unnamed.Function = 0xabc;
  B.Frames = {Unnamed, named("main", "main", 30)};
  ReportContext C = context(0x3333, std::nullopt, 1, UINT64_MAX, 0, 0);
  C.Frames = {named("only_site()", "_Z9only_sitev", 40)};
  R.Contexts = {A, B, C};
  ModuleTotals App, Libc;
  App.BuildId = "aaaa";
  App.Path = "/bin/app";
  Libc.BuildId = "bbbb";
  R.Summary.Modules = {App, Libc};
  return R;
}

/// The cold context of the base: fewer allocations, and with a field the
/// new profile does not store; and a context with no value.
Report makeBase() {
  Report R;
  R.Inputs.push_back({});
  R.Inputs.back().Path = "base.profdata";
  ReportContext A = context(0x1111, AllocClass::Cold, 1, 100, 200, 2);
  A.Known |= bit(MIBTag::TotalAccessCount);
  A.Info.TotalAccessCount = 9;
  A.Frames = makeReport().Contexts[0].Frames;
  ReportContext Z = context(0x4444, AllocClass::NotCold, 0, 0, 0, 0);
  Z.Frames = {named("main", "main", 30)};
  R.Contexts = {A, Z};
  return R;
}

std::string gunzip(const std::string &In) {
  z_stream Z{};
  EXPECT_EQ(inflateInit2(&Z, 15 + 32), Z_OK);
  std::string Out;
  char Buf[4096];
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In.data()));
  Z.avail_in = In.size();
  int RC;
  do {
    Z.next_out = reinterpret_cast<Bytef *>(Buf);
    Z.avail_out = sizeof(Buf);
    RC = inflate(&Z, Z_NO_FLUSH);
    Out.append(Buf, sizeof(Buf) - Z.avail_out);
  } while (RC == Z_OK);
  EXPECT_EQ(RC, Z_STREAM_END);
  EXPECT_EQ(Z.avail_in, 0u) << "bytes after the gzip stream";
  inflateEnd(&Z);
  return Out;
}

pb::Profile parse(const Report &R, const Report *Base = nullptr) {
  Expected<std::string> Gz = writePprof(R, Base);
  pb::Profile P;
  if (!Gz) {
    ADD_FAILURE() << toString(Gz.takeError());
    return P;
  }
  EXPECT_TRUE(P.ParseFromString(gunzip(*Gz)));
  return P;
}

/// Reads the string table through a checked index.
struct Strings {
  const pb::Profile &P;
  std::string operator()(int64_t I) const {
    if (I < 0 || I >= P.string_table_size()) {
      ADD_FAILURE() << "string index " << I << " out of the table";
      return "<bad index>";
    }
    return P.string_table(I);
  }
};

const pb::Location &location(const pb::Profile &P, uint64_t Id) {
  for (const pb::Location &L : P.location())
    if (L.id() == Id)
      return L;
  ADD_FAILURE() << "no location " << Id;
  return pb::Location::default_instance();
}

const pb::Function &function(const pb::Profile &P, uint64_t Id) {
  for (const pb::Function &F : P.function())
    if (F.id() == Id)
      return F;
  ADD_FAILURE() << "no function " << Id;
  return pb::Function::default_instance();
}

/// The sample's labels as "key=value".
std::vector<std::string> labels(const pb::Profile &P, const pb::Sample &S) {
  Strings Str{P};
  std::vector<std::string> L;
  for (const pb::Label &Lb : S.label())
    L.push_back(Str(Lb.key()) + "=" + Str(Lb.str()));
  return L;
}

/// The function names of a location's lines, innermost first.
std::vector<std::string> lineNames(const pb::Profile &P, uint64_t Loc) {
  Strings Str{P};
  std::vector<std::string> N;
  for (const pb::Line &L : location(P, Loc).line())
    N.push_back(Str(function(P, L.function_id()).name()));
  return N;
}

TEST(Pprof, SampleTypesAndValues) {
  pb::Profile P = parse(makeReport());
  Strings Str{P};
  ASSERT_GT(P.string_table_size(), 0);
  EXPECT_EQ(P.string_table(0), "");
  std::vector<std::string> Types;
  for (const pb::ValueType &T : P.sample_type())
    Types.push_back(Str(T.type()) + "/" + Str(T.unit()));
  // No input stores access counts: no accesses type.
  EXPECT_EQ(Types, (std::vector<std::string>{
                       "alloc_objects/count", "alloc_space/bytes",
                       "lifetime/milliseconds",
                       "lifetime_access_density/centiaccesses/byte/s"}));
  EXPECT_EQ(Str(P.default_sample_type()), "alloc_space");
  EXPECT_EQ(P.time_nanos(), 0);

  ASSERT_EQ(P.sample_size(), 3);
  auto Values = [&](int I) {
    const auto &V = P.sample(I).value();
    return std::vector<int64_t>(V.begin(), V.end());
  };
  EXPECT_EQ(Values(0), (std::vector<int64_t>{3, 300, 900000, 7}));
  EXPECT_EQ(Values(1), (std::vector<int64_t>{5, 50, 10, 1000}));
  // A saturated total stays the largest value pprof holds, not negative.
  EXPECT_EQ(Values(2), (std::vector<int64_t>{1, INT64_MAX, 0, 0}));

  EXPECT_EQ(labels(P, P.sample(0)),
            (std::vector<std::string>{"class=cold", "context_id=0x1111"}));
  EXPECT_EQ(labels(P, P.sample(1)),
            (std::vector<std::string>{"class=notcold", "context_id=0x2222"}));
  // Unclassified: no class label.
  EXPECT_EQ(labels(P, P.sample(2)),
            (std::vector<std::string>{"context_id=0x3333"}));
}

TEST(Pprof, InlineFramesGapsAndMappings) {
  pb::Profile P = parse(makeReport());
  Strings Str{P};
  const pb::Sample &A = P.sample(0);
  // ns::inl inlined into outer: one location, innermost line first; then
  // main; then the gap.
  ASSERT_EQ(A.location_id_size(), 3);
  EXPECT_EQ(lineNames(P, A.location_id(0)),
            (std::vector<std::string>{"ns::inl(int)", "outer()"}));
  const pb::Location &Site = location(P, A.location_id(0));
  ASSERT_EQ(Site.line_size(), 2);
  EXPECT_EQ(Site.line(0).line(), 10);
  EXPECT_EQ(Site.line(1).line(), 20);
  const pb::Function &Inl = function(P, Site.line(0).function_id());
  EXPECT_EQ(Str(Inl.system_name()), "_ZN2ns3inlEi");
  EXPECT_EQ(Str(Inl.filename()), "src/a.cpp");
  EXPECT_EQ(lineNames(P, A.location_id(1)), (std::vector<std::string>{"main"}));
  const pb::Location &Gap = location(P, A.location_id(2));
  EXPECT_EQ(Gap.address(), 0x1234u);
  EXPECT_EQ(lineNames(P, A.location_id(2)),
            (std::vector<std::string>{"?? at module bbbb+0x1234"}));

  // Mappings: the modules the summary ranks, in its order; the site's
  // location in the context's module, the gap in its own, the callers
  // (whose module no input records) in none.
  ASSERT_EQ(P.mapping_size(), 2);
  EXPECT_EQ(P.mapping(0).id(), 1u);
  EXPECT_EQ(Str(P.mapping(0).build_id()), "aaaa");
  EXPECT_EQ(Str(P.mapping(0).filename()), "/bin/app");
  EXPECT_TRUE(P.mapping(0).has_functions());
  EXPECT_TRUE(P.mapping(0).has_filenames());
  EXPECT_TRUE(P.mapping(0).has_line_numbers());
  EXPECT_TRUE(P.mapping(0).has_inline_frames());
  EXPECT_EQ(Str(P.mapping(1).build_id()), "bbbb");
  EXPECT_FALSE(P.mapping(1).has_filenames());
  EXPECT_FALSE(P.mapping(1).has_line_numbers());
  EXPECT_EQ(Site.mapping_id(), 1u);
  EXPECT_EQ(location(P, A.location_id(1)).mapping_id(), 0u);
  EXPECT_EQ(Gap.mapping_id(), 2u);

  // The unnamed function is named by its GUID; main's location at the
  // same line is shared, and main is one function.
  const pb::Sample &B = P.sample(1);
  ASSERT_EQ(B.location_id_size(), 2);
  EXPECT_EQ(lineNames(P, B.location_id(0)), (std::vector<std::string>{"0xabc"}));
  EXPECT_EQ(B.location_id(1), A.location_id(1));
  int Mains = 0;
  for (const pb::Function &F : P.function())
    Mains += Str(F.name()) == "main";
  EXPECT_EQ(Mains, 1);

  // Every id the samples and locations use is in its table.
  for (const pb::Sample &S : P.sample())
    for (uint64_t L : S.location_id())
      for (const pb::Line &Ln : location(P, L).line())
        (void)function(P, Ln.function_id());
}

TEST(Pprof, BaseIsNegatedAndLabelled) {
  Report R = makeReport(), Base = makeBase();
  pb::Profile P = parse(R, &Base);
  Strings Str{P};
  std::vector<std::string> Types;
  for (const pb::ValueType &T : P.sample_type())
    Types.push_back(Str(T.type()));
  // The union of both sides' fields, in the fixed order.
  EXPECT_EQ(Types, (std::vector<std::string>{"alloc_objects", "alloc_space",
                                             "lifetime", "accesses",
                                             "lifetime_access_density"}));
  // The new profile's three samples (0 for the field only the base
  // stores), then the base's one sample with a value: pprof drops the
  // base's samples left without one, and so do we.
  ASSERT_EQ(P.sample_size(), 4);
  auto Values = [&](int I) {
    const auto &V = P.sample(I).value();
    return std::vector<int64_t>(V.begin(), V.end());
  };
  EXPECT_EQ(Values(0), (std::vector<int64_t>{3, 300, 900000, 0, 7}));
  EXPECT_EQ(Values(3), (std::vector<int64_t>{-1, -100, -200, -9, -2}));
  EXPECT_EQ(labels(P, P.sample(3)),
            (std::vector<std::string>{"class=cold", "context_id=0x1111",
                                      "pprof::base=true"}));
  for (int I = 0; I < 3; ++I)
    for (const std::string &L : labels(P, P.sample(I)))
      EXPECT_NE(L, "pprof::base=true");
  // The same frames: the same locations.
  EXPECT_TRUE(std::equal(P.sample(0).location_id().begin(),
                         P.sample(0).location_id().end(),
                         P.sample(3).location_id().begin(),
                         P.sample(3).location_id().end()));
  std::vector<std::string> Comments;
  for (int64_t C : P.comment())
    Comments.push_back(Str(C));
  EXPECT_EQ(Comments, (std::vector<std::string>{
                          "memprof: new.profdata",
                          "memprof diff base: base.profdata"}));
}

TEST(Pprof, DeterministicGzip) {
  Report R = makeReport(), Base = makeBase();
  Expected<std::string> A = writePprof(R, &Base), B = writePprof(R, &Base);
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(*A, *B);
  // gzip, with no modification time.
  ASSERT_GE(A->size(), 10u);
  EXPECT_EQ(uint8_t((*A)[0]), 0x1f);
  EXPECT_EQ(uint8_t((*A)[1]), 0x8b);
  EXPECT_EQ(A->substr(4, 4), std::string(4, '\0'));
}

TEST(Pprof, NamesAreValidUTF8) {
  Report R = makeReport();
  R.Contexts[0].Frames[1].Name = "bad\xff name";
  R.Contexts[0].Frames[1].File = "src/\xfe.cpp";
  // proto3 strings must be UTF-8: the parse in parse() fails otherwise.
  pb::Profile P = parse(R);
  ASSERT_EQ(P.sample_size(), 3);
  std::vector<std::string> N = lineNames(P, P.sample(0).location_id(0));
  ASSERT_EQ(N.size(), 2u);
  EXPECT_NE(N[1].find("name"), std::string::npos);
}

// memprof-convert's reports hold each distinct frame once (ReportOptions::
// InternFrames): the same bytes, with a base too.
TEST(Pprof, InternedFramesWriteTheSame) {
  Report R = makeReport(), B = makeBase();
  Report IR = interned(R), IB = interned(B);
  ASSERT_LT(IR.FrameTable.size(), 8u); // main is one entry
  auto Bytes = [](const Report &R, const Report *Base) {
    Expected<std::string> Gz = writePprof(R, Base);
    return Gz ? *Gz : toString(Gz.takeError());
  };
  EXPECT_EQ(Bytes(IR, nullptr), Bytes(R, nullptr));
  EXPECT_EQ(Bytes(IR, &IB), Bytes(R, &B));
  EXPECT_EQ(Bytes(R, &IB), Bytes(R, &B));
}

} // namespace
