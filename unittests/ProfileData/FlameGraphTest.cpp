//===- FlameGraphTest.cpp - Folded stacks and the SVG flame graph ---------===//
#include "InternedReport.h"
#include "memprof/ProfileData/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include "llvm/Support/FormatVariadic.h"
#include <regex>

using namespace memprof;
using namespace llvm;

namespace {

constexpr uint32_t known(MIBTag T) { return 1u << (unsigned(T) - 1); }

ReportFrame frame(StringRef Name) {
  ReportFrame F;
  F.Function = 0x1234; // named: the GUID is not shown
  F.Name = Name.str();
  return F;
}

ReportFrame gap() {
  ReportFrame F;
  F.Gap = FrameGap();
  F.Gap->BuildId = "ab";
  F.Gap->Offset = 0x10;
  return F;
}

/// A context of \p Bytes bytes in \p Count allocations; \p Frames leaf
/// first, as a Report holds them.
ReportContext context(std::vector<ReportFrame> Frames, uint64_t Bytes,
                      uint64_t Count, AllocClass Class) {
  ReportContext C;
  C.Frames = std::move(Frames);
  C.Info.TotalSize = Bytes;
  C.Info.AllocCount = Count;
  C.Known = known(MIBTag::TotalSize) | known(MIBTag::AllocCount);
  C.Class = Class;
  return C;
}

/// Two overloads that short names make one stack, a name holding ';', a
/// newline and a trailing space, a context of no bytes, a cold-only
/// function, a frame that was not symbolized, and one tiny context.
Report sample() {
  Report R;
  auto Main = frame("main");
  R.Contexts.push_back(
      context({frame("leaf_a(int)"), Main}, 600, 2, AllocClass::NotCold));
  R.Contexts.push_back(
      context({frame("leaf_a(long)"), Main}, 300, 1, AllocClass::NotCold));
  R.Contexts.push_back(
      context({frame("odd;name\nhere "), Main}, 50, 5, AllocClass::NotCold));
  R.Contexts.push_back(
      context({frame("nothing"), Main}, 0, 0, AllocClass::NotCold));
  R.Contexts.push_back(
      context({frame("cold_only"), Main}, 2000, 1, AllocClass::Cold));
  R.Contexts.push_back(context({gap()}, 1000, 3, AllocClass::NotCold));
  R.Contexts.push_back(
      context({frame("tiny"), Main}, 1, 1, AllocClass::NotCold));
  return R;
}

std::string folded(const Report &R, Weight W, bool FullNames = false) {
  std::string S;
  raw_string_ostream OS(S);
  writeFolded(R, W, FullNames, OS);
  return S;
}

std::string svg(const Report &R, FlameGraphOptions O = {}) {
  std::string S;
  raw_string_ostream OS(S);
  writeFlameGraph(R, O, OS);
  return S;
}

TEST(FlameGraph, FoldedLines) {
  Report R = sample();
  // Root first, sorted bytewise; the overloads summed; ';' made ':' and the
  // newline a space, the trailing space trimmed; the 0-byte context left
  // out; nothing after the last line.
  EXPECT_EQ(folded(R, Weight::Bytes), "?? at module ab+0x10 1000\n"
                                      "main;cold_only 2000\n"
                                      "main;leaf_a 900\n"
                                      "main;odd:name here 50\n"
                                      "main;tiny 1\n");
  EXPECT_EQ(folded(R, Weight::Count), "?? at module ab+0x10 3\n"
                                      "main;cold_only 1\n"
                                      "main;leaf_a 3\n"
                                      "main;odd:name here 5\n"
                                      "main;tiny 1\n");
  // Full names keep the overloads apart.
  std::string Full = folded(R, Weight::Bytes, /*FullNames=*/true);
  EXPECT_NE(Full.find("main;leaf_a(int) 600\n"), std::string::npos) << Full;
  EXPECT_NE(Full.find("main;leaf_a(long) 300\n"), std::string::npos) << Full;
  // A weight no context stores: no lines at all.
  EXPECT_EQ(folded(R, Weight::Accesses), "");
}

/// A minimal XML well-formedness check: tags balance and nest, attribute
/// values are quoted, and '<' and '&' appear in text only as markup and
/// entities (CDATA and the declaration skipped).
::testing::AssertionResult wellFormed(StringRef S) {
  std::vector<std::string> Open;
  static const std::regex Entity("^&(amp|lt|gt|quot|apos|#[0-9]+);");
  static const std::regex Tag(
      R"(^<(/?)([A-Za-z][\w:.-]*)((\s+[\w:.-]+="[^"<]*")*)\s*(/?)>)");
  size_t I = 0;
  bool Root = false;
  while (I < S.size()) {
    StringRef Rest = S.substr(I);
    if (Rest.starts_with("<?")) {
      size_t E = Rest.find("?>");
      if (E == StringRef::npos)
        return ::testing::AssertionFailure() << "unclosed <? at " << I;
      I += E + 2;
    } else if (Rest.starts_with("<![CDATA[")) {
      size_t E = Rest.find("]]>");
      if (E == StringRef::npos || Open.empty())
        return ::testing::AssertionFailure() << "bad CDATA at " << I;
      I += E + 3;
    } else if (Rest.starts_with("<")) {
      std::cmatch M;
      // The writer escapes '>' in attribute values too, so a tag ends at
      // the first '>'.
      std::string Head = Rest.substr(0, Rest.find('>') + 1).str();
      if (!std::regex_search(Head.c_str(), M, Tag))
        return ::testing::AssertionFailure()
               << "bad tag at " << I << ": " << Head;
      bool Close = M[1].length() > 0, Empty = M[5].length() > 0;
      std::string Name = M[2];
      if (Close) {
        if (Open.empty() || Open.back() != Name)
          return ::testing::AssertionFailure()
                 << "</" << Name << "> closes "
                 << (Open.empty() ? "nothing" : Open.back()) << " at " << I;
        Open.pop_back();
      } else if (!Empty) {
        if (Open.empty() && Root)
          return ::testing::AssertionFailure() << "second root at " << I;
        Root = true;
        Open.push_back(Name);
      }
      I += M[0].length();
    } else if (Rest.starts_with("&")) {
      std::string Head = Rest.take_front(12).str();
      if (!std::regex_search(Head, Entity))
        return ::testing::AssertionFailure() << "bare & at " << I;
      ++I;
    } else {
      if (Open.empty() && !isSpace(Rest[0]))
        return ::testing::AssertionFailure()
               << "text outside the root at " << I;
      ++I;
    }
  }
  if (!Root)
    return ::testing::AssertionFailure() << "no root element";
  if (!Open.empty())
    return ::testing::AssertionFailure() << "unclosed <" << Open.back() << ">";
  return ::testing::AssertionSuccess();
}

/// The fill of the frame named \p Name (its data-n), as r, g, b.
std::optional<std::array<unsigned, 3>> fillOf(StringRef SVG, StringRef Name) {
  size_t At = SVG.find(("data-n=\"" + Name + "\"").str());
  if (At == StringRef::npos)
    return std::nullopt;
  StringRef Rest = SVG.drop_front(At);
  Rest = Rest.drop_front(Rest.find("<rect "));
  Rest = Rest.drop_front(Rest.find("fill=\"rgb(") + 10);
  std::array<unsigned, 3> C;
  for (unsigned &V : C) {
    if (Rest.consumeInteger(10, V))
      return std::nullopt;
    Rest.consume_front(",");
  }
  return C;
}

TEST(FlameGraph, SVGIsWellFormedAndEscaped) {
  Report R = sample();
  R.Contexts.push_back(
      context({frame("a&b\"c'd"), frame("main")}, 500, 1, AllocClass::NotCold));
  FlameGraphOptions O;
  O.Title = "T <&> \"x\"";
  std::string S = svg(R, O);
  EXPECT_TRUE(wellFormed(S));
  EXPECT_NE(S.find(">T &lt;&amp;&gt; &quot;x&quot;</text>"), std::string::npos);
  EXPECT_NE(S.find("data-n=\"a&amp;b&quot;c&#39;d\""), std::string::npos);
  EXPECT_EQ(S.find("a&b"), std::string::npos);
  // With full names, the template and parameter lists' brackets.
  Report T;
  T.Contexts.push_back(context({frame("f<int>(std::pair<a, b>&&)")}, 10, 1,
                               AllocClass::NotCold));
  O.FullNames = true;
  std::string F = svg(T, O);
  EXPECT_TRUE(wellFormed(F));
  EXPECT_NE(F.find("data-n=\"f&lt;int&gt;(std::pair&lt;a, b&gt;&amp;&amp;)\""),
            std::string::npos);
  // The same bytes every time.
  EXPECT_EQ(S, svg(R, FlameGraphOptions{O.W, false, O.Title}));
  // The checker itself rejects what it should.
  EXPECT_FALSE(wellFormed("<svg><g></svg></g>"));
  EXPECT_FALSE(wellFormed("<svg>a & b</svg>"));
  EXPECT_FALSE(wellFormed("<svg><text>a<b</text></svg>"));
  EXPECT_FALSE(wellFormed("<svg><rect x=\"1\"></svg>"));
}

TEST(FlameGraph, ColoursAndWidths) {
  std::string S = svg(sample());
  // Cold-only: blue. Not cold: warm. Not symbolized: grey. main carries
  // 2000 cold bytes of 2951: mostly cold, blue too.
  auto Cold = fillOf(S, "cold_only"), Warm = fillOf(S, "leaf_a"),
       Grey = fillOf(S, "?? at module ab+0x10"), Main = fillOf(S, "main");
  ASSERT_TRUE(Cold && Warm && Grey && Main);
  auto IsBlue = [](std::array<unsigned, 3> C) {
    return C[2] >= 200 && C[2] >= C[0] + 30 && C[2] >= C[1] + 30;
  };
  EXPECT_TRUE(IsBlue(*Cold));
  EXPECT_TRUE(IsBlue(*Main));
  EXPECT_TRUE((*Warm)[0] >= 205 && (*Warm)[2] <= 55);
  EXPECT_TRUE((*Grey)[0] == (*Grey)[1] && (*Grey)[1] == (*Grey)[2]);
  // The tooltips say how cold a frame is.
  EXPECT_NE(S.find("2000 bytes, 50.62% of all\n100.00% from cold contexts"),
            std::string::npos);
  // Totals: all 3951 bytes; the 1-byte frame (under 0.1%) is not drawn.
  EXPECT_NE(S.find("bytes (TotalSize): 3951 bytes in 6 contexts"),
            std::string::npos);
  EXPECT_NE(S.find("data-n=\"all\" data-o=\"0\" data-w=\"3951\""),
            std::string::npos);
  EXPECT_EQ(S.find("data-n=\"tiny\""), std::string::npos);
  EXPECT_NE(S.find("1 frames under 0.1% not drawn"), std::string::npos);
  // Children sorted by name, laid out left to right from their parent's
  // offset: main (1951 bytes after the gap's 1000) holds cold_only first.
  EXPECT_NE(S.find("data-n=\"main\" data-o=\"1000\" data-w=\"2951\""),
            std::string::npos);
  EXPECT_NE(S.find("data-n=\"cold_only\" data-o=\"1000\" data-w=\"2000\""),
            std::string::npos);
  EXPECT_NE(S.find("data-n=\"leaf_a\" data-o=\"3000\" data-w=\"900\""),
            std::string::npos);
}

TEST(FlameGraph, NothingToDraw) {
  Report R = sample();
  std::string S = svg(R, FlameGraphOptions{Weight::Lifetime, false, "t"});
  EXPECT_TRUE(wellFormed(S));
  EXPECT_NE(S.find("No lifetime to draw: the profile does not store "
                   "TotalLifetime"),
            std::string::npos);
  EXPECT_EQ(S.find("class=\"f\""), std::string::npos);
  std::string E = svg(Report());
  EXPECT_TRUE(wellFormed(E));
  EXPECT_NE(E.find("no allocation contexts"), std::string::npos);
}

// memprof-convert's reports hold each distinct frame once (ReportOptions::
// InternFrames): the pictures are the same bytes.
TEST(FlameGraph, InternedFramesDrawTheSame) {
  Report R = sample(), I = interned(sample());
  ASSERT_LT(I.FrameTable.size(), 14u); // main is one entry
  for (Weight W : {Weight::Bytes, Weight::Count, Weight::Lifetime})
    for (bool Full : {false, true}) {
      EXPECT_EQ(folded(I, W, Full), folded(R, W, Full));
      FlameGraphOptions O;
      O.W = W;
      O.FullNames = Full;
      EXPECT_EQ(svg(I, O), svg(R, O));
    }
}

// A frame whose short name stands for many full names: the tooltip lists,
// sorted, the first three of the first 64 that the contexts (in the
// report's order) hold there, whatever order the picture draws them in.
TEST(FlameGraph, TooltipFullNamesInContextOrder) {
  Report R;
  for (int K = 65; K >= 0; --K)
    R.Contexts.push_back(context({frame(formatv("f<t{0:2}>(int)", K).str()),
                                  frame("main")},
                                 1000, 1, AllocClass::NotCold));
  std::string S = svg(R);
  size_t At = S.find("data-n=\"f&lt;&gt;\"");
  ASSERT_NE(At, std::string::npos);
  StringRef Tip = StringRef(S).drop_front(At);
  Tip = Tip.slice(Tip.find("<title>") + 7, Tip.find("</title>"));
  // The first 64 met are t65 down to t02.
  EXPECT_TRUE(Tip.starts_with("f&lt;&gt;\nf&lt;t02&gt;(int)\nf&lt;t03&gt;(int)\n"
                              "f&lt;t04&gt;(int)\n(and others)\n"))
      << Tip.str();
  EXPECT_EQ(svg(interned(R)), S);
}

// Folded lines sort by their stacks' bytes although they are compared label
// by label: where one label begins another, what follows the shorter one
// (';', or the end of its stack) against the longer one's next byte decides.
TEST(FlameGraph, FoldedOrderIsBytewise) {
  Report R;
  std::vector<std::vector<std::string>> Stacks = {
      {"a<", "z"}, {"a", "x"}, {"a b"}, {"a"},   {"a", "x", "y"},
      {"a!"},      {"b"},      {"a", "w"}, {"a;"}, {"a:"}, {"a b", "c"}};
  for (const auto &S : Stacks) {
    std::vector<ReportFrame> Frames;
    for (auto It = S.rbegin(); It != S.rend(); ++It) // leaf first
      Frames.push_back(frame(*It));
    R.Contexts.push_back(context(Frames, 1, 1, AllocClass::NotCold));
  }
  std::vector<std::string> Want;
  for (const auto &S : Stacks) {
    std::string L;
    for (const std::string &F : S)
      L += (L.empty() ? "" : ";") + StringRef(F).str();
    Want.push_back(L);
  }
  // "a;" is written "a:" (';' is the separator): one line of weight 2.
  for (std::string &W : Want)
    if (W == "a;")
      W = "a:";
  llvm::sort(Want);
  Want.erase(std::unique(Want.begin(), Want.end()), Want.end());
  std::string Expected;
  for (const std::string &W : Want)
    Expected += W + (W == "a:" ? " 2\n" : " 1\n");
  // Full names: short ones would fold "a<".
  EXPECT_EQ(folded(R, Weight::Bytes, /*FullNames=*/true), Expected);
  EXPECT_EQ(folded(interned(R), Weight::Bytes, /*FullNames=*/true), Expected);
}

} // namespace
