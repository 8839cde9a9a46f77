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

#include <stdint.h>

namespace memprof {
namespace rt {

struct MIB {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) uint64_t Name;
#include "memprof/format/MIBFields.def"
};

inline uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  uint64_t R = A + B;
  return R < A ? ~uint64_t(0) : R;
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

// Each rule computes the merged value from the old block and the new one, so
// that rules that read old values (OVERLAP, SAME*CPU) see them before any
// REPLACE takes effect, in the order of LLVM's Merge.
#define MEMPROF_RULE_SUM(F) saturatingAdd(Old.F, New.F)
#define MEMPROF_RULE_MIN(F) (Old.F < New.F ? Old.F : New.F)
#define MEMPROF_RULE_MAX(F) (Old.F > New.F ? Old.F : New.F)
#define MEMPROF_RULE_REPLACE(F) New.F
#define MEMPROF_RULE_KEEP(F) Old.F
#define MEMPROF_RULE_OVERLAP(F)                                                \
  saturatingAdd(Old.F, New.AllocTimestamp < Old.DeallocTimestamp ? 1 : 0)
#define MEMPROF_RULE_SAMEALLOCCPU(F)                                           \
  saturatingAdd(Old.F, Old.AllocCpuId == New.AllocCpuId ? 1 : 0)
#define MEMPROF_RULE_SAMEDEALLOCCPU(F)                                         \
  saturatingAdd(Old.F, Old.DeallocCpuId == New.DeallocCpuId ? 1 : 0)
#define MEMPROF_RULE_HISTPTR(F) uint64_t(0)

/// LLVM's MemInfoBlock::Merge: \p Into is the block already in the table.
inline void mergeDump(MIB &Into, const MIB &New) {
  const MIB Old = Into;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Into.Name = MEMPROF_RULE_##DumpRule(Name);
#include "memprof/format/MIBFields.def"
}

#undef MEMPROF_RULE_SUM
#undef MEMPROF_RULE_MIN
#undef MEMPROF_RULE_MAX
#undef MEMPROF_RULE_REPLACE
#undef MEMPROF_RULE_KEEP
#undef MEMPROF_RULE_OVERLAP
#undef MEMPROF_RULE_SAMEALLOCCPU
#undef MEMPROF_RULE_SAMEDEALLOCCPU
#undef MEMPROF_RULE_HISTPTR

} // namespace rt
} // namespace memprof

#endif
