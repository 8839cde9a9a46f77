//===- MemProfYAMLTest.cpp - LLVM MemProf YAML writer and reader ----------===//
//
// The writer's exact text for the spec's example, the reader's rules (GUIDs
// from hex or names, first record wins, LLVM's insertion order, widths),
// hostile text as one-line errors, the round-trip record order against the
// indexed writer on random tables with colliding chains, and the summary the
// reader computes. llvm-profdata itself is the oracle in the lit tests.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/MemProfYAML.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cstring>
#include <random>
#include <string>

using namespace memprof;
using namespace llvm;

namespace {

const GUID Wrap = 0x65186e62ed9360f0ULL;
const GUID AllocA = 0x3d1833f9b5c4988ULL;
const GUID Main = 0xdb956436e78dd5faULL;

/// The profile of spec 3.11 / 4 in LLVM's YAML-reader order.
IndexedMemProf exampleProfile() {
  IndexedMemProf P;
  IndexedRecord R1;
  R1.CallSites.push_back({P.addCallStack({Frame{Wrap, 0, 57, false}}), {}});
  P.Records.insert({Wrap, R1});
  IndexedRecord R2;
  IndexedAllocSite A;
  A.CSId =
      P.addCallStack({Frame{AllocA, 0, 67, false}, Frame{Wrap, 0, 57, false},
                      Frame{Main, 2, 15, false}});
  A.Info.AllocCount = 3;
  A.Info.TotalSize = 300;
  A.Info.TotalLifetimeAccessDensity = 42000;
  R2.AllocSites.push_back(A);
  P.Records.insert({AllocA, R2});
  IndexedRecord R3;
  IndexedAllocSite B;
  B.CSId = P.addCallStack({Frame{Main, 6, 13, false}});
  B.Info.AllocCount = 1;
  B.Info.TotalSize = 48;
  B.Info.TotalLifetimeAccessDensity = 100000;
  R3.AllocSites.push_back(B);
  IndexedCallSite C;
  C.CSId = P.addCallStack({Frame{Main, 2, 15, false}});
  C.CalleeGuids.push_back(Wrap);
  R3.CallSites.push_back(C);
  P.Records.insert({Main, R3});
  return P;
}

std::string bytesOf(const IndexedMemProf &P, unsigned Version, bool Full) {
  SmallVector<char, 0> Out;
  IndexedWriterOptions O;
  O.MemProfVersion = Version;
  O.FullSchema = Full;
  auto S = writeIndexedProfile(P, O, Out);
  EXPECT_TRUE(bool(S)) << toString(S.takeError());
  return std::string(Out.begin(), Out.end());
}

std::string yamlOf(StringRef Indexed,
                   YAMLRecordOrder Order = YAMLRecordOrder::LLVMShow) {
  std::string S;
  raw_string_ostream OS(S);
  Error E = writeIndexedAsYAML(Indexed, OS, Order);
  EXPECT_FALSE(bool(E)) << toString(std::move(E));
  return S;
}

/// The error's class and one-line message, or "ok".
std::string errorOf(StringRef Text, MemProfYAMLLimits L = MemProfYAMLLimits()) {
  auto P = readMemProfYAML(Text, L);
  if (P)
    return "ok";
  std::string Msg;
  handleAllErrors(P.takeError(), [&](const MemProfError &M) {
    EXPECT_EQ(M.code(), ErrorCode::Malformed);
    Msg = M.detail();
  });
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
  return Msg;
}

YAMLProfile read(StringRef Text) {
  auto P = readMemProfYAML(Text);
  EXPECT_TRUE(bool(P)) << toString(P.takeError());
  return P ? std::move(*P) : YAMLProfile();
}

const char *ExampleYAML =
    "---\n"
    "# MemProfSummary:\n"
    "#   Total contexts: 2\n"
    "#   Total cold contexts: 0\n"
    "#   Total hot contexts: 0\n"
    "#   Maximum cold context total size: 0\n"
    "#   Maximum warm context total size: 300\n"
    "#   Maximum hot context total size: 0\n"
    "---\n"
    "HeapProfileRecords:\n"
    "  - GUID:            0x65186e62ed9360f0\n"
    "    CallSites:\n"
    "      - Frames:\n"
    "          - { Function: 0x65186e62ed9360f0, LineOffset: 0, Column: 57, "
    "IsInlineFrame: false }\n"
    "  - GUID:            0x3d1833f9b5c4988\n"
    "    AllocSites:\n"
    "      - Callstack:\n"
    "          - { Function: 0x3d1833f9b5c4988, LineOffset: 0, Column: 67, "
    "IsInlineFrame: false }\n"
    "          - { Function: 0x65186e62ed9360f0, LineOffset: 0, Column: 57, "
    "IsInlineFrame: false }\n"
    "          - { Function: 0xdb956436e78dd5fa, LineOffset: 2, Column: 15, "
    "IsInlineFrame: false }\n"
    "        MemInfoBlock:\n"
    "          AllocCount:      3\n"
    "          TotalSize:       300\n"
    "          TotalLifetime:   0\n"
    "          TotalLifetimeAccessDensity: 42000\n"
    "  - GUID:            0xdb956436e78dd5fa\n"
    "    AllocSites:\n"
    "      - Callstack:\n"
    "          - { Function: 0xdb956436e78dd5fa, LineOffset: 6, Column: 13, "
    "IsInlineFrame: false }\n"
    "        MemInfoBlock:\n"
    "          AllocCount:      1\n"
    "          TotalSize:       48\n"
    "          TotalLifetime:   0\n"
    "          TotalLifetimeAccessDensity: 100000\n"
    "    CallSites:\n"
    "      - Frames:\n"
    "          - { Function: 0xdb956436e78dd5fa, LineOffset: 2, Column: 15, "
    "IsInlineFrame: false }\n"
    "        CalleeGuids:     [ 0x65186e62ed9360f0 ]\n"
    "...\n";

TEST(MemProfYAML, WritesWhatLLVMPrintsForTheSpecExample) {
  std::string B = bytesOf(exampleProfile(), 4, false);
  EXPECT_EQ(yamlOf(B), ExampleYAML);
}

TEST(MemProfYAML, ReadsTheSpecExampleBackToTheSameBytes) {
  for (unsigned V : {2u, 3u, 4u}) {
    YAMLProfile Y = read(ExampleYAML);
    EXPECT_EQ(bytesOf(Y.Profile, V, false), bytesOf(exampleProfile(), V, false))
        << "V" << V;
    EXPECT_TRUE(Y.HasCalleeGuids);
    EXPECT_FALSE(Y.impliesFullSchema());
    EXPECT_EQ(Y.FieldsPresent, hotColdSchema());
  }
}

TEST(MemProfYAML, PrintsOnlyTheSchemaFieldsInFieldOrder) {
  IndexedMemProf P = exampleProfile();
  std::string S;
  raw_string_ostream OS(S);
  MIBSchema Odd = {23, 1}; // out of order in the file; printed in field order
  writeMemProfYAMLRecords(OS, P, Odd);
  size_t AC = S.find("AllocCount:"),
         TLAD = S.find("TotalLifetimeAccessDensity:");
  ASSERT_NE(AC, std::string::npos);
  ASSERT_NE(TLAD, std::string::npos);
  EXPECT_LT(AC, TLAD);
  EXPECT_EQ(S.find("TotalSize:"), std::string::npos);
}

TEST(MemProfYAML, EmptyProfilePrintsAnEmptyMapping) {
  IndexedMemProf P;
  std::string S = yamlOf(bytesOf(P, 3, false));
  EXPECT_NE(S.find("---\n{}\n...\n"), std::string::npos) << S;
  // And reads back as an empty profile (llvm-profdata calls it empty).
  EXPECT_EQ(read(S).Profile.Records.size(), 0u);
  EXPECT_EQ(read("---\n").Profile.Records.size(), 0u);
  EXPECT_EQ(read("--- {}\n").Profile.Records.size(), 0u);
}

TEST(MemProfYAML, GUIDsFromHexOrNames) {
  YAMLProfile Y = read("---\nHeapProfileRecords:\n"
                       "  - GUID: main\n"
                       "  - GUID: _Z7alloc_am\n"
                       "  - GUID: 0X1F\n"
                       "  - GUID: foo.llvm.123\n"
                       "  - GUID: bar.__uniq.5\n"
                       "  - GUID: '0x20'\n");
  std::vector<GUID> Keys;
  for (const auto &KV : Y.Profile.Records)
    Keys.push_back(KV.first);
  std::vector<GUID> Want = {Main, AllocA, 0x1f, functionGUID("foo"),
                            functionGUID("bar.__uniq.5"), 0x20};
  EXPECT_EQ(Keys, Want);
  EXPECT_NE(functionGUID("bar.__uniq.5"), functionGUID("bar"));
}

TEST(MemProfYAML, RejectsWhatLLVMRejects) {
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 12\n")
                .find("use a hexadecimal GUID or a function instead"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0xg\n")
                .find("invalid hex64 number"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: ''\n")
                .find("use a hexadecimal GUID"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0x1\n    X: 1\n")
                .find("unknown key 'X'"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - AllocSites: []\n")
                .find("missing required key 'GUID'"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0x1\n    AllocSites:"
                    "\n      - Callstack: []\n        MemInfoBlock: "
                    "{ Foo: 1 }\n")
                .find("unknown MemInfoBlock field 'Foo'"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0x1\n    CallSites:\n"
                    "      - Frames: [ { Function: 0x1, LineOffset: "
                    "4294967296, Column: 0, IsInlineFrame: false } ]\n")
                .find("out of range number"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords: {}\n").find("not a sequence"),
            std::string::npos);
  EXPECT_NE(errorOf("---\n- 1\n").find("not a mapping"), std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords: [\n").find("line "),
            std::string::npos);
  // A document whose root does not parse (found by fuzzing).
  EXPECT_NE(errorOf("%--\nHeapProfileRec  CallSites:\n      - Frames: []\n"
                    "  ssHistogram: 0 }\n  - GUID:fl.l ovom.124\n"),
            "ok");
}

TEST(MemProfYAML, MIBValuesMustFitTheirField) {
  auto MIB = [](StringRef Field, StringRef Value) {
    return ("---\nHeapProfileRecords:\n  - GUID: 0x1\n    AllocSites:\n"
            "      - Callstack: []\n        MemInfoBlock: { " +
            Field + ": " + Value + " }\n")
        .str();
  };
  EXPECT_EQ(errorOf(MIB("AllocCount", "4294967295")), "ok");
  EXPECT_NE(errorOf(MIB("AllocCount", "4294967296"))
                .find("value 4294967296 of AllocCount does not fit in its 32 "
                      "bits"),
            std::string::npos);
  EXPECT_EQ(errorOf(MIB("TotalSize", "18446744073709551615")), "ok");
  EXPECT_NE(errorOf(MIB("TotalSize", "18446744073709551616"))
                .find("invalid number"),
            std::string::npos);
  EXPECT_NE(errorOf(MIB("TotalSize", "-1")).find("invalid number"),
            std::string::npos);
  EXPECT_NE(errorOf(MIB("TotalSize", "[]")).find("line 6"),
            std::string::npos);
  YAMLProfile Y = read(MIB("AccessHistogram", "0x10"));
  const auto &A = Y.Profile.Records.begin()->second.AllocSites[0].Info;
  EXPECT_EQ(A.AccessHistogram, 16u);
  EXPECT_TRUE(Y.impliesFullSchema());
}

TEST(MemProfYAML, ReservedRecordGUIDsAreRejected) {
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0xffffffffffffffff\n")
                .find("record GUID 0xffffffffffffffff is a reserved value"),
            std::string::npos);
  EXPECT_NE(errorOf("---\nHeapProfileRecords:\n  - GUID: 0xfffffffffffffffe\n")
                .find("reserved"),
            std::string::npos);
  // As a frame's function it is just a value.
  EXPECT_EQ(errorOf("---\nHeapProfileRecords:\n  - GUID: 0x1\n    CallSites:\n"
                    "      - Frames: [ { Function: 0xffffffffffffffff, "
                    "LineOffset: 0, Column: 0, IsInlineFrame: false } ]\n"),
            "ok");
}

TEST(MemProfYAML, FirstRecordWinsButItsStacksStay) {
  YAMLProfile Y = read(
      "---\nHeapProfileRecords:\n"
      "  - GUID: 0x5\n"
      "    CallSites:\n"
      "      - Frames: [ { Function: 0x1, LineOffset: 1, Column: 1, "
      "IsInlineFrame: false } ]\n"
      "  - GUID: 0x5\n"
      "    AllocSites:\n"
      "      - Callstack: [ { Function: 0x2, LineOffset: 2, Column: 2, "
      "IsInlineFrame: false } ]\n"
      "        MemInfoBlock: { AllocCount: 7, MinSize: 3 }\n");
  ASSERT_EQ(Y.Profile.Records.size(), 1u);
  EXPECT_EQ(Y.DuplicateRecords, 1u);
  const IndexedRecord &R = Y.Profile.Records.begin()->second;
  EXPECT_EQ(R.AllocSites.size(), 0u);
  EXPECT_EQ(R.CallSites.size(), 1u);
  // LLVM adds the dropped record's frames and stack all the same.
  EXPECT_EQ(Y.Profile.Frames.size(), 2u);
  EXPECT_EQ(Y.Profile.CallStacks.size(), 2u);
  // Fields named only by the dropped record do not count.
  EXPECT_FALSE(Y.impliesFullSchema());
}

TEST(MemProfYAML, InsertsFramesAndStacksInLLVMOrder) {
  // Alloc sites before call sites within a record, records in document order.
  YAMLProfile Y = read(
      "---\nHeapProfileRecords:\n"
      "  - GUID: 0x1\n"
      "    CallSites:\n"
      "      - Frames: [ { Function: 0xc, LineOffset: 0, Column: 0, "
      "IsInlineFrame: false } ]\n"
      "    AllocSites:\n"
      "      - Callstack: [ { Function: 0xa, LineOffset: 0, Column: 0, "
      "IsInlineFrame: true }, { Function: 0xb, LineOffset: 0, Column: 0, "
      "IsInlineFrame: false } ]\n"
      "        MemInfoBlock: {}\n");
  std::vector<GUID> Order;
  for (const auto &KV : Y.Profile.Frames)
    Order.push_back(KV.second.Function);
  EXPECT_EQ(Order, (std::vector<GUID>{0xa, 0xb, 0xc}));
}

TEST(MemProfYAML, DeepNestingIsAnErrorNotACrash) {
  std::string Flow = "---\nHeapProfileRecords: " + std::string(200000, '[') +
                     std::string(200000, ']') + "\n";
  EXPECT_NE(errorOf(Flow).find("nests deeper than 64 levels"),
            std::string::npos);
  std::string Seq = "---\n";
  for (int I = 0; I < 100000; ++I)
    Seq += "- ";
  Seq += "x\n";
  EXPECT_NE(errorOf(Seq).find("nests deeper"), std::string::npos);
  std::string Open = "---\n" + std::string(300000, '{');
  EXPECT_NE(errorOf(Open), "ok");
  // LLVM's own text nests 7 levels deep.
  MemProfYAMLLimits L;
  L.MaxDepth = 7;
  EXPECT_EQ(errorOf(ExampleYAML, L), "ok");
  L.MaxDepth = 6;
  EXPECT_NE(errorOf(ExampleYAML, L).find("nests deeper than 6"),
            std::string::npos);
}

TEST(MemProfYAML, CommaRunsAreAnErrorNotACrash) {
  // LLVM's parser calls itself once per comma of a run (empty flow
  // entries): 30,000 of them exhausted the stack (the fuzzer's input is
  // fuzz/corpus/yaml/crash-comma-run-recursion.yaml).
  for (const char *Open : {"{ Function: 1", "[ 1"}) {
    std::string Text = "---\nHeapProfileRecords: " + std::string(Open) +
                       std::string(300000, ',') + "\n";
    std::string Want = "line 2, column " +
                       std::to_string(21 + std::strlen(Open)) +
                       ": more than 64 commas in a row (empty flow entries)";
    EXPECT_NE(errorOf(Text).find(Want), std::string::npos) << errorOf(Text);
  }
  // Blanks, line breaks and comments between the commas do not end a run
  // (LLVM's scanner skips them between tokens).
  std::string Spread = "---\nHeapProfileRecords: [ 1";
  for (int I = 0; I < 65; ++I)
    Spread += I % 3 ? ", \t" : ",  # a comment, with a comma\n  ";
  Spread += "]\n";
  EXPECT_NE(errorOf(Spread).find("more than 64 commas"), std::string::npos);
  // 64 in a row are left to the parser (which rejects the empty entries).
  std::string Sixty = "---\nHeapProfileRecords: [ 1" +
                      std::string(64, ',') + " ]\n";
  EXPECT_EQ(errorOf(Sixty).find("commas in a row"), std::string::npos);
  MemProfYAMLLimits L;
  L.MaxCommaRun = 1;
  EXPECT_EQ(errorOf(ExampleYAML, L), "ok"); // LLVM's text has none
}

TEST(MemProfYAML, OnlyTheFirstDocumentWithContentIsRead) {
  YAMLProfile Y = read("---\n# nothing\n---\nHeapProfileRecords:\n"
                       "  - GUID: 0x1\n---\nHeapProfileRecords:\n"
                       "  - GUID: 0x2\n");
  ASSERT_EQ(Y.Profile.Records.size(), 1u);
  EXPECT_EQ(Y.Profile.Records.begin()->first, 1u);
}

TEST(MemProfYAML, DataAccessProfilesAreRefused) {
  EXPECT_NE(errorOf("---\nDataAccessProfiles:\n  KnownColdStrHashes: [ 1 ]\n")
                .find("DataAccessProfiles are not supported"),
            std::string::npos);
  EXPECT_EQ(errorOf("---\nDataAccessProfiles: {}\n"), "ok");
}

TEST(MemProfYAML, ReaderSummaryIgnoresTheInlineFlag) {
  IndexedMemProf P;
  for (bool Inline : {false, true}) {
    IndexedRecord R;
    IndexedAllocSite A;
    A.CSId = P.addCallStack({Frame{1, 2, 3, Inline}});
    A.Info.AllocCount = 1;
    A.Info.TotalSize = Inline ? 10 : 20;
    R.AllocSites.push_back(A);
    P.Records.insert({Inline ? 2u : 1u, R});
  }
  EXPECT_EQ(computeSummary(P).NumContexts, 2u);
  MemProfSummary S = computeReaderSummary(P);
  EXPECT_EQ(S.NumContexts, 1u);
  EXPECT_EQ(S.MaxWarmTotalSize, 20u); // the first one's
}

/// Random profiles whose GUIDs share low bits, so hash-table chains hold
/// several records, in a random insertion order.
IndexedMemProf randomProfile(std::mt19937_64 &R, size_t N) {
  IndexedMemProf P;
  std::uniform_int_distribution<int> Small(0, 3);
  while (P.Records.size() < N) {
    GUID G = R();
    if (Small(R) == 0)
      G = (G << 4) | 5; // low bits equal: one chain at every table size
    if (G >= ~0ULL - 1)
      continue;
    IndexedRecord Rec;
    IndexedAllocSite A;
    A.CSId = P.addCallStack({Frame{G, uint32_t(R()), 1, false},
                             Frame{R() % 8, 2, 3, false}});
    A.Info.AllocCount = 1 + R() % 10;
    A.Info.TotalSize = R() % 100000;
    Rec.AllocSites.push_back(A);
    P.Records.insert({G, Rec});
  }
  return P;
}

TEST(MemProfYAML, RoundTripOrderRebuildsTheRecordTable) {
  std::mt19937_64 R(1234);
  unsigned Reordered = 0;
  for (size_t N : {0, 1, 2, 3, 5, 20, 47, 48, 49, 95, 96, 97, 150, 300, 700}) {
    for (int Round = 0; Round < 3; ++Round) {
      IndexedMemProf P = randomProfile(R, N);
      for (unsigned V : {3u, 4u}) {
        std::string B = bytesOf(P, V, false);
        auto Read = readIndexedProfile(B);
        ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
        std::vector<size_t> Order = roundTripRecordOrder(*Read);
        ASSERT_EQ(Order.size(), N);
        Reordered += !std::is_sorted(Order.begin(), Order.end());
        EXPECT_EQ(bytesOf(inRoundTripOrder(*Read), V, false), B)
            << "N=" << N << " V" << V;
        // Through the text, in that order.
        YAMLProfile Y = read(yamlOf(B, YAMLRecordOrder::RoundTrip));
        EXPECT_EQ(bytesOf(Y.Profile, V, false), B) << "N=" << N << " V" << V;
        // The payload order (what show prints) does not always round-trip,
        // but it holds the same records.
        YAMLProfile S = read(yamlOf(B));
        EXPECT_EQ(S.Profile.Records.size(), N);
      }
    }
  }
  // Chains with several records were exercised.
  EXPECT_GT(Reordered, 10u);
}

TEST(MemProfYAML, RoundTripOrderIsTheIdentityWithoutChains) {
  IndexedMemProf P;
  for (GUID G : {0x10ULL, 0x21ULL, 0x32ULL, 0x43ULL})
    P.Records.insert({G, IndexedRecord()});
  auto Read = readIndexedProfile(bytesOf(P, 3, false));
  ASSERT_TRUE(bool(Read));
  std::vector<size_t> Order = roundTripRecordOrder(*Read);
  EXPECT_TRUE(std::is_sorted(Order.begin(), Order.end()));
}

TEST(MemProfYAML, ADataAccessProfileIsNotShownAsIfAbsent) {
  std::string B = bytesOf(exampleProfile(), 4, false);
  EXPECT_FALSE(hasDataAccessProfile(B));
  // Point DataAccessProfOffset at the binary-id section, after the records.
  uint64_t MemProfOffset = support::endian::read64le(B.data() + 40);
  uint64_t BinaryIds = support::endian::read64le(B.data() + 48);
  support::endian::write64le(&B[MemProfOffset + 32], BinaryIds);
  EXPECT_TRUE(hasDataAccessProfile(B));
  std::string S;
  raw_string_ostream OS(S);
  Error E = writeIndexedAsYAML(B, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("data-access profile"),
            std::string::npos);
  EXPECT_TRUE(S.empty());
  // Short or odd buffers are simply not V4.
  EXPECT_FALSE(hasDataAccessProfile(""));
  EXPECT_FALSE(hasDataAccessProfile(B.substr(0, 44)));
}

} // namespace

namespace {

TEST(MemProfYAML, NamesRideAlongAsComments) {
  ProfileNames N;
  FunctionNameInfo F;
  F.LinkageName = "main";
  F.DemangledName = "main";
  F.DeclFile = "/src/a.cpp";
  F.DeclLine = 10;
  N.addFunction(Main, F);
  FunctionNameInfo W;
  W.LinkageName = "_Z7alloc_am";
  W.DemangledName = "alloc_a(unsigned long)\n"; // hostile: ends its line
  N.addFunction(AllocA, W);
  std::string Y = annotateYAMLWithNames(ExampleYAML, N);
  EXPECT_NE(Y.find("  - GUID:            0xdb956436e78dd5fa  # main\n"),
            std::string::npos)
      << Y;
  EXPECT_NE(Y.find("LineOffset: 6, Column: 13, IsInlineFrame: false }  # "
                   "main /src/a.cpp:16\n"),
            std::string::npos)
      << Y;
  EXPECT_NE(Y.find("0x3d1833f9b5c4988  # alloc_a(unsigned long)?\n"),
            std::string::npos)
      << Y;
  // Unknown functions get no comment; the text reads as the plain one.
  EXPECT_NE(Y.find("  - GUID:            0x65186e62ed9360f0\n"),
            std::string::npos);
  YAMLProfile A = read(Y), B = read(ExampleYAML);
  EXPECT_EQ(bytesOf(A.Profile, 4, false), bytesOf(B.Profile, 4, false));

  // A wrapped frame gets its comment after the closing brace.
  std::string Wrapped = "  - GUID:            0x1\n"
                        "    CallSites:\n"
                        "      - Frames:\n"
                        "          - { Function: 0xdb956436e78dd5fa, "
                        "LineOffset: 4294967295, Column: 4294967295, \n"
                        "              IsInlineFrame: false }\n";
  std::string WY = annotateYAMLWithNames(Wrapped, N);
  EXPECT_NE(WY.find("Column: 4294967295, \n              IsInlineFrame: "
                    "false }  # main /src/a.cpp:9\n"),
            std::string::npos)
      << WY;
}

} // namespace
