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
  /// Changes whenever rules or classes are forgotten (every dlopen and
  /// dlclose): what a Memo learned under another generation is not used.
  uint32_t generation() const {
    return __atomic_load_n(&Generation, __ATOMIC_ACQUIRE);
  }

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

/// One frame of a Memo: its state when the walk reached it, and what its
/// step to its caller read (the caller's state, one frame further out).
struct MemoFrame {
  uint64_t Pc, Sp, Rbp;
  /// The context's hash up to here from the outermost frame
  /// (hashFromRoot), so that a walk that shares the outer frames hashes
  /// only its own.
  uint64_t Hash;
  /// The step read the caller's rbp at the caller's Sp (the CFA) plus this;
  /// 0: the caller's rbp is this frame's.
  int32_t RbpOffset;
  uint32_t Flags; ///< MemoInterrupted, MemoBarrier
};
/// Pc is an interrupted instruction, reached through a signal frame.
constexpr uint32_t MemoInterrupted = 1;
/// The frame's step cannot be checked by a few loads (it crossed a signal
/// frame, or the walk ended in it): a replay stops at it and steps it anew.
constexpr uint32_t MemoBarrier = 2;

/// The hash of the depot (StackDepot.cpp), folded from the outermost frame
/// in: \p H is the hash of the frames outside \p Pc (HashSeed for none).
constexpr uint64_t HashSeed = 0x9E3779B97F4A7C15ULL;
inline uint64_t hashFromRoot(uint64_t H, uint64_t Pc) {
  return ((H << 5 | H >> 59) ^ Pc) * 0x9E3779B97F4A7C15ULL;
}

/// A thread's last context, frame by frame (docs/runtime.md, "Memoized
/// capture"): the next walk stops where it reaches a frame of it in the
/// same state (Pc, stack pointer, rbp) and replays the memo's outer frames,
/// checking that every stack word each of their steps read still holds what
/// it held, instead of looking up rules. A walk is a function of its start
/// state, the rules (fixed for a generation) and the words it reads, so the
/// replayed frames are the ones a full walk finds; where a word differs
/// (a frame returned and another took its place), the walk goes on by rule
/// from the last frame that checked out. One thread's alone: never shared,
/// never used by a nested capture (the runtime's guard sends a signal
/// handler's allocation made during a capture straight to glibc).
struct Memo {
  uint32_t Cap;       ///< frames in Frames, Scratch and Spare (the depth cap)
  uint32_t NumFrames; ///< 0: nothing known
  uint32_t Generation;
  uint32_t Id;        ///< the depot's id of the context Frames hold; 0: unknown
  uintptr_t StackHi;  ///< the bound the frames were walked under
  End Why;            ///< how the walk of Frames ended
  MemoFrame *Frames;  ///< outermost first
  MemoFrame *Scratch; ///< the frames a walk finds by rule, innermost first
  MemoFrame *Spare;   ///< where Frames is made anew (then the two swap)
};

/// What walkMemo did, for statistics and tests.
struct MemoResult {
  uint64_t Hash;     ///< hashFromRoot over the PCs - 1, outermost first
  uint32_t Id;       ///< the memo's id, when the context is exactly its
  uint16_t Walked;   ///< frames stepped by rule
  uint16_t Replayed; ///< frames taken from the memo, each checked
};

/// walk() with \p M: the same PCs and end, frame for frame, each less
/// \p Bias (1: the depot's "previous instruction"). \p M must have been
/// walked with the same \p Cache, \p Max and \p Hybrid (or be empty); it
/// then holds this walk's frames.
unsigned walkMemo(RuleCache *Cache, Memo &M, uintptr_t Pc, uintptr_t Sp,
                  uintptr_t Rbp, uintptr_t StackLo, uintptr_t StackHi,
                  uint64_t *PCs, unsigned Max, End &Why, bool Hybrid,
                  MemoResult &Res, uint64_t Bias = 0);

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
