//===- InstrProfData.h - Instrumented PGO counters in the profile model -*- C++ -*-===//
//
// The counter half of the one profile model: what LLVM's indexed profile
// stores beside the MemProf section (spec llvm-instrprof-formats.md): function
// records keyed by PGO name and structural hash, their counters, MC/DC bitmap
// bytes and value-profile sites; the binary ids, temporal traces and vtable
// names. The raw reader produces it from a .profraw file, the indexed reader
// from a .profdata file, CounterMerger combines several with llvm-profdata
// 22's rules, and writeIndexedProfile writes it beside the MemProf data.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_INSTRPROFDATA_H
#define MEMPROF_PROFILEDATA_INSTRPROFDATA_H

#include "memprof/format/InstrProfFormat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace memprof {

/// One value of a value-profile site: an indirect-call target or vtable
/// (MD5lo of its name; 0 for a target the profile could not name) or a
/// memop size range, with how often it was seen.
struct InstrProfValue {
  uint64_t Value = 0;
  uint64_t Count = 0;
  bool operator==(const InstrProfValue &O) const {
    return Value == O.Value && Count == O.Count;
  }
};
using InstrProfValueSite = std::vector<InstrProfValue>;

/// One function record: identified by (Name, Hash).
struct FunctionCounters {
  std::string Name;  ///< PGO name ("file.c;local" for IR locals)
  uint64_t Hash = 0; ///< structural hash; bit 60 set for CS records
  std::vector<uint64_t> Counts;
  std::vector<uint8_t> Bitmap; ///< MC/DC bitmap bytes
  /// Sites per value kind (instrprof::ValueKind*), each a list of values.
  std::array<std::vector<InstrProfValueSite>, instrprof::NumValueKinds> Sites;

  bool isCS() const { return Hash & instrprof::CSHashBit; }
  /// A pseudo-count record (first counter PseudoHot or PseudoWarm), which
  /// summaries and rankings skip.
  bool isPseudo() const {
    return !Counts.empty() && (Counts[0] == instrprof::PseudoHot ||
                               Counts[0] == instrprof::PseudoWarm);
  }
  bool operator==(const FunctionCounters &O) const {
    return Name == O.Name && Hash == O.Hash && Counts == O.Counts &&
           Bitmap == O.Bitmap && Sites == O.Sites;
  }
};

struct TemporalTrace {
  uint64_t Weight = 1;
  std::vector<uint64_t> FunctionNameRefs; ///< MD5lo of PGO names, in call order
  bool operator==(const TemporalTrace &O) const {
    return Weight == O.Weight && FunctionNameRefs == O.FunctionNameRefs;
  }
};

/// The counter half of a profile. An empty one (Present false) is what a
/// MemProf-only file holds.
struct CounterProfile {
  /// True once any counter input (raw or indexed with counters) contributed,
  /// even one without records.
  bool Present = false;
  /// Variant bits of the version word (instrprof::Variant*), without the
  /// MemProf bit: no IR bit means front-end instrumentation.
  uint64_t Variant = 0;
  /// Records. Raw reader: data-record order. Indexed reader: table order.
  /// CounterMerger::build: names sorted byte-wise, records of one name in
  /// LLVM's order. The writer sorts by name itself and keeps the order of
  /// records under one name.
  std::vector<FunctionCounters> Records;
  /// Build ids, raw bytes. The writer sorts and deduplicates them.
  std::vector<std::string> BinaryIds;
  std::vector<TemporalTrace> Traces;
  uint64_t TraceStreamSize = 0; ///< traces seen (reservoir sampling)
  /// VTable names ("_ZTV..."). The writer stores them in the order LLVM's
  /// StringSet of them iterates (llvmStringSetOrder of this order).
  std::vector<std::string> VTableNames;

  bool isIR() const { return Variant & instrprof::VariantIR; }
  bool isCSIR() const { return Variant & instrprof::VariantCSIR; }
  bool hasTemporal() const { return Variant & instrprof::VariantTemporal; }
};

/// MD5lo of a PGO name: the NameRef of a raw record, the hash of the
/// indexed function table, the value of an indirect-call target.
uint64_t instrProfNameRef(llvm::StringRef PGOName);

/// What a profile's symbol table knows, as LLVM's writer builds it: the
/// NameRef of each record name and vtable name, to that name (records
/// first; the first of two names with one NameRef). The names point into
/// \p P.
llvm::DenseMap<uint64_t, llvm::StringRef>
counterNameTable(const CounterProfile &P);

/// "file.c;_ZL3foov" -> "foo()": a PGO name without the file prefix of a
/// local function, demangled where it is a C++ name.
std::string demangledPGOName(llvm::StringRef PGOName);

/// "IR", "IR, context-sensitive", "front-end", ... for messages.
std::string describeVariant(uint64_t Variant);

//===----------------------------------------------------------------------===//
// Raw profiles (.profraw)
//===----------------------------------------------------------------------===//

/// True when \p Buffer starts with a raw InstrProf magic (64- or 32-bit
/// pointers, either byte order).
bool isRawInstrProf(llvm::StringRef Buffer);

/// Reads a raw InstrProf file: one or more profiles back to back (spec 1.1),
/// versions 8 to 10. Every count and offset is checked against the bytes that
/// remain before use; errors name the absolute offset. A counter above 2^56
/// is an error, as llvm-profdata's warning fails its merge. Records come in
/// data-record order, profile after profile; value data is remapped as
/// llvm-profdata does (call targets and vtables to NameRefs, 0 when
/// unknown; memop sizes kept). The timestamps of a temporal file's profiles
/// make one trace.
llvm::Expected<CounterProfile> readRawInstrProf(llvm::StringRef Buffer);

//===----------------------------------------------------------------------===//
// Text profiles (.proftext, spec section 4)
//===----------------------------------------------------------------------===//

/// True when \p Buffer reads as LLVM's text form of counters: printable
/// first bytes (TextInstrProfReader::hasFormat), then a header flag line or
/// a function name followed by its hash, or only comments of that form.
/// MemProf YAML ("---") is not.
bool isInstrProfText(llvm::StringRef Buffer);

/// Writes \p P as `llvm-profdata-22 merge --text` writes it: header flags,
/// temporal traces, then the records sorted by name and hash; call-target
/// and vtable values by name where \p P names them (its record and vtable
/// names), "** External Symbol **" otherwise. With \p RoundTrip, comment
/// lines starting "# memprof: " add what the text cannot hold (the variant
/// bits, binary ids, vtable names, values and trace entries it cannot name)
/// and the records of one name come in an order from which LLVM's writer
/// rebuilds their table order, so readInstrProfText and the indexed writer
/// give back the bytes \p P came from. LLVM's reader skips those comments.
/// Fails on a name that cannot be one line, and with \p RoundTrip on a name
/// LLVM's reader would take for another line (a leading ':' on the first
/// record, a leading '$' or a number on a later one).
llvm::Error writeInstrProfText(const CounterProfile &P, llvm::raw_ostream &OS,
                               bool RoundTrip = false);

/// Reads LLVM's text form as llvm-profdata 22 reads it (header flags, traces,
/// records, bitmap bytes, value sites; call targets and vtables by name,
/// "** External Symbol **" as 0; value kinds with no sites dropped), and our
/// "# memprof: " comments. Records come in file order, not merged: give the
/// result to CounterMerger as llvm-profdata gives records to its writer.
/// VTableNames are those of our comments; the vtable names the values use,
/// which llvm-profdata keeps with --keep-vtable-symbols, go to
/// \p VTableNamesInValues in first-seen order. Every count is bounded by the
/// lines that remain; errors name the line. Unlike LLVM 22, 256 or more
/// bitmap bytes are read.
llvm::Expected<CounterProfile>
readInstrProfText(llvm::StringRef Text,
                  std::vector<std::string> *VTableNamesInValues = nullptr);

//===----------------------------------------------------------------------===//
// Merging (llvm-profdata 22's InstrProfWriter rules, spec section 2)
//===----------------------------------------------------------------------===//

enum class CounterIssue {
  CountMismatch,          ///< counter count differs: first record kept
  CounterOverflow,        ///< a sum saturated at 2^64-3
  BitmapMismatch,         ///< bitmap size differs: bitmap and values kept
  ValueSiteCountMismatch, ///< value site count differs: that kind kept
};

/// llvm-profdata's text: "function basic block count change detected
/// (counter mismatch)", "counter overflow", ...
llvm::StringRef counterIssueText(CounterIssue I);

struct CounterWarning {
  CounterIssue Issue;
  std::string Function; ///< PGO name
};

/// Combines counter profiles. Records are identified by (name, hash); counts
/// are weighted saturating sums clamped at 2^64-3; bitmaps are OR-ed; value
/// sites merged by value, sorted by count and cut to 255 values; binary ids
/// and temporal traces are collected. Unlike llvm-profdata 22, profiles of
/// kinds whose counters do not add up are refused: front-end with IR, block
/// or function-entry coverage with anything else, entry-first or loop-entry
/// counters with plain ones.
class CounterMerger {
public:
  /// Adds \p P counted \p Weight times (at least 1). Returns an error, and
  /// adds nothing, when its kind cannot merge with what was added before.
  /// Per-function problems go to \p Warnings, one per (issue, function).
  /// Trace weights are multiplied by \p Weight (a raw trace has weight 1).
  llvm::Error add(const CounterProfile &P, uint64_t Weight,
                  std::vector<CounterWarning> &Warnings);

  /// The merged profile: names sorted byte-wise, the records of one name in
  /// the order LLVM's writer iterates them.
  CounterProfile build() const;

  bool present() const { return Present; }
  uint64_t variant() const { return Variant; }
  size_t numRecords() const;

private:
  struct NameEntry {
    std::vector<FunctionCounters> Records; // first-seen order
    /// Hash -> index in Records, built once a name has many records.
    std::unordered_map<uint64_t, size_t> HashIndex;
    uint64_t WarnedInAdd = 0; ///< AddSerial of WarnedIssues
    unsigned WarnedIssues = 0; ///< bit per CounterIssue
  };
  static constexpr size_t IndexThreshold = 8;

  llvm::Error checkKind(uint64_t Other) const;
  FunctionCounters *findRecord(NameEntry &E, uint64_t Hash);
  void addRecord(const FunctionCounters &In, uint64_t Weight,
                 std::vector<CounterWarning> &Warnings);
  void addTraces(const CounterProfile &P, uint64_t Weight);
  void warn(NameEntry &E, llvm::StringRef Name, CounterIssue I,
            std::vector<CounterWarning> &Warnings);

  bool Present = false;
  uint64_t Variant = 0;
  llvm::StringMap<NameEntry> Names;
  size_t NumRecords = 0;
  uint64_t AddSerial = 0;
  std::vector<std::string> BinaryIds; ///< sorted, unique
  std::vector<TemporalTrace> Traces;
  uint64_t TraceStreamSize = 0;
  /// The writer's reservoir RNG: default seed, state kept across inputs.
  std::mt19937 RNG;
  std::vector<std::string> VTableNames;
  llvm::StringSet<> VTableNameSet;
  InstrProfValueSite SrcScratch, MergeScratch;
};

/// The order in which LLVM's SmallDenseMap<uint64_t, ...> with 4 inline
/// buckets iterates keys inserted in the order of \p Hashes (distinct):
/// the order of records under one name in the indexed file (spec 3.3).
std::vector<size_t> llvmRecordOrder(llvm::ArrayRef<uint64_t> Hashes);

/// The order in which LLVM's StringSet iterates \p Names inserted in this
/// order (a repeated name counts once): the order of the vtable names the
/// indexed writer stores.
std::vector<size_t> llvmStringSetOrder(llvm::ArrayRef<std::string> Names);

//===----------------------------------------------------------------------===//
// Indexed summary (spec 3.2)
//===----------------------------------------------------------------------===//

struct InstrProfSummary {
  uint64_t TotalNumFunctions = 0;
  uint64_t TotalNumBlocks = 0;
  uint64_t MaxFunctionCount = 0;
  uint64_t MaxBlockCount = 0;
  uint64_t MaxInternalBlockCount = 0;
  uint64_t TotalBlockCount = 0;
  struct Entry {
    uint64_t Cutoff = 0;
    uint64_t MinCount = 0;
    uint64_t NumCounts = 0;
  };
  std::vector<Entry> Detailed; ///< one per default cutoff
};

/// The summary LLVM's InstrProfSummaryBuilder computes over \p Records:
/// CS records (hash bit 60) when \p CS, the others otherwise.
InstrProfSummary computeInstrProfSummary(llvm::ArrayRef<FunctionCounters> Records,
                                         bool CS);

} // namespace memprof

#endif
