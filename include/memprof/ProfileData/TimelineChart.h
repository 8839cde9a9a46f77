//===- TimelineChart.h - The heap over time, drawn as SVG -------*- C++ -*-===//
//
// memprof-convert --to-timeline (docs/memprof-convert.md, "Timeline"): the
// total live heap of one run over time, the largest contexts stacked under
// it, the peak marked, as heaptrack's "consumed" chart draws it. The chart
// takes neutral data, so that it does not depend on where the samples come
// from (docs/heap-data.md).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_TIMELINECHART_H
#define MEMPROF_PROFILEDATA_TIMELINECHART_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace memprof {

struct TimelineChart {
  std::string Title;
  std::string Subtitle;
  /// The run's peak: drawn as a point of the total's line and marked.
  uint64_t PeakTimeMs = 0;
  uint64_t PeakBytes = 0;
  struct Series {
    std::string Label;   ///< the legend's text
    std::string Tooltip; ///< more, on hover (the full context)
  };
  /// Stacked from the bottom in this order.
  std::vector<Series> Series;
  struct Point {
    uint64_t TimeMs = 0;
    uint64_t TotalBytes = 0;
    /// Live bytes per series (Series.size() values), or empty when the
    /// sample has no breakdown (the runtime rations its scans).
    std::vector<uint64_t> Bytes;
  };
  /// In non-decreasing time.
  std::vector<Point> Points;
};

/// Plot geometry, also written on the SVG's root element as data-*
/// attributes so that a test can find where a time falls in a picture.
struct TimelineGeometry {
  static constexpr unsigned Width = 1200, Height = 640;
  static constexpr unsigned PlotLeft = 90, PlotRight = 880;
  static constexpr unsigned PlotTop = 70, PlotBottom = 580;
};

/// Writes \p C as a standalone SVG document.
void writeTimelineSvg(const TimelineChart &C, llvm::raw_ostream &OS);

struct Report;

/// The chart of \p R's timeline (Report::Timeline, the run with the highest
/// peak: docs/heap-data.md): a series for each of the (at most
/// \p MaxSeries) contexts that the samples' breakdowns name with the most
/// bytes, largest at the bottom, each labelled by its allocation site and
/// the first frame of the program above the standard library's (short
/// names unless \p FullNames), its whole stack on hover. \p Title is the
/// chart's title; the subtitle says what run it is and its peak.
TimelineChart timelineChartOf(const Report &R, llvm::StringRef Title,
                              bool FullNames, size_t MaxSeries = 8);

} // namespace memprof

#endif
