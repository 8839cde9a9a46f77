//===- MemProfJSON.h - An indexed MemProf profile as JSON -------*- C++ -*-===//
//
// A JSON form of an indexed MemProf profile for scripts (docs/text-formats.md):
// the section version, the schema, the summary, and every record with its
// allocation sites (frames, context id, every schema field, the class LLVM's
// default thresholds give) and call sites (frames, callee GUIDs), with names
// and source locations where the profile carries them.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MEMPROFJSON_H
#define MEMPROF_PROFILEDATA_MEMPROFJSON_H

#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace memprof {

/// Version of the JSON layout ("format_version"); bumped on any change that
/// is not a pure addition.
constexpr unsigned MemProfJSONVersion = 1;

/// Writes \p P as JSON; MIB fields are those of \p Schema, in field order.
/// With \p Names, records and frames also carry the names and source
/// locations it knows.
void writeMemProfJSON(llvm::raw_ostream &OS, const IndexedMemProf &P,
                      unsigned MemProfVersion, llvm::ArrayRef<uint8_t> Schema,
                      const MemProfSummary &Summary,
                      const ProfileNames *Names = nullptr);

/// The parts of one profile file for writeProfileJSON; any may be absent.
struct ProfileJSONParts {
  const CounterProfile *Counters = nullptr;
  const IndexedMemProf *MemProf = nullptr;
  unsigned MemProfVersion = 0;
  llvm::ArrayRef<uint8_t> Schema;
  const MemProfSummary *Summary = nullptr; // with MemProf
  const ProfileNames *Names = nullptr;
};

/// Writes a whole profile as JSON: the MemProf keys of writeMemProfJSON when
/// it has MemProf data, and "counters" (kind, summary, functions with their
/// counters, bitmap bytes and value sites, binary ids, vtable names,
/// temporal traces) when it has PGO counters.
void writeProfileJSON(llvm::raw_ostream &OS, const ProfileJSONParts &Parts);

} // namespace memprof

#endif
