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
#include "memprof/ProfileData/Report.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

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

/// A tick's value: as few decimals as it needs (2, 2.5, 0.25).
std::string numberText(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
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
  double TStep = std::max(1.0, niceStep(double(TEnd), 8));
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
        "text.peak { fill: rgb(220,0,0); }\n"
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
       << numberText(V / Unit) << " " << UnitName << "</text>\n";
  }
  // Time ticks in ms below 5 s, else in seconds with the decimals the step
  // needs.
  auto TimeTick = [&](double T) {
    if (TMax <= 5000)
      return formatv("{0:F0} ms", T).str();
    unsigned Decimals = 0;
    for (double S = TStep / 1000; S < 1 - 1e-9 && Decimals < 3; S *= 10)
      ++Decimals;
    char Buf[64];
    std::snprintf(Buf, sizeof(Buf), "%.*f s", int(Decimals), T / 1000);
    return std::string(Buf);
  };
  for (double T = 0; T <= TMax + TStep / 2; T += TStep) {
    OS << "<line class=\"grid\" x1=\"" << coord(X(T)) << "\" x2=\""
       << coord(X(T)) << "\" y1=\"" << Geo::PlotTop << "\" y2=\""
       << Geo::PlotBottom << "\"/><text class=\"tick\" x=\"" << coord(X(T))
       << "\" y=\"" << Geo::PlotBottom + 16 << "\">" << TimeTick(T)
       << "</text>\n";
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
       << coord(std::max(PY - 8, double(Geo::PlotTop) + 12))
       << "\" class=\"peak\">peak " << bytesText(double(C.PeakBytes)) << " at "
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

namespace memprof {

namespace {
/// Whether a frame's label names the standard library's code (which says
/// little about who allocates: the program's frame above it does).
bool libraryFrame(llvm::StringRef Label) {
  return Label.starts_with("std::") || Label.starts_with("__gnu_cxx::") ||
         Label.starts_with("operator new") || Label.starts_with("__");
}
} // namespace

TimelineChart timelineChartOf(const Report &R, llvm::StringRef Title,
                              bool FullNames, size_t MaxSeries) {
  TimelineChart C;
  C.Title = Title.str();
  const HeapTimeline &T = R.Timeline;
  C.PeakTimeMs = T.PeakTimeMs;
  C.PeakBytes = T.PeakBytes;
  // The contexts the breakdowns name, by the most bytes they held in one.
  std::map<CallStackId, uint64_t> Most;
  size_t WithTop = 0;
  for (const HeapSample &S : T.Samples) {
    WithTop += !S.Top.empty();
    for (const HeapTopEntry &E : S.Top)
      Most[E.Context] = std::max(Most[E.Context], E.Bytes);
  }
  std::vector<std::pair<uint64_t, CallStackId>> Ranked;
  for (const auto &[Id, B] : Most)
    Ranked.push_back({B, Id});
  llvm::sort(Ranked, [](const auto &A, const auto &B) {
    return A.first != B.first ? A.first > B.first : A.second < B.second;
  });
  if (Ranked.size() > MaxSeries)
    Ranked.resize(MaxSeries);
  std::map<CallStackId, size_t> SeriesOf;
  ContextFrames Frames(R);
  FrameLabels Labels(Frames, FullNames);
  std::map<CallStackId, size_t> ContextIndex;
  for (size_t I = 0; I < R.Contexts.size(); ++I)
    ContextIndex.emplace(R.Contexts[I].Id, I);
  for (const auto &[Bytes, Id] : Ranked) {
    struct TimelineChart::Series S;
    auto It = ContextIndex.find(Id);
    if (It == ContextIndex.end()) {
      S.Label = S.Tooltip = "context 0x" + llvm::utohexstr(Id);
    } else {
      llvm::ArrayRef<uint32_t> F = Frames.of(It->second);
      std::string Site = F.empty() ? "?" : Labels[F.front()];
      std::string Caller;
      for (size_t K = 1; K < F.size(); ++K)
        if (!libraryFrame(Labels[F[K]])) {
          Caller = Labels[F[K]];
          break;
        }
      S.Label = Site;
      if (!Caller.empty() && Caller != Site && libraryFrame(Site))
        S.Label = Caller + " \xE2\x86\x92 " + Site; // caller -> site
      if (!R.Contexts[It->second].Type.empty())
        S.Label += " [" + briefTypeName(R.Contexts[It->second].Type) + "]";
      for (size_t K = 0; K < F.size() && K < 24; ++K)
        S.Tooltip += (K ? "\n" : "") + Labels[F[K]];
      if (F.size() > 24)
        S.Tooltip += "\n...";
    }
    SeriesOf.emplace(Id, C.Series.size());
    C.Series.push_back(std::move(S));
  }
  for (const HeapSample &S : T.Samples) {
    TimelineChart::Point P;
    P.TimeMs = S.TimeMs;
    P.TotalBytes = S.TotalBytes;
    if (!S.Top.empty()) {
      P.Bytes.assign(C.Series.size(), 0);
      for (const HeapTopEntry &E : S.Top) {
        auto It = SeriesOf.find(E.Context);
        if (It != SeriesOf.end())
          P.Bytes[It->second] = E.Bytes;
      }
    }
    C.Points.push_back(std::move(P));
  }
  const uint64_t Runs = R.Heap ? R.Heap->Runs : 0;
  C.Subtitle = "live heap over time of " +
               std::string(Runs > 1 ? "the run with the highest peak (of " +
                                          std::to_string(Runs) + " runs)"
                                    : "the run") +
               ": peak " + bytesText(double(T.PeakBytes)) + " at " +
               secondsText(double(T.PeakTimeMs)) + "; " +
               std::to_string(T.Samples.size()) + " samples, " +
               std::to_string(WithTop) + " with the largest contexts";
  return C;
}

} // namespace memprof
