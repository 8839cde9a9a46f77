//===- MIB.h - The runtime's MemInfoBlock and LLVM's merge ------*- C++ -*-===//
//
// Every field is kept as a u64 so that long runs cannot wrap a 32-bit field;
// the writer saturates to the on-disk width. Fields and merge rules come from
// the one list, format/MIBFields.def (its DumpRule column is LLVM's
// MemInfoBlock::Merge), exactly as lib/ProfileData/MemInfoBlock.cpp expands it.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_MIB_H
#define MEMPROF_RUNTIME_MIB_H

#include "memprof/format/MIBMergeRules.h"
#include <stddef.h>
#include <stdint.h>

namespace memprof {
namespace rt {

/// The fields of MIBFields.def, in the order a free uses them. What the
/// common free (no access counts) writes comes first: these 120 bytes, the
/// table's 8-byte key and the heap values fill the first three cache lines
/// of a 64-aligned MIBEntry, instead of the five that the on-disk order
/// spreads them over. Timestamps and CPU ids are 32-bit values (nowMs, currentCpu);
/// every other field is a u64.
struct MIB {
  // Written by every free.
  uint64_t AllocCount, TotalSize, MinSize, MaxSize;
  uint64_t TotalLifetime, MinLifetime, MaxLifetime;
  uint32_t AllocTimestamp, DeallocTimestamp;
  uint32_t AllocCpuId, DeallocCpuId;
  uint64_t NumLifetimeOverlaps, NumSameAllocCpu, NumSameDeallocCpu;
  uint64_t MinAccessCount, MinAccessDensity, MinLifetimeAccessDensity;
  // Unchanged by a free without access counts.
  uint64_t TotalAccessCount, MaxAccessCount, NumMigratedCpu, DataTypeId;
  uint64_t TotalAccessDensity, MaxAccessDensity;
  uint64_t TotalLifetimeAccessDensity, MaxLifetimeAccessDensity;
  uint64_t AccessHistogramSize, AccessHistogram;
};
// Every field of the list is here (a missing one fails to compile), and
// nothing else is (the sizes add up, with no padding).
constexpr size_t MIBListedBytes = 0
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) +sizeof(MIB::Name)
#include "memprof/format/MIBFields.def"
    ;
static_assert(MIBListedBytes == sizeof(MIB),
              "MIB holds exactly the fields of MIBFields.def");
static_assert(offsetof(MIB, MinLifetimeAccessDensity) + 8 == 120,
              "what a free writes fits 120 bytes");

inline uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  return memprof_sat_add(A, B);
}

/// The block of one allocation (spec 1.4): what the runtime forms at free, or
/// at a dump for an allocation still live (as if freed then).
inline MIB mibForAllocation(uint64_t Size, uint64_t AccessCount,
                            uint32_t AllocTs, uint32_t DeallocTs,
                            uint32_t AllocCpu, uint32_t DeallocCpu) {
  MIB M = {};
  M.AllocCount = 1;
  M.TotalAccessCount = M.MinAccessCount = M.MaxAccessCount = AccessCount;
  M.TotalSize = M.MinSize = M.MaxSize = Size;
  M.AllocTimestamp = AllocTs;
  M.DeallocTimestamp = DeallocTs;
  uint32_t Lifetime = DeallocTs >= AllocTs ? DeallocTs - AllocTs : 0;
  M.TotalLifetime = M.MinLifetime = M.MaxLifetime = Lifetime;
  M.AllocCpuId = AllocCpu;
  M.DeallocCpuId = DeallocCpu;
  M.NumMigratedCpu = AllocCpu != DeallocCpu;
  // A zero-byte allocation has no density (LLVM would divide by zero).
  // (Without the pass every count is 0: skip the divisions then.)
  uint64_t Density = Size && AccessCount ? AccessCount * 100 / Size : 0;
  M.TotalAccessDensity = M.MinAccessDensity = M.MaxAccessDensity = Density;
  uint64_t LifetimeAccessDensity =
      Density ? Density * 1000 / (Lifetime ? Lifetime : 1) : 0;
  M.TotalLifetimeAccessDensity = M.MinLifetimeAccessDensity =
      M.MaxLifetimeAccessDensity = LifetimeAccessDensity;
  return M;
}

// The rules of MIBFields.def, as format/MIBMergeRules.h defines them.

/// LLVM's MemInfoBlock::Merge: \p Into is the block already in the table.
inline __attribute__((always_inline)) void mergeDump(MIB &Into,
                                                   const MIB &New) {
  const MIB Old = Into;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Into.Name = MEMPROF_RULE_##DumpRule(Name);
#include "memprof/format/MIBFields.def"
}


} // namespace rt
} // namespace memprof

#endif
