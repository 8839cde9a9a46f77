//===- StackDepot.h - Frame-pointer unwinding, stack interning --*- C++ -*-===//
//
// Stacks are interned to dense ids 1, 2, 3, ... (the raw profile's StackId).
// Lookups are lock-free; inserting a new stack takes one of 1024 sharded
// locks. Nodes live until exit, so ids and PCs stay valid for every dump.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_STACKDEPOT_H
#define MEMPROF_RUNTIME_STACKDEPOT_H

#include <stdint.h>

namespace memprof {
namespace rt {

constexpr unsigned MaxStackDepthLimit = 256;

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
