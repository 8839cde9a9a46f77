//===- HintsView.h - memprof-show --hints: clang-22's hint per site -*- C++
//-*-===//
//
// What clang-22 -fmemory-profile-use decides for each allocation call site
// without LTO (docs/memprof-show.md, "Hints"): each context is classified
// by LLVM's getAllocType under the given thresholds, and a site's contexts
// combine as CallStackTrie::buildAndAttachMIBMetadata combines them: one
// class gives that "memprof" attribute; hot beside others counts as not
// cold; cold beside not cold is "ambiguous" (the MIB metadata only context
// disambiguation under LTO uses), or "notcold" when no caller frame tells
// the contexts apart.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_HINTSVIEW_H
#define MEMPROF_PROFILEDATA_HINTSVIEW_H

#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Report.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace memprof {

/// The decision for a site: the attribute clang writes ("ambiguous" with
/// -memprof-ambiguous-attributes, its default).
enum class SiteHint { NotCold, Cold, Hot, Ambiguous };
llvm::StringRef siteHintName(SiteHint H);

struct HintsContext {
  ReportContext C; // frames: allocation site first
  AllocClass Class = AllocClass::NotCold;
  double LifetimeSec = 0; // TotalLifetime / AllocCount / 1000
  double Density = 0;     // TotalLifetimeAccessDensity / AllocCount / 100
  std::string DecidedBy;  // the comparison that decided, with the numbers
};

struct HintsSite {
  ReportFrame Site; // the allocating call's frame
  SiteHint Hint = SiteHint::NotCold;
  std::string Why;
  uint64_t Allocations = 0, Bytes = 0;
  std::vector<HintsContext> Contexts; // by bytes, largest first
};

struct HintsView {
  std::vector<ReportInput> Inputs;
  AllocThresholds Thresholds;
  std::vector<HintsSite> Sites;          // by file, line, column, function
  uint64_t SiteCounts[4] = {0, 0, 0, 0}; // by SiteHint
  uint64_t ContextCounts[3] = {0, 0, 0}; // by AllocClass
  /// Contexts whose inputs lack a field getAllocType reads.
  uint64_t Unclassified = 0;
  std::vector<std::string> Notes;
};

/// The clang flags that set \p T (every option, defaults included).
std::vector<std::string> hintsClangFlags(const AllocThresholds &T);

/// The hints of every context of \p R (built with TopContexts = SIZE_MAX,
/// GroupBy::Context). Fails when no context stores the four fields clang
/// reads (AllocCount, TotalSize, TotalLifetime, TotalLifetimeAccessDensity).
llvm::Expected<HintsView> buildHintsView(const Report &R,
                                         const AllocThresholds &T);

void printHintsText(const HintsView &V, llvm::raw_ostream &OS);
void printHintsJSON(const HintsView &V, llvm::raw_ostream &OS);

} // namespace memprof

#endif
