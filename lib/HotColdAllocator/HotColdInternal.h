//===- HotColdInternal.h - shared state of the hot/cold allocator -*- C++ -*-===//
//
// The fast paths (range test, per-thread counters) are inline here so the
// operator new/delete shims pay a load and a compare, never a call, for them.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_LIB_HOTCOLDALLOCATOR_HOTCOLDINTERNAL_H
#define MEMPROF_LIB_HOTCOLDALLOCATOR_HOTCOLDINTERNAL_H

#include "memprof/HotCold/hotcold.h"

#include <atomic>
#include <stddef.h>
#include <stdint.h>

namespace memprof::hotcold {

// The cold range [ColdBase, ColdBase + ColdSize): written once, before the
// first cold block exists, so a relaxed read that sees 0 is still correct.
extern std::atomic<uintptr_t> ColdBase;
extern std::atomic<uintptr_t> ColdSize;

inline bool isCold(const void *P) {
  uintptr_t Size = ColdSize.load(std::memory_order_acquire); // a plain load on x86
  return reinterpret_cast<uintptr_t>(P) -
             ColdBase.load(std::memory_order_relaxed) <
         Size;
}

// Per-thread request counters: one writer each, so a relaxed load and store
// (no locked instruction) on the fast path; readers sum every slot.
struct alignas(64) ThreadCounters {
  std::atomic<uint64_t> Requests[MEMPROF_HOTCOLD_NUM_CLASSES];
  std::atomic<uint64_t> Bytes[MEMPROF_HOTCOLD_NUM_CLASSES];
  // Cold blocks this thread allocated minus those it freed (and their usable
  // bytes): wrap around when it frees more than it allocated; the sum over
  // all slots is the live count.
  std::atomic<uint64_t> ColdBlocks, ColdBytes;
};
// __thread, not thread_local: no dynamic initialisation, hence no TLS wrapper
// call on every access from another file.
extern __thread ThreadCounters *MyCounters;
ThreadCounters *claimCounters();
extern ThreadCounters SharedCounters; // when every slot is taken

inline void countRequest(unsigned Class, size_t Size) {
  ThreadCounters *T = MyCounters;
  if (__builtin_expect(T == nullptr, 0))
    T = claimCounters();
  if (__builtin_expect(T == &SharedCounters, 0)) {
    T->Requests[Class].fetch_add(1, std::memory_order_relaxed);
    T->Bytes[Class].fetch_add(Size, std::memory_order_relaxed);
    return;
  }
  T->Requests[Class].store(T->Requests[Class].load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
  T->Bytes[Class].store(T->Bytes[Class].load(std::memory_order_relaxed) + Size,
                        std::memory_order_relaxed);
}

// Adds (or, wrapping, subtracts) to a counter of the calling thread.
inline void addToMine(std::atomic<uint64_t> ThreadCounters::*Field,
                      uint64_t Delta) {
  ThreadCounters *T = MyCounters;
  if (__builtin_expect(T == nullptr, 0))
    T = claimCounters();
  std::atomic<uint64_t> &C = T->*Field;
  if (__builtin_expect(T == &SharedCounters, 0))
    C.fetch_add(Delta, std::memory_order_relaxed);
  else
    C.store(C.load(std::memory_order_relaxed) + Delta, std::memory_order_relaxed);
}

inline unsigned classOfHint(uint8_t Hint) {
  if (Hint < 128)
    return MEMPROF_HOTCOLD_CLASS_COLD;
  switch (Hint) {
  case MEMPROF_HOTCOLD_HINT_NOTCOLD:
    return MEMPROF_HOTCOLD_CLASS_NOTCOLD;
  case MEMPROF_HOTCOLD_HINT_AMBIGUOUS:
    return MEMPROF_HOTCOLD_CLASS_AMBIGUOUS;
  case MEMPROF_HOTCOLD_HINT_HOT:
    return MEMPROF_HOTCOLD_CLASS_HOT;
  default:
    return MEMPROF_HOTCOLD_CLASS_OTHER;
  }
}

// Cold allocation with alignment (0: none). Returns null if the cold range is
// exhausted or the size impossible; the caller falls back. Honours
// ignore_hints by returning null without counting a fallback.
void *allocCold(size_t Size, size_t Align);
bool ignoreHints();
void countFallback();
void freeCold(void *P);
void *reallocCold(void *P, size_t Size);

} // namespace memprof::hotcold

#endif
