//===- Shadow.h - Shadow address arithmetic ---------------------*- C++ -*-===//
//
// One u64 access counter per 64-byte granule of memory, as in LLVM's MemProf
// (the pass increments the counter of every granule an instruction touches).
// Pure functions, so the unit tests can check them without the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_SHADOW_H
#define MEMPROF_RUNTIME_SHADOW_H

#include <stdint.h>

namespace memprof {
namespace rt {

constexpr unsigned ShadowScale = 6; ///< log2 of the granule size
constexpr uint64_t ShadowGranule = uint64_t(1) << ShadowScale;
/// Reserved for the whole 47-bit user address space: 2^47 / 64 * 8 bytes.
constexpr uint64_t ShadowReserveBytes = (uint64_t(1) << 47) >>
                                        (ShadowScale - 3);

/// Address of the counter of the granule holding \p Addr.
constexpr uintptr_t shadowAddress(uintptr_t Base, uintptr_t Addr) {
  return Base + ((Addr >> ShadowScale) << 3);
}

/// The granules an allocation of \p Size bytes at \p User touches: from the
/// granule of its first byte to that of its last (a zero-byte allocation
/// owns the granule of its address).
struct GranuleRange {
  uintptr_t First; ///< address of the first granule
  uint64_t Count;
};
constexpr GranuleRange granulesOf(uintptr_t User, uint64_t Size) {
  return GranuleRange{User & ~(ShadowGranule - 1),
                      (((User + (Size ? Size : 1) - 1) & ~(ShadowGranule - 1)) -
                       (User & ~(ShadowGranule - 1))) /
                              ShadowGranule +
                          1};
}

} // namespace rt
} // namespace memprof

#endif
