//===- RuntimeInternal.h - State shared by the runtime's parts --*- C++ -*-===//
//
// The chunk header, per-thread and global state, and the interfaces between
// the allocator (Allocator.cpp), the dumper (Profile.cpp) and the
// interceptors. docs/runtime.md describes the design.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_RUNTIMEINTERNAL_H
#define MEMPROF_RUNTIME_RUNTIMEINTERNAL_H

#include "MIB.h"
#include "RawProfileWriter.h"
#include "Support.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

// glibc's own allocator, which provides the memory of every chunk
// (GLIBC_2.2.5 public symbols; not interposed by us).
extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace memprof {
namespace rt {

/// The 16 bytes right before every user pointer, whatever the chunk's kind.
/// Reading them is safe for any 16-aligned pointer glibc hands out (they are
/// glibc's own chunk header then), so every pointer is first told by them.
struct ChunkTail {
  uint32_t InfoCpu;   ///< bits 0-15: KindSmall, KindSlab: bytes requested
                      ///< (at most SmallMaxSize); other kinds: Info (plain and
                      ///< compact: (header - glibc block) / 16; aligned:
                      ///< log2 of the alignment). Bits 16-31: the CPU at
                      ///< allocation (saturated at 65535)
  uint32_t SlotShard; ///< slot in its shard's live table (bits 0-25) and the
                      ///< shard (bits 26-31); UntrackedSlot: in no table
  uint32_t CtxKind;   ///< ChunkKind (bits 0-2), TailMarker (bit 3, always
                      ///< set), context id (bits 8-31; 0: not recorded)
  uint32_t AllocTimestampMs; ///< ms since the runtime started (recorded
                             ///< chunks only)
};
static_assert(sizeof(ChunkTail) == 16, "the chunk tail is 16 bytes");

/// The 32-byte header of the plain, aligned and compact kinds: the tail,
/// and before it the size and a full check word.
struct ChunkHeader {
  uint64_t UserSize; ///< bytes requested
  uint64_t Check;    ///< keyed hash of the header's address, UserSize and
                     ///< the tail's fields but the context
  ChunkTail Tail;
};
static_assert(sizeof(ChunkHeader) == 32, "the chunk header is 32 bytes");

enum ChunkKind : uint8_t {
  /// From __libc_malloc(Size + PlainOverhead): header at the first 64-byte
  /// boundary of the block, user pointer 32 bytes later (so 32 mod 64). For
  /// requests aligned to 32.
  KindPlain = 1,
  /// From __libc_memalign(A, Size + A + ExactSlack) for A >= 64: user
  /// pointer at block + A.
  KindAligned = 2,
  /// From __libc_malloc(Size + CompactOverhead), with exact granules
  /// ExactSlack bytes more: header at the block's start, user pointer 32
  /// bytes later (16-aligned, never 16 bytes into a page). Without the
  /// slack its first granule may hold the end of the block before it. With
  /// exact granules every request aligned to at most 16; otherwise what a
  /// small chunk cannot hold (requests above SmallMaxSize).
  KindCompact = 3,
  /// From __libc_malloc(Size + SmallOverhead) for Size < SmallMaxSize: only
  /// the tail, at the block's start (user pointer 16 bytes in).
  KindSmall = 4,
  /// From a granule slab (requests of at most SlabMaxSize bytes aligned to
  /// at most 16): a slot in the runtime's slab region, only the tail at its
  /// start (user pointer 16 bytes in). With exact granules the slot is 1 to
  /// 4 whole 64-byte granules (the user pointer 16 mod 64); with compact
  /// chunks (preloaded) the request and the tail rounded up to 16 bytes.
  /// Kinds from KindSmall up keep their size in the tail.
  KindSlab = 5,
};
/// Bytes left unused at the end of a chunk made for exact granules: its
/// user bytes end 16 bytes or more before the next glibc block's user
/// pointer (they may otherwise reach into that block's size field), and
/// the first granule of a user pointer 32 bytes into its block starts at
/// most 16 bytes before that block.
constexpr size_t ExactSlack = 8;
constexpr size_t PlainOverhead = 48 + sizeof(ChunkHeader) + ExactSlack;
constexpr size_t CompactOverhead = sizeof(ChunkHeader);
constexpr size_t SmallOverhead = sizeof(ChunkTail);
constexpr unsigned SlotBits = 26;
constexpr uint32_t SlotMask = (uint32_t(1) << SlotBits) - 1;
constexpr uint32_t UntrackedSlot = ~uint32_t(0);
/// Bit 3 of the 8 bytes before a user pointer: set in every chunk tail,
/// never in glibc's chunk header (whose size field there is a multiple of 16
/// with flags in bits 0-2), so a pointer glibc made is never taken for ours.
constexpr uint32_t TailMarker = 8;
/// GlobalState::SlowFree: nothing more is recorded (after the exit dump);
/// the shadow exists (access counts); histograms are asked for; glibc's
/// free may change errno (before 2.33).
constexpr uint32_t SlowFreeFinished = 1, SlowFreeShadow = 2,
                   SlowFreeHistogram = 4, SlowFreeErrno = 8;
constexpr uint32_t KindMask = 7;
constexpr unsigned CtxShift = 8;
constexpr uint32_t MaxCtx = (uint32_t(1) << 24) - 1;
/// Small chunks hold requests of at most this many bytes (16 bits of the
/// tail).
constexpr uint64_t SmallMaxSize = 0xFFFF;
/// Granule slabs have slots of 16 to 256 bytes in steps of 16 (class C:
/// (C + 1) * 16 bytes; exact granules use the classes of whole 64-byte
/// granules only); the largest request they hold fills the largest slot
/// after the tail.
constexpr unsigned SlabClasses = 16;
constexpr uint64_t SlabMaxSize = SlabClasses * 16 - sizeof(ChunkTail);
/// Whether chunks of \p Kind keep their size in the tail (no 32-byte
/// header).
constexpr bool tailOnly(unsigned Kind) { return Kind >= KindSmall; }

enum class UnwindMode : uint8_t { Fp, Hybrid, Cfi };

struct Options {
  uint32_t MaxStackDepth;
  bool DumpAtExit;
  int DumpSignal;
  bool Fsync;
  uint32_t Verbosity;
  /// Record access histograms (per-granule access counts) for blocks of
  /// up to HistogramMaxBytes.
  bool Histogram;
  uint64_t HistogramMaxBytes;
  /// 1: every block owns its 64-byte granules (exact access counts); 0:
  /// compact chunks; -1: decided at start (docs/runtime.md).
  int ExactGranules;
  /// SIGINT, SIGTERM and SIGHUP with the default disposition dump, then end
  /// the process by the same signal.
  bool DumpOnTerminate;
  /// How stacks are walked (docs/runtime.md, "Unwinding"): frame pointers
  /// alone (unwind=fp), frame pointers where modules keep them and the
  /// modules' call-frame information elsewhere (unwind=hybrid), or the
  /// call-frame information for every frame (unwind=cfi).
  UnwindMode Unwind;
  /// unwind=hybrid and cfi: walk only the frames not in the thread's last
  /// context (docs/runtime.md, "Memoized capture").
  bool CaptureMemo;
  /// Also walk every context in full and compare: a difference is reported
  /// (and the full walk's context kept); a summary at exit.
  bool CaptureCheck;
  /// Requests of at most SlabMaxSize bytes come from granule slabs
  /// (KindSlab) rather than glibc: slots of whole granules with exact
  /// granules, of 16-byte steps with compact chunks (docs/runtime.md,
  /// Design).
  bool GranuleSlab;
};

struct GlobalState {
  uint32_t InitState;      ///< 0 none, 1 initializing, 2 ready
  uint64_t Secret;         ///< key of ChunkHeader::Check
  uint64_t StartNs;        ///< CLOCK_MONOTONIC_COARSE at init
  bool StrictAlignedAlloc; ///< glibc >= 2.38: aligned_alloc checks alignment
  uint32_t PendingDump;    ///< set by the dump signal's handler
  /// Non-zero (SlowFree* bits) when a free cannot take the lean path: one
  /// word for deallocate to test instead of four. SlowFreeFinished is also
  /// the only record of the exit dump's end (finished()).
  uint32_t SlowFree;
  Options Opts;
  /// Another copy of malloc comes first in symbol lookup (a second copy of
  /// this runtime, or another profiler): this copy writes nothing.
  bool Inactive;
  /// Plain requests get small chunks (16 bytes of overhead at the glibc
  /// block's start; compact ones, 32 bytes, when a small one cannot be
  /// used) instead of granule-exclusive ones (80 bytes).
  bool CompactChunks;
  /// A module built with the pass started (its constructor called
  /// memprof_rt_version_1): accesses are counted, blocks need their own
  /// granules.
  bool InstrumentedCode;
  /// The constructor chose the chunk layout (CompactChunks is final unless
  /// an instrumented module starts later).
  bool LayoutChosen;
  /// A module built with the pass counts per object (its constructor called
  /// memprof_note_object_counts): a block's granule counters hold its total,
  /// not where in it each access fell, which access histograms would show.
  bool ObjectCounts;
};
extern GlobalState G;

/// Sets \p Bits in G.SlowFree (sends frees down the general path).
inline void markSlowFree(uint32_t Bits) {
  __atomic_fetch_or(&G.SlowFree, Bits, __ATOMIC_RELAXED);
}
/// After the exit dump nothing more is recorded.
inline bool finished() {
  return __atomic_load_n(&G.SlowFree, __ATOMIC_RELAXED) & SlowFreeFinished;
}

/// Called by each instrumented module's constructor (through
/// memprof_rt_version_1): switches an automatic compact layout to
/// granule-exclusive chunks for the blocks allocated from then on.
void noteInstrumentedModule();

namespace unwind {
struct Memo;
}
/// ThreadState::CaptureMemo of a thread whose memo went back to the pool.
#define MEMPROF_NO_MEMO reinterpret_cast<unwind::Memo *>(uintptr_t(1))

struct ThreadState {
  /// Set while this thread runs runtime code: allocations made meanwhile
  /// (by libc on our behalf, or by a signal handler) go straight to glibc
  /// and are not recorded. InRuntimeProbe asks the next allocation that
  /// reaches this copy to answer InRuntimeProbeAnswered (thisCopyIsActive).
  uint8_t InRuntime;
  uint8_t BoundsKnown;
  /// 1 + the shard this thread records its allocations in; 0: not yet
  /// assigned.
  uint8_t ShardPlusOne;
  uintptr_t StackLo, StackHi;
  /// The thread's last context (threadMemo, StackDepot.cpp); nullptr: none
  /// yet; NoMemo: none for the rest of the thread's life.
  unwind::Memo *CaptureMemo;
};
extern __thread ThreadState TLS __attribute__((tls_model("initial-exec")));

constexpr uint8_t InRuntimeProbe = 2, InRuntimeProbeAnswered = 3;

/// Sets the guard for a scope, restoring the previous value at its end.
class RuntimeScope {
public:
  RuntimeScope() : Saved(TLS.InRuntime) { TLS.InRuntime = 1; }
  ~RuntimeScope() { TLS.InRuntime = Saved; }
  bool nested() const { return Saved != 0; }

private:
  uint8_t Saved;
};

/// What dlsym finds for \p Name through \p Handle, looked up once and kept
/// in \p Cache; nullptr if nothing is found.
template <typename Fn>
Fn lookupOnce(Fn &Cache, void *Handle, const char *Name) {
  Fn F = loadAcquire(&Cache);
  if (!F) {
    RuntimeScope Scope; // dlsym may allocate
    F = reinterpret_cast<Fn>(dlsym(Handle, Name));
    storeRelease(&Cache, F);
  }
  return F;
}

/// The next definition of \p Name after this library (glibc's, for the
/// functions the runtime replaces), looked up once and kept in \p Cache;
/// nullptr if there is none.
template <typename Fn> Fn nextDefinition(Fn &Cache, const char *Name) {
  return lookupOnce(Cache, RTLD_NEXT, Name);
}

/// True in libmemprof_rt.so (PreloadLibrary.cpp's definition), false (this
/// weak one, Profile.cpp) where the runtime is linked into a program or
/// into another shared library.
bool isPreloadLibrary();

void initCore();
/// Maps the shadow if nothing has yet (idempotent, thread-safe) and returns
/// memprof_shadow_base; 0 if the reservation failed.
uintptr_t reserveShadow();
MEMPROF_ALWAYS_INLINE void ensureInit() {
  if (MEMPROF_UNLIKELY(loadAcquire(&G.InitState) != 2))
    initCore();
}
uint32_t nowMs();
uint32_t currentCpu();

//===-- Allocator.cpp -----------------------------------------------------===//

/// A new chunk of \p Size bytes aligned to \p Align (0 or a power of two; a
/// value <= 32 gives the default 32-byte alignment), recorded with the
/// context above \p Frame. nullptr with errno = ENOMEM on failure.
void *allocate(size_t Size, size_t Align, bool Zero, const void *Frame);
/// Frees ours, or hands a foreign pointer to glibc. Preserves errno.
void deallocate(void *P);
void *reallocate(void *P, size_t Size, const void *Frame);
size_t usableSize(void *P);
/// glibc's malloc_usable_size of one of its blocks.
size_t glibcUsableSize(void *P);
/// Looks glibc's malloc_usable_size up now (at start, outside any
/// allocation) rather than at its first use.
void resolveGlibcUsableSize();
/// The tail of \p P if the runtime allocated it, else nullptr.
ChunkTail *ownChunk(const void *P);

/// A map from stack id to MIB; open addressing over mmap'd memory. An entry
/// starts a cache line: the key and the heap values (what an allocation
/// reads and writes) are its first line, and with what a common free writes
/// (MIB's first 120 bytes) its first three.
struct alignas(64) MIBEntry {
  uint32_t Key; ///< stack id; 0 = empty slot
  uint32_t Pad;
  // The heap values of the context's chunks in this shard
  // (docs/heap-data.md).
  uint64_t LiveBytes, LiveBlocks;
  /// The live values at the peak whose total was PeakTag.
  uint64_t PeakBytes, PeakBlocks;
  uint64_t PeakTag;
  /// AllocCount 0: no block ended yet (the entry holds heap values only).
  MIB Block;
};
static_assert(sizeof(MIBEntry) == 256, "an entry is four cache lines");
static_assert(offsetof(MIBEntry, PeakTag) + 8 <= 64,
              "the key and the heap values are the entry's first line");
static_assert(offsetof(MIBEntry, Block) + 120 <= 192,
              "what a free writes is in the first three lines");
/// An MIB with an access histogram (AccessHistogramSize counts at the
/// address in AccessHistogram) is copied into the map's own memory.
struct MIBMap {
  MIBEntry *Entries;
  uint64_t Capacity;
  uint64_t Count;
  /// 64 - log2(Capacity): a key's first probe is the top bits of its
  /// Fibonacci hash (stack ids are dense, and this spreads any stride).
  uint32_t Shift;
  /// Histogram memory: mmap'd blocks, bump-allocated, freed by release().
  struct HistBlock *HistBlocks;
  uint8_t *HistCur, *HistEnd;

  /// Inserts \p M or merges it into the block already present (LLVM's
  /// Merge; histograms: the longer is kept and the shorter added into it).
  /// false when out of memory.
  bool merge(uint32_t Key, const MIB &M);
  /// merge() of a block without a histogram (what a free records) into the
  /// entry already present for \p Key, inlined so that the one-allocation
  /// block is never built in memory and the compiler folds its constant
  /// fields. false (nothing done) when \p Key has no entry: then merge().
  bool mergeIntoPresent(uint32_t Key, const MIB &M);
  /// The entry of \p Key, inserted (with no block, AllocCount 0) if
  /// missing; nullptr when out of memory.
  MIBEntry *entryFor(uint32_t Key);
  /// The entry of \p Key, or nullptr.
  MIBEntry *find(uint32_t Key);
  /// mergeIntoPresent() into a known entry.
  static MEMPROF_ALWAYS_INLINE void mergeIntoEntry(MIBEntry &E, const MIB &M) {
    if (MEMPROF_UNLIKELY(!E.Block.AllocCount)) {
      E.Block = M; // the first block (M has no histogram)
      return;
    }
    // As merge() does without a new histogram: the rule's HISTPTR clears
    // the pointer, and the entry keeps its own.
    uint64_t Histogram = E.Block.AccessHistogram;
    mergeDump(E.Block, M);
    E.Block.AccessHistogram = Histogram;
  }
  void release();

private:
  uint64_t *histogramBuffer(uint64_t Entries);
  /// \p M becomes \p E's block, its histogram (if any) copied into the
  /// map's memory: a new entry's, or one that held heap values only.
  void setFirstBlock(MIBEntry &E, const MIB &M);
  static MEMPROF_ALWAYS_INLINE uint64_t firstProbe(uint32_t Key,
                                                   uint32_t Shift) {
    return (uint64_t(Key) * 0x9E3779B97F4A7C15ull) >> Shift;
  }
};

/// Blocks of at most this many bytes get an access histogram (with the
/// histogram option): one count per 64-byte granule.
constexpr uint64_t HistogramMaxBytesDefault = 64 * 1024;

/// The process's heap values (docs/heap-data.md) at a dump: the peak, and
/// how many timeline samples were copied out.
struct HeapTotals {
  uint64_t PeakBytes;
  uint32_t PeakTimeMs;
  uint64_t NumSamples;
};

/// Everything recorded since the start (or the last reset), plus every
/// tracked live allocation as if freed now, merged into \p Out, each
/// entry with its context's heap values (LiveBytes... PeakBlocks). With
/// \p Reset, the table is emptied and the live allocations are forgotten in
/// the same pass (each allocation lands in exactly one side), and a new
/// peak and timeline start. \p Totals, when given, gets the process's
/// peak, and \p Samples (room for raw::HeapMaxSamples) the timeline, as
/// they were before the reset. false if out of memory.
bool collectProfile(MIBMap &Out, bool Reset, HeapTotals *Totals = nullptr,
                    HeapSampleInfo *Samples = nullptr);
void resetProfile();
HeapTotals collectHeapTotals(HeapSampleInfo *Samples);

/// Also takes the timeline's lock (before the shards'), for fork.
void lockAllShards();
void unlockAllShards();
/// In the child after fork: an empty table and no tracked allocations.
void resetShardsInChild();

//===-- Profile.cpp -------------------------------------------------------===//

/// Runs a dump requested by the dump signal, if any (called at safe points:
/// the entry of an allocation or free, outside any runtime lock).
void serviceDumpRequest();

} // namespace rt
} // namespace memprof

extern "C" {
/// Base of the shadow: one u64 access counter per 64-byte granule,
/// counter(addr) = memprof_shadow_base + (addr >> 6) * 8.
__attribute__((visibility("default"))) extern uintptr_t memprof_shadow_base;
}

#endif
