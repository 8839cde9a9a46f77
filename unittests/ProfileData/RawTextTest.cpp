//===- RawTextTest.cpp - The raw text form of raw MemProf profiles --------===//
//
// Decompiling any bytes and compiling the text gives the same bytes (valid
// dumps of every version, several dumps, mutations, random bytes); the text
// of a RawBuilder profile reads like the profile; overrides land in the
// right header fields; errors name the line.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/RawText.h"
#include "RawBuilder.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/RawReader.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <random>

using namespace memprof;
using namespace memprof::test;
using namespace llvm;

namespace {

std::string textOf(StringRef Bytes) {
  std::string S;
  raw_string_ostream OS(S);
  writeRawText(Bytes, OS);
  return S;
}

std::string compile(StringRef Text) {
  auto B = compileRawText(Text);
  EXPECT_TRUE(bool(B)) << toString(B.takeError()) << "\n" << Text.str();
  return B ? *B : std::string();
}

std::string compileError(StringRef Text, RawTextLimits L = RawTextLimits()) {
  auto B = compileRawText(Text, L);
  if (B)
    return "ok";
  std::string Msg = toString(B.takeError());
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << Msg;
  return Msg;
}

RawBuilder sample(std::mt19937_64 &R) {
  RawBuilder B;
  unsigned NSeg = 1 + R() % 3;
  for (unsigned I = 0; I < NSeg; ++I) {
    std::string Id;
    for (unsigned J = 0, N = R() % 21; J < N; ++J)
      Id.push_back(char(R()));
    B.Segs.push_back({0x400000 + 0x10000 * I, 0x401000 + 0x10000 * I, I, Id});
  }
  unsigned NMIB = R() % 5;
  for (unsigned I = 0; I < NMIB; ++I) {
    RawEntry E;
    E.StackId = I + 1;
    for (unsigned T = 1; T <= 25; ++T)
      E.Info.set(T, R() & (mibFieldWidth(T) == 4 ? 0xffffffffULL : ~0ULL));
    for (unsigned J = 0, N = R() % 12; J < N; ++J)
      E.Histogram.push_back(R() % 3 ? R() % 5000 : R() % 200000000);
    B.MIBs.push_back(E);
    std::vector<uint64_t> PCs;
    for (unsigned J = 0, N = R() % 6; J < N; ++J)
      PCs.push_back(R() % 4 ? 0x400000 + R() % 0x1000 : 0);
    B.Stacks.push_back({I + 1, PCs});
  }
  return B;
}

TEST(RawText, ValidProfilesOfEveryVersionComeBackExactly) {
  std::mt19937_64 R(42);
  for (int I = 0; I < 200; ++I) {
    RawBuilder B = sample(R);
    unsigned V = 3 + I % 3;
    std::string Bytes = B.build(V);
    if (I % 4 == 0)
      Bytes += std::string(8 * (R() % 3), '\0') + B.build(V);
    std::string Text = textOf(Bytes);
    EXPECT_EQ(Text.find("\nbytes "), std::string::npos)
        << "a valid profile was not described by structure:\n" << Text;
    EXPECT_EQ(compile(Text), Bytes) << Text;
    // The text of the compiled bytes is the same text.
    EXPECT_EQ(textOf(compile(Text)), Text);
  }
}

TEST(RawText, AnyBytesComeBackExactly) {
  std::mt19937_64 R(7);
  RawBuilder B = sample(R);
  const std::string Good = B.build(5) + B.build(5);
  for (int I = 0; I < 3000; ++I) {
    std::string Bytes = Good;
    switch (I % 4) {
    case 0: // a prefix
      Bytes.resize(R() % (Good.size() + 1));
      break;
    case 1: // flipped bits
      for (int J = 0, N = 1 + R() % 4; J < N; ++J)
        Bytes[R() % Bytes.size()] ^= char(1u << (R() % 8));
      break;
    case 2: // a random 8-byte word
      if (Bytes.size() >= 8)
        support::endian::write64le(&Bytes[8 * (R() % (Bytes.size() / 8))],
                                   R() % 2 ? R() : R() % 1000);
      break;
    case 3: // random bytes, sometimes after a magic
      Bytes.clear();
      if (R() % 2)
        Bytes = Good.substr(0, 8);
      for (int J = 0, N = R() % 300; J < N; ++J)
        Bytes.push_back(char(R()));
      break;
    }
    std::string Text = textOf(Bytes);
    ASSERT_EQ(compile(Text), Bytes) << "case " << I << "\n" << Text;
  }
}

TEST(RawText, DescribesTheProfile) {
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0x0, "\xab\xcd"});
  RawEntry E;
  E.StackId = 9;
  E.Info.AllocCount = 3;
  E.Info.TotalSize = 300;
  E.Histogram = {1, 5000};
  B.MIBs.push_back(E);
  B.Stacks.push_back({9, {0x1100, 0x1200}});
  std::string Text = textOf(B.build(5));
  EXPECT_NE(Text.find("memprof-raw-text 1\n"), std::string::npos);
  EXPECT_NE(Text.find("  version 5\n"), std::string::npos);
  EXPECT_NE(Text.find("segment start=0x1000 end=0x2000 offset=0x0 "
                      "build-id=abcd\n"),
            std::string::npos);
  EXPECT_NE(Text.find("    mib stack-id=9\n      AllocCount 3\n"),
            std::string::npos);
  EXPECT_NE(Text.find("      TotalSize 300\n"), std::string::npos);
  EXPECT_NE(Text.find("      AccessHistogramSize 2\n"), std::string::npos);
  // RawBuilder stores a pointer value, shown in hex.
  EXPECT_NE(Text.find("      AccessHistogram 0xdeadbeef\n"), std::string::npos);
  // 5000 is not representable in v5's encoding; the text shows the stored
  // value.
  EXPECT_NE(Text.find("      histogram 1 5000\n"), std::string::npos);
  EXPECT_NE(Text.find("    stack id=9\n      pcs 0x1100 0x1200\n"),
            std::string::npos);
  // The reader sees what the text says.
  auto P = readRawProfile(compile(Text));
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->MIBs.begin()->second.Info.TotalSize, 300u);
  EXPECT_EQ(P->MIBs.begin()->second.Histogram,
            (std::vector<uint64_t>{1, 5000}));
  EXPECT_EQ(P->Segments[0].BuildId, "\xab\xcd");
}

TEST(RawText, OverridesLandInTheirFields) {
  const char *Base = "memprof-raw-text 1\n"
                     "dump\n"
                     "  version 4\n"
                     "  magic 0x1122\n"
                     "  total-size 7\n"
                     "  segment-offset 8\n"
                     "  mib-offset 9\n"
                     "  stack-offset 10\n"
                     "  segments\n"
                     "    count 99\n"
                     "    segment build-id=aa build-id-size=40 "
                     "build-id-tail=bb\n"
                     "  mibs\n"
                     "    count 98\n"
                     "    mib stack-id=1\n"
                     "      AccessHistogramSize 77\n"
                     "      histogram 5\n"
                     "  stacks\n"
                     "    count 97\n"
                     "    stack id=1 num-pcs=96\n"
                     "      pcs 0x5\n"
                     "end\n";
  std::string B = compile(Base);
  auto U64 = [&](uint64_t Off) {
    return support::endian::read64le(B.data() + Off);
  };
  EXPECT_EQ(U64(0), 0x1122u);
  EXPECT_EQ(U64(8), 4u);
  EXPECT_EQ(U64(16), 7u);
  EXPECT_EQ(U64(24), 8u);
  EXPECT_EQ(U64(32), 9u);
  EXPECT_EQ(U64(40), 10u);
  EXPECT_EQ(U64(48), 99u);      // segment count
  EXPECT_EQ(U64(48 + 32), 40u); // build id size
  EXPECT_EQ(uint8_t(B[48 + 40]), 0xaa);
  EXPECT_EQ(uint8_t(B[48 + 41]), 0xbb);
  const uint64_t Mib = 48 + 8 + 64;
  EXPECT_EQ(U64(Mib), 98u);
  EXPECT_EQ(support::endian::read32le(B.data() + Mib + 16 + 132), 77u);
  EXPECT_EQ(U64(Mib + 16 + 144), 5u); // one u64 histogram entry (v4)
  const uint64_t Stk = Mib + 8 + 8 + 144 + 8;
  EXPECT_EQ(U64(Stk), 97u);
  EXPECT_EQ(U64(Stk + 16), 96u);
  EXPECT_EQ(U64(Stk + 24), 5u);
  EXPECT_EQ(B.size(), Stk + 32);
  // Truncation and literal bytes.
  std::string T = compile(std::string(Base) + "bytes 0102\ntruncate 30\n");
  EXPECT_EQ(T, B.substr(0, 30));
  EXPECT_EQ(compile("memprof-raw-text 1\nbytes 01 0203\nzeros 2\n"),
            std::string("\x01\x02\x03\0\0", 5));
}

TEST(RawText, PaddingReplacesTheDefaultAlignment) {
  const char *T = "memprof-raw-text 1\ndump\n  header-padding 00ff\n"
                  "  segments\n    padding\n  mibs\n    padding 11\n"
                  "  stacks\nend\n";
  std::string B = compile(T);
  EXPECT_EQ(support::endian::read64le(B.data() + 24), 50u); // segments
  EXPECT_EQ(support::endian::read64le(B.data() + 32), 58u); // mibs
  EXPECT_EQ(support::endian::read64le(B.data() + 40), 67u); // stacks
  EXPECT_EQ(uint8_t(B[66]), 0x11);
  EXPECT_EQ(B.size(), 80u); // stacks: count, then zeros to 8 in the dump
  EXPECT_EQ(compile(textOf(B)), B);
}

TEST(RawText, ErrorsNameTheLine) {
  EXPECT_NE(compileError("").find("empty: no 'memprof-raw-text' line"),
            std::string::npos);
  EXPECT_NE(compileError("# only a comment\n").find("empty"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  pcs 1\nend\n")
                .find("line 3: 'pcs' belongs in a 'stack' entry"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  segments\n"
                         "    segment colour=1\nend\n")
                .find("line 4: unknown segment key 'colour'"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  version 5\n"
                         "  version 5\nend\n")
                .find("line 4: 'version' given twice"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  segments\n  segments\n"
                         "end\n")
                .find("line 4: section 'segments' given twice"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\ndump\n")
                .find("line 3: 'dump' inside the dump begun on line 2"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  mibs\n"
                         "    mib stack-id=1\n      histogram 1\n"
                         "      histogram-raw 1\nend\n")
                .find("both 'histogram' and 'histogram-raw'"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  mibs\n"
                         "    mib stack-id=1\n      histogram-raw 0x10000\n"
                         "end\n")
                .find("does not fit in the 16 bits of raw v5"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  version 3\n  mibs\n"
                         "    mib stack-id=1\n      AccessHistogram 1\nend\n")
                .find("field AccessHistogram does not exist in raw v3"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  segments\n    segment "
                         "build-id=" +
                         std::string(66, 'a') + "\nend\n")
                .find("hold 33 bytes; a segment has 32"),
            std::string::npos);
  // Numbers are decimal or 0x hex, never octal.
  EXPECT_EQ(compile("memprof-raw-text 1\nzeros 010\n").size(), 10u);
  EXPECT_NE(compileError("memprof-raw-text 1\nzeros 0x\n"), "ok");
  EXPECT_NE(compileError("memprof-raw-text 1\nzeros 18446744073709551616\n"),
            "ok");
  RawTextLimits L;
  L.MaxOutputBytes = 100;
  EXPECT_NE(compileError("memprof-raw-text 1\nzeros 101\n", L).find(
                "too_large"),
            std::string::npos);
  EXPECT_NE(compileError("memprof-raw-text 1\ndump\n  stacks\n    stack id=1\n"
                         "      pcs 1 2 3 4 5 6 7 8 9 10 11 12 13 14\nend\n",
                         L)
                .find("too_large"),
            std::string::npos);
}

TEST(RawText, RecognizesItsMarker) {
  EXPECT_TRUE(isRawText("memprof-raw-text 1\n"));
  EXPECT_TRUE(isRawText("# comment\n\n  memprof-raw-text 1\n"));
  EXPECT_FALSE(isRawText("---\n"));
  EXPECT_FALSE(isRawText(""));
  EXPECT_FALSE(isRawText("dump\nmemprof-raw-text 1\n"));
}

} // namespace
