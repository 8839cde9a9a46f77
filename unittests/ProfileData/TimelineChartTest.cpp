//===- TimelineChartTest.cpp - The heap-over-time SVG ---------------------===//
//
// The picture's geometry against numbers computed here from the data and the
// plot area the SVG declares: the peak's marker and point where the peak's
// time and bytes fall, the total's line through every sample, each series'
// band as high as its bytes. (lit-tests/memprof-convert/timeline.test looks
// at a real run's chart in Chromium.)
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/TimelineChart.h"
#include "gtest/gtest.h"
#include <map>
#include <regex>
#include <string>

using namespace memprof;

namespace {

std::string render(const TimelineChart &C) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeTimelineSvg(C, OS);
  return S;
}

double attr(const std::string &Svg, const std::string &Name) {
  std::smatch M;
  std::regex R(Name + "=\"([-0-9.]+)\"");
  EXPECT_TRUE(std::regex_search(Svg, M, R)) << Name;
  return std::stod(M[1]);
}

struct Plot {
  double Left, Right, Top, Bottom, TMax, YMax;
  explicit Plot(const std::string &Svg)
      : Left(attr(Svg, "data-plot-left")), Right(attr(Svg, "data-plot-right")),
        Top(attr(Svg, "data-plot-top")), Bottom(attr(Svg, "data-plot-bottom")),
        TMax(attr(Svg, "data-t-max-ms")), YMax(attr(Svg, "data-y-max-bytes")) {}
  double x(double Ms) const { return Left + Ms / TMax * (Right - Left); }
  double y(double B) const { return Bottom - B / YMax * (Bottom - Top); }
};

std::vector<std::pair<double, double>> points(const std::string &List) {
  std::vector<std::pair<double, double>> P;
  std::regex R("([-0-9.]+),([-0-9.]+)");
  for (auto It = std::sregex_iterator(List.begin(), List.end(), R);
       It != std::sregex_iterator(); ++It)
    P.push_back({std::stod((*It)[1]), std::stod((*It)[2])});
  return P;
}

TimelineChart sample() {
  TimelineChart C;
  C.Title = "heap <over> time";
  C.PeakTimeMs = 250;
  C.PeakBytes = 10 << 20;
  C.Series = {{"build_table", "build_table <- main"}, {"cache", "cache"}};
  auto P = [](uint64_t T, uint64_t B, std::vector<uint64_t> Bytes) {
    TimelineChart::Point X;
    X.TimeMs = T;
    X.TotalBytes = B;
    X.Bytes = std::move(Bytes);
    return X;
  };
  C.Points = {P(0, 1000, {0, 1000}),         P(100, 4 << 20, {3 << 20, 1000}),
              P(200, 9 << 20, {8 << 20, 1000}), P(300, 2 << 20, {}),
              P(400, 1 << 20, {0, 1 << 20})};
  return C;
}

TEST(TimelineChart, PeakWhereItWas) {
  TimelineChart C = sample();
  std::string Svg = render(C);
  Plot P(Svg);
  EXPECT_GE(P.TMax, 400);
  EXPECT_GE(P.YMax, double(C.PeakBytes));
  // The marker's line and point.
  std::smatch M;
  ASSERT_TRUE(std::regex_search(
      Svg, M,
      std::regex("<g id=\"peak\">.*?<line x1=\"([0-9.]+)\".*?<circle "
                 "cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"")));
  EXPECT_NEAR(std::stod(M[1]), P.x(250), 0.01);
  EXPECT_NEAR(std::stod(M[2]), P.x(250), 0.01);
  EXPECT_NEAR(std::stod(M[3]), P.y(double(C.PeakBytes)), 0.01);
  EXPECT_NE(Svg.find("peak 10.0 MiB at 0.250 s"), std::string::npos);
  // The total's line: every sample, and the peak between the third and the
  // fourth, which is its highest point.
  ASSERT_TRUE(std::regex_search(
      Svg, M, std::regex("<polyline id=\"total\"[^>]*points=\"([^\"]*)\"")));
  auto Line = points(M[1]);
  ASSERT_EQ(Line.size(), 6u);
  const uint64_t Want[][2] = {{0, 1000},   {100, 4 << 20}, {200, 9 << 20},
                              {250, 10 << 20}, {300, 2 << 20}, {400, 1 << 20}};
  for (size_t I = 0; I < 6; ++I) {
    EXPECT_NEAR(Line[I].first, P.x(double(Want[I][0])), 0.01) << I;
    EXPECT_NEAR(Line[I].second, P.y(double(Want[I][1])), 0.01) << I;
  }
  // Titles are escaped.
  EXPECT_NE(Svg.find("heap &lt;over&gt; time"), std::string::npos);
}

TEST(TimelineChart, SeriesStacked) {
  TimelineChart C = sample();
  std::string Svg = render(C);
  Plot P(Svg);
  // The series' polygons, in order: the top edge of series K at a sample
  // with a breakdown is the sum of series 0..K there; without one, 0.
  std::vector<std::vector<std::pair<double, double>>> Bands;
  std::regex R("<polygon fill=\"[^\"]*\" points=\"([^\"]*)\"");
  for (auto It = std::sregex_iterator(Svg.begin(), Svg.end(), R);
       It != std::sregex_iterator(); ++It)
    Bands.push_back(points((*It)[1]));
  ASSERT_EQ(Bands.size(), 3u); // other, then the two series
  for (size_t K = 0; K < 2; ++K) {
    const auto &B = Bands[K + 1];
    ASSERT_EQ(B.size(), 2 * C.Points.size());
    for (size_t I = 0; I < C.Points.size(); ++I) {
      double Top = 0;
      if (!C.Points[I].Bytes.empty())
        for (size_t J = 0; J <= K; ++J)
          Top += double(C.Points[I].Bytes[J]);
      EXPECT_NEAR(B[I].first, P.x(double(C.Points[I].TimeMs)), 0.01);
      EXPECT_NEAR(B[I].second, P.y(Top), 0.01) << K << " " << I;
    }
  }
  // "other" is the area under the total's line (with the peak).
  EXPECT_EQ(Bands[0].size(), 2 * (C.Points.size() + 1));
}

TEST(TimelineChart, SameDataSameBytes) {
  EXPECT_EQ(render(sample()), render(sample()));
  TimelineChart Empty;
  std::string Svg = render(Empty); // no samples, no peak: axes only
  EXPECT_NE(Svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(Svg.find("id=\"peak\""), std::string::npos);
}

} // namespace
