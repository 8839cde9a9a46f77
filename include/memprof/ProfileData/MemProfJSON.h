//===- MemProfJSON.h - An indexed MemProf profile as JSON -------*- C++ -*-===//
//
// A JSON form of an indexed MemProf profile for scripts (docs/text-formats.md):
// the section version, the schema, the summary, and every record with its
// allocation sites (stack, context id, every schema field, the class LLVM's
// default thresholds give) and call sites (stack, callees), with names and
// source locations where the profile carries them. Format version 2 states
// each file, function, frame and stack once, in tables the records refer to
// by id, so its size follows the profile's; version 1 repeats every frame of
// every stack in full.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MEMPROFJSON_H
#define MEMPROF_PROFILEDATA_MEMPROFJSON_H

#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace memprof {

/// Version of the JSON layout ("format_version") written by default; bumped
/// on any change that is not a pure addition.
constexpr unsigned MemProfJSONVersion = 2;
/// The versions writeProfileJSON writes: 1, the records with every frame
/// in full, and 2, the records over tables of files, functions, frames and
/// stacks.
constexpr unsigned MemProfJSONOldestVersion = 1;

/// Writes \p P as JSON; MIB fields are those of \p Schema, in field order.
/// With \p Names, functions and frames also carry the names and source
/// locations it knows.
void writeMemProfJSON(llvm::raw_ostream &OS, const IndexedMemProf &P,
                      unsigned MemProfVersion, llvm::ArrayRef<uint8_t> Schema,
                      const MemProfSummary &Summary,
                      const ProfileNames *Names = nullptr,
                      unsigned FormatVersion = MemProfJSONVersion);

/// The parts of one profile file for writeProfileJSON; any may be absent.
struct ProfileJSONParts {
  const CounterProfile *Counters = nullptr;
  const IndexedMemProf *MemProf = nullptr;
  unsigned MemProfVersion = 0;
  llvm::ArrayRef<uint8_t> Schema;
  const MemProfSummary *Summary = nullptr; // with MemProf
  const ProfileNames *Names = nullptr;
  /// The heap data (docs/heap-data.md), when the profile has some: the
  /// "heap" key, an addition to either layout.
  const HeapProfile *Heap = nullptr;
  /// The layout: MemProfJSONOldestVersion to MemProfJSONVersion.
  unsigned FormatVersion = MemProfJSONVersion;
  /// Called as records are written: (records done, records).
  llvm::function_ref<void(uint64_t, uint64_t)> Progress;
};

/// Writes a whole profile as JSON: the MemProf keys of writeMemProfJSON when
/// it has MemProf data, and "counters" (kind, summary, functions with their
/// counters, bitmap bytes and value sites, binary ids, vtable names,
/// temporal traces) when it has PGO counters.
void writeProfileJSON(llvm::raw_ostream &OS, const ProfileJSONParts &Parts);

} // namespace memprof

#endif
