//===- NewDelete.cpp - the operator new/delete family, hinted and plain ---===//
//
// Every C++ allocation of the program goes through the library's jemalloc,
// so that any delete form can take any block: cold blocks (an address-range
// test) go back to the cold arena without a thread cache, every other block
// takes jemalloc's fast path.
//
//===----------------------------------------------------------------------===//
#include "HotColdInternal.h"

#include <jemalloc/jemalloc.h>

#include <new>
#include <stdlib.h>

using namespace memprof::hotcold;

namespace {

inline void *allocDefault(size_t Size, size_t Align) {
  if (!Align)
    return malloc(Size);
  return mallocx(Size ? Size : 1, MALLOCX_LG_ALIGN(__builtin_ctzll(Align)));
}

// A cold request, out of line so the hot path stays small.
__attribute__((noinline)) void *tryAllocCold(size_t Size, size_t Align) {
  if (ignoreHints()) {
    void *P = allocDefault(Size, Align);
    if (P)
      countRequest(MEMPROF_HOTCOLD_CLASS_COLD, Size);
    return P;
  }
  void *P = allocCold(Size, Align);
  if (!P) {
    P = allocDefault(Size, Align);
    if (!P)
      return nullptr;
    countFallback();
  }
  countRequest(MEMPROF_HOTCOLD_CLASS_COLD, Size);
  return P;
}

// One request of a given class; null on failure, never throws.
inline void *tryAlloc(size_t Size, size_t Align, unsigned Class) {
  if (__builtin_expect(Class == MEMPROF_HOTCOLD_CLASS_COLD, 0))
    return tryAllocCold(Size, Align);
  void *P = allocDefault(Size, Align);
  if (__builtin_expect(P != nullptr, 1))
    countRequest(Class, Size);
  return P;
}

// The standard's loop: call the new_handler until it throws or there is none.
__attribute__((noinline)) void *allocSlow(size_t Size, size_t Align,
                                          unsigned Class) {
  for (;;) {
    if (void *P = tryAlloc(Size, Align, Class))
      return P;
    std::new_handler H = std::get_new_handler();
    if (!H)
      throw std::bad_alloc();
    H();
  }
}

inline void *allocThrow(size_t Size, size_t Align, unsigned Class) {
  if (void *P = tryAlloc(Size, Align, Class))
    return P;
  return allocSlow(Size, Align, Class);
}

void *allocNoThrow(size_t Size, size_t Align, unsigned Class) noexcept {
  if (void *P = tryAlloc(Size, Align, Class))
    return P;
  try {
    return allocSlow(Size, Align, Class);
  } catch (...) {
    return nullptr;
  }
}

inline void freeAny(void *P) {
  if (__builtin_expect(isCold(P), 0))
    freeCold(P);
  else
    free(P);
}

inline void freeSized(void *P, size_t Size, size_t Align) {
  if (__builtin_expect(isCold(P), 0))
    return freeCold(P);
  if (!P)
    return;
  sdallocx(P, Size ? Size : 1,
           Align ? MALLOCX_LG_ALIGN(__builtin_ctzll(Align)) : 0);
}

inline size_t alignOf(std::align_val_t A) { return static_cast<size_t>(A); }
inline unsigned hintClass(__hot_cold_t H) {
  return classOfHint(static_cast<uint8_t>(H));
}
inline __sized_ptr_t sized(void *P) { return {P, P ? sallocx(P, 0) : 0}; }

constexpr unsigned Unhinted = MEMPROF_HOTCOLD_CLASS_UNHINTED;

} // namespace

#define MEMPROF_EXPORT __attribute__((visibility("default")))

// The standard family.
MEMPROF_EXPORT void *operator new(size_t N) { return allocThrow(N, 0, Unhinted); }
MEMPROF_EXPORT void *operator new[](size_t N) {
  return allocThrow(N, 0, Unhinted);
}
MEMPROF_EXPORT void *operator new(size_t N, const std::nothrow_t &) noexcept {
  return allocNoThrow(N, 0, Unhinted);
}
MEMPROF_EXPORT void *operator new[](size_t N, const std::nothrow_t &) noexcept {
  return allocNoThrow(N, 0, Unhinted);
}
MEMPROF_EXPORT void *operator new(size_t N, std::align_val_t A) {
  return allocThrow(N, alignOf(A), Unhinted);
}
MEMPROF_EXPORT void *operator new[](size_t N, std::align_val_t A) {
  return allocThrow(N, alignOf(A), Unhinted);
}
MEMPROF_EXPORT void *operator new(size_t N, std::align_val_t A,
                                  const std::nothrow_t &) noexcept {
  return allocNoThrow(N, alignOf(A), Unhinted);
}
MEMPROF_EXPORT void *operator new[](size_t N, std::align_val_t A,
                                    const std::nothrow_t &) noexcept {
  return allocNoThrow(N, alignOf(A), Unhinted);
}

MEMPROF_EXPORT void operator delete(void *P) noexcept { freeAny(P); }
MEMPROF_EXPORT void operator delete[](void *P) noexcept { freeAny(P); }
MEMPROF_EXPORT void operator delete(void *P, const std::nothrow_t &) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete[](void *P, const std::nothrow_t &) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete(void *P, size_t N) noexcept {
  freeSized(P, N, 0);
}
MEMPROF_EXPORT void operator delete[](void *P, size_t N) noexcept {
  freeSized(P, N, 0);
}
MEMPROF_EXPORT void operator delete(void *P, std::align_val_t) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete[](void *P, std::align_val_t) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete(void *P, std::align_val_t,
                                    const std::nothrow_t &) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete[](void *P, std::align_val_t,
                                      const std::nothrow_t &) noexcept {
  freeAny(P);
}
MEMPROF_EXPORT void operator delete(void *P, size_t N, std::align_val_t A) noexcept {
  freeSized(P, N, alignOf(A));
}
MEMPROF_EXPORT void operator delete[](void *P, size_t N,
                                      std::align_val_t A) noexcept {
  freeSized(P, N, alignOf(A));
}

// The ten hinted variants clang-22 emits.
MEMPROF_EXPORT void *operator new(size_t N, __hot_cold_t H) {
  return allocThrow(N, 0, hintClass(H));
}
MEMPROF_EXPORT void *operator new[](size_t N, __hot_cold_t H) {
  return allocThrow(N, 0, hintClass(H));
}
MEMPROF_EXPORT void *operator new(size_t N, const std::nothrow_t &,
                                  __hot_cold_t H) noexcept {
  return allocNoThrow(N, 0, hintClass(H));
}
MEMPROF_EXPORT void *operator new[](size_t N, const std::nothrow_t &,
                                    __hot_cold_t H) noexcept {
  return allocNoThrow(N, 0, hintClass(H));
}
MEMPROF_EXPORT void *operator new(size_t N, std::align_val_t A, __hot_cold_t H) {
  return allocThrow(N, alignOf(A), hintClass(H));
}
MEMPROF_EXPORT void *operator new[](size_t N, std::align_val_t A,
                                    __hot_cold_t H) {
  return allocThrow(N, alignOf(A), hintClass(H));
}
MEMPROF_EXPORT void *operator new(size_t N, std::align_val_t A,
                                  const std::nothrow_t &, __hot_cold_t H) noexcept {
  return allocNoThrow(N, alignOf(A), hintClass(H));
}
MEMPROF_EXPORT void *operator new[](size_t N, std::align_val_t A,
                                    const std::nothrow_t &,
                                    __hot_cold_t H) noexcept {
  return allocNoThrow(N, alignOf(A), hintClass(H));
}
extern "C" MEMPROF_EXPORT __sized_ptr_t __size_returning_new(size_t N) {
  return sized(allocThrow(N, 0, Unhinted));
}
extern "C" MEMPROF_EXPORT __sized_ptr_t
__size_returning_new_hot_cold(size_t N, __hot_cold_t H) {
  return sized(allocThrow(N, 0, hintClass(H)));
}
extern "C" MEMPROF_EXPORT __sized_ptr_t
__size_returning_new_aligned(size_t N, std::align_val_t A) {
  return sized(allocThrow(N, alignOf(A), Unhinted));
}
extern "C" MEMPROF_EXPORT __sized_ptr_t
__size_returning_new_aligned_hot_cold(size_t N, std::align_val_t A,
                                      __hot_cold_t H) {
  return sized(allocThrow(N, alignOf(A), hintClass(H)));
}

// The C entry points.
extern "C" MEMPROF_EXPORT void *memprof_hotcold_malloc(size_t N, uint8_t Hint) {
  return tryAlloc(N, 0, classOfHint(Hint));
}
extern "C" MEMPROF_EXPORT void memprof_hotcold_free(void *P) { freeAny(P); }
extern "C" MEMPROF_EXPORT void *memprof_hotcold_realloc(void *P, size_t N) {
  if (!P)
    return tryAlloc(N, 0, Unhinted);
  if (isCold(P))
    return reallocCold(P, N);
  return rallocx(P, N ? N : 1, 0);
}
