//===- IndexedProfile.h - LLVM indexed profile writer and reader -*- C++ -*-===//
//
// LLVM's indexed profile, version 13, with a MemProf section V2, V3 or V4
// (spec section 3). The writer reproduces llvm-profdata 22's bytes for the
// same IndexedMemProf (same map orders); the reader checks every offset and
// count against the bytes that remain, so hostile files give an error.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_INDEXEDPROFILE_H
#define MEMPROF_PROFILEDATA_INDEXEDPROFILE_H

#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/MemProfData.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace memprof {

struct IndexedWriterOptions {
  unsigned MemProfVersion = 3; // 2, 3 or 4
  bool FullSchema = false;     // all 27 fields instead of the hot/cold four
};

struct IndexedWriteStats {
  /// 32-bit MIB fields whose merged value did not fit and were saturated.
  uint64_t SaturatedFields = 0;
};

/// The MemProf summary of spec 2.7 (stored in V4, printed by tools).
struct MemProfSummary {
  uint64_t NumContexts = 0;
  uint64_t NumColdContexts = 0;
  uint64_t NumHotContexts = 0;
  uint64_t MaxColdTotalSize = 0;
  uint64_t MaxWarmTotalSize = 0;
  uint64_t MaxHotTotalSize = 0;
};

enum class AllocClass { NotCold, Cold, Hot };

/// The thresholds of LLVM 22's getAllocType, as clang's -mllvm options
/// hold them (their types matter: the comparisons are LLVM's, in float).
/// The defaults are LLVM's.
struct AllocThresholds {
  /// -memprof-ave-lifetime-cold-threshold: whole seconds (unsigned).
  unsigned ColdLifetimeSec = 200;
  /// -memprof-lifetime-access-density-cold-threshold: accesses per byte per
  /// lifetime second (float).
  float ColdDensity = 0.05f;
  /// -memprof-min-ave-lifetime-access-density-hot-threshold (unsigned).
  unsigned HotDensity = 1000;
  /// -memprof-use-hot-hints: without it nothing is hot.
  bool UseHotHints = false;
};

/// LLVM 22's getAllocType (llvm/lib/Analysis/MemoryProfileInfo.cpp) under
/// \p T, with its float arithmetic: density = (float)TLAD / AllocCount / 100,
/// lifetime = (float)TotalLifetime / AllocCount (ms); cold when density <
/// ColdDensity and lifetime >= ColdLifetimeSec * 1000 (an unsigned product),
/// else hot when UseHotHints and density > HotDensity, else not cold.
AllocClass classifyAllocation(uint64_t TotalLifetimeAccessDensity,
                              uint64_t AllocCount, uint64_t TotalLifetime,
                              const AllocThresholds &T = AllocThresholds());
MemProfSummary computeSummary(const IndexedMemProf &P);
/// Counts one new context of block \p M into \p S (spec 2.7).
void addToSummary(MemProfSummary &S, const MemInfoBlock &M);

/// Serializes \p P as a complete indexed profile (MemProf only) into \p Out.
llvm::Expected<IndexedWriteStats>
writeIndexedProfile(const IndexedMemProf &P, const IndexedWriterOptions &Opts,
                    llvm::SmallVectorImpl<char> &Out);

/// Serializes the counters \p Counters and, unless \p MemProf is null, a
/// MemProf section into \p Out: llvm-profdata 22's bytes for the same
/// content (spec llvm-instrprof-formats.md section 3). Fails on what the
/// format cannot hold (a name that is empty, a record with no counters, more
/// than 255 values in a site, ...).
llvm::Expected<IndexedWriteStats>
writeIndexedProfile(const CounterProfile &Counters,
                    const IndexedMemProf *MemProf,
                    const IndexedWriterOptions &Opts,
                    llvm::SmallVectorImpl<char> &Out);

struct IndexedProfileInfo {
  uint64_t Version = 0;        // low 32 bits of the header version
  uint64_t VariantFlags = 0;   // high bits
  uint64_t MemProfVersion = 0; // 0 when the file has no MemProf section
  MIBSchema Schema;
  uint64_t NumFunctionRecords = 0; // entries of the function table
  /// Where a MemProf V4 section's data access profile starts (0: none).
  /// It is not modelled: a tool that rewrites the file cannot keep it.
  uint64_t DataAccessProfileOffset = 0;
};

/// True when \p Buffer starts with the indexed-profile magic.
bool isIndexedProfile(llvm::StringRef Buffer);

/// Reads the MemProf section of an indexed profile. A file without one gives
/// an empty IndexedMemProf. Records, frames and stacks come in file order.
llvm::Expected<IndexedMemProf> readIndexedProfile(llvm::StringRef Buffer,
                                                  IndexedProfileInfo *Info =
                                                      nullptr);

/// As above; also returns the MemProf summary a V4 section stores in
/// \p StoredSummary (std::nullopt for V2, V3 or no MemProf section). Any
/// data-access profile a V4 section points to is located but not read.
llvm::Expected<IndexedMemProf>
readIndexedProfile(llvm::StringRef Buffer, IndexedProfileInfo *Info,
                   std::optional<MemProfSummary> *StoredSummary);

/// As above; also decodes the counter half into \p Counters when it is not
/// null: function records, binary ids, vtable names and temporal traces.
/// \p StackIds, if given, computes the call-stack ids: a reader of many
/// profiles of one program passes the same cache to each (one thread at a
/// time), so that a stack met in an earlier profile costs no BLAKE3.
llvm::Expected<IndexedMemProf>
readIndexedProfile(llvm::StringRef Buffer, IndexedProfileInfo *Info,
                   std::optional<MemProfSummary> *StoredSummary,
                   CounterProfile *Counters,
                   CallStackIdCache *StackIds = nullptr);

} // namespace memprof

#endif
