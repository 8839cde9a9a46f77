//===- MemProfYAML.h - LLVM's MemProf YAML: writer and reader ---*- C++ -*-===//
//
// The text form of an indexed MemProf profile that llvm-profdata 22 prints
// with `show --memory` and reads back with `merge` (spec section 4). The
// writer reproduces llvm-profdata's output byte for byte; the reader accepts
// what llvm-profdata accepts and builds the IndexedMemProf in LLVM's
// YAML-to-indexed insertion order, so writing it gives llvm-profdata's bytes.
// Hostile text (deep nesting, huge or too-wide numbers, unknown keys, wrong
// types) is an error with a line and column, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MEMPROFYAML_H
#define MEMPROF_PROFILEDATA_MEMPROFYAML_H

#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace memprof {

/// True when \p Buffer is LLVM MemProf YAML by llvm-profdata's own test: it
/// begins with the three bytes "---".
bool isMemProfYAML(llvm::StringRef Buffer);

/// Prints the "# MemProfSummary:" comment document llvm-profdata prints
/// before the records.
void writeMemProfSummaryYAML(llvm::raw_ostream &OS, const MemProfSummary &S);

/// Prints \p P as LLVM's YAML document (records in P.Records order), with
/// exactly the MemInfoBlock fields of \p Schema, in field order.
void writeMemProfYAMLRecords(llvm::raw_ostream &OS, const IndexedMemProf &P,
                             llvm::ArrayRef<uint8_t> Schema);

/// The summary llvm-profdata's reader computes for a V2 or V3 profile (V4
/// stores one): like computeSummary, but a context is identified by its
/// frames' function, line offset and column, without the inline flag
/// (LLVM's computeFullStackId), so stacks that differ only in that flag count
/// once.
MemProfSummary computeReaderSummary(const IndexedMemProf &P);

/// The order in which LLVM's hash-table generator must receive the records
/// of \p P (read from an indexed file, so in the order of its record table's
/// payload) to write that same table again: indexes into P.Records. Reading
/// LLVM's YAML inserts records in document order, and the payload order that
/// `show --memory` prints reverses the items of a bucket chain that were
/// inserted into the same bucket (spec 3.4), so printing in payload order
/// does not round-trip when chains hold several records. This order differs
/// from the payload order only by permuting records within such chains.
/// Returns the payload order when the table cannot have come from LLVM's
/// generator.
std::vector<size_t> roundTripRecordOrder(const IndexedMemProf &P);

/// \p P with its records in roundTripRecordOrder(P).
IndexedMemProf inRoundTripOrder(const IndexedMemProf &P);

enum class YAMLRecordOrder {
  /// Exactly what llvm-profdata 22 prints: the record table's payload order.
  LLVMShow,
  /// roundTripRecordOrder: reading the text back (with memprof-convert or
  /// llvm-profdata) rebuilds the same record table, byte for byte.
  RoundTrip,
};

/// What `llvm-profdata-22 show --memory FILE` prints for the indexed profile
/// in \p Buffer: the summary document (stored in V4, computed otherwise) and
/// the records with the file's schema, in \p Order. Fails on a file without a
/// MemProf section and on a V4 data-access profile, which this toolchain does
/// not model. \p OrdersDiffer, if given, is set to whether the two record
/// orders differ for this file.
llvm::Error
writeIndexedAsYAML(llvm::StringRef Buffer, llvm::raw_ostream &OS,
                   YAMLRecordOrder Order = YAMLRecordOrder::LLVMShow,
                   bool *OrdersDiffer = nullptr);

/// \p YAML (as written above) with names from \p Names as comments: each
/// record's "GUID:" line gets its function's demangled name, each frame the
/// name and source location. LLVM reads the annotated text as the plain one.
std::string annotateYAMLWithNames(llvm::StringRef YAML,
                                  const ProfileNames &Names);

/// True when the V4 MemProf section of the (already validated) indexed
/// profile \p Buffer points to a data-access profile.
bool hasDataAccessProfile(llvm::StringRef Buffer);

struct MemProfYAMLLimits {
  /// Deepest node nesting accepted; LLVM's own files nest 7 deep.
  unsigned MaxDepth = 64;
  /// Longest run of commas (flow entries) with nothing but blanks and
  /// comments between them; LLVM's parser recurses once per comma of a run.
  unsigned MaxCommaRun = 64;
};

struct YAMLProfile {
  IndexedMemProf Profile;
  /// The MemInfoBlock fields any block in the text names, in field order.
  MIBSchema FieldsPresent;
  /// True if any call site lists callee GUIDs (only MemProf V4 stores them).
  bool HasCalleeGuids = false;
  /// Records whose GUID repeated an earlier one and were dropped, as
  /// llvm-profdata drops them (their frames and stacks are still added).
  uint64_t DuplicateRecords = 0;

  /// The writer schema the text implies: the hot/cold four when every field
  /// present is one of them, all 27 otherwise.
  bool impliesFullSchema() const;
};

/// Parses LLVM MemProf YAML. Empty and comment-only documents are skipped
/// and the first other document is read, as llvm-profdata does; a text with
/// no such document gives an empty profile. Differences from llvm-profdata
/// 22, all deliberate: a MemInfoBlock value too wide for its field is an
/// error (LLVM truncates it silently); a record GUID of 0xffffffffffffffff or
/// 0xfffffffffffffffe is an error (LLVM's maps reserve them);
/// DataAccessProfiles are an error (not modelled here).
llvm::Expected<YAMLProfile>
readMemProfYAML(llvm::StringRef Buffer,
                const MemProfYAMLLimits &Limits = MemProfYAMLLimits());

} // namespace memprof

#endif
