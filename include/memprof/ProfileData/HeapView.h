//===- HeapView.h - memprof-show's peak and leaks views ---------*- C++ -*-===//
//
// Rankings of a report's rows by the heap data of docs/heap-data.md: what
// held the memory at the process's peak (--view peak), and what was still
// live at the end (--view leaks), with each row's share of the total, and
// the comparison of two profiles by the change of those bytes. The rows are
// the report's (contexts, or their sums by site or function), so filters and
// groups work as in the default view.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_HEAPVIEW_H
#define MEMPROF_PROFILEDATA_HEAPVIEW_H

#include "memprof/ProfileData/Report.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace memprof {

enum class HeapViewKind { Peak, Leaks };
std::optional<HeapViewKind> parseHeapView(llvm::StringRef Name);
llvm::StringRef heapViewName(HeapViewKind K);

/// What a row holds in view \p K: bytes and blocks at the peak, or live at
/// the end.
uint64_t heapBytes(const HeapStats &S, HeapViewKind K);
uint64_t heapBlocks(const HeapStats &S, HeapViewKind K);

struct HeapView {
  HeapViewKind Kind = HeapViewKind::Peak;
  /// The report the rows come from; its Contexts are the view's rows, in
  /// rank order (those with no bytes or blocks in this view left out).
  Report R;
  /// What the shares are of: the peaks' total (Peak), or the sum of every
  /// context's live values (Leaks).
  uint64_t TotalBytes = 0, TotalBlocks = 0;
  /// Rows with a value in this view, of which Contexts holds the top ones.
  uint64_t Rows = 0;
  /// Whether every run's dump was the exit dump (live at exit), else live
  /// at the dump.
  bool AtExit = false;
  std::vector<std::string> Notes;
};

/// The view \p K of \p R, built with every row (ReportOptions::TopContexts
/// = SIZE_MAX): the rows ranked by their bytes in the view (then blocks,
/// then id), the top \p Top kept. Fails when no input recorded heap data.
llvm::Expected<HeapView> buildHeapView(Report R, HeapViewKind K, size_t Top);

/// "peak: 10.2 MiB in 1,234 blocks at 1.52 s, 1 run" (\p K Peak) or "live at
/// exit: 10.6 KiB in 16 blocks, 1 run" (Leaks) for \p R's heap data; empty
/// when \p R has none. The views' headers and memprof-show's summary.
std::string heapHeadline(const Report &R, HeapViewKind K);
/// heapHeadline of the view's report and kind.
std::string heapViewHeadline(const HeapView &V);

void printHeapViewText(const HeapView &V, llvm::raw_ostream &OS);
void printHeapViewJSON(const HeapView &V, llvm::raw_ostream &OS);

/// A row of a comparison of two views, matched by id.
struct HeapDiffRow {
  std::optional<ReportContext> Before, After;
  /// After less before, of the view's bytes (an absent side counts 0).
  int64_t Change = 0;
  llvm::StringRef status() const;
  const ReportContext &row() const { return After ? *After : *Before; }
};

struct HeapViewDiff {
  HeapViewKind Kind = HeapViewKind::Peak;
  std::vector<ReportInput> BeforeInputs, AfterInputs;
  uint64_t BeforeBytes = 0, AfterBytes = 0, BeforeBlocks = 0, AfterBlocks = 0;
  uint64_t New = 0, Vanished = 0, Grown = 0, Shrunk = 0, Unchanged = 0;
  /// The top rows by the size of their change, largest first (ties: growth
  /// first, then by id); with Reverse, the largest fall first.
  std::vector<HeapDiffRow> Rows;
  bool Reverse = false;
  GroupBy Group = GroupBy::Context;
  bool FullNames = false;
};

/// Compares two views built with every row; keeps \p Top changed rows.
HeapViewDiff diffHeapViews(const HeapView &Before, const HeapView &After,
                           size_t Top, bool Reverse);
void printHeapDiffText(const HeapViewDiff &D, llvm::raw_ostream &OS);
void printHeapDiffJSON(const HeapViewDiff &D, llvm::raw_ostream &OS);

/// "10.2 MiB", "512 B": binary units, one decimal.
std::string humanBytes(uint64_t N);
/// "1,234,567".
std::string thousands(uint64_t N);

} // namespace memprof

#endif
