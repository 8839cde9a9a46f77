/* What each merge rule of MIBFields.def computes, shared unchanged by the
 * runtime and ProfileData. Freestanding: only <stdint.h>.
 *
 * Each MEMPROF_RULE_<RULE>(F) is an expression for field F of the merged
 * block, over two blocks named `Old` (the block already held) and `New` (the
 * one merged in), whose fields are uint64_t. Rules that read old values
 * (OVERLAP, SAME*CPU) see them before any REPLACE takes effect, in the order
 * of LLVM's MemInfoBlock::Merge, because the result is built from copies.
 */
#ifndef MEMPROF_FORMAT_MIBMERGERULES_H
#define MEMPROF_FORMAT_MIBMERGERULES_H

#include <stdint.h>

#ifdef __cplusplus
/* Saturating u64 addition: merged counts never wrap. */
static inline uint64_t memprof_sat_add(uint64_t A, uint64_t B) {
  uint64_t R = A + B;
  return R < A ? ~(uint64_t)0 : R;
}

#define MEMPROF_RULE_SUM(F) memprof_sat_add(Old.F, New.F)
#define MEMPROF_RULE_MIN(F) (Old.F < New.F ? Old.F : New.F)
#define MEMPROF_RULE_MAX(F) (Old.F > New.F ? Old.F : New.F)
#define MEMPROF_RULE_REPLACE(F) New.F
#define MEMPROF_RULE_KEEP(F) Old.F
#define MEMPROF_RULE_OVERLAP(F)                                                \
  memprof_sat_add(Old.F,                                             \
                            New.AllocTimestamp < Old.DeallocTimestamp ? 1 : 0)
#define MEMPROF_RULE_SAMEALLOCCPU(F)                                           \
  memprof_sat_add(Old.F, Old.AllocCpuId == New.AllocCpuId ? 1 : 0)
#define MEMPROF_RULE_SAMEDEALLOCCPU(F)                                         \
  memprof_sat_add(Old.F,                                             \
                            Old.DeallocCpuId == New.DeallocCpuId ? 1 : 0)
/* An address in the profiled process: carries no information. */
#define MEMPROF_RULE_HISTPTR(F) ((uint64_t)0)
#endif /* __cplusplus */

#endif /* MEMPROF_FORMAT_MIBMERGERULES_H */
