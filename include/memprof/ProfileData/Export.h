//===- Export.h - Pictures and comparisons of a profile's contexts -*- C++ -*-===//
//
// What is drawn from a Report built with every context (ReportOptions::
// TopContexts = SIZE_MAX): pprof's profile.proto, folded stacks, an
// interactive flame graph, and the short names the text report and the
// pictures show. A Report's contexts are named as memprof-show names them,
// from indexed profiles' names or by symbolizing raw ones, with the frames
// that could not be symbolized kept in their place as gaps.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_EXPORT_H
#define MEMPROF_PROFILEDATA_EXPORT_H

#include "memprof/ProfileData/Report.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <vector>
#include <set>
#include <string>

namespace memprof {

/// What a context weighs in a picture or a comparison: the sum of one
/// MemInfoBlock field over its allocations, or one of its heap values
/// (docs/heap-data.md: live at the peak, live at the dump), summed over runs.
enum class Weight {
  Bytes,      // TotalSize
  Count,      // AllocCount
  Accesses,   // TotalAccessCount
  Lifetime,   // TotalLifetime (ms, summed over the allocations)
  PeakBytes,  // HeapStats::PeakBytes
  PeakBlocks, // HeapStats::PeakBlocks
  LiveBytes,  // HeapStats::LiveBytes
  LiveBlocks, // HeapStats::LiveBlocks
};
std::optional<Weight> parseWeight(llvm::StringRef Name);
llvm::StringRef weightName(Weight W);
/// Every weight's name, in order (for --help and option checks).
std::vector<std::string> weightNames();
/// Whether the weight is a heap value rather than a MemInfoBlock field.
bool isHeapWeight(Weight W);
/// The MemInfoBlock field a weight sums; std::nullopt for heap weights.
std::optional<MIBTag> weightField(Weight W);
/// What the weight sums, for a picture's subtitle: the field's name
/// ("TotalSize") or the heap value's ("bytes at the peak").
std::string weightSource(Weight W);
/// The context's weight; 0 when its inputs do not store the field.
uint64_t weightOf(const ReportContext &C, Weight W);
/// The fields some context of \p R stores (bit T-1 for tag T).
uint32_t knownFields(const Report &R);

/// Text for XML character data and attribute values (the SVG pictures):
/// the five special characters as entities, control characters as '?',
/// invalid UTF-8 repaired, U+FFFE/U+FFFF as U+FFFD.
std::string xmlText(llvm::StringRef S);

/// A demangled C++ name made short for reading, as pprof shortens names:
/// template arguments folded to "<>"; parameter lists, ABI tags, the return
/// type and trailing qualifiers dropped; and the standard library's inline
/// namespaces (std::__cxx11::, std::__1::) removed; std::basic_string<char>
/// is std::string. Names that are not C++ (C, Rust, a GUID) come back as
/// they are.
std::string shortFunctionName(llvm::StringRef Demangled);

/// A type name as text and pictures show it unless asked for full names:
/// the standard library's inline namespaces removed and its default
/// template arguments left out, as source writes them
/// (std::vector<char, std::allocator<char>> is std::vector<char>).
std::string briefTypeName(llvm::StringRef Type);

/// Labels for demangled names listed side by side in one view, by name:
/// each name's short form, except where several names share one (three
/// std::__new_allocator<...>::allocate instantiations): those get back the
/// template arguments that differ among them, as source writes them
/// (std::vector<char*>::reserve, the standard's default arguments left
/// out), failing that whole, failing that also the parameter lists that
/// differ (overloads: f(int), f(char const*)), and failing that (they
/// differ in a return type or a qualifier) their whole names.
std::map<std::string, std::string>
distinctShortNames(const std::set<std::string> &Names);

/// Where text shows a frame: FILE:LINE:COLUMN (a function's row of
/// GroupBy::Function: its declaration), what is known of it, or why a gap
/// was not symbolized.
std::string frameWhere(const ReportFrame &F, GroupBy G);

/// How pictures and text name a frame: its demangled name (short unless
/// \p FullNames, and then as \p Labels has it when given), its GUID when
/// unnamed, or "?? [symbol] at module+0xOFF" for a gap.
std::string frameLabel(const ReportFrame &F, bool FullNames,
                       const std::map<std::string, std::string> *Labels = nullptr);

/// The frames of a report's contexts as indexes into one table, so that an
/// export computes what it shows of a frame (its label, its pprof function
/// and location) once per entry rather than once per frame of every
/// context: the report's own table of distinct frames (ReportOptions::
/// InternFrames), and for contexts that hold their frames instead (reports
/// built by hand), one entry for each of those frames.
class ContextFrames {
public:
  explicit ContextFrames(const Report &R);
  /// The frames of the report's context \p I, allocation site first.
  llvm::ArrayRef<uint32_t> of(size_t I) const;
  const ReportFrame &frame(uint32_t Id) const { return *Table[Id]; }
  /// The number of entries: every id is below it.
  size_t size() const { return Table.size(); }
  const Report &report() const { return R; }

private:
  const Report &R;
  std::vector<const ReportFrame *> Table;
  /// The ids of the contexts that hold their frames; empty for the others.
  std::vector<std::vector<uint32_t>> Own;
};

/// frameLabel of each entry of a ContextFrames, computed once; short names
/// are computed once per distinct name.
class FrameLabels {
public:
  FrameLabels(const ContextFrames &Frames, bool FullNames);
  const std::string &operator[](uint32_t Id);

private:
  const ContextFrames &Frames;
  bool FullNames;
  std::vector<std::string> Labels;
  std::vector<bool> Done;
  llvm::StringMap<std::string> ShortNames;
};

/// Reports how far a long export has come: \p Done of \p Total units
/// (contexts, records), at most every few thousand units.
using ProgressFn = llvm::function_ref<void(uint64_t Done, uint64_t Total)>;

/// pprof's profile.proto, gzip-compressed, of every context of \p R (see
/// docs/memprof-convert.md#pprof). With \p Base, the base's samples follow,
/// negated and labelled pprof::base=true, as `pprof -diff_base` combines
/// two profiles, so any pprof client shows the difference.
llvm::Expected<std::string> writePprof(const Report &R,
                                       const Report *Base = nullptr,
                                       ProgressFn Progress = nullptr);

/// Folded stacks, one line per context: frames root first, ';'-separated,
/// a space and the weight (what flamegraph.pl, inferno and speedscope read).
/// Contexts of weight 0 are left out; the lines are sorted.
void writeFolded(const Report &R, Weight W, bool FullNames,
                 llvm::raw_ostream &OS, ProgressFn Progress = nullptr);

struct FlameGraphOptions {
  Weight W = Weight::Bytes;
  bool FullNames = false;
  std::string Title = "Heap flame graph";
};
/// A self-contained interactive SVG flame graph (zoom on click, search,
/// details on hover), cold contexts' frames in blue.
void writeFlameGraph(const Report &R, const FlameGraphOptions &O,
                     llvm::raw_ostream &OS, ProgressFn Progress = nullptr);

} // namespace memprof

#endif
