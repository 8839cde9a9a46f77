//===- StackDepot.h - Frame-pointer unwinding, stack interning --*- C++ -*-===//
//
// Stacks are interned to dense ids 1, 2, 3, ... (the raw profile's StackId).
// Lookups are lock-free; inserting a new stack takes one of 1024 sharded
// locks. Nodes live until exit, so ids and PCs stay valid for every dump.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_STACKDEPOT_H
#define MEMPROF_RUNTIME_STACKDEPOT_H

#include "Support.h"

#include <stdint.h>

namespace memprof {
namespace rt {

struct ThreadState;
namespace unwind {
struct Memo;
}

constexpr unsigned MaxStackDepthLimit = 256;

// One-frame stacks (the common case in code built without frame pointers,
// where the walk ends at the interceptor's caller) are also found through a
// direct-mapped table of words (PC << OneFrameIdBits | Id), read and written
// whole: an exact match of the one PC gives the stack's id without hashing
// it or reading its node. 32 KiB, against the buckets' 2 MiB. A word is only
// a cache of the depot (captureStackId fills it): lost to a collision, the
// stack is found the long way and written again.
constexpr unsigned OneFrameBits = 12;
constexpr unsigned OneFrameIdBits = 17; // ids up to 131071 are cached
constexpr unsigned OneFramePCBits = 64 - OneFrameIdBits;
extern uint64_t OneFrame[1u << OneFrameBits];

MEMPROF_ALWAYS_INLINE uint64_t *oneFrameSlot(uint64_t PC) {
  return &OneFrame[(PC * 0x9E3779B97F4A7C15ULL) >> (64 - OneFrameBits)];
}

/// The id of the one-frame stack [\p PC] if the table holds it, else 0.
MEMPROF_ALWAYS_INLINE uint32_t oneFrameCached(uint64_t PC) {
  uint64_t Word = __atomic_load_n(oneFrameSlot(PC), __ATOMIC_RELAXED);
  if (MEMPROF_LIKELY(Word >> OneFrameIdBits == PC))
    return uint32_t(Word & ((uint64_t(1) << OneFrameIdBits) - 1));
  return 0;
}

/// What captureStackId(\p MaxDepth, \p Frame, ...) returns when its walk
/// ends at the first frame and the table holds that frame's PC (no stack
/// bounds needed: the interceptor's own frame is read, as the walk reads
/// it); else 0. The walk ends there when it may take one frame only, or
/// when the saved frame pointer does not point up the stack (code without
/// frame pointers); every other case is the walk's to decide.
MEMPROF_ALWAYS_INLINE uint32_t cachedOneFrameStackId(unsigned MaxDepth,
                                                     const void *Frame) {
  const uintptr_t *F = static_cast<const uintptr_t *>(Frame);
  uintptr_t Ret = F[1];
  if (Ret < 4096 || MaxDepth == 0 ||
      (MaxDepth != 1 && F[0] > reinterpret_cast<uintptr_t>(Frame)))
    return 0;
  return oneFrameCached(Ret - 1);
}

/// The id of the stack above \p Frame (an interceptor's own
/// __builtin_frame_address(0)), interning it if new; 0 if the depot is full
/// or out of memory (the allocation is then not recorded). The walk follows
/// the frame-pointer chain, so the first PC is the interceptor's caller, and
/// stores return address - 1 ("previous instruction", as LLVM's runtime
/// does). Every frame read must lie inside [\p StackLo, \p StackHi), be
/// 8-aligned and above the previous one, so a broken chain (code without
/// frame pointers) ends the walk instead of faulting. At most \p MaxDepth
/// frames (capped at MaxStackDepthLimit).
uint32_t captureStackId(unsigned MaxDepth, const void *Frame,
                        uintptr_t StackLo, uintptr_t StackHi);
/// The same walk by the modules' call-frame information (HybridUnwind.h):
/// frames of code without frame pointers are crossed, not the end. With
/// \p Hybrid, frames of modules that keep frame pointers are stepped
/// through them.
/// With \p M (threadMemo), only the frames not in the thread's last context
/// are walked by rule (HybridUnwind.h, walkMemo): the same context.
uint32_t captureStackIdCfi(unsigned MaxDepth, const void *Frame,
                           uintptr_t StackLo, uintptr_t StackHi, bool Hybrid,
                           unwind::Memo *M = nullptr);
/// This thread's memo for captureStackIdCfi, made (or taken from the pool
/// of exited threads') on first use; nullptr if it cannot have one.
unwind::Memo *threadMemo(ThreadState &T, unsigned MaxDepth);
/// capture_check=1: every memoized capture is compared with a full walk.
void enableCaptureCheck();
/// The comparisons' summary, on stderr.
void reportCaptureCheck();
/// Forgets the decoded unwind rules (a module was loaded or unloaded), and
/// with \p Unloaded the modules' classes too.
void invalidateUnwindCache(bool Unloaded);
/// The PCs of stack \p Id; nullptr for an unknown id.
const uint64_t *depotGet(uint32_t Id, uint32_t &NumPCs);
/// Largest id handed out so far.
uint32_t depotMaxId();
/// Stacks that could not be interned.
uint64_t depotDropped();

/// Adds \p Delta to every PC in [\p Lo, \p Hi) of every stack interned so
/// far: the frames of a library about to be unloaded are moved to an
/// address no module will have, so that a library loaded later at its
/// address is never taken for it. A stack interned meanwhile keeps its PCs;
/// a stored stack whose PCs are moved no longer matches a new capture of
/// the old PCs, which gets a stack of its own.
void depotRelocate(uint64_t Lo, uint64_t Hi, uint64_t Delta);

void depotLockAll();
void depotUnlockAll();

} // namespace rt
} // namespace memprof

#endif
