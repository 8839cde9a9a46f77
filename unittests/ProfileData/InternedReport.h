//===- InternedReport.h - A report's frames as ReportOptions::InternFrames -===//
//
// The exports read a report either way its contexts hold their frames: as
// copies (reports built by hand, memprof-show's) or as indexes into one table
// of distinct frames (ReportOptions::InternFrames, memprof-convert's). The
// tests build the second form from the first to check that both draw alike.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_UNITTESTS_INTERNEDREPORT_H
#define MEMPROF_UNITTESTS_INTERNEDREPORT_H

#include "memprof/ProfileData/Report.h"
#include <map>
#include <tuple>

namespace memprof {

inline auto frameKey(const ReportFrame &F) {
  return std::make_tuple(
      F.Function, F.LineOffset, F.Column, F.IsInlineFrame, F.Name,
      F.LinkageName, F.File, F.Line, F.Gap.has_value(),
      F.Gap ? std::make_tuple(F.Gap->BuildId, F.Gap->Path, F.Gap->Offset,
                              unsigned(F.Gap->Reason), F.Gap->Symbol)
            : std::make_tuple(std::string(), std::string(), uint64_t(0), 0u,
                              std::string()));
}

/// \p R with each distinct frame once in FrameTable, in the order the
/// contexts first hold them, and the contexts referring to it.
inline Report interned(Report R) {
  std::map<decltype(frameKey(ReportFrame())), uint32_t> Ids;
  for (ReportContext &C : R.Contexts) {
    for (const ReportFrame &F : C.Frames) {
      auto [It, New] = Ids.try_emplace(frameKey(F), R.FrameTable.size());
      if (New)
        R.FrameTable.push_back(F);
      C.FrameIds.push_back(It->second);
    }
    C.Frames.clear();
  }
  return R;
}

} // namespace memprof

#endif
