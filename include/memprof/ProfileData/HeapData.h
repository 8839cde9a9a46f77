//===- HeapData.h - Peak, live-at-end and timeline data of a profile -*- C++ -*-===//
//
// What memprof's runtime records beside LLVM's MemInfoBlocks
// (docs/heap-data.md): per allocation context the blocks and bytes live at
// the dump and at the process's peak, per run the peak's totals and a
// timeline. Merged profiles sum runs: every value but the timeline is a
// saturating sum (commutative and associative), and the timeline kept is the
// one of the run with the highest peak, ties broken by content, so the result
// depends on neither the inputs' order nor their grouping into partial merges.
//
// The indexed form is the heap table of the names extension
// (docs/names-extension.md); its reader treats the bytes as hostile.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_HEAPDATA_H
#define MEMPROF_PROFILEDATA_HEAPDATA_H

#include "memprof/ProfileData/MemProfData.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <vector>

namespace memprof {

/// One context's heap values: live at the dump, and live at the process's
/// peak (summed over runs).
struct HeapStats {
  uint64_t LiveBytes = 0, LiveBlocks = 0;
  uint64_t PeakBytes = 0, PeakBlocks = 0;

  bool empty() const {
    return !LiveBytes && !LiveBlocks && !PeakBytes && !PeakBlocks;
  }
  /// Saturating sums.
  void add(const HeapStats &O);
  /// \p Weight runs of these values (saturating).
  void scale(uint64_t Weight);
  bool operator==(const HeapStats &O) const {
    return LiveBytes == O.LiveBytes && LiveBlocks == O.LiveBlocks &&
           PeakBytes == O.PeakBytes && PeakBlocks == O.PeakBlocks;
  }
};

/// A context of a timeline sample: a raw stack id in a raw dump, a context
/// (call-stack) id in a merged profile.
struct HeapTopEntry {
  uint64_t Context = 0;
  uint64_t Bytes = 0;
  bool operator==(const HeapTopEntry &O) const {
    return Context == O.Context && Bytes == O.Bytes;
  }
};

struct HeapSample {
  uint64_t TimeMs = 0;
  uint64_t TotalBytes = 0;
  /// The largest contexts then, largest first (at most HeapMaxTop).
  llvm::SmallVector<HeapTopEntry, 8> Top;
  bool operator==(const HeapSample &O) const {
    return TimeMs == O.TimeMs && TotalBytes == O.TotalBytes && Top == O.Top;
  }
};

/// One run's timeline and the peak it leads to.
struct HeapTimeline {
  uint64_t PeakTimeMs = 0;
  uint64_t PeakBytes = 0;
  std::vector<HeapSample> Samples;
  bool operator==(const HeapTimeline &O) const {
    return PeakTimeMs == O.PeakTimeMs && PeakBytes == O.PeakBytes &&
           Samples == O.Samples;
  }
};

/// Whether \p A is kept rather than \p B when two runs meet: the higher peak;
/// on a tie, the one that sorts first by content (peak time, then the
/// samples in order: time, total, number of top entries, then each entry's
/// context id and bytes; a prefix first). A total order on distinct
/// timelines, so keeping the preferred one is commutative and associative.
bool preferTimeline(const HeapTimeline &A, const HeapTimeline &B);

/// Puts a sample's top entries in their canonical form: entries of one
/// context added up, largest first, equal bytes by context id.
void normalizeTop(llvm::SmallVectorImpl<HeapTopEntry> &Top);

/// Profile-level values, summed over runs.
struct HeapSummary {
  /// Runs that recorded heap data, and those of them whose dump was the
  /// exit dump (live blocks were never freed).
  uint64_t Runs = 0, ExitRuns = 0;
  /// The processes' peak totals.
  uint64_t PeakBytes = 0, PeakBlocks = 0;

  void add(const HeapSummary &O);
  void scale(uint64_t Weight);
  bool operator==(const HeapSummary &O) const {
    return Runs == O.Runs && ExitRuns == O.ExitRuns &&
           PeakBytes == O.PeakBytes && PeakBlocks == O.PeakBlocks;
  }
};

/// The heap data of a profile: what the indexed heap table holds.
struct HeapProfile {
  HeapSummary Summary;
  /// By context id: those with a value, and those the timeline names (whose
  /// values may all be 0).
  std::map<CallStackId, HeapStats> Contexts;
  /// The timeline of the run with the highest peak.
  HeapTimeline Timeline;

  /// Whether some run recorded heap data (else there is none, which is not
  /// an empty heap).
  bool present() const { return Summary.Runs != 0; }
  bool operator==(const HeapProfile &O) const {
    return Summary == O.Summary && Contexts == O.Contexts &&
           Timeline == O.Timeline;
  }
};

/// Appends the heap table of \p H (present) to \p Out.
void writeHeapTable(llvm::SmallVectorImpl<char> &Out, const HeapProfile &H);

/// Reads a heap table that spans \p Section exactly, at absolute offset
/// \p Base. Every count is checked against the bytes left before anything is
/// sized by it; order, ranges and references are checked (docs/
/// names-extension.md). Context ids are not checked against the LLVM part
/// here: see checkHeapContexts.
llvm::Expected<HeapProfile> readHeapTable(llvm::StringRef Section,
                                          uint64_t Base);

/// Fails unless every context of \p H is an allocation context of \p P,
/// the LLVM part of the file that carried it.
llvm::Error checkHeapContexts(const HeapProfile &H, const IndexedMemProf &P);

} // namespace memprof

#endif
