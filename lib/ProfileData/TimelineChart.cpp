//===- TimelineChart.cpp - The heap over time, drawn as SVG ---------------===//
//
// A line for the total live bytes, the series stacked as areas under it
// (each sample's breakdown; samples without one leave the whole height to
// "other"), the peak as a point of the line with a red marker, axes with
// round ticks, and a legend. Coordinates are printed with two decimals, so
// the same data always gives the same bytes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/TimelineChart.h"
#include "memprof/ProfileData/Export.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace memprof {

namespace {

using Geo = TimelineGeometry;

/// Series colours, none of them red (the peak's marker is).
constexpr const char *Palette[] = {
    "rgb(66,133,244)",  "rgb(52,168,83)",  "rgb(251,188,5)",
    "rgb(142,36,170)",  "rgb(0,172,193)",  "rgb(255,112,67)",
    "rgb(124,179,66)",  "rgb(92,107,192)",
};
constexpr const char *OtherColour = "rgb(200,200,200)";
constexpr const char *PeakColour = "rgb(220,0,0)";

std::string coord(double V) { return formatv("{0:F2}", V).str(); }

/// Bytes in binary units: "512 B", "1.5 KiB", "10.0 MiB".
std::string bytesText(double B) {
  static const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  unsigned U = 0;
  while (B >= 1024 && U + 1 < std::size(Units)) {
    B /= 1024;
    ++U;
  }
  if (U == 0)
    return formatv("{0:F0} B", B).str();
  return formatv("{0:F1} {1}", B, Units[U]).str();
}

std::string secondsText(double Ms) {
  if (Ms < 10000)
    return formatv("{0:F3} s", Ms / 1000).str();
  return formatv("{0:F1} s", Ms / 1000).str();
}

/// A round step for about \p Ticks ticks over [0, Max]: 1, 2 or 5 times a
/// power of ten.
double niceStep(double Max, unsigned Ticks) {
  if (Max <= 0)
    return 1;
  double Raw = Max / Ticks;
  double P = std::pow(10.0, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (Raw <= M * P)
      return M * P;
  return 10 * P;
}

} // namespace

void writeTimelineSvg(const TimelineChart &C, raw_ostream &OS) {
  // The samples carry the breakdown; the total's line (and the "other"
  // area under it) has the peak as one more point.
  const std::vector<TimelineChart::Point> &Points = C.Points;
  std::vector<TimelineChart::Point> Line = C.Points;
  if (C.PeakBytes) {
    auto At = std::upper_bound(
        Line.begin(), Line.end(), C.PeakTimeMs,
        [](uint64_t T, const TimelineChart::Point &P) { return T < P.TimeMs; });
    TimelineChart::Point Peak;
    Peak.TimeMs = C.PeakTimeMs;
    Peak.TotalBytes = C.PeakBytes;
    Line.insert(At, Peak);
  }
  uint64_t TEnd = 1, YMaxData = 1;
  for (const auto &P : Line) {
    TEnd = std::max(TEnd, P.TimeMs);
    YMaxData = std::max(YMaxData, P.TotalBytes);
  }
  // The y axis in the unit that suits the largest value.
  double Unit = 1;
  const char *UnitName = "B";
  for (auto [U, N] : {std::pair<double, const char *>{1024.0, "KiB"},
                      {1048576.0, "MiB"}, {1073741824.0, "GiB"}})
    if (double(YMaxData) >= 2 * U) {
      Unit = U;
      UnitName = N;
    }
  double YStep = niceStep(double(YMaxData) / Unit, 5) * Unit;
  double YMax = std::ceil(double(YMaxData) / YStep) * YStep;
  double TStep = niceStep(double(TEnd), 8);
  double TMax = std::ceil(double(TEnd) / TStep) * TStep;

  double PW = Geo::PlotRight - Geo::PlotLeft;
  double PH = Geo::PlotBottom - Geo::PlotTop;
  auto X = [&](double T) { return Geo::PlotLeft + T / TMax * PW; };
  auto Y = [&](double B) { return Geo::PlotBottom - B / YMax * PH; };

  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  OS << "<svg version=\"1.1\" width=\"" << Geo::Width << "\" height=\""
     << Geo::Height << "\" viewBox=\"0 0 " << Geo::Width << " " << Geo::Height
     << "\" xmlns=\"http://www.w3.org/2000/svg\" data-plot-left=\""
     << Geo::PlotLeft << "\" data-plot-right=\"" << Geo::PlotRight
     << "\" data-plot-top=\"" << Geo::PlotTop << "\" data-plot-bottom=\""
     << Geo::PlotBottom << "\" data-t-max-ms=\"" << coord(TMax)
     << "\" data-y-max-bytes=\"" << coord(YMax) << "\" data-peak-ms=\""
     << C.PeakTimeMs << "\" data-peak-bytes=\"" << C.PeakBytes << "\">\n";
  OS << "<style>\ntext { font-family: sans-serif; font-size: 12px; fill: "
        "rgb(0,0,0); }\n#title { font-size: 17px; text-anchor: middle; }\n"
        "#subtitle { text-anchor: middle; }\n.axis { stroke: rgb(0,0,0); "
        "stroke-width: 1; }\n.grid { stroke: rgb(230,230,230); stroke-width: "
        "1; }\n.tick { text-anchor: middle; }\n.ytick { text-anchor: end; }\n"
        "g.s:hover polygon { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
        "</style>\n";
  OS << "<rect x=\"0\" y=\"0\" width=\"" << Geo::Width << "\" height=\""
     << Geo::Height << "\" fill=\"rgb(255,255,255)\"/>\n";
  OS << "<text id=\"title\" x=\"" << Geo::Width / 2 << "\" y=\"26\">"
     << xmlText(C.Title) << "</text>\n";
  OS << "<text id=\"subtitle\" x=\"" << Geo::Width / 2 << "\" y=\"46\">"
     << xmlText(C.Subtitle) << "</text>\n";

  // Grid and ticks.
  OS << "<g id=\"grid\">\n";
  for (double V = 0; V <= YMax + YStep / 2; V += YStep) {
    OS << "<line class=\"grid\" x1=\"" << Geo::PlotLeft << "\" x2=\""
       << Geo::PlotRight << "\" y1=\"" << coord(Y(V)) << "\" y2=\""
       << coord(Y(V)) << "\"/><text class=\"ytick\" x=\"" << Geo::PlotLeft - 6
       << "\" y=\"" << coord(Y(V) + 4) << "\">"
       << formatv("{0}", V / Unit).str() << " " << UnitName << "</text>\n";
  }
  for (double T = 0; T <= TMax + TStep / 2; T += TStep) {
    OS << "<line class=\"grid\" x1=\"" << coord(X(T)) << "\" x2=\""
       << coord(X(T)) << "\" y1=\"" << Geo::PlotTop << "\" y2=\""
       << Geo::PlotBottom << "\"/><text class=\"tick\" x=\"" << coord(X(T))
       << "\" y=\"" << Geo::PlotBottom + 16 << "\">"
       << formatv("{0}", T / 1000).str() << " s</text>\n";
  }
  OS << "</g>\n";

  // The total, as the "other" area under its line, then the series stacked
  // from the bottom over it.
  auto Polygon = [&](const std::vector<TimelineChart::Point> &P,
                     const std::vector<double> &Lo,
                     const std::vector<double> &Hi) {
    std::string S;
    for (size_t I = 0; I < P.size(); ++I)
      S += coord(X(double(P[I].TimeMs))) + "," + coord(Y(Hi[I])) + " ";
    for (size_t I = P.size(); I-- > 0;)
      S += coord(X(double(P[I].TimeMs))) + "," + coord(Y(Lo[I])) + " ";
    if (!S.empty())
      S.pop_back();
    return S;
  };
  size_t NS = C.Series.size();
  std::vector<uint64_t> SeriesPeak(NS, 0);
  OS << "<g id=\"areas\">\n";
  if (!Line.empty()) {
    std::vector<double> LineZero(Line.size(), 0), LineTotal(Line.size());
    for (size_t I = 0; I < Line.size(); ++I)
      LineTotal[I] = double(Line[I].TotalBytes);
    OS << "<g class=\"s\"><title>other contexts, and samples without a "
          "breakdown</title><polygon fill=\""
       << OtherColour << "\" points=\"" << Polygon(Line, LineZero, LineTotal)
       << "\"/></g>\n";
    std::vector<double> Lo(Points.size(), 0);
    for (size_t K = 0; K < NS; ++K) {
      std::vector<double> Hi = Lo;
      for (size_t I = 0; I < Points.size(); ++I)
        if (Points[I].Bytes.size() == NS) {
          // Never above the total (a breakdown taken a moment later).
          Hi[I] = std::min(Lo[I] + double(Points[I].Bytes[K]),
                           double(Points[I].TotalBytes));
          SeriesPeak[K] = std::max(SeriesPeak[K], Points[I].Bytes[K]);
        }
      OS << "<g class=\"s\"><title>" << xmlText(C.Series[K].Tooltip)
         << "</title><polygon fill=\"" << Palette[K % std::size(Palette)]
         << "\" points=\"" << Polygon(Points, Lo, Hi) << "\"/></g>\n";
      Lo = std::move(Hi);
    }
    std::string Pts;
    for (size_t I = 0; I < Line.size(); ++I)
      Pts += coord(X(double(Line[I].TimeMs))) + "," + coord(Y(LineTotal[I])) +
             (I + 1 < Line.size() ? " " : "");
    OS << "<polyline id=\"total\" fill=\"none\" stroke=\"rgb(0,0,0)\" "
          "stroke-width=\"1.5\" points=\""
       << Pts << "\"/>\n";
  }
  OS << "</g>\n";

  // Axes.
  OS << "<line class=\"axis\" x1=\"" << Geo::PlotLeft << "\" x2=\""
     << Geo::PlotLeft << "\" y1=\"" << Geo::PlotTop << "\" y2=\""
     << Geo::PlotBottom << "\"/>\n<line class=\"axis\" x1=\"" << Geo::PlotLeft
     << "\" x2=\"" << Geo::PlotRight << "\" y1=\"" << Geo::PlotBottom
     << "\" y2=\"" << Geo::PlotBottom << "\"/>\n";
  OS << "<text x=\"" << (Geo::PlotLeft + Geo::PlotRight) / 2 << "\" y=\""
     << Geo::PlotBottom + 36
     << "\" class=\"tick\">time since the program started</text>\n";

  // The peak.
  if (C.PeakBytes) {
    double PX = X(double(C.PeakTimeMs)), PY = Y(double(C.PeakBytes));
    OS << "<g id=\"peak\"><title>peak: " << bytesText(double(C.PeakBytes))
       << " (" << C.PeakBytes << " bytes) at " << secondsText(C.PeakTimeMs)
       << "</title><line x1=\"" << coord(PX) << "\" x2=\"" << coord(PX)
       << "\" y1=\"" << Geo::PlotTop << "\" y2=\"" << Geo::PlotBottom
       << "\" stroke=\"" << PeakColour
       << "\" stroke-width=\"2\" stroke-dasharray=\"6,3\"/><circle cx=\""
       << coord(PX) << "\" cy=\"" << coord(PY) << "\" r=\"5\" fill=\""
       << PeakColour << "\"/><text x=\"" << coord(PX + 8) << "\" y=\""
       << coord(std::max(PY - 8, double(Geo::PlotTop) + 12)) << "\" fill=\""
       << PeakColour << "\">peak " << bytesText(double(C.PeakBytes)) << " at "
       << secondsText(C.PeakTimeMs) << "</text></g>\n";
  }

  // Legend: the series from the top of the stack down, then "other".
  unsigned LX = Geo::PlotRight + 20, LY = Geo::PlotTop;
  OS << "<g id=\"legend\">\n";
  auto Entry = [&](const char *Colour, StringRef Label, StringRef Tip) {
    std::string Text = Label.str();
    if (Text.size() > 40)
      Text = Text.substr(0, 39) + "\xE2\x80\xA6"; // an ellipsis
    OS << "<g><title>" << xmlText(Tip) << "</title><rect x=\"" << LX
       << "\" y=\"" << LY << "\" width=\"12\" height=\"12\" fill=\"" << Colour
       << "\"/><text x=\"" << LX + 18 << "\" y=\"" << LY + 10 << "\">"
       << xmlText(Text) << "</text></g>\n";
    LY += 20;
  };
  for (size_t K = NS; K-- > 0;)
    Entry(Palette[K % std::size(Palette)], C.Series[K].Label,
          C.Series[K].Tooltip + "\nat most " +
              bytesText(double(SeriesPeak[K])) + " live in a sample");
  Entry(OtherColour, "other",
        "other contexts, and samples without a breakdown");
  OS << "</g>\n</svg>\n";
}

} // namespace memprof
