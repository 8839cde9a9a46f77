//===- InstrProfTextTest.cpp - LLVM's counters text, read and written -----===//
//
// Truths: byte images of the text written from spec llvm-instrprof-formats.md
// 4.1 by hand, values computed here (MD5 with llvm::MD5), LLVM's own StringSet
// for the vtable-name order, and round trips through CounterMerger for the
// record order under one name. The lit tests compare with llvm-profdata-22
// on real profiles (lit-tests/memprof-convert/counters-text.test).
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <random>

using namespace memprof;
using namespace llvm;
namespace ip = memprof::instrprof;

namespace {

uint64_t md5lo(StringRef S) { return llvm::MD5Hash(S); }

std::string errorOf(StringRef Text) {
  auto P = readInstrProfText(Text);
  if (P)
    return "";
  return toString(P.takeError());
}

std::string write(const CounterProfile &P, bool RoundTrip) {
  std::string S;
  raw_string_ostream OS(S);
  Error E = writeInstrProfText(P, OS, RoundTrip);
  EXPECT_FALSE(bool(E)) << toString(std::move(E));
  return S;
}

FunctionCounters record(StringRef Name, uint64_t Hash,
                        std::vector<uint64_t> Counts) {
  FunctionCounters F;
  F.Name = Name.str();
  F.Hash = Hash;
  F.Counts = std::move(Counts);
  return F;
}

TEST(InstrProfTextTest, WritesLLVMsText) {
  CounterProfile P;
  P.Present = true;
  P.Variant = ip::VariantIR | ip::VariantCSIR | ip::VariantEntryFirst;
  FunctionCounters Main = record("main", 7, {5, 0, 12});
  Main.Bitmap = {0x0, 0xab};
  Main.Sites[ip::ValueKindIndirectCallTarget] = {
      {{md5lo("callee"), 9}, {md5lo("elsewhere"), 3}, {0, 1}}};
  Main.Sites[ip::ValueKindMemOPSize] = {{}, {{65, 2}}};
  // Records come out sorted by name, then hash.
  P.Records = {record("callee", 2, {9}), Main, record("callee", 1, {4})};
  const std::string Want = "# CSIR level Instrumentation Flag\n:csir\n"
                           "# Always instrument the function entry block\n"
                           ":entry_first\n"
                           "callee\n# Func Hash:\n1\n# Num Counters:\n1\n"
                           "# Counter Values:\n4\n\n"
                           "callee\n# Func Hash:\n2\n# Num Counters:\n1\n"
                           "# Counter Values:\n9\n\n"
                           "main\n# Func Hash:\n7\n# Num Counters:\n3\n"
                           "# Counter Values:\n5\n0\n12\n"
                           "# Num Bitmap Bytes:\n$2\n# Bitmap Byte Values:\n"
                           "0x0\n0xab\n\n"
                           "# Num Value Kinds:\n2\n"
                           "# ValueKind = IPVK_IndirectCallTarget:\n0\n"
                           "# NumValueSites:\n1\n3\ncallee:9\n"
                           "** External Symbol **:3\n** External Symbol **:1\n"
                           "# ValueKind = IPVK_MemOPSize:\n1\n"
                           "# NumValueSites:\n2\n0\n1\n65:2\n\n";
  EXPECT_EQ(write(P, false), Want);
}

TEST(InstrProfTextTest, ReadsWhatLLVMReads) {
  // Comments and blank lines anywhere, CRLF, a hash in hex, header flags in
  // any case, a trace with names trimmed, value sites of each kind.
  const std::string Text =
      "# a comment\r\n:IR\r\n:Entry_First\r\n:not_entry_first\r\n"
      ":temporal_prof_traces\n# Num:\n2\n# Size:\n0x5\n# Weight:\n3\nf, g ,\n"
      "# Weight:\n1\ng\n\n"
      "f\n# Func Hash:\n0x10\n# Num Counters:\n2\n# Counter Values:\n1\n"
      "\n# between counters\n2\n$3\n0x1\n2\n0\n"
      "3\n0\n1\n2\ng:5\n** External Symbol **:1\n"
      "1\n1\n1\n64:7\n2\n1\n1\n_ZTV1A:4\n"
      "g\n1\n1\n9\n";
  std::vector<std::string> VT;
  auto P = readInstrProfText(Text, &VT);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->Variant, ip::VariantIR | ip::VariantTemporal);
  EXPECT_EQ(P->TraceStreamSize, 5u);
  ASSERT_EQ(P->Traces.size(), 2u);
  EXPECT_EQ(P->Traces[0].Weight, 3u);
  EXPECT_EQ(P->Traces[0].FunctionNameRefs,
            (std::vector<uint64_t>{md5lo("f"), md5lo("g")}));
  EXPECT_EQ(P->Traces[1].FunctionNameRefs, std::vector<uint64_t>{md5lo("g")});
  ASSERT_EQ(P->Records.size(), 2u);
  const FunctionCounters &F = P->Records[0];
  EXPECT_EQ(F.Name, "f");
  EXPECT_EQ(F.Hash, 16u);
  EXPECT_EQ(F.Counts, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(F.Bitmap, (std::vector<uint8_t>{1, 2, 0}));
  ASSERT_EQ(F.Sites[0].size(), 1u);
  EXPECT_EQ(F.Sites[0][0],
            (InstrProfValueSite{{md5lo("g"), 5}, {0, 1}}));
  EXPECT_EQ(F.Sites[1], (std::vector<InstrProfValueSite>{{{64, 7}}}));
  EXPECT_EQ(F.Sites[2], (std::vector<InstrProfValueSite>{{{md5lo("_ZTV1A"), 4}}}));
  EXPECT_EQ(VT, std::vector<std::string>{"_ZTV1A"});
  EXPECT_TRUE(P->VTableNames.empty());
  EXPECT_EQ(P->Records[1].Name, "g");
  EXPECT_EQ(P->Records[1].Counts, std::vector<uint64_t>{9});
  // A front-end text has no header; an empty text is an empty profile.
  auto FE = readInstrProfText("f\n1\n1\n3\n");
  ASSERT_TRUE(bool(FE));
  EXPECT_EQ(FE->Variant, 0u);
  auto Empty = readInstrProfText("");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->Records.empty());
  EXPECT_TRUE(Empty->Present);
}

TEST(InstrProfTextTest, NulEndsTheText) {
  std::string Text = ":ir\nf\n1\n1\n4\n";
  Text += '\0';
  Text += "garbage that is never read\n";
  auto P = readInstrProfText(Text);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->Records.size(), 1u);
}

TEST(InstrProfTextTest, ReadsManyBitmapBytes) {
  // LLVM 22 cannot read back its own text of 256 or more (spec 7.5).
  std::string Text = ":ir\nf\n1\n1\n1\n$300\n";
  for (int I = 0; I < 300; ++I)
    Text += "0x" + utohexstr(I & 0xff) + "\n";
  auto P = readInstrProfText(Text);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  ASSERT_EQ(P->Records[0].Bitmap.size(), 300u);
  EXPECT_EQ(P->Records[0].Bitmap[299], 299 & 0xff);
}

TEST(InstrProfTextTest, MalformedTexts) {
  EXPECT_NE(errorOf(":irr\n").find("line 1: unknown header flag ':irr'"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\nx1\n1\n1\n").find(
                "line 3: the function hash of 'f' is not a valid integer"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n0\n").find("'f' has no counters"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n-1\n").find("number of counters"),
            std::string::npos);
  // A count of counters far beyond the lines left: truncated, and nothing
  // was reserved for it (ASan would see a 2^67-byte allocation).
  EXPECT_NE(errorOf(":ir\nf\n1\n18446744073709551615\n1\n")
                .find("the text ends before it"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n99999999999999999999\n")
                .find("a counter of 'f' is not a valid integer"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n4\n").find("number of value kinds"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n1\n3\n").find("value kind 3 is invalid"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n2\n1\n1\n1\n8:1\n1\n1\n1\n9:1\n")
                .find("value kind 1 is given twice"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n1\n1\n1\n2\n8:1\n").find("a value"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n1\n1\n1\n1\nx:1\n")
                .find("a value is not a valid integer"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n1\n0\n1\n1\ng:x\n")
                .find("a value count is not a valid integer"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n$2\n0x100\n1\n").find("bitmap byte"),
            std::string::npos);
  EXPECT_NE(errorOf(":temporal_prof_traces\n4294967295\n5\n1\nf,g\n")
                .find("a trace weight"),
            std::string::npos);
  EXPECT_NE(errorOf("# memprof: binary id 0g\n:ir\n").find("not hex"),
            std::string::npos);
  EXPECT_NE(errorOf(":ir\nf\n1\n1\n1\n1\n0\n1\n1\n# memprof: value x\ng:1\n")
                .find("memprof comment"),
            std::string::npos);
}

TEST(InstrProfTextTest, WriterRefusesNamesThatAreNotOneLine) {
  CounterProfile P;
  P.Records = {record("a\nb", 1, {1})};
  std::string S;
  raw_string_ostream OS(S);
  Error E = writeInstrProfText(P, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("cannot be a line"), std::string::npos);
}

TEST(InstrProfTextTest, RoundTripRefusesNamesThatReadAsOtherLines) {
  // Found by the fuzz target: a record named "5" after another reads as a
  // number of value kinds, "$x" as a bitmap count, ":x" first as a header.
  for (const char *Name : {"5", "$x"}) {
    CounterProfile P;
    P.Records = {record("!", 1, {1}), record(Name, 2, {1})};
    std::string S;
    raw_string_ostream OS(S);
    EXPECT_FALSE(bool(writeInstrProfText(P, OS, false))) << Name;
    Error E = writeInstrProfText(P, OS, true);
    ASSERT_TRUE(bool(E)) << Name;
    EXPECT_NE(toString(std::move(E)).find("would read back as another line"),
              std::string::npos);
  }
  CounterProfile P;
  P.Records = {record(":x", 1, {1})};
  std::string S;
  raw_string_ostream OS(S);
  Error E = writeInstrProfText(P, OS, true);
  EXPECT_TRUE(bool(E));
  consumeError(std::move(E));
  // An empty trace survives the round trip (LLVM writes an empty line).
  CounterProfile T;
  T.Variant = ip::VariantIR | ip::VariantTemporal;
  T.Traces = {{1, {}}, {2, {md5lo("f")}}};
  T.TraceStreamSize = 2;
  T.Records = {record("f", 1, {1})};
  auto Back = readInstrProfText(write(T, true));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Traces, T.Traces);
}

TEST(InstrProfTextTest, RoundTripCommentsKeepWhatTheTextLoses) {
  CounterProfile P;
  P.Present = true;
  P.Variant = ip::VariantIR | ip::VariantByteCoverage |
              ip::VariantFunctionEntryOnly | ip::VariantTemporal;
  P.BinaryIds = {std::string("\x01\x02\xff", 3), std::string("\xaa", 1)};
  P.VTableNames = {"_ZTV1B", "_ZTV1A"};
  P.TraceStreamSize = 4;
  P.Traces = {{2, {md5lo("f"), 0x1234, md5lo("g")}}};
  FunctionCounters F = record("f", 3, {1});
  F.Sites[ip::ValueKindIndirectCallTarget] = {
      {{0x9999, 4}, {md5lo("g"), 2}, {0, 1}}};
  F.Sites[ip::ValueKindVTableTarget] = {{{md5lo("_ZTV1A"), 4}}};
  P.Records = {F, record("g", 5, {0})};

  // Plain text loses them (the variant keeps IR and byte coverage only).
  auto Plain = readInstrProfText(write(P, false));
  ASSERT_TRUE(bool(Plain));
  EXPECT_EQ(Plain->Variant, ip::VariantIR | ip::VariantByteCoverage |
                                ip::VariantTemporal);
  EXPECT_TRUE(Plain->BinaryIds.empty());
  EXPECT_EQ(Plain->Records[0].Sites[0][0][0].Value, 0u);
  EXPECT_EQ(Plain->Traces[0].FunctionNameRefs.size(), 2u);

  const std::string RT = write(P, true);
  EXPECT_NE(RT.find("# memprof: variant 0xb100000000000000\n"),
            std::string::npos);
  EXPECT_NE(RT.find("# memprof: binary id 0102ff\n"), std::string::npos);
  EXPECT_NE(RT.find("# memprof: value 39321\n** External Symbol **:4\n"),
            std::string::npos);
  auto Back = readInstrProfText(RT);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Variant, P.Variant);
  EXPECT_EQ(Back->BinaryIds, P.BinaryIds);
  EXPECT_EQ(Back->VTableNames, P.VTableNames);
  EXPECT_EQ(Back->Traces, P.Traces);
  EXPECT_EQ(Back->TraceStreamSize, 4u);
  EXPECT_EQ(Back->Records, P.Records);
}

TEST(InstrProfTextTest, RoundTripKeepsRecordOrderUnderOneName) {
  // Records of one name, added in a random order: CounterMerger::build lists
  // them in LLVM's order, which depends on that order. The round-trip text
  // must rebuild it; the plain text (sorted by hash) need not.
  std::mt19937_64 Rng(7);
  unsigned Differs = 0;
  for (int Iter = 0; Iter < 300; ++Iter) {
    CounterProfile In;
    In.Present = true;
    In.Variant = ip::VariantIR;
    size_t N = 2 + Rng() % 6;
    for (size_t I = 0; I < N; ++I)
      In.Records.push_back(record("f", Rng() % 64, {I + 1}));
    CounterMerger M1;
    std::vector<CounterWarning> W;
    ASSERT_FALSE(bool(M1.add(In, 1, W)));
    CounterProfile Built = M1.build();

    auto Back = readInstrProfText(write(Built, true));
    ASSERT_TRUE(bool(Back));
    CounterMerger M2;
    ASSERT_FALSE(bool(M2.add(*Back, 1, W)));
    EXPECT_EQ(M2.build().Records, Built.Records) << "iteration " << Iter;

    auto Plain = readInstrProfText(write(Built, false));
    ASSERT_TRUE(bool(Plain));
    CounterMerger M3;
    ASSERT_FALSE(bool(M3.add(*Plain, 1, W)));
    Differs += M3.build().Records != Built.Records;
  }
  // The case exists: otherwise this test would show nothing.
  EXPECT_GT(Differs, 0u);
}

TEST(InstrProfTextTest, StringSetOrderIsLLVMs) {
  std::mt19937_64 Rng(3);
  for (size_t N : {1, 3, 12, 13, 40, 200}) {
    std::vector<std::string> Names;
    for (size_t I = 0; I < N; ++I)
      Names.push_back("_ZTV" + std::to_string(Rng() % (2 * N)));
    StringSet<> Set;
    for (const std::string &S : Names)
      Set.insert(S);
    std::vector<std::string> Want;
    for (const auto &E : Set)
      Want.push_back(E.getKey().str());
    std::vector<std::string> Got;
    for (size_t I : llvmStringSetOrder(Names))
      Got.push_back(Names[I]);
    EXPECT_EQ(Got, Want) << N << " names";
  }
}

TEST(InstrProfTextTest, Detection) {
  EXPECT_TRUE(isInstrProfText("# IR level Instrumentation Flag\n:ir\n"));
  EXPECT_TRUE(isInstrProfText("main\n# Func Hash:\n12\n"));
  EXPECT_TRUE(isInstrProfText("# memprof: variant 0x0\n"));
  EXPECT_FALSE(isInstrProfText("---\nHeapProfileRecords:\n"));
  EXPECT_FALSE(isInstrProfText("HeapProfileRecords:\n  - GUID: 1\n"));
  EXPECT_FALSE(isInstrProfText(StringRef("\x81rforpl\xff", 8)));
}

} // namespace
