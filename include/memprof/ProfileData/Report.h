//===- Report.h - What memprof-show prints: ranked contexts and a summary -*- C++ -*-===//
//
// A ReportLoader reads raw and indexed profiles (ours with names, and
// llvm-profdata's, named from the profiled binaries) through ProfileMerger,
// so a report of several inputs shows exactly what memprof-merge would
// write. buildReport ranks the merged allocation contexts and summarizes
// them; the printers write text, JSON or YAML (schema: docs/memprof-show.md).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_REPORT_H
#define MEMPROF_PROFILEDATA_REPORT_H

#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/Merge.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memprof {

enum class SortKey {
  Bytes,    // TotalSize
  Count,    // AllocCount
  Accesses, // TotalAccessCount
  Lifetime, // average lifetime (TotalLifetime / AllocCount)
  Density,  // average lifetime access density (the cold classifier's metric)
};
std::optional<SortKey> parseSortKey(llvm::StringRef Name);
llvm::StringRef sortKeyName(SortKey K);
/// The MemInfoBlock field a key ranks by (Lifetime, Density: the totals
/// their averages divide).
MIBTag sortKeyField(SortKey K);

/// "cold", "notcold" or "hot", as reports and exports name the classes.
llvm::StringRef allocClassName(AllocClass C);

/// What a report's rows are: allocation contexts, or their sums by
/// allocation site (the function, line and column of the site's frame), by
/// the function the allocation site lies in, or by the type the contexts
/// allocate (one row for those of no known type).
enum class GroupBy { Context, Site, Function, Type };
/// How reports name the row of the contexts whose type is not known.
inline constexpr const char *UnknownTypeLabel = "(unknown type)";
std::optional<GroupBy> parseGroupBy(llvm::StringRef Name);
llvm::StringRef groupByName(GroupBy G);

struct ReportOptions {
  /// How many contexts to list (after the filter), highest first.
  size_t TopContexts = 10;
  SortKey Sort = SortKey::Bytes;
  /// Lowest first instead.
  bool Reverse = false;
  /// Extended regular expressions; a context is listed when any of its
  /// frames' demangled or linkage names (or 0x GUID, if unnamed) contains a
  /// match of any of them. Empty: every context.
  std::vector<std::string> FunctionFilters;
  /// How many functions the PGO counter section ranks by their largest
  /// counter (llvm-profdata show --topn).
  size_t TopFunctions = 10;
  /// The rows: contexts, or their sums by site or function.
  GroupBy Group = GroupBy::Context;
  /// Text: full demangled names instead of short ones (shortFunctionName).
  bool FullNames = false;
  /// For exports of every context: each distinct frame is materialized
  /// once, into Report::FrameTable, and the contexts refer to it by index
  /// (ReportContext::FrameIds) instead of holding copies (Frames stays
  /// empty). Names are then copied once per frame, not once per frame of
  /// every context.
  bool InternFrames = false;
};

/// One input file as the report describes it.
struct ReportInput {
  std::string Path;
  bool Raw = false;
  uint64_t MemProfVersion = 0; // indexed only
  MIBSchema Schema;            // the fields the file stores
  /// Where the names come from: "symbolized" (raw), "profile" (our
  /// extension), "binary" (--profiled-binary), or "none".
  std::string Names;
  bool HasMemProf = false;  // MemProf data (raw MemProf, or a section)
  std::string Counters;     // describeVariant of its PGO counters, or ""
  bool CountersRaw = false; // a .profraw
  bool Text = false;        // LLVM's counters text
  /// Runs that recorded heap data (docs/heap-data.md): a raw input's dumps
  /// with a heap section, an indexed input's heap table's runs.
  uint64_t HeapRuns = 0;
};

struct ReportFrame {
  GUID Function = 0;
  uint32_t LineOffset = 0;
  uint32_t Column = 0;
  bool IsInlineFrame = false;
  std::string Name;        // demangled; empty when the GUID has no name
  std::string LinkageName; // empty when unknown
  std::string File;        // empty when unknown
  uint32_t Line = 0;       // 0 when unknown
  /// A frame of a raw input that could not be symbolized, in its place.
  std::optional<FrameGap> Gap;
};

/// A value some inputs' schemas may not hold.
template <typename T> using Maybe = std::optional<T>;

struct ClassTotals {
  uint64_t Contexts = 0;
  uint64_t Allocations = 0;
  uint64_t Bytes = 0;
};

/// A row of a report: one allocation context, or (GroupBy::Site, Function)
/// the sum of the contexts whose allocation site is one site or lies in one
/// function.
struct ReportContext {
  /// The context's id; for a group, a hash of its key.
  CallStackId Id = 0;
  /// A context: allocation site first, root last. A site: its frame. A
  /// function: the function, at its declaration.
  std::vector<ReportFrame> Frames;
  /// With ReportOptions::InternFrames: the frames, as indexes into
  /// Report::FrameTable, instead of Frames.
  std::vector<uint32_t> FrameIds;
  MemInfoBlock Info;
  uint32_t Known = 0; // bit T-1 for field tag T
  std::optional<AllocClass> Class; // unknown when the fields are missing
  std::string ModuleBuildId;       // hex, of the allocation site; may be ""
  /// The type the context allocates (names-extension.md); for a row of
  /// GroupBy::Type, its type. Empty when unknown.
  std::string Type;
  /// Groups: the contexts summed, and those of them classified cold.
  uint64_t Contexts = 1;
  ClassTotals Cold;
  /// GroupBy::Function: every context with a frame in the function,
  /// counted once each (pprof's "cum"), beside the sum of those whose
  /// allocation site lies in it ("flat").
  std::optional<ClassTotals> Through;
  /// Live and peak values (docs/heap-data.md), summed over the runs; zero
  /// when none was recorded (Report::Heap says whether any was).
  HeapStats Heap;

  Maybe<uint64_t> field(MIBTag T) const;
  /// Total / AllocCount; unknown when either is.
  Maybe<double> average(MIBTag Total) const;
};

struct ModuleTotals {
  std::string BuildId; // hex; "" for contexts whose site has no module
  std::string Path;    // the binary that symbolized it (raw inputs)
  ClassTotals Sites;   // contexts whose allocation site lies in it
  uint64_t UnsymbolizedPCs = 0;
  std::string Reason;  // why those were not symbolized
};

struct ReportSummary {
  ClassTotals All, Cold, NotCold, Hot, Unclassified;
  uint64_t Functions = 0, NamedFunctions = 0;
  uint64_t Frames = 0, FramesWithLocation = 0;
  std::vector<ModuleTotals> Modules;
  /// Raw inputs only: what symbolization lost.
  bool AnyRaw = false;
  uint64_t DroppedContexts = 0, DroppedAllocations = 0, DroppedBytes = 0;
  uint64_t UnsymbolizedPCs = 0, RuntimeFramesDropped = 0;
  /// Whether gaps are shown; the frames shown as gaps (distinct), and the
  /// contexts holding one.
  bool GapsShown = false;
  uint64_t GapFrames = 0;
  ClassTotals WithGaps;
  /// Every context's heap values summed (zero without heap data).
  HeapStats Heap;
};

/// A value of a value-profile site, named where the profile names it.
struct CounterValueReport {
  uint64_t Value = 0; ///< NameRef (call targets, vtables) or size (memop)
  uint64_t Count = 0;
  std::string Name;      ///< PGO name; empty when unknown or a size
  std::string Demangled; ///< of Name
};

struct CounterFunctionReport {
  std::string Name;      ///< PGO name
  std::string Demangled; ///< without the file prefix of locals, demangled
  uint64_t Hash = 0;
  bool CS = false;
  uint64_t MaxCount = 0;   ///< largest counter (what --topn ranks)
  uint64_t EntryCount = 0; ///< the first counter
  uint64_t TotalCount = 0; ///< sum of the counters (saturated)
  size_t NumCounters = 0;
  /// Filled for functions that match --function only.
  std::vector<uint64_t> Counts;
  std::vector<uint8_t> Bitmap;
  std::array<std::vector<std::vector<CounterValueReport>>,
             instrprof::NumValueKinds>
      Sites;
};

/// The PGO counter half of a report.
struct CounterReport {
  bool Present = false;
  uint64_t Variant = 0;
  /// What llvm-profdata show prints: over the records that are not
  /// context-sensitive (every record of a front-end profile) ...
  InstrProfSummary Summary;
  /// ... and, with --showcs, over the context-sensitive ones.
  std::optional<InstrProfSummary> CSSummary;
  uint64_t Records = 0, BinaryIds = 0, Traces = 0;
  /// Records the top list ranks (those of Summary, but pseudo counts).
  uint64_t Ranked = 0;
  std::vector<CounterFunctionReport> Top;      ///< largest counter first
  std::vector<CounterFunctionReport> Selected; ///< --function, by name
};

struct Report {
  std::vector<ReportInput> Inputs;
  ReportOptions Options;
  ReportSummary Summary;
  /// Totals of the contexts the filter selected (all when no filter).
  ClassTotals Selected;
  std::vector<ReportContext> Contexts; // the top ones, in rank order
  /// With ReportOptions::InternFrames: the distinct frames of Contexts.
  std::vector<ReportFrame> FrameTable;
  /// The rows ranked: the contexts selected, or their groups.
  uint64_t Rows = 0;
  std::vector<std::string> Notes;      // caveats, e.g. a sort key not stored
  /// What ranked the rows: Options.Sort when some input stores its field,
  /// else bytes (with a note); none when not even sizes are stored (a
  /// hand-made schema), the rows then being in id order.
  std::optional<SortKey> RankedBy;
  /// The fields some context stores (bit T-1 for tag T).
  uint32_t KnownFields = 0;
  CounterReport Counters;
  /// Whether any input holds MemProf data (else, with counters, the text
  /// report leaves the heap part out).
  bool HasMemProf = false;
  /// The runs' heap totals, when some input's runs recorded heap data, and
  /// the timeline kept (of the run with the highest peak; top entries by
  /// context id).
  std::optional<HeapSummary> Heap;
  HeapTimeline Timeline;
};

/// Ranks and summarizes the contexts of \p M, named by \p Names, and its
/// PGO counters.
llvm::Expected<Report> buildReport(const ProfileMerger &M,
                                   const ProfileNames &Names,
                                   std::vector<ReportInput> Inputs,
                                   const ReportOptions &Opts);

/// One row of a comparison: a context (or group) of the base, of the new
/// profile, or of both, matched by id (a context's id is the hash of its
/// frames: the same code gives the same id in every run and build).
struct DiffRow {
  std::optional<ReportContext> Before, After; // absent: not in that side
  /// The change of the sort value (bytes, count, accesses, average
  /// lifetime or density): after less before, an absent side counting 0.
  double Change = 0;
  /// "new", "vanished", "grown", "shrunk" or "unchanged".
  llvm::StringRef status() const;
  const ReportContext &row() const { return After ? *After : *Before; }
};

struct ReportDiff {
  ReportOptions Options;
  /// Each side's inputs and the totals of the rows compared (those the
  /// --function filter selects, all when none).
  std::vector<ReportInput> BeforeInputs, AfterInputs;
  ClassTotals BeforeTotals, AfterTotals;
  uint64_t BeforeAccesses = 0, AfterAccesses = 0;
  uint64_t New = 0, Vanished = 0, Grown = 0, Shrunk = 0, Unchanged = 0;
  /// The top rows by the size of their change, largest first (ties: larger
  /// growth first, then by id). With Options.Reverse, shrinking first.
  std::vector<DiffRow> Rows;
  std::vector<std::string> Notes;
  /// What the changes are of: Options.Sort when both sides store its field,
  /// else bytes (with a note).
  SortKey ComparedBy = SortKey::Bytes;
};

/// Compares two reports built with every row (TopContexts = SIZE_MAX) and
/// the same grouping; keeps Opts.TopContexts rows.
ReportDiff diffReports(Report Before, Report After, const ReportOptions &Opts);
void printDiffText(const ReportDiff &D, llvm::raw_ostream &OS);
void printDiffJSON(const ReportDiff &D, llvm::raw_ostream &OS);
void printDiffYAML(const ReportDiff &D, llvm::raw_ostream &OS);

void printReportText(const Report &R, llvm::raw_ostream &OS);
void printReportJSON(const Report &R, llvm::raw_ostream &OS);
void printReportYAML(const Report &R, llvm::raw_ostream &OS);

/// What a profile file is and which program it profiles, read without
/// symbolizing or merging anything (memprof-show --header-only; how
/// memprof-fleet groups its inputs by program).
struct ProfileHeader {
  /// "raw" (MemProf), "raw-counters" (.profraw), "indexed" or
  /// "counters-text".
  std::string Kind;
  /// Whether it has a MemProf part and a PGO counter part (an indexed
  /// profile's sections, which may be empty).
  bool MemProf = false, Counters = false;
  /// What those parts hold: allocation contexts (each once, as
  /// indexedContexts counts them; a raw profile's distinct stacks) and PGO
  /// function records.
  uint64_t Contexts = 0, FunctionRecords = 0;
  /// Hex build id of the profiled program: a raw MemProf profile's first
  /// module with a build id (the runtimes list the main program first), a
  /// .profraw's binary id when it has exactly one; "" when the file does
  /// not say (indexed profiles and text hold no program id).
  std::string Program;
  /// The program's path as memprof's runtime recorded it; may be "".
  std::string ProgramPath;
  /// Every module's hex build id, in the file's order.
  std::vector<std::string> Modules;
};
llvm::Expected<ProfileHeader> readProfileHeader(llvm::StringRef Data);

/// Reads inputs for a report.
class ReportLoader {
public:
  /// \p ProfiledBinaries and \p DebugDirs symbolize raw inputs; the
  /// binaries also name llvm-profdata's indexed files. With \p IgnoreNames
  /// the names extension of indexed inputs is not read. \p SystemDirs are
  /// searched last (ElfBinaryLocator::searchSystemDirs); with none, the
  /// files the profiles recorded in the system's directories are not used
  /// either (excludeRecordedPathsUnder).
  static llvm::Expected<std::unique_ptr<ReportLoader>>
  create(const std::vector<std::string> &ProfiledBinaries,
         const std::vector<std::string> &DebugDirs, bool IgnoreNames,
         std::vector<std::string> SystemDirs = {});
  /// Modules searched as the tools search them (ElfBinaryLocator::create).
  static llvm::Expected<std::unique_ptr<ReportLoader>>
  create(const ModuleSearch &S, bool IgnoreNames);
  ~ReportLoader();

  /// Whether frames of raw inputs that cannot be symbolized are shown in
  /// their place (the default) or dropped, with the contexts left without
  /// frames, as memprof-merge drops them. Before the first add().
  void keepGaps(bool On);
  /// Adds one file from its bytes: raw or indexed (MemProf, PGO counters
  /// or both), or LLVM's counters text.
  llvm::Error add(llvm::StringRef Path, llvm::StringRef Bytes);
  /// Names indexed inputs that carry none from the profiled binaries, then
  /// builds the report.
  llvm::Expected<Report> build(const ReportOptions &Opts);
  /// Recoverable problems met on the way (skipped files, DWARF errors).
  std::vector<std::string> notes() const;
  /// Keeps the frames symbolized so far in the symbol cache (if any); its
  /// problems join notes().
  void saveSymbolCache();

private:
  ReportLoader() = default;
  std::vector<std::string> Binaries;
  bool IgnoreNames = false;
  std::unique_ptr<ElfBinaryLocator> Locator;
  std::unique_ptr<ProfileMerger> Merger;
  std::vector<ReportInput> Inputs;
  std::vector<std::string> BinaryNotes;
  std::vector<std::string> CounterNotes;
  llvm::Error addCounters(llvm::StringRef Path, const CounterProfile &P);
  static std::unique_ptr<ReportLoader>
  make(std::unique_ptr<ElfBinaryLocator> Locator,
       const std::vector<std::string> &ProfiledBinaries, bool IgnoreNames);
};

} // namespace memprof

#endif
