//===- HybridUnwind.h - Frame-pointer and .eh_frame stack walk ---*- C++ -*-===//
//
// The walk of the hybrid unwinder (../shared/docs/eh-frame-unwinding.md,
// sections 4-6): each frame is stepped with its module's compact CFI rule
// (CfiDecoder.h), taken from a lock-free direct-mapped cache keyed by the
// return address, so frames of code built without frame pointers (Debian's
// libstdc++ and libc) are crossed instead of ending the walk; a frame no FDE
// covers is stepped through its frame pointer when rbp is plausible. In
// hybrid mode, frames of modules whose every function keeps a frame pointer
// (but for a few listed exceptions) are stepped through rbp without a rule.
//
// The runtime walks this way by default (unwind=hybrid) and with
// MEMPROF_RT_OPTIONS=unwind=cfi (docs/runtime.md);
// tested against libgcc's unwinder. Freestanding:
// no allocation, no locks; every stack read is checked against the bounds
// given, every table read by the decoder against the module's ranges.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_HYBRIDUNWIND_H
#define MEMPROF_RUNTIME_HYBRIDUNWIND_H

#include "CfiDecoder.h"
#include <stddef.h>
#include <stdint.h>

namespace memprof {
namespace rt {
namespace unwind {

/// The unwind tables of the module that holds \p Pc, through glibc's
/// _dl_find_object (lock-free, async-signal-safe, no allocation): the whole
/// mapping as the readable range, the header's size from its entry count.
/// False when no module holds it; T.Hdr == 0 for a module without a header.
bool tablesAt(uintptr_t Pc, cfi::Tables &T);

/// What the hybrid walk knows of the code at an address.
enum class CodeClass : uint8_t {
  Unknown,     ///< its module was not classified (yet)
  FramePointer, ///< a module that keeps frame pointers, outside its exceptions
  Cfi,         ///< anything else: stepped with its CFI rule
};

/// Decoded rules, 16 bytes each, direct-mapped by return address, shared by
/// all threads without locks: an entry is written as two relaxed stores and
/// accepted only when its words agree with the key and the generation.
/// Beside them, the classes of modules for the hybrid walk: up to
/// MaxFpModules that keep frame pointers (scanned at every frame, so kept
/// few and small) and up to MaxOtherModules that do not (consulted only when
/// a rule is not cached).
class RuleCache {
public:
  static constexpr unsigned Bits = 12;
  static constexpr unsigned MaxFpModules = 8, MaxOtherModules = 32,
                            MaxExceptions = 32;
  bool lookup(uintptr_t Key, cfi::Rule &R) const;
  void insert(uintptr_t Key, const cfi::Rule &R);
  /// Forgets every rule (modules were loaded or unloaded).
  void invalidate() { __atomic_fetch_add(&Generation, 1, __ATOMIC_RELAXED); }

  /// The class of the code at \p Target (a call instruction's address):
  /// FramePointer or Cfi in a module known to keep frame pointers, else
  /// Unknown (the rule cache answers; classify on a miss).
  CodeClass classOf(uintptr_t Target) const;
  /// Classifies the module of \p T (keepsFramePointers) unless it is known,
  /// then answers for \p Target. Once per module.
  CodeClass classify(const cfi::Tables &T, uintptr_t Target);
  /// Forgets the module classes: a module was unloaded, and another may be
  /// loaded where it was. (Rules and classes are only ever cached for code
  /// on a live stack, which a correct program does not unload.)
  void invalidateModules() {
    __atomic_fetch_add(&ModuleGeneration, 1, __ATOMIC_RELAXED);
  }

private:
  /// A module that keeps frame pointers, under a sequence count: odd while
  /// a thread writes the entry; a reader that sees it change discards what
  /// it read.
  struct FpModule {
    uint32_t Seq;
    uint32_t Generation; ///< ModuleGeneration when written; 0: empty
    uintptr_t Lo, Hi;    ///< the module's mapping
    uint32_t NumExceptions;
    cfi::CodeRange Exceptions[MaxExceptions];
  };
  /// A module that does not. A torn entry can only send a frame to its
  /// CFI rule, which is always right.
  struct OtherModule {
    uintptr_t Lo, Hi;
    uint32_t Generation;
  };
  CodeClass classIn(const FpModule &M, uintptr_t Target) const;
  FpModule FpModules[MaxFpModules] = {};
  uint32_t NumFpSlots = 0; ///< FpModules ever used: the scan's bound
  OtherModule Others[MaxOtherModules] = {};
  uint32_t NextOther = 0;
  uint32_t ModuleGeneration = 1;

  struct Entry {
    uint64_t W0; ///< Key ^ W1
    uint64_t W1; ///< kind | rbp offset << 8 | generation << 24 | cfa << 32
  };

public:
  /// The one slot of \p Key (direct-mapped: two keys of one slot evict each
  /// other; tests ask).
  static size_t index(uintptr_t Key) {
    return (Key * 0x9E3779B97F4A7C15ULL) >> (64 - Bits);
  }

private:
  Entry Entries[1u << Bits] = {};
  uint32_t Generation = 1;
};

/// Why a walk ended.
enum class End : uint8_t {
  Depth,      ///< the depth cap
  EndOfStack, ///< an undefined return address: the outermost frame
  Rule,       ///< a rule outside the compact form
  NoModule,   ///< a PC in no module, with no plausible frame pointer
  Bounds,     ///< a CFA or saved register outside the stack bounds
  BadPC,      ///< a return address below 4096
};

/// Walks from the state {Pc, Sp, Rbp} of a frame reached through a return
/// address (Pc), writing up to \p Max return addresses (Pc first) to \p PCs.
/// Stack reads stay inside [StackLo, StackHi); modules come from tablesAt.
/// With \p Hybrid (and a cache), a frame in a module that keeps frame
/// pointers is stepped through rbp, without a rule: the CFI rule there is
/// that step, and the cache's lookup costs more than the two loads.
unsigned walk(RuleCache *Cache, uintptr_t Pc, uintptr_t Sp, uintptr_t Rbp,
              uintptr_t StackLo, uintptr_t StackHi, uint64_t *PCs,
              unsigned Max, End &Why, bool Hybrid = false);

} // namespace unwind
} // namespace rt
} // namespace memprof

#endif
