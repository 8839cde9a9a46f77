//===- Allocator.cpp - Chunks, shadow, live set and the MIB table ---------===//
//
// Chunks come from glibc's allocator (__libc_malloc/__libc_memalign), or
// small ones from the runtime's slabs. Every chunk ends in a 16-byte tail
// right before the user pointer; granule-exclusive chunks (linked in) are
// slab slots of whole 64-byte granules or have a 32-byte header and slack
// placed so that no 64-byte granule holds bytes of two allocations; under
// LD_PRELOAD small chunks are slab slots of 16-byte steps or glibc blocks,
// with only the tail (docs/runtime.md, Design).
//
// Recording is sharded by the allocating thread into 64 shards, each with
// its own spin lock, table of live chunks and table of freed MIBs. A free
// takes only its chunk's shard's lock; a dump visits the shards one at a
// time, so every allocation is counted exactly once per dump: freed (in the
// table) or live (as if freed at the dump), never both and never neither.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"
#include "Shadow.h"
#include "StackDepot.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

extern "C" {
__attribute__((visibility("default"))) uintptr_t memprof_shadow_base;
// Top of the main thread's stack (exported by ld.so).
extern void *__libc_stack_end;
// glibc >= 2.35's restartable-sequences area (<sys/rseq.h>): the kernel
// keeps the current CPU at thread pointer + __rseq_offset. Weak, so that the
// runtime still loads with a glibc that lacks them; __rseq_size is 0 when
// glibc did not register the area (glibc.pthread.rseq=0, an old kernel).
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
}

namespace memprof {
namespace rt {

GlobalState G = {0,     0,     0,     false, 0,
                 0,     {64, true, 0, false, 0, false,
                                HistogramMaxBytesDefault, -1, true, UnwindMode::Hybrid,
                                true, false, true},
                 false, false, false, false, false};
__thread ThreadState TLS __attribute__((tls_model("initial-exec")));

//===-- Initialization, time and CPU --------------------------------------===//

namespace {
using ClockFn = int (*)(clockid_t, timespec *);
/// The vDSO's own clock_gettime (set once, before the runtime is ready), or
/// nullptr: glibc's, which is a wrapper around it.
ClockFn VdsoClockGettime;

/// The vDSO's __vdso_clock_gettime, read from its dynamic symbol table as
/// the kernel's own example (parse_vdso.c) does: dlsym would take the
/// loader's lock, inside malloc. nullptr if anything is missing (then glibc's
/// clock_gettime serves).
ClockFn findVdsoClockGettime() {
  uintptr_t Base = getauxval(AT_SYSINFO_EHDR);
  if (!Base)
    return nullptr;
  const auto *Eh = reinterpret_cast<const ElfW(Ehdr) *>(Base);
  if (memcmp(Eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      Eh->e_ident[EI_CLASS] != ELFCLASS64)
    return nullptr;
  const auto *Ph = reinterpret_cast<const ElfW(Phdr) *>(Base + Eh->e_phoff);
  uintptr_t Bias = 0;
  bool HaveLoad = false;
  const ElfW(Dyn) *Dyn = nullptr;
  for (unsigned I = 0; I < Eh->e_phnum; ++I) {
    if (Ph[I].p_type == PT_LOAD && !HaveLoad) {
      Bias = Base + Ph[I].p_offset - Ph[I].p_vaddr;
      HaveLoad = true;
    } else if (Ph[I].p_type == PT_DYNAMIC) {
      Dyn = reinterpret_cast<const ElfW(Dyn) *>(Base + Ph[I].p_offset);
    }
  }
  if (!HaveLoad || !Dyn)
    return nullptr;
  const ElfW(Sym) *Syms = nullptr;
  const char *Names = nullptr;
  const ElfW(Word) *Hash = nullptr;
  for (; Dyn->d_tag != DT_NULL; ++Dyn) {
    if (Dyn->d_tag == DT_SYMTAB)
      Syms = reinterpret_cast<const ElfW(Sym) *>(Bias + Dyn->d_un.d_ptr);
    else if (Dyn->d_tag == DT_STRTAB)
      Names = reinterpret_cast<const char *>(Bias + Dyn->d_un.d_ptr);
    else if (Dyn->d_tag == DT_HASH)
      Hash = reinterpret_cast<const ElfW(Word) *>(Bias + Dyn->d_un.d_ptr);
  }
  if (!Syms || !Names || !Hash)
    return nullptr;
  // The SysV hash table's second word is the number of symbols.
  for (ElfW(Word) I = 0, N = Hash[1]; I < N; ++I)
    if (ELF64_ST_TYPE(Syms[I].st_info) == STT_FUNC &&
        Syms[I].st_shndx != SHN_UNDEF &&
        strcmp(Names + Syms[I].st_name, "__vdso_clock_gettime") == 0)
      return reinterpret_cast<ClockFn>(Bias + Syms[I].st_value);
  return nullptr;
}

/// The offset of the rseq area's cpu_id (struct rseq: cpu_id_start at 0,
/// cpu_id at 4) from the thread pointer, if glibc registers rseq (the same
/// for every thread); 0 if not (found at start).
ptrdiff_t RseqCpuIdOffset;

ptrdiff_t findRseqCpuIdOffset() {
  if (&__rseq_size && &__rseq_offset && __rseq_size >= 8)
    return __rseq_offset + 4;
  return 0;
}

// Timestamps are milliseconds, and MemProf's thresholds are seconds: the
// coarse clock (one tick, 1-10 ms, of resolution) costs a quarter of the
// precise one in the vDSO, on every allocation and free. The vDSO's function
// is called directly, without glibc's wrapper (a third of the time); it
// returns a negative error instead of setting errno.
uint64_t monotonicNs() {
  timespec Ts;
  ClockFn F = VdsoClockGettime;
  if (!F || F(CLOCK_MONOTONIC_COARSE, &Ts) != 0)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

/// CLOCK_MONOTONIC, for timing the rare work the runtime rations (the
/// timeline's scans).
uint64_t preciseNs() {
  timespec Ts;
  ClockFn F = VdsoClockGettime;
  if (!F || F(CLOCK_MONOTONIC, &Ts) != 0)
    clock_gettime(CLOCK_MONOTONIC, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

bool glibcAtLeast(unsigned Major, unsigned Minor) {
  const char *V = gnu_get_libc_version();
  unsigned Ma = 0, Mi = 0;
  while (*V >= '0' && *V <= '9')
    Ma = Ma * 10 + unsigned(*V++ - '0');
  if (*V == '.')
    ++V;
  while (*V >= '0' && *V <= '9')
    Mi = Mi * 10 + unsigned(*V++ - '0');
  return Ma > Major || (Ma == Major && Mi >= Minor);
}
} // namespace

void initCore() {
  uint32_t Expected = 0;
  if (!__atomic_compare_exchange_n(&G.InitState, &Expected, 1u, false,
                                   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    // Another thread initializes; it takes no lock we could hold.
    while (loadAcquire(&G.InitState) != 2)
      sched_yield();
    return;
  }
  int SavedErrno = errno;
  VdsoClockGettime = findVdsoClockGettime();
  RseqCpuIdOffset = findRseqCpuIdOffset();
  uint64_t Secret = monotonicNs() ^ reinterpret_cast<uintptr_t>(&G);
  if (const uint8_t *Random =
          reinterpret_cast<const uint8_t *>(getauxval(AT_RANDOM))) {
    uint64_t R;
    memcpy(&R, Random + 8, sizeof(R));
    Secret ^= R;
  }
  G.Secret = mix64(Secret) | 1;
  G.StartNs = monotonicNs();
  G.StrictAlignedAlloc = glibcAtLeast(2, 38);
  if (!glibcAtLeast(2, 33)) // free may change errno
    markSlowFree(SlowFreeErrno);
  // The shadow is reserved by code built with the pass (its constructor, or
  // memprof_shadow_start), not here: without that code nothing counts
  // accesses, and a free need not read counters that are all 0.
  errno = SavedErrno;
  storeRelease(&G.InitState, 2u);
}

uintptr_t reserveShadow() {
  uintptr_t Base = loadAcquire(&memprof_shadow_base);
  if (Base)
    return Base;
  // The shadow covers the whole user address space; pages materialize only
  // when a counter is written.
  int SavedErrno = errno;
  void *Shadow = mapMemory(ShadowReserveBytes, /*NoReserve=*/true);
  if (!Shadow) {
    errno = SavedErrno;
    return 0;
  }
  madvise(Shadow, ShadowReserveBytes, MADV_NOHUGEPAGE);
  madvise(Shadow, ShadowReserveBytes, MADV_DONTDUMP);
  errno = SavedErrno;
  // Before the base is published: no free takes the lean path (which
  // neither reads nor clears counters) once a counter can be written.
  markSlowFree(SlowFreeShadow);
  uintptr_t Expected = 0;
  if (__atomic_compare_exchange_n(&memprof_shadow_base, &Expected,
                                  reinterpret_cast<uintptr_t>(Shadow), false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return reinterpret_cast<uintptr_t>(Shadow);
  unmapMemory(Shadow, ShadowReserveBytes); // another thread was first
  return Expected;
}

uint32_t nowMs() { return uint32_t((monotonicNs() - G.StartNs) / 1000000); }

uint32_t currentCpu() {
  // The rseq area's cpu_id, written by the kernel on every return to this
  // thread: one load instead of sched_getcpu's vDSO call. Negative before
  // registration or if it failed; sched_getcpu then.
  if (ptrdiff_t Off = RseqCpuIdOffset) {
    int32_t Cpu = __atomic_load_n(
        reinterpret_cast<const int32_t *>(
            static_cast<const char *>(__builtin_thread_pointer()) + Off),
        __ATOMIC_RELAXED);
    if (MEMPROF_LIKELY(Cpu >= 0))
      return uint32_t(Cpu);
  }
  int Cpu = sched_getcpu();
  return Cpu < 0 ? 0 : uint32_t(Cpu);
}

//===-- Shadow ------------------------------------------------------------===//

namespace {
constexpr uint64_t LargeShadowBytes = 64 * 1024;

uint64_t sumCounters(uint64_t *P, uint64_t *E, bool Clear) {
  uint64_t Sum = 0;
  for (; P < E; ++P) {
    uint64_t V = *P;
    if (V) {
      Sum = saturatingAdd(Sum, V);
      if (Clear)
        *P = 0;
    }
  }
  return Sum;
}

/// The accesses the pass counted for an allocation: the sum of its granules'
/// counters. With \p Clear the counters are reset for the next owner. Large
/// ranges skip shadow pages that were never touched (mincore) and are
/// cleared by returning the pages (MADV_DONTNEED), so freeing a huge buffer
/// does not read or dirty megabytes of shadow.
MEMPROF_NOINLINE uint64_t shadowAccessCountAt(uintptr_t Base, uintptr_t User,
                                              uint64_t Size, bool Clear) {
  GranuleRange R = granulesOf(User, Size);
  uint64_t *Begin = reinterpret_cast<uint64_t *>(shadowAddress(Base, R.First));
  uint64_t *End = Begin + R.Count;
  if (R.Count * 8 <= LargeShadowBytes)
    return sumCounters(Begin, End, Clear);

  uintptr_t Page = pageSize();
  uintptr_t B = reinterpret_cast<uintptr_t>(Begin);
  uintptr_t E = reinterpret_cast<uintptr_t>(End);
  uintptr_t PB = alignUp(B, Page), PE = E & ~(Page - 1);
  uint64_t Sum = sumCounters(Begin, reinterpret_cast<uint64_t *>(PB), Clear);
  Sum = saturatingAdd(
      Sum, sumCounters(reinterpret_cast<uint64_t *>(PE), End, Clear));
  int SavedErrno = errno;
  unsigned char Resident[1024];
  for (uintptr_t Cur = PB; Cur < PE;) {
    uintptr_t Pages = (PE - Cur) / Page;
    if (Pages > sizeof(Resident))
      Pages = sizeof(Resident);
    bool Known =
        mincore(reinterpret_cast<void *>(Cur), Pages * Page, Resident) == 0;
    for (uintptr_t I = 0; I < Pages; ++I, Cur += Page)
      if (!Known || (Resident[I] & 1))
        Sum = saturatingAdd(
            Sum, sumCounters(reinterpret_cast<uint64_t *>(Cur),
                             reinterpret_cast<uint64_t *>(Cur + Page), false));
  }
  if (Clear && PE > PB)
    madvise(reinterpret_cast<void *>(PB), PE - PB, MADV_DONTNEED);
  errno = SavedErrno;
  return Sum;
}

/// shadowAccessCountAt(), with the test whether a shadow exists at all (not
/// without the pass) inlined into the caller.
MEMPROF_ALWAYS_INLINE uint64_t shadowAccessCount(uintptr_t User, uint64_t Size,
                                                 bool Clear) {
  uintptr_t Base = loadAcquire(&memprof_shadow_base);
  return Base ? shadowAccessCountAt(Base, User, Size, Clear) : 0;
}
} // namespace

/// With the histogram option, points \p M's histogram at the block's shadow
/// counters (one per granule; MIBMap::merge copies them).
MEMPROF_ALWAYS_INLINE void attachHistogram(MIB &M, uintptr_t User,
                                           uint64_t Size) {
  M.AccessHistogramSize = 0;
  M.AccessHistogram = 0;
  if (MEMPROF_LIKELY(!G.Opts.Histogram) || Size > G.Opts.HistogramMaxBytes)
    return;
  uintptr_t Base = loadAcquire(&memprof_shadow_base);
  if (!Base)
    return;
  GranuleRange R = granulesOf(User, Size);
  M.AccessHistogramSize = R.Count;
  M.AccessHistogram = shadowAddress(Base, R.First);
}

//===-- The sharded live set and MIB table --------------------------------===//

namespace {

/// The live chunks of a shard: a dense array of their user pointers whose
/// index is kept in the chunk's tail (ChunkTail::SlotShard), and a bitmap of
/// the slots taken. A free only clears its slot's bit: the bitmap (one bit
/// per slot) stays in the caches, where a write of the 8-byte slot at every
/// free, in no particular order over a table of many megabytes, missed them
/// (perl: about 5% of its time). An allocation takes the next free slot
/// after a cursor that moves forward, so the slots it writes are mostly
/// consecutive, or a new one at the end when fewer than a quarter of the
/// slots are free. What an allocation recorded is in its chunk's tail. A
/// chunk is in its table from its allocation to its free, whatever happens
/// meanwhile (a reset clears its context in its tail). A forked child keeps
/// the tables: the slots below GenBase are the parent's chunks, which the
/// child never records and whose slots it never reuses.
struct SlotTable {
  uint64_t *Slots;   ///< the user pointer of each taken slot (0: kept empty
                     ///< for a realloc); stale in a free slot
  uint64_t *Taken;   ///< one bit per slot
  uint64_t TakenBytes; ///< mapped for Taken
  uint64_t Capacity; ///< slots mapped (a multiple of 64)
  uint64_t Used;     ///< slots ever handed out (the high-water mark)
  uint64_t NumFree;  ///< free slots in [GenBase, Used)
  uint64_t Cursor;   ///< the word of Taken where the search for a free slot
                     ///< goes on
  uint64_t GenBase;  ///< slots below are inherited across fork (a multiple
                     ///< of 64)

  /// The slot field has 26 bits, and SlotMask itself would make
  /// UntrackedSlot in shard 63; a multiple of 64.
  static constexpr uint64_t MaxSlots = (SlotMask + 1) - 64;

  static uint64_t bitmapBytes(uint64_t Cap) {
    return alignUp(Cap / 8, pageSize());
  }

  static void *resize(void *Old, uint64_t OldBytes, uint64_t NewBytes) {
    if (!Old)
      return mapMemory(NewBytes);
    int SavedErrno = errno;
    void *New = mremap(Old, OldBytes, NewBytes, MREMAP_MAYMOVE);
    // Allocations write slots mostly in order, but a large table is still
    // walked at every dump: huge pages if THP allows. Advice only.
    if (New != MAP_FAILED && NewBytes >= (uint64_t(2) << 20))
      madvise(New, NewBytes, MADV_HUGEPAGE);
    errno = SavedErrno;
    return New == MAP_FAILED ? nullptr : New;
  }

  bool grow() {
    uint64_t NewCap = Capacity ? Capacity * 2 : 4096;
    if (NewCap > MaxSlots)
      NewCap = MaxSlots;
    if (NewCap <= Capacity)
      return false;
    uint64_t NewBits = bitmapBytes(NewCap);
    if (NewBits > TakenBytes) {
      void *B = resize(Taken, TakenBytes, NewBits);
      if (!B)
        return false;
      // (Read without the lock, for a prefetch: relaxed stores.)
      storeRelaxed(&Taken, static_cast<uint64_t *>(B));
      TakenBytes = NewBits;
    }
    void *NewSlots = resize(Slots, Capacity * sizeof(uint64_t),
                            NewCap * sizeof(uint64_t));
    if (!NewSlots)
      return false; // the bitmap has room that is not used yet
    Slots = static_cast<uint64_t *>(NewSlots);
    Capacity = NewCap;
    return true;
  }

  /// A slot for a new chunk (its entry is still to be written); false when
  /// out of memory or slots.
  MEMPROF_ALWAYS_INLINE bool take(uint32_t &Slot) {
    uint64_t I;
    if (NumFree > (Used - GenBase) / 4 && findFree(I)) {
      --NumFree;
    } else {
      if (Used == Capacity && !grow())
        return false;
      I = Used++;
    }
    Taken[I >> 6] |= uint64_t(1) << (I & 63);
    Slot = uint32_t(I);
    return true;
  }

  /// The first free slot at or after the cursor, wrapping around to
  /// GenBase, into \p I. There is one (NumFree > 0): each word is passed
  /// over at most once per sweep, and a sweep starts only while a quarter of
  /// the slots are free. (Should the count ever be wrong, one sweep finds
  /// nothing, the count is reset and the caller takes a new slot: an
  /// allocation never loops.)
  bool findFree(uint64_t &I) {
    uint64_t First = GenBase >> 6, End = (Used + 63) >> 6;
    for (uint64_t Visited = 0; End > First && Visited <= End - First;
         ++Visited, ++Cursor) {
      if (Cursor < First || Cursor >= End)
        Cursor = First;
      uint64_t Free = ~Taken[Cursor];
      if (Cursor == End - 1 && (Used & 63))
        Free &= (uint64_t(1) << (Used & 63)) - 1; // not handed out yet
      if (Free) {
        I = (Cursor << 6) + uint64_t(__builtin_ctzll(Free));
        return true;
      }
    }
    NumFree = 0;
    return false;
  }

  /// Whether slot \p I was this generation's (not inherited).
  MEMPROF_ALWAYS_INLINE bool current(uint32_t I) const { return I >= GenBase; }

  /// Frees slot \p I (< Used), unless inherited (then it stays taken). The
  /// tail named the slot, so only its bit is read: a program's double free
  /// of a chunk (which glibc then reports) frees the slot once.
  MEMPROF_ALWAYS_INLINE void remove(uint32_t I) {
    if (!current(I))
      return;
    uint64_t &Word = Taken[I >> 6];
    uint64_t Bit = uint64_t(1) << (I & 63);
    if (Word & Bit) {
      Word &= ~Bit;
      ++NumFree;
    }
  }

  /// Calls \p Fn with the user pointer of every live chunk of this
  /// generation, in slot order. Fn reads the chunk's tail, and tails lie
  /// far apart: each is prefetched Ahead chunks before Fn gets it.
  template <typename F> void forEachCurrent(F Fn) const {
    constexpr uint64_t Ahead = 8;
    uint64_t Ring[Ahead];
    uint64_t N = 0;
    for (uint64_t W = GenBase >> 6, End = (Used + 63) >> 6; W < End; ++W)
      for (uint64_t Bits = Taken[W]; Bits; Bits &= Bits - 1) {
        uint64_t User = Slots[(W << 6) + uint64_t(__builtin_ctzll(Bits))];
        if (!User)
          continue;
        __builtin_prefetch(reinterpret_cast<const void *>(User - 16));
        if (N >= Ahead)
          Fn(Ring[N % Ahead]);
        Ring[N % Ahead] = User;
        ++N;
      }
    for (uint64_t K = N > Ahead ? N - Ahead : 0; K < N; ++K)
      Fn(Ring[K % Ahead]);
  }

  /// In a forked child: every slot handed out so far is inherited.
  void startGeneration() {
    Used = GenBase = alignUp(Used, 64); // <= Capacity, a multiple of 64
    NumFree = 0;
    Cursor = GenBase >> 6;
  }

};

constexpr unsigned NumShards = 64;

/// A shard's granule-slab spans of one size class (span numbers plus one;
/// 0: none): those with freed slots, the current one, whose slots past Cur
/// were never handed out, and one that emptied, kept for the next span.
struct SlabClass {
  uint32_t Partial;   ///< the first span with freed slots
  uint32_t Current;   ///< the span Cur and End are in
  uint32_t Spare;     ///< an empty span kept (not given back)
  uintptr_t Cur, End; ///< the current span's slots not handed out yet
};

struct alignas(64) Shard {
  SpinLock Lock;
  SlotTable Live; ///< chunks in a live table, not yet freed
  MIBMap Freed;   ///< MIBs of the recorded chunks freed so far
  /// Granule-slab slots of 1, 2, ... SlabClasses granules whose spans this
  /// shard took (under Lock).
  SlabClass Slab[SlabClasses];
};
Shard Shards[NumShards];
static_assert(NumShards == 64, "the shard takes 6 bits of the tail");
uint32_t NextShard;

//===-- Granule slabs (docs/runtime.md, Design) ---------------------------===//

/// One region of address space, reserved at the first slab allocation, is
/// cut into spans of SlabSpanBytes (aligned to their size), each taken by
/// one shard for one size class, which a side array holds (SlabSpanInfo),
/// and cut into slots of 1 to SlabClasses granules. A slot's tail is at its
/// start and its user pointer 16 bytes in: no granule holds bytes of two
/// blocks, and a block of up to 48 (112, 176, 240) bytes takes 64 (128,
/// 192, 256) bytes, against n + 40 rounded up to 16 (and glibc's 8-byte
/// size field) from glibc. With compact chunks (preloaded) the slots are
/// the request and the tail rounded up to 16 bytes, in spans of their own
/// classes (16-byte steps; exact granules use every fourth). A freed slot
/// goes back to its span (a list per span, under the lock of the span's
/// shard, which fork's handlers take); a span whose last slot is freed is
/// kept as its class's spare, or given back to the system (MADV_DONTNEED)
/// and to the region's list of empty spans, from which any shard and class
/// takes spans again. Past its first SlabHugeFromBytes the region asks for
/// transparent huge pages (MADV_HUGEPAGE): a program that holds many small
/// blocks then takes one page fault per 2 MiB instead of 512 (where the
/// system allows them; a span given back splits its huge page).
constexpr uint64_t SlabSpanBytes = 64 * 1024;
/// The region's start is aligned to a huge page, and spans are made
/// readable and writable a huge page at a time: the kernel backs a range by
/// a huge page only when all of it is accessible.
constexpr uint64_t SlabHugePageBytes = 2 << 20;
constexpr uint64_t SlabCommitBytes = SlabHugePageBytes;
constexpr uint64_t SlabHugeFromBytes = 4 * SlabHugePageBytes;
constexpr uint64_t SlabReserveBytes = uint64_t(64) << 30;

/// A span's shard, size class and freed slots: not in the span itself,
/// where the headers of all spans (64 KiB apart) would fall into one set of
/// the caches, and a free would miss them. A cache line each: spans of
/// different shards share none. Written under the span's shard's lock
/// (Next of an empty span under the region's).
struct alignas(64) SlabSpanInfo {
  uint8_t Shard;
  uint8_t Class;      ///< slots of Class + 1 granules
  uint32_t Live;      ///< slots handed out and not freed
  uintptr_t Free;     ///< the first freed slot, linked through the slots'
                      ///< first 8 bytes (the tail's InfoCpu and SlotShard:
                      ///< a freed slot's marker is cleared); 0: none
  uint32_t Prev, Next; ///< the class's Partial list, or the region's empty
                       ///< spans (span numbers plus one)
};
constexpr uint64_t SlabSpans = SlabReserveBytes / SlabSpanBytes;

/// SlabRegionState::Base before the region is reserved: no address is
/// within SlabReserveBytes above it (U - Base = U + SlabReserveBytes).
constexpr uintptr_t SlabUnreserved = uintptr_t(0) - SlabReserveBytes;

struct SlabRegionState {
  /// Read by every free: a line of their own, written once.
  alignas(64) uintptr_t Base; ///< SlabUnreserved: not reserved (yet)
  SlabSpanInfo *Spans;        ///< SlabSpans entries, mapped with Base
  uint32_t Failed;            ///< the reservation failed: no slabs
  /// Written once per span.
  alignas(64) uint64_t Next;  ///< bytes of the region handed out as spans
  uint64_t Committed;         ///< bytes of the region made accessible
  /// Spans given back, for any shard and class (taken after a shard's lock,
  /// by fork's handlers too).
  alignas(64) SpinLock EmptyLock;
  uint32_t Empty; ///< the first (span number plus one); 0: none
};
SlabRegionState SlabRegion = {SlabUnreserved, nullptr, 0, 0, 0, {0}, 0};

MEMPROF_ALWAYS_INLINE SlabSpanInfo &slabSpan(uint32_t NumberPlusOne) {
  return loadRelaxed(&SlabRegion.Spans)[NumberPlusOne - 1];
}
/// The span number plus one of an address in the region.
MEMPROF_ALWAYS_INLINE uint32_t slabSpanNumberOf(uintptr_t Slot) {
  return uint32_t((Slot - loadRelaxed(&SlabRegion.Base)) / SlabSpanBytes) + 1;
}

/// Whether \p U is in the slab region (false for every address until it is
/// reserved).
MEMPROF_ALWAYS_INLINE bool inSlabRegion(uintptr_t U) {
  return U - loadRelaxed(&SlabRegion.Base) < SlabReserveBytes;
}

/// Reserves the region (inaccessible until spans are committed), or finds
/// it reserved by another thread; 0 if it cannot be.
MEMPROF_NOINLINE uintptr_t reserveSlabRegion() {
  uintptr_t Base = loadAcquire(&SlabRegion.Base);
  if (Base != SlabUnreserved)
    return Base;
  if (loadRelaxed(&SlabRegion.Failed))
    return 0;
  int SavedErrno = errno;
  uint64_t Bytes = SlabReserveBytes + SlabHugePageBytes;
  uint64_t InfoBytes = alignUp(SlabSpans * sizeof(SlabSpanInfo), pageSize());
  void *P = mmap(nullptr, Bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *Info = P == MAP_FAILED ? nullptr : mapMemory(InfoBytes, true);
  errno = SavedErrno;
  if (!Info) {
    // (An address-space limit, or valgrind.) No slabs: allocations stop
    // asking for them.
    if (P != MAP_FAILED)
      unmapMemory(P, Bytes);
    storeRelaxed(&SlabRegion.Failed, 1u);
    storeRelaxed(&G.Opts.GranuleSlab, false);
    return 0;
  }
  // (Callers hold a shard's lock: only one reserves at a time per shard,
  // but two shards may race; the loser unmaps its own.)
  uintptr_t Start = reinterpret_cast<uintptr_t>(P);
  uintptr_t Aligned = alignUp(Start, SlabHugePageBytes);
  SlabSpanInfo *Expected = nullptr;
  if (!__atomic_compare_exchange_n(&SlabRegion.Spans, &Expected,
                                   static_cast<SlabSpanInfo *>(Info), false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    unmapMemory(P, Bytes); // another thread was first
    unmapMemory(Info, InfoBytes);
    while ((Base = loadAcquire(&SlabRegion.Base)) == SlabUnreserved)
      sched_yield(); // it publishes the base next
    return Base;
  }
  storeRelease(&SlabRegion.Base, Aligned);
  return Aligned;
}

/// Makes span \p N (plus one) the current span of class \p C of shard
/// \p Index (its lock held), all its slots free.
void slabStartSpan(SlabClass &L, unsigned Index, unsigned C, uint32_t N) {
  SlabSpanInfo &I = slabSpan(N);
  I.Shard = uint8_t(Index);
  I.Class = uint8_t(C);
  I.Live = 0;
  I.Free = 0;
  I.Prev = I.Next = 0;
  L.Current = N;
  L.Cur = loadRelaxed(&SlabRegion.Base) + uint64_t(N - 1) * SlabSpanBytes;
  L.End = L.Cur + SlabSpanBytes;
}

/// A new span of class \p C for shard \p Index (its lock held) into \p L:
/// its spare, an empty span of the region's, or one never used; false when
/// the region is full or the system out of memory.
MEMPROF_NOINLINE bool slabNewSpan(SlabClass &L, unsigned Index, unsigned C) {
  if (uint32_t N = L.Spare) {
    L.Spare = 0;
    slabStartSpan(L, Index, C, N);
    return true;
  }
  uintptr_t Base = reserveSlabRegion();
  if (!Base)
    return false;
  if (loadRelaxed(&SlabRegion.Empty)) {
    SlabRegion.EmptyLock.lock();
    uint32_t N = SlabRegion.Empty;
    if (N)
      storeRelaxed(&SlabRegion.Empty, slabSpan(N).Next);
    SlabRegion.EmptyLock.unlock();
    if (N) {
      slabStartSpan(L, Index, C, N);
      return true;
    }
  }
  // (Once the region is full, only freed slots are handed out: Next is
  // then only read.)
  if (loadRelaxed(&SlabRegion.Next) >= SlabReserveBytes)
    return false;
  uint64_t Off =
      __atomic_fetch_add(&SlabRegion.Next, SlabSpanBytes, __ATOMIC_RELAXED);
  if (Off >= SlabReserveBytes)
    return false;
  uint64_t End = Off + SlabSpanBytes;
  // Commit up to End: whoever raises Committed has made the pages up to it
  // accessible (making them so twice is harmless).
  uint64_t Done = loadAcquire(&SlabRegion.Committed);
  while (Done < End) {
    uint64_t To = alignUp(End, SlabCommitBytes);
    if (To > SlabReserveBytes)
      To = SlabReserveBytes;
    int SavedErrno = errno;
    int Rc = mprotect(reinterpret_cast<void *>(Base + Done), To - Done,
                      PROT_READ | PROT_WRITE);
    errno = SavedErrno;
    if (Rc != 0)
      return false; // this span is lost; the next one tries again
    if (__atomic_compare_exchange_n(&SlabRegion.Committed, &Done, To, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      // Whoever commits past SlabHugeFromBytes first advises the rest of
      // the region once (advice only: without transparent huge pages it
      // changes nothing).
      if (Done <= SlabHugeFromBytes && To > SlabHugeFromBytes) {
        SavedErrno = errno;
        madvise(reinterpret_cast<void *>(Base + SlabHugeFromBytes),
                SlabReserveBytes - SlabHugeFromBytes, MADV_HUGEPAGE);
        errno = SavedErrno;
      }
      break;
    }
  }
  slabStartSpan(L, Index, C, uint32_t(Off / SlabSpanBytes) + 1);
  return true;
}

/// The size class of a request of \p Size <= SlabMaxSize bytes: with exact
/// granules whole granules (classes 3, 7, 11 and 15); with \p Compact
/// chunks the request (at least 1 byte, so that a block of 0 bytes has a
/// pointer of its own) and the tail rounded up to 16 bytes.
MEMPROF_ALWAYS_INLINE unsigned slabClassOf(uint64_t Size, bool Compact) {
  static_assert(ShadowGranule == 64 && sizeof(ChunkTail) == 16,
                "classes are 16-byte steps, four to a granule");
  if (Compact)
    return unsigned((Size + (Size == 0) + sizeof(ChunkTail) + 15) >> 4) - 1;
  return (unsigned((Size + sizeof(ChunkTail) - 1) >> ShadowScale) << 2) + 3;
}

/// 2^32 / M + 1 for M = 1 ... SlabClasses: N / M is (N * this) >> 32 for
/// every N below 2^32 / (M * M), with no division on a free's path.
struct SlabReciprocals {
  uint64_t R[SlabClasses];
  constexpr SlabReciprocals() : R() {
    for (unsigned M = 1; M <= SlabClasses; ++M)
      R[M - 1] = (uint64_t(1) << 32) / M + 1;
  }
};
constexpr SlabReciprocals SlabReciprocal;

/// Whether \p Slot is where a slot of class \p C starts: its offset in its
/// span a multiple of (C + 1) * 16 bytes.
MEMPROF_ALWAYS_INLINE bool slabSlotStart(uintptr_t Slot, unsigned C) {
  static_assert(SlabSpanBytes / 16 * SlabClasses * SlabClasses <
                    (uint64_t(1) << 32),
                "the reciprocals are exact for a span's offsets");
  uint64_t Off = (Slot - loadRelaxed(&SlabRegion.Base)) & (SlabSpanBytes - 1);
  unsigned K = C & (SlabClasses - 1);
  uint64_t N = Off >> 4, Q = (N * SlabReciprocal.R[K]) >> 32;
  return !(Off & 15) && Q * (K + 1) == N;
}

/// Takes span \p N off its class's Partial list (its shard's lock held).
MEMPROF_ALWAYS_INLINE void slabUnlink(SlabClass &L, SlabSpanInfo &I) {
  if (I.Prev)
    slabSpan(I.Prev).Next = I.Next;
  else
    L.Partial = I.Next;
  if (I.Next)
    slabSpan(I.Next).Prev = I.Prev;
  I.Prev = I.Next = 0;
}

/// A slot of class \p C from shard \p Index (its lock held): a freed one
/// of the first span that has one, else the current span's next; 0 if
/// none.
MEMPROF_ALWAYS_INLINE uintptr_t slabTake(Shard &S, unsigned Index,
                                         unsigned C) {
  SlabClass &L = S.Slab[C];
  if (uint32_t N = L.Partial) {
    SlabSpanInfo &I = slabSpan(N);
    uintptr_t Slot = I.Free;
    I.Free = *reinterpret_cast<const uintptr_t *>(Slot);
    ++I.Live;
    if (!I.Free)
      slabUnlink(L, I);
    return Slot;
  }
  uint64_t Bytes = uint64_t(C + 1) << 4;
  if (MEMPROF_UNLIKELY(L.End - L.Cur < Bytes) && !slabNewSpan(L, Index, C))
    return 0;
  uintptr_t Slot = L.Cur;
  L.Cur += Bytes;
  ++slabSpan(L.Current).Live;
  return Slot;
}

/// The span of an address in the region. (Read without a lock: the span
/// of a live slot keeps its shard and class.)
MEMPROF_ALWAYS_INLINE const SlabSpanInfo &slabSpanOf(uintptr_t Slot) {
  return slabSpan(slabSpanNumberOf(Slot));
}

/// Span \p N of class \p L emptied (not the current one; its shard's lock
/// held): kept as the class's spare, or given back to the system and to
/// the region's empty spans.
MEMPROF_NOINLINE void slabRetire(SlabClass &L, uint32_t N) {
  if (!L.Spare) {
    L.Spare = N;
    return;
  }
  int SavedErrno = errno;
  madvise(reinterpret_cast<void *>(loadRelaxed(&SlabRegion.Base) +
                                   uint64_t(N - 1) * SlabSpanBytes),
          SlabSpanBytes, MADV_DONTNEED);
  errno = SavedErrno;
  SlabRegion.EmptyLock.lock();
  slabSpan(N).Next = SlabRegion.Empty;
  storeRelaxed(&SlabRegion.Empty, N);
  SlabRegion.EmptyLock.unlock();
}

/// Gives slot \p Slot (its tail's marker cleared) back to its span.
MEMPROF_ALWAYS_INLINE void slabRelease(uintptr_t Slot) {
  uint32_t N = slabSpanNumberOf(Slot);
  SlabSpanInfo &I = slabSpan(N);
  Shard &S = Shards[I.Shard];
  S.Lock.lock();
  SlabClass &L = S.Slab[I.Class];
  bool WasFull = !I.Free;
  *reinterpret_cast<uintptr_t *>(Slot) = I.Free;
  I.Free = Slot;
  if (MEMPROF_UNLIKELY(--I.Live == 0) && N != L.Current) {
    if (!WasFull)
      slabUnlink(L, I);
    slabRetire(L, N);
  } else if (WasFull) {
    // On the class's list (first: its slot is the one likeliest cached).
    I.Prev = 0;
    I.Next = L.Partial;
    if (L.Partial)
      slabSpan(L.Partial).Prev = N;
    L.Partial = N;
  }
  S.Lock.unlock();
}

//===-- Heap values: live, peak and the timeline (docs/heap-data.md) ------===//

/// The process's live total and peak, and the timeline. LiveBytes is
/// written by every recorded allocation and free (exact in the order they
/// are applied); the peak's line by each new peak; the sampling thresholds
/// by each sample. A context's value at the peak is captured lazily: an
/// entry records the peak it last saw (the peak's total, which only grows
/// until a reset, and a reset empties every table), and the first change
/// after a newer peak first copies its live values, which have not changed
/// since that peak (heapCapture). The peak is one word, raised by one
/// compare-and-swap: no moment exists when a new peak is set but not yet
/// seen by the captures.
struct HeapState {
  alignas(64) uint64_t LiveBytes;
  alignas(64) uint64_t PeakBytes;
  uint32_t PeakTimeMs;
  /// 0 while one shard holds every recorded chunk (one thread has
  /// allocated): the total and the peak change only under that shard's
  /// lock, by plain loads and stores. 1 from the moment a second shard is
  /// handed out (goShared): atomic updates.
  uint32_t Shared;
  /// A sample is due when the clock reaches NextSampleMs or the total
  /// leaves [SampleLo, SampleHi].
  alignas(64) uint32_t NextSampleMs;
  uint64_t SampleLo, SampleHi;
  // Under SampleLock (taken before any shard's lock):
  alignas(64) SpinLock SampleLock;
  HeapSampleInfo *Samples; ///< raw::HeapMaxSamples, mapped at the first
  uint64_t NumSamples;
  uint32_t Thinnings; ///< times every other sample was dropped
  uint64_t ScanNs;    ///< time the samples' scans for top contexts took
  bool SamplesUnmapped; ///< mapping the samples failed: no timeline
};
HeapState H;

/// Thresholds of the timeline: a change of 1% of the peak so far (at least
/// 64 KiB) or 10 ms, doubled at each thinning; the scans for the largest
/// contexts take at most 1/400 of the run.
constexpr uint64_t SamplePermille = 10, SampleMinBytes = 64 * 1024;
constexpr uint32_t SampleIntervalMs = 10;
constexpr uint64_t ScanShare = 400;

MEMPROF_ALWAYS_INLINE void heapCapture(MIBEntry &E) {
  uint64_t Peak = loadRelaxed(&H.PeakBytes);
  if (MEMPROF_UNLIKELY(E.PeakTag != Peak)) {
    E.PeakBytes = E.LiveBytes;
    E.PeakBlocks = E.LiveBlocks;
    E.PeakTag = Peak;
  }
}

/// Raises the peak to \p Total (a total the runtime applied at \p Now)
/// unless it is there already, by compare-and-swap.
void raisePeak(uint64_t Total, uint32_t Now) {
  uint64_t Cur = loadRelaxed(&H.PeakBytes);
  while (Total > Cur)
    if (__atomic_compare_exchange_n(&H.PeakBytes, &Cur, Total, true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      storeRelaxed(&H.PeakTimeMs, Now);
      return;
    }
}

MEMPROF_NOINLINE void notePeak(uint64_t Total, uint32_t Now) {
  if (!loadRelaxed(&H.Shared)) { // under the one shard's lock
    storeRelaxed(&H.PeakBytes, Total);
    storeRelaxed(&H.PeakTimeMs, Now);
    return;
  }
  raisePeak(Total, Now);
}

/// A recorded block of \p Size bytes starts in entry \p E (its shard's lock
/// held); returns the new total.
MEMPROF_ALWAYS_INLINE uint64_t heapAdd(MIBEntry &E, uint64_t Size,
                                       uint32_t Now) {
  heapCapture(E);
  E.LiveBytes += Size;
  ++E.LiveBlocks;
  uint64_t Total;
  if (MEMPROF_LIKELY(!loadRelaxed(&H.Shared))) {
    Total = loadRelaxed(&H.LiveBytes) + Size;
    storeRelaxed(&H.LiveBytes, Total);
  } else {
    Total = __atomic_add_fetch(&H.LiveBytes, Size, __ATOMIC_RELAXED);
  }
  if (MEMPROF_UNLIKELY(Total > loadRelaxed(&H.PeakBytes)))
    notePeak(Total, Now);
  return Total;
}

/// A recorded block of \p Size bytes of entry \p E ends; the new total.
MEMPROF_ALWAYS_INLINE uint64_t heapSub(MIBEntry &E, uint64_t Size) {
  heapCapture(E);
  E.LiveBytes -= Size;
  --E.LiveBlocks;
  if (MEMPROF_LIKELY(!loadRelaxed(&H.Shared))) {
    uint64_t Total = loadRelaxed(&H.LiveBytes) - Size;
    storeRelaxed(&H.LiveBytes, Total);
    return Total;
  }
  return __atomic_sub_fetch(&H.LiveBytes, Size, __ATOMIC_RELAXED);
}

/// A second shard is about to be used: from now on the total and the peak
/// change atomically. Every shard's lock is taken, so no update is in
/// flight while the mode changes (once per process).
MEMPROF_NOINLINE void goShared() {
  if (loadRelaxed(&H.Shared))
    return;
  for (Shard &S : Shards)
    S.Lock.lock();
  storeRelaxed(&H.Shared, 1u);
  for (Shard &S : Shards)
    S.Lock.unlock();
}

MEMPROF_ALWAYS_INLINE bool sampleDue(uint64_t Total, uint32_t Now) {
  return Now >= loadRelaxed(&H.NextSampleMs) ||
         Total > loadRelaxed(&H.SampleHi) || Total < loadRelaxed(&H.SampleLo);
}

/// An entry's live values at the peak \p Peak.
MEMPROF_ALWAYS_INLINE void peakOf(const MIBEntry &E, uint64_t Peak,
                                  uint64_t &Bytes, uint64_t &Blocks) {
  Bytes = E.PeakTag == Peak ? E.PeakBytes : E.LiveBytes;
  Blocks = E.PeakTag == Peak ? E.PeakBlocks : E.LiveBlocks;
}

void takeSample(uint32_t Now); // below, with the shards' scans

/// The shard this thread records its allocations in: threads are spread
/// round-robin, so a thread's allocations and frees take a lock no other
/// thread normally touches. A chunk's tail names its shard, so a free
/// from another thread finds it.
MEMPROF_ALWAYS_INLINE unsigned threadShard(ThreadState &T) {
  if (MEMPROF_UNLIKELY(!T.ShardPlusOne)) {
    uint32_t N = __atomic_fetch_add(&NextShard, 1u, __ATOMIC_RELAXED);
    if (N)
      goShared(); // a second thread allocates
    T.ShardPlusOne = uint8_t(1 + N % NumShards);
  }
  return T.ShardPlusOne - 1u;
}

MEMPROF_ALWAYS_INLINE unsigned kindOf(const ChunkTail *T) {
  return loadRelaxed(&T->CtxKind) & KindMask;
}
/// The context id (0: not recorded); a reset may clear it meanwhile.
MEMPROF_ALWAYS_INLINE uint32_t contextIdOf(const ChunkTail *T) {
  return loadRelaxed(&T->CtxKind) >> CtxShift;
}
/// KindSmall: the size; other kinds: the layout's Info.
MEMPROF_ALWAYS_INLINE uint32_t infoOf(const ChunkTail *T) {
  return T->InfoCpu & 0xFFFF;
}
MEMPROF_ALWAYS_INLINE Shard &shardOf(uint32_t SlotShard) {
  return Shards[SlotShard >> SlotBits];
}

} // namespace

struct HistBlock {
  HistBlock *Next;
  uint64_t Bytes;
};

namespace {
constexpr uint64_t HistBlockBytes = 256 * 1024;
/// Histogram buffers hold a power of two of counts, so a histogram that
/// grows one granule at a time is copied O(log n) times.
uint64_t histogramCapacity(uint64_t N) {
  uint64_t C = 4;
  while (C < N)
    C <<= 1;
  return C;
}
} // namespace

uint64_t *MIBMap::histogramBuffer(uint64_t N) {
  uint64_t Bytes = histogramCapacity(N) * sizeof(uint64_t);
  if (uint64_t(HistEnd - HistCur) < Bytes) {
    uint64_t BlockBytes = alignUp(sizeof(HistBlock) + Bytes, HistBlockBytes);
    auto *B = static_cast<HistBlock *>(mapMemory(BlockBytes));
    if (!B)
      return nullptr;
    B->Next = HistBlocks;
    B->Bytes = BlockBytes;
    HistBlocks = B;
    HistCur = reinterpret_cast<uint8_t *>(B) + 64;
    HistEnd = reinterpret_cast<uint8_t *>(B) + BlockBytes;
  }
  uint64_t *P = reinterpret_cast<uint64_t *>(HistCur);
  HistCur += Bytes;
  return P; // mmap'd memory is zero and never reused
}

MIBEntry *MIBMap::find(uint32_t Key) {
  if (!Capacity)
    return nullptr;
  uint64_t Mask = Capacity - 1;
  for (uint64_t I = firstProbe(Key, Shift);; I = (I + 1) & Mask) {
    if (Entries[I].Key == Key)
      return &Entries[I];
    if (!Entries[I].Key)
      return nullptr;
  }
}

MIBEntry *MIBMap::entryFor(uint32_t Key) {
  if (MIBEntry *E = find(Key))
    return E;
  if (!merge(Key, MIB{}))
    return nullptr;
  return find(Key);
}

void MIBMap::setFirstBlock(MIBEntry &E, const MIB &M) {
  E.Block = M;
  E.Block.AccessHistogram = 0;
  E.Block.AccessHistogramSize = 0;
  if (uint64_t N = M.AccessHistogramSize) {
    if (uint64_t *H = histogramBuffer(N)) {
      memcpy(H, reinterpret_cast<const void *>(M.AccessHistogram),
             N * sizeof(uint64_t));
      E.Block.AccessHistogram = reinterpret_cast<uintptr_t>(H);
      E.Block.AccessHistogramSize = N;
    }
  }
}

bool MIBMap::merge(uint32_t Key, const MIB &M) {
  if ((Count + 1) * 2 > Capacity) {
    uint64_t NewCap = Capacity ? Capacity * 2 : 64;
    uint32_t NewShift = uint32_t(__builtin_clzll(NewCap)) + 1;
    MIBEntry *New =
        static_cast<MIBEntry *>(mapMemory(NewCap * sizeof(MIBEntry)));
    if (!New)
      return false;
    for (uint64_t I = 0; I < Capacity; ++I)
      if (Entries[I].Key)
        for (uint64_t J = firstProbe(Entries[I].Key, NewShift);;
             J = (J + 1) & (NewCap - 1))
          if (!New[J].Key) {
            New[J] = Entries[I];
            break;
          }
    unmapMemory(Entries, Capacity * sizeof(MIBEntry));
    Entries = New;
    Capacity = NewCap;
    Shift = NewShift;
  }
  uint64_t Mask = Capacity - 1;
  for (uint64_t I = firstProbe(Key, Shift);; I = (I + 1) & Mask) {
    MIBEntry &E = Entries[I];
    if (E.Key == Key && !E.Block.AllocCount) {
      setFirstBlock(E, M); // heap values only so far
      return true;
    }
    if (E.Key == Key) {
      uint64_t OldN = E.Block.AccessHistogramSize;
      uint64_t *OldH = reinterpret_cast<uint64_t *>(E.Block.AccessHistogram);
      mergeDump(E.Block, M);
      uint64_t NewN = M.AccessHistogramSize;
      const uint64_t *NewH =
          reinterpret_cast<const uint64_t *>(M.AccessHistogram);
      uint64_t *H = OldH;
      if (NewN > OldN && (!OldH || histogramCapacity(OldN) < NewN)) {
        H = histogramBuffer(NewN);
        if (H && OldH)
          memcpy(H, OldH, OldN * sizeof(uint64_t));
      }
      if (!H) { // out of memory: the histogram is dropped, not the block
        E.Block.AccessHistogramSize = 0;
        E.Block.AccessHistogram = 0;
        return true;
      }
      for (uint64_t J = 0; J < NewN; ++J)
        H[J] = saturatingAdd(H[J], NewH[J]);
      E.Block.AccessHistogram = reinterpret_cast<uintptr_t>(H);
      E.Block.AccessHistogramSize = NewN > OldN ? NewN : OldN;
      return true;
    }
    if (!E.Key) {
      E.Key = Key;
      ++Count;
      setFirstBlock(E, M);
      return true;
    }
  }
}

MEMPROF_ALWAYS_INLINE bool MIBMap::mergeIntoPresent(uint32_t Key,
                                                     const MIB &M) {
  if (MEMPROF_UNLIKELY(!Capacity))
    return false;
  uint64_t Mask = Capacity - 1;
  for (uint64_t I = firstProbe(Key, Shift);; I = (I + 1) & Mask) {
    MIBEntry &E = Entries[I];
    if (E.Key == Key) {
      mergeIntoEntry(E, M);
      return true;
    }
    if (!E.Key)
      return false;
  }
}

void MIBMap::release() {
  unmapMemory(Entries, Capacity * sizeof(MIBEntry));
  Entries = nullptr;
  Capacity = Count = 0;
  Shift = 0;
  for (HistBlock *B = HistBlocks; B;) {
    HistBlock *Next = B->Next;
    unmapMemory(B, B->Bytes);
    B = Next;
  }
  HistBlocks = nullptr;
  HistCur = HistEnd = nullptr;
}

//===-- Chunks ------------------------------------------------------------===//

namespace {

MEMPROF_ALWAYS_INLINE ChunkTail *tailOf(uintptr_t User) {
  return reinterpret_cast<ChunkTail *>(User - sizeof(ChunkTail));
}
/// The 32-byte header whose tail is \p T (not for tailOnly() kinds).
MEMPROF_ALWAYS_INLINE ChunkHeader *headerOf(const ChunkTail *T) {
  return reinterpret_cast<ChunkHeader *>(reinterpret_cast<uintptr_t>(T) -
                                         offsetof(ChunkHeader, Tail));
}
/// The requested size of the chunk of tail \p T, of kind \p Kind.
MEMPROF_ALWAYS_INLINE uint64_t sizeOf(const ChunkTail *T, unsigned Kind) {
  return tailOnly(Kind) ? infoOf(T) : headerOf(T)->UserSize;
}
MEMPROF_ALWAYS_INLINE uint64_t sizeOf(const ChunkTail *T) {
  return sizeOf(T, kindOf(T));
}

// The 32-byte header's check word: a keyed hash of its address and the
// fields that never change while the chunk lives (all but the context, which
// a reset clears). Not cryptographic: the tail's marker already tells our
// chunks from glibc's; the check guards the header's 64-bit size against a
// program writing before its block.
MEMPROF_ALWAYS_INLINE uint64_t tailHash(const ChunkTail *T) {
  uint64_t X =
      (reinterpret_cast<uintptr_t>(T) ^ G.Secret) * 0x9E3779B97F4A7C15ULL;
  X ^= (((uint64_t(T->InfoCpu) << 32) | T->SlotShard) ^ G.Secret) *
       0xC2B2AE3D27D4EB4FULL;
  X ^= ((uint64_t(T->AllocTimestampMs) << 8 | kindOf(T)) + G.Secret) *
       0x165667B19E3779F9ULL;
  X ^= X >> 31;
  return X;
}
uint64_t computeCheck(const ChunkHeader *H) {
  uint64_t X = tailHash(&H->Tail) * 0x94D049BB133111EBULL;
  X ^= (H->UserSize ^ G.Secret) * 0xD6E8FEB86659FD93ULL;
  X ^= X >> 29;
  return X | 1;
}

/// The glibc block of the chunk of tail \p T, of kind \p Kind.
MEMPROF_ALWAYS_INLINE void *blockOf(const ChunkTail *T, unsigned Kind) {
  uintptr_t TA = reinterpret_cast<uintptr_t>(T);
  switch (Kind) {
  case KindSmall:
  case KindSlab: // (a slot, not a glibc block)
    return reinterpret_cast<void *>(TA);
  case KindAligned:
    return reinterpret_cast<void *>(TA + sizeof(ChunkTail) -
                                    (uintptr_t(1) << infoOf(T)));
  default: // plain, compact: Info is the header's offset / 16
    return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(headerOf(T)) -
                                    uintptr_t(infoOf(T)) * 16);
  }
}

/// Clears the marker and check word, so that a stale tail or header is
/// never taken for a live one. CtxKind is cleared together with the
/// timestamp after it, in one 8-byte store: a small chunk's tail is glibc's
/// block, and glibc's free reads those 8 bytes at once (tcache's double-free
/// key). From a 4-byte store that read could not be forwarded: it waited
/// for the store to reach the cache, behind the free's live-table write,
/// a cache miss (perl: 86% of glibc's _int_free time).
MEMPROF_ALWAYS_INLINE void clearChecks(ChunkTail *T, unsigned Kind) {
  static_assert(offsetof(ChunkTail, AllocTimestampMs) ==
                    offsetof(ChunkTail, CtxKind) + 4,
                "CtxKind and the timestamp are one 8-byte word");
  if (!tailOnly(Kind))
    headerOf(T)->Check = 0;
  storeRelaxed(reinterpret_cast<uint64_t *>(&T->CtxKind), uint64_t(0));
}

/// Plain glibc memory for the runtime's own callers (the guard is set):
/// foreign to the runtime, so free() hands it back to glibc unrecorded.
void *rawAllocate(size_t Size, size_t Align, bool Zero) {
  if (Align > 16)
    return __libc_memalign(Align, Size);
  return Zero ? __libc_calloc(1, Size) : __libc_malloc(Size);
}

void computeStackBounds(ThreadState &T) {
  T.BoundsKnown = 1;
  int SavedErrno = errno;
  if (gettid() == getpid()) {
    // The main thread: frames lie below __libc_stack_end, within the stack
    // rlimit (capped, as RLIM_INFINITY would be meaningless).
    uintptr_t Hi = reinterpret_cast<uintptr_t>(__libc_stack_end);
    rlimit Lim;
    uint64_t Size = uint64_t(1) << 30;
    if (getrlimit(RLIMIT_STACK, &Lim) == 0 && Lim.rlim_cur < Size)
      Size = Lim.rlim_cur;
    T.StackHi = Hi;
    T.StackLo = Hi > Size ? Hi - Size : 0;
  } else {
    pthread_attr_t Attr;
    if (pthread_getattr_np(pthread_self(), &Attr) == 0) {
      void *Addr = nullptr;
      size_t Size = 0;
      if (pthread_attr_getstack(&Attr, &Addr, &Size) == 0) {
        T.StackLo = reinterpret_cast<uintptr_t>(Addr);
        T.StackHi = T.StackLo + Size;
      }
      pthread_attr_destroy(&Attr);
    }
  }
  errno = SavedErrno;
}

MEMPROF_ALWAYS_INLINE uint32_t contextOf(const void *Frame) {
  // A one-frame stack the depot knows: neither the stack's bounds nor the
  // walk are needed.
  const UnwindMode Mode = G.Opts.Unwind;
  if (Mode == UnwindMode::Fp)
    if (uint32_t Id = cachedOneFrameStackId(G.Opts.MaxStackDepth, Frame))
      return Id;
  ThreadState &T = TLS;
  if (MEMPROF_UNLIKELY(!T.BoundsKnown))
    computeStackBounds(T);
  uintptr_t Sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t Lo = T.StackLo, Hi = T.StackHi;
  // On a stack we do not know (sigaltstack, coroutines) only the caller of
  // the interceptor is recorded: it is read from our own frame.
  if (Sp < Lo || Sp >= Hi)
    Lo = Hi = 0;
  else
    Lo = Sp;
  if (Mode != UnwindMode::Fp)
    return captureStackIdCfi(
        G.Opts.MaxStackDepth, Frame, Lo, Hi, Mode == UnwindMode::Hybrid,
        G.Opts.CaptureMemo ? threadMemo(T, G.Opts.MaxStackDepth) : nullptr);
  return captureStackId(G.Opts.MaxStackDepth, Frame, Lo, Hi);
}

MEMPROF_ALWAYS_INLINE bool recording() { return !finished(); }

/// Writes \p Message to stderr unless \p Said was set: once per process.
void warnOnce(uint32_t &Said, const char *Message) {
  if (__atomic_exchange_n(&Said, 1u, __ATOMIC_RELAXED))
    return;
  Line L;
  L.add(Message);
  writeStderr(L);
}

/// The runtime ran out of memory for its tables (or of stack ids): some
/// allocations go unrecorded. Said once; the program is never stopped.
MEMPROF_NOINLINE void reportDegraded() {
  static uint32_t Said;
  warnOnce(Said, "memprof: warning: out of memory for the profile's tables; "
                 "some allocations are not recorded\n");
}

/// A free of a pointer in the slab region that no live chunk has (freed
/// twice, or never allocated): ignored, and said once.
MEMPROF_NOINLINE void reportBadSlabFree() {
  static uint32_t Said;
  warnOnce(Said, "memprof: warning: free of a pointer that no allocation "
                 "holds (freed twice?); ignored, where glibc would have "
                 "stopped the program: AddressSanitizer or valgrind finds "
                 "where\n");
}

/// The tail of \p U if the runtime made it. The 16 bytes before any
/// 16-aligned glibc pointer are glibc's chunk header, so reading them is
/// safe, and there bit 3 of the size field (the tail's CtxKind) is never set:
/// the tail's marker tells ours from glibc's. A 32-byte header's check word
/// is verified too; a slab chunk's pointer must be in the slab region.
ChunkTail *candidateTail(uintptr_t U) {
  if (!U || (U & 15) || loadAcquire(&G.InitState) != 2)
    return nullptr;
  ChunkTail *T = tailOf(U);
  uint32_t CK = loadRelaxed(&T->CtxKind);
  if (!(CK & TailMarker))
    return nullptr;
  unsigned Kind = CK & KindMask;
  // In the slab region (where glibc has no memory) only a slab chunk's user
  // pointer, 16 bytes into its slot, is ours.
  if (inSlabRegion(U)) {
    uintptr_t Slot = U - sizeof(ChunkTail);
    return Kind == KindSlab &&
                   slabSlotStart(Slot, loadRelaxed(&slabSpanOf(Slot).Class))
               ? T
               : nullptr;
  }
  if (Kind == KindSmall)
    return T;
  if (Kind < KindPlain || Kind > KindCompact)
    return nullptr;
  // A 32-byte header: ours are 32 mod 64 (plain), aligned to >= 64, or
  // (compact) 32 bytes into a glibc block, never 16 bytes into a page (where
  // glibc puts the pointer of a block it mmaps, before which nothing need
  // be mapped). The 32 bytes before any other 16-aligned glibc pointer are
  // glibc's memory.
  if ((U & 31) && (U & 4095) < 32)
    return nullptr;
  ChunkHeader *H = headerOf(T);
  return H->Check == computeCheck(H) ? T : nullptr;
}

} // namespace

ChunkTail *ownChunk(const void *P) {
  return candidateTail(reinterpret_cast<uintptr_t>(P));
}

namespace {

/// The block of one allocation ending at \p EndTs on \p EndCpu (freed, or
/// live at a dump), with its histogram if enabled, merged into \p Into by
/// merge(): recordEnd's slow path, and every live chunk at a dump.
MEMPROF_NOINLINE bool mergeBlock(MIBMap &Into, uint32_t Ctx, uintptr_t User,
                                 uint64_t Size, uint64_t Accesses,
                                 uint32_t AllocTs, uint32_t EndTs,
                                 uint32_t AllocCpu, uint32_t EndCpu) {
  MIB M = mibForAllocation(Size, Accesses, AllocTs, EndTs, AllocCpu, EndCpu);
  attachHistogram(M, User, Size);
  return Into.merge(Ctx, M);
}

/// Ends the chunk of tail \p T (user pointer \p User): if it is in a live
/// table it leaves it, and its MIB (with its access histogram, if enabled)
/// is merged into its shard's table when it is recorded (a context, not
/// inherited across fork) and \p Record; its shadow counters are cleared for
/// the next owner of the memory. \p Record false: only forgotten (runtime
/// code, or after the exit dump). The chunk's memory is not touched. With
/// \p Kept, the slot stays taken (empty, for the chunk's next allocation:
/// realloc) and is returned there, or UntrackedSlot. Everything is read from
/// the tail, which the caller has just read: the live table is only written.
/// \p Lean: the common free, inlined into deallocate: recorded (\p Record is
/// true), no slot kept, no shadow (so no access counts) and no histograms.
template <bool Lean>
MEMPROF_ALWAYS_INLINE void recordEndImpl(ChunkTail *T, uintptr_t User,
                                         bool Record, uint32_t *Kept,
                                         unsigned Kind = 0) {
  if (!Lean && Kept)
    *Kept = UntrackedSlot;
  uint32_t SS = T->SlotShard;
  if (SS == UntrackedSlot)
    return;
  Shard &S = shardOf(SS);
  uint32_t I = SS & SlotMask;
  // The slot's bit is cleared below: its line is fetched while the clock
  // and the CPU are read. (The bitmap may move under the lock meanwhile: a
  // prefetch never faults.)
  __builtin_prefetch(loadRelaxed(&S.Live.Taken) + (I >> 6), 1);
  // (Lean: the caller has read the chunk's kind.)
  uint64_t Size = Lean ? sizeOf(T, Kind) : sizeOf(T);
  uint64_t Accesses =
      Lean ? 0 : shadowAccessCount(User, Size, /*Clear=*/false);
  uint32_t AllocTs = T->AllocTimestampMs, AllocCpu = T->InfoCpu >> 16;
  uint32_t Now = 0, Cpu = 0;
  if (Lean || Record) {
    Now = nowMs();
    Cpu = currentCpu();
  }
  S.Lock.lock();
  if (MEMPROF_UNLIKELY(I >= S.Live.Used)) {
    // Not a slot this table handed out: a tail the program overwrote.
    S.Lock.unlock();
    return;
  }
  // A reset clears the context (under this lock); a chunk inherited across
  // fork is the parent's to record.
  uint32_t Ctx = contextIdOf(T);
  bool Current = S.Live.current(I);
  bool Lost = false;
  // The chunk's allocation made its context's entry (recordStart).
  MIBEntry *E = Ctx && Current ? S.Freed.find(Ctx) : nullptr;
  uint64_t Total = 0;
  if (MEMPROF_LIKELY(E))
    Total = heapSub(*E, Size);
  if ((Lean || Record) && Ctx && Current) {
    // The block of this allocation, merged into its context's: inlined
    // twice, so that without the pass (no accesses) the compiler folds
    // the access fields' arithmetic away. The common case (the context has
    // its entry, no histograms) never builds the block in memory; the rest
    // is out of line.
    auto Merge = [&](uint64_t A) __attribute__((always_inline)) {
      if ((Lean || MEMPROF_LIKELY(!G.Opts.Histogram)) && MEMPROF_LIKELY(E)) {
        MIBMap::mergeIntoEntry(
            *E, mibForAllocation(Size, A, AllocTs, Now, AllocCpu, Cpu));
        return true;
      }
      return mergeBlock(S.Freed, Ctx, User, Size, A, AllocTs, Now, AllocCpu,
                        Cpu);
    };
    Lost = !(Accesses ? Merge(Accesses) : Merge(0));
  }
  if (!Lean && Kept && Current) {
    S.Live.Slots[I] = 0;
    *Kept = SS;
  } else {
    S.Live.remove(I);
  }
  S.Lock.unlock();
  if (MEMPROF_UNLIKELY(Lost))
    reportDegraded();
  if (!Lean && Accesses)
    shadowAccessCount(User, Size, /*Clear=*/true);
  if ((Lean || Record) && E && MEMPROF_UNLIKELY(sampleDue(Total, Now)))
    takeSample(Now);
}

MEMPROF_NOINLINE void recordEnd(ChunkTail *T, uintptr_t User, bool Record,
                                uint32_t *Kept = nullptr) {
  recordEndImpl<false>(T, User, Record, Kept);
}

/// Gives back a slot recordEnd kept.
void releaseSlot(uint32_t SS) {
  if (SS == UntrackedSlot)
    return;
  Shard &S = shardOf(SS);
  ScopedLock Guard(S.Lock);
  S.Live.remove(SS & SlotMask);
}

/// Writes the tail \p F of the chunk at \p User (and, unless \p Small (a
/// tailOnly() kind), its 32-byte header's size and check word).
MEMPROF_ALWAYS_INLINE void writeChunk(uintptr_t User, ChunkTail F, bool Small,
                                      uint64_t Size) {
  ChunkTail *T = tailOf(User);
  *T = F;
  if (!Small) {
    ChunkHeader *H = headerOf(T);
    H->UserSize = Size;
    H->Check = computeCheck(H);
  }
}

/// Writes the header of a new chunk of \p Size bytes at \p User, of
/// \p Kind (\p Info: its layout), recorded with the context above \p Frame,
/// and enters it in a live table: in slot \p Reserved (one recordEnd kept)
/// or a new one of this thread's shard. A chunk gets a slot only when
/// recorded (or when it has one reserved); without a context or a slot it is
/// not recorded. The header is written under the shard's lock, together with
/// the live-table entry: a dump, which reads the live chunks' tails under
/// that lock, never sees a chunk whose tail is not written yet (or
/// overwrites a reset's mark on it).
MEMPROF_ALWAYS_INLINE void recordStart(ThreadState &TS, uintptr_t User,
                                       uint64_t Size, unsigned Kind,
                                       uint32_t Info, const void *Frame,
                                       uint32_t Reserved) {
  bool Small = tailOnly(Kind);
  ChunkTail F;
  F.InfoCpu = Small ? uint32_t(Size) : Info;
  F.SlotShard = UntrackedSlot;
  F.CtxKind = uint32_t(Kind) | TailMarker;
  F.AllocTimestampMs = 0;
  // (A function, not a lambda: a closure over F was built on the stack
  // before every allocation's first branch.)
  uint32_t Ctx = 0;
  if (recording()) {
    Ctx = contextOf(Frame);
    if (MEMPROF_UNLIKELY(!Ctx))
      reportDegraded();
  }
  if (!Ctx && Reserved == UntrackedSlot) {
    writeChunk(User, F, Small, Size);
    return;
  }
  if (Ctx) {
    F.AllocTimestampMs = nowMs();
    uint32_t Cpu = currentCpu();
    F.InfoCpu |= (Cpu > 0xFFFF ? 0xFFFFu : Cpu) << 16;
  }
  uint32_t SS = Reserved;
  Shard *S;
  if (SS != UntrackedSlot) {
    S = &shardOf(SS);
    S->Lock.lock();
  } else {
    unsigned Index = threadShard(TS);
    S = &Shards[Index];
    S->Lock.lock();
    uint32_t I;
    if (MEMPROF_UNLIKELY(!S->Live.take(I))) {
      S->Lock.unlock();
      F.InfoCpu &= 0xFFFF;
      F.AllocTimestampMs = 0;
      writeChunk(User, F, Small, Size); // not tracked, not recorded
      reportDegraded();
      return;
    }
    SS = (uint32_t(Index) << SlotBits) | I;
  }
  // The context's entry in the shard counts the chunk as live; without
  // one (out of memory) the chunk is tracked but not recorded.
  MIBEntry *E = Ctx ? S->Freed.entryFor(Ctx) : nullptr;
  uint64_t Total = 0;
  bool Lost = false;
  if (MEMPROF_LIKELY(E)) {
    Total = heapAdd(*E, Size, F.AllocTimestampMs);
  } else if (Ctx) {
    Lost = true;
    Ctx = 0;
    F.InfoCpu &= 0xFFFF;
    F.AllocTimestampMs = 0;
  }
  S->Live.Slots[SS & SlotMask] = User;
  F.SlotShard = SS;
  F.CtxKind |= Ctx << CtxShift;
  writeChunk(User, F, Small, Size);
  S->Lock.unlock();
  if (MEMPROF_UNLIKELY(Lost))
    reportDegraded();
  else if (E && MEMPROF_UNLIKELY(sampleDue(Total, F.AllocTimestampMs)))
    takeSample(F.AllocTimestampMs);
}

/// A slab chunk of \p Size <= SlabMaxSize bytes from this thread's shard,
/// recorded; nullptr if the slab has no room (then glibc serves).
MEMPROF_NOINLINE void *slabAllocate(ThreadState &TS, size_t Size, bool Zero,
                                    bool Compact, const void *Frame) {
  unsigned Index = threadShard(TS);
  Shard &S = Shards[Index];
  S.Lock.lock();
  uintptr_t Slot = slabTake(S, Index, slabClassOf(Size, Compact));
  S.Lock.unlock();
  if (MEMPROF_UNLIKELY(!Slot))
    return nullptr;
  uintptr_t User = Slot + sizeof(ChunkTail);
  if (Zero) // a slot freed before holds its last owner's bytes
    memset(reinterpret_cast<void *>(User), 0, Size);
  recordStart(TS, User, Size, KindSlab, 0, Frame, UntrackedSlot);
  return reinterpret_cast<void *>(User);
}

using UsableSizeFn = size_t (*)(void *);
UsableSizeFn RealUsableSize;

} // namespace

void *allocate(size_t Size, size_t Align, bool Zero, const void *Frame) {
  ThreadState &T = TLS;
  if (MEMPROF_UNLIKELY(T.InRuntime)) {
    if (T.InRuntime == InRuntimeProbe)
      T.InRuntime = InRuntimeProbeAnswered;
    return rawAllocate(Size, Align, Zero);
  }
  T.InRuntime = 1;
  ensureInit();
  if (MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest();

  const bool CompactChunks = loadRelaxed(&G.CompactChunks);
  if (Align <= 16) {
    // Small requests from a granule slab, if it has room.
    if (Size <= SlabMaxSize && G.Opts.GranuleSlab)
      if (void *P = slabAllocate(T, Size, Zero, CompactChunks, Frame)) {
        T.InRuntime = 0;
        return P;
      }
    // Small: the tail at the block's start, 16 bytes of overhead.
    if (CompactChunks && MEMPROF_LIKELY(Size <= SmallMaxSize)) {
      void *Block = Zero ? __libc_calloc(1, Size + SmallOverhead)
                         : __libc_malloc(Size + SmallOverhead);
      if (!Block) {
        T.InRuntime = 0;
        errno = ENOMEM;
        return nullptr;
      }
      uintptr_t User = reinterpret_cast<uintptr_t>(Block) + SmallOverhead;
      recordStart(T, User, Size, KindSmall, 0, Frame, UntrackedSlot);
      T.InRuntime = 0;
      return reinterpret_cast<void *>(User);
    }
    // Compact: the 32-byte header at the block's start. A user pointer 16
    // bytes into a page would be taken for a glibc mmap block (ownChunk):
    // such a block is grown by 16 bytes (glibc extends it in place or moves
    // it) and the header moves 16 bytes further in. (Freeing it and asking
    // again would get the same block back from glibc's cache, every time.)
    // With exact granules, ExactSlack bytes more: the user bytes then end
    // at least 16 bytes before the next glibc block's user pointer, so that
    // no granule holds bytes of two blocks (docs/runtime.md, "Design").
    // (A block of 0 bytes is given one: its pointer owns its granule too.)
    const size_t Extra =
        CompactOverhead + (CompactChunks ? 0 : ExactSlack + (Size == 0));
    if (Size > SIZE_MAX - Extra - 16) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    void *Block = Zero ? __libc_calloc(1, Size + Extra)
                       : __libc_malloc(Size + Extra);
    if (!Block) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    uintptr_t B = reinterpret_cast<uintptr_t>(Block);
    uint32_t Info = 0;
    if (MEMPROF_UNLIKELY(((B + sizeof(ChunkHeader)) & 4095) == 16)) {
      void *Grown = __libc_realloc(Block, Size + Extra + 16);
      if (!Grown) {
        __libc_free(Block);
        T.InRuntime = 0;
        errno = ENOMEM;
        return nullptr;
      }
      B = reinterpret_cast<uintptr_t>(Grown);
      if (((B + sizeof(ChunkHeader)) & 4095) == 16)
        Info = 1; // header at B + 16, user pointer 48 bytes in
      if (Zero) // the 16 bytes glibc added (the rest was copied or kept)
        memset(reinterpret_cast<void *>(B + Extra + Size), 0, 16);
    }
    uintptr_t User = B + Info * 16 + sizeof(ChunkHeader);
    recordStart(T, User, Size, KindCompact, Info, Frame, UntrackedSlot);
    T.InRuntime = 0;
    return reinterpret_cast<void *>(User);
  }

  uintptr_t User;
  unsigned Kind;
  uint32_t Info;
  if (Align <= 32) {
    if (Size > SIZE_MAX - PlainOverhead) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    void *Block = Zero ? __libc_calloc(1, Size + PlainOverhead)
                       : __libc_malloc(Size + PlainOverhead);
    if (!Block) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    uintptr_t B = reinterpret_cast<uintptr_t>(Block);
    uintptr_t H = alignUp(B, 64);
    User = H + sizeof(ChunkHeader);
    Kind = KindPlain;
    Info = uint32_t((H - B) / 16);
  } else {
    if (Size > SIZE_MAX - Align - ExactSlack) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    void *Block = __libc_memalign(Align, Size + Align + ExactSlack + (Size == 0));
    if (!Block) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    User = reinterpret_cast<uintptr_t>(Block) + Align;
    Kind = KindAligned;
    Info = uint32_t(__builtin_ctzll(Align));
    if (Zero)
      memset(reinterpret_cast<void *>(User), 0, Size);
  }
  recordStart(T, User, Size, Kind, Info, Frame, UntrackedSlot);
  T.InRuntime = 0;
  return reinterpret_cast<void *>(User);
}

/// glibc's own malloc_usable_size: not the next definition after this
/// library, which is another allocator's when one is preloaded after it.
void resolveGlibcUsableSize() {
  if (loadAcquire(&RealUsableSize))
    return;
  RuntimeScope Scope; // dlopen may allocate
  if (void *Libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD))
    lookupOnce(RealUsableSize, Libc, "malloc_usable_size");
}

size_t glibcUsableSize(void *P) {
  resolveGlibcUsableSize();
  UsableSizeFn F = loadAcquire(&RealUsableSize);
  return F ? F(P) : 0;
}

void deallocate(void *P) {
  if (!P)
    return;
  uintptr_t U = reinterpret_cast<uintptr_t>(P);
  ChunkTail *T = candidateTail(U);
  if (!T) {
    // In the slab region, a pointer that is no live chunk's (a double free,
    // which glibc would abort on) is ignored: glibc has no memory there.
    if (!inSlabRegion(U))
      __libc_free(P);
    else
      reportBadSlabFree();
    return;
  }
  RuntimeScope Scope;
  bool Nested = Scope.nested();
  if (!Nested && MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest(); // keeps errno
  // The common case gets recordEnd inlined without what it does not need:
  // about 50 instructions fewer per free. It is recorded (not nested, not
  // finished), with no shadow and no histograms (G.SlowFree has a bit for
  // each of these). Nothing on it sets errno (the clock and the CPU come
  // from the vDSO and rseq, a spin lock yields at worst, and mapping memory
  // or warning keeps errno), and neither does glibc's free since 2.33
  // (another bit): errno need not be saved.
  bool Lean = !Nested && !loadRelaxed(&G.SlowFree);
  int SavedErrno = Lean ? 0 : errno;
  // (A reset changes only the tail's context: the kind is read once.)
  unsigned Kind = kindOf(T);
  if (Lean)
    recordEndImpl<true>(T, U, true, nullptr, Kind);
  else
    recordEnd(T, U, !Nested && recording());
  void *Block = blockOf(T, Kind);
  clearChecks(T, Kind);
  if (Kind == KindSlab)
    slabRelease(reinterpret_cast<uintptr_t>(Block));
  else
    __libc_free(Block);
  if (!Lean)
    errno = SavedErrno;
}

namespace {
/// realloc by moving: a new chunk, a copy, a free of the old one.
void *reallocateByMoving(void *P, ChunkTail *T, size_t Size,
                         const void *Frame) {
  void *New = allocate(Size, 0, false, Frame);
  if (!New)
    return nullptr;
  uint64_t Old = sizeOf(T);
  memcpy(New, P, Old < Size ? Old : Size);
  deallocate(P);
  return New;
}

/// A shrink that would leave this many bytes unused gives them back to
/// glibc (which shrinks in place) instead of keeping them in the chunk.
constexpr size_t ShrinkReturnBytes = 4096;
} // namespace

void *reallocate(void *P, size_t Size, const void *Frame) {
  ChunkTail *T = ownChunk(P);
  if (!T)
    return __libc_realloc(P, Size);
  ThreadState &TS = TLS;
  unsigned Kind = kindOf(T);
  // Aligned chunks keep their alignment only through a move; runtime code
  // (the guard is set) gets the simple path.
  if (Kind == KindAligned || TS.InRuntime)
    return reallocateByMoving(P, T, Size, Frame);
  if (Kind == KindSlab) {
    // In place while the size class stays (glibc would split off a
    // smaller block's worth: a move to a smaller slot does); otherwise a
    // move, which keeps the block as it was if it fails (errno ENOMEM).
    uintptr_t User = reinterpret_cast<uintptr_t>(P);
    if (Size > SlabMaxSize ||
        slabClassOf(Size, loadRelaxed(&G.CompactChunks)) !=
            slabSpanOf(User).Class)
      return reallocateByMoving(P, T, Size, Frame);
    int SavedErrno = errno;
    TS.InRuntime = 1;
    if (MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
      serviceDumpRequest();
    uint32_t Slot;
    recordEnd(T, User, recording(), &Slot);
    recordStart(TS, User, Size, KindSlab, 0, Frame, Slot);
    TS.InRuntime = 0;
    errno = SavedErrno;
    return P;
  }
  if (Size > SIZE_MAX - PlainOverhead) {
    errno = ENOMEM;
    return nullptr;
  }
  if (Kind == KindSmall && Size > SmallMaxSize) {
    // A small chunk holds less than 64 KiB: a move to a compact one. If that
    // fails, as when glibc's realloc fails: the block lives on, as a new
    // allocation of its size at this context.
    if (void *New = reallocateByMoving(P, T, Size, Frame))
      return New;
    uint64_t OldSize = sizeOf(T);
    uintptr_t User = reinterpret_cast<uintptr_t>(P);
    uint32_t Slot;
    TS.InRuntime = 1;
    recordEnd(T, User, recording(), &Slot);
    recordStart(TS, User, OldSize, KindSmall, 0, Frame, Slot);
    TS.InRuntime = 0;
    errno = ENOMEM;
    return nullptr;
  }
  int SavedErrno = errno;
  TS.InRuntime = 1;
  if (MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest();

  // In place when glibc's block has room (or shrinks in place); otherwise
  // glibc's realloc, which may extend the block or move it. Either way the
  // old allocation ends here and a new one starts at the realloc's context,
  // as a move would record it (docs/runtime.md). The new one takes the old
  // one's live-table slot, so a small chunk always has one.
  uint64_t OldSize = sizeOf(T, Kind);
  uintptr_t User = reinterpret_cast<uintptr_t>(P);
  uint8_t *Block = static_cast<uint8_t *>(blockOf(T, Kind));
  size_t Offset = size_t(User - reinterpret_cast<uintptr_t>(Block));
  bool AtStart = Kind == KindCompact || Kind == KindSmall;
  // A compact chunk made with exact granules keeps its ExactSlack bytes.
  const size_t Slack =
      Kind == KindCompact && !loadRelaxed(&G.CompactChunks) ? ExactSlack : 0;
  size_t Room = glibcUsableSize(Block) - Offset;
  Room = Room > Slack ? Room - Slack : 0;
  uint64_t Keep = OldSize < Size ? OldSize : Size;
  bool Recording = recording();
  uint32_t Slot;
  if (Size > Room || Room - Size >= ShrinkReturnBytes) {
    // The old allocation ends before glibc may release its memory.
    size_t Need = Size + (AtStart ? Offset + Slack : PlainOverhead);
    recordEnd(T, User, Recording, &Slot);
    clearChecks(T, Kind);
    uint8_t *NewBlock = static_cast<uint8_t *>(__libc_realloc(Block, Need));
    bool Failed = !NewBlock;
    if (Failed) {
      // glibc left the block as it was: it lives on (as a new allocation
      // of the old size; its accesses so far are in the ended one).
      NewBlock = Block;
      Size = OldSize;
      Keep = Size;
    }
    uintptr_t NB = reinterpret_cast<uintptr_t>(NewBlock);
    uintptr_t NewUser;
    uint32_t Info = 0;
    if (AtStart) {
      NewUser = NB + Offset;
      if (Kind == KindCompact && MEMPROF_UNLIKELY((NewUser & 4095) == 16)) {
        // ownChunk would take this pointer for a glibc mmap block. The data
        // moves to the block's start, which is handed out as a plain glibc
        // block: correct for free and realloc, but not recorded (rare: a
        // move to 16 bytes before a page boundary).
        releaseSlot(Slot);
        memmove(NewBlock, NewBlock + Offset, Keep);
        TS.InRuntime = 0;
        if (Failed) {
          errno = ENOMEM;
          return nullptr; // unreachable: a failed realloc did not move
        }
        errno = SavedErrno;
        return NewBlock;
      }
      if (Kind == KindCompact)
        Info = uint32_t((NewUser - sizeof(ChunkHeader) - NB) / 16);
    } else {
      NewUser = alignUp(NB, 64) + sizeof(ChunkHeader);
      if (NewUser - NB != Offset)
        memmove(reinterpret_cast<void *>(NewUser), NewBlock + Offset, Keep);
      Info = uint32_t((NewUser - sizeof(ChunkHeader) - NB) / 16);
    }
    recordStart(TS, NewUser, Size, Kind, Info, Frame, Slot); // writes the header
    TS.InRuntime = 0;
    if (Failed) {
      errno = ENOMEM;
      return nullptr;
    }
    errno = SavedErrno;
    return reinterpret_cast<void *>(NewUser);
  }
  // In place: the same chunk, a new allocation.
  uint32_t Info = infoOf(T);
  recordEnd(T, User, Recording, &Slot);
  recordStart(TS, User, Size, Kind, Info, Frame, Slot); // writes the header
  TS.InRuntime = 0;
  errno = SavedErrno;
  return P;
}

size_t usableSize(void *P) {
  if (ChunkTail *T = ownChunk(P))
    return sizeOf(T);
  return 0;
}

//===-- Dumps, resets and fork --------------------------------------------===//

namespace {
/// Empties a shard's record (its lock held): the MIB table, and the live
/// chunks of this generation, whose contexts are cleared (the check words
/// do not cover them) so that they are never reported, live or freed. They
/// stay in the live table until freed.
void forgetShard(Shard &S) {
  S.Live.forEachCurrent([&](uint64_t User) {
    ChunkTail *T = tailOf(User);
    uint32_t CK = loadRelaxed(&T->CtxKind);
    if (CK >> CtxShift)
      storeRelaxed(&T->CtxKind, CK & ((uint32_t(1) << CtxShift) - 1));
  });
  S.Freed.release();
}
} // namespace

namespace {
/// A new peak starts now, from what is live (after a reset: nothing).
void restartHeap(uint32_t Now) {
  ScopedLock Guard(H.SampleLock);
  // (Every table was emptied: no entry holds a tag of the old peak.)
  storeRelaxed(&H.PeakBytes, loadRelaxed(&H.LiveBytes));
  storeRelaxed(&H.PeakTimeMs, Now);
  H.NumSamples = 0;
  H.Thinnings = 0;
  H.ScanNs = 0;
  storeRelaxed(&H.NextSampleMs, 0u);
  storeRelaxed(&H.SampleLo, uint64_t(0));
  storeRelaxed(&H.SampleHi, uint64_t(0));
}

/// The live bytes of shard \p S's entries (its lock held), which leave the
/// total when the shard is forgotten.
uint64_t shardLiveBytes(const Shard &S) {
  uint64_t Sum = 0;
  for (uint64_t I = 0; I < S.Freed.Capacity; ++I)
    if (S.Freed.Entries[I].Key)
      Sum += S.Freed.Entries[I].LiveBytes;
  return Sum;
}
} // namespace

bool collectProfile(MIBMap &Out, bool Reset, HeapTotals *Totals,
                    HeapSampleInfo *Samples) {
  uint32_t Now = nowMs();
  uint32_t Cpu = currentCpu();
  uint64_t Peak = loadRelaxed(&H.PeakBytes);
  bool Ok = true;
  for (Shard &S : Shards) {
    ScopedLock Guard(S.Lock);
    for (uint64_t I = 0; I < S.Freed.Capacity; ++I) {
      const MIBEntry &E = S.Freed.Entries[I];
      if (E.Key && E.Block.AllocCount)
        Ok &= Out.merge(E.Key, E.Block);
    }
    // The shard's lock keeps these chunks allocated while we read them.
    S.Live.forEachCurrent([&](uint64_t User) {
      const ChunkTail *T = tailOf(User);
      uint32_t Ctx = contextIdOf(T);
      if (!Ctx)
        return;
      uint64_t Size = sizeOf(T);
      Ok &= mergeBlock(Out, Ctx, User, Size,
                       shadowAccessCount(User, Size, false),
                       T->AllocTimestampMs, Now, T->InfoCpu >> 16, Cpu);
    });
    // The heap values, into the entries just made (a context with live or
    // peak blocks here has a block here: freed, or live and merged above).
    for (uint64_t I = 0; I < S.Freed.Capacity; ++I) {
      const MIBEntry &E = S.Freed.Entries[I];
      uint64_t PeakBytes, PeakBlocks;
      peakOf(E, Peak, PeakBytes, PeakBlocks);
      if (!E.Key || (!E.LiveBlocks && !PeakBlocks))
        continue;
      if (MIBEntry *O = Out.find(E.Key)) {
        O->LiveBytes += E.LiveBytes;
        O->LiveBlocks += E.LiveBlocks;
        O->PeakBytes += PeakBytes;
        O->PeakBlocks += PeakBlocks;
      }
    }
    if (Reset) {
      if (uint64_t Live = shardLiveBytes(S))
        __atomic_sub_fetch(&H.LiveBytes, Live, __ATOMIC_RELAXED);
      forgetShard(S);
    }
  }
  if (Totals)
    *Totals = collectHeapTotals(Samples);
  if (Reset)
    restartHeap(Now);
  return Ok;
}

void resetProfile() {
  for (Shard &S : Shards) {
    ScopedLock Guard(S.Lock);
    if (uint64_t Live = shardLiveBytes(S))
      __atomic_sub_fetch(&H.LiveBytes, Live, __ATOMIC_RELAXED);
    forgetShard(S);
  }
  restartHeap(nowMs());
}

HeapTotals collectHeapTotals(HeapSampleInfo *Samples) {
  ScopedLock Guard(H.SampleLock);
  HeapTotals T;
  T.PeakBytes = loadRelaxed(&H.PeakBytes);
  T.PeakTimeMs = loadRelaxed(&H.PeakTimeMs);
  T.NumSamples = H.Samples ? H.NumSamples : 0;
  if (T.NumSamples)
    memcpy(Samples, H.Samples, T.NumSamples * sizeof(HeapSampleInfo));
  return T;
}

namespace {
/// Enters context \p Key with \p Bytes live into \p X's top list, which
/// is kept largest first (ties: smaller id first). Entries of one context
/// in several shards add up while the context is in the list.
void insertTop(HeapSampleInfo &X, uint64_t Key, uint64_t Bytes) {
  uint64_t I = 0;
  while (I < X.NumTop && X.TopIds[I] != Key)
    ++I;
  if (I < X.NumTop) {
    X.TopBytes[I] += Bytes;
  } else if (X.NumTop < raw::HeapMaxTop) {
    I = X.NumTop++;
    X.TopIds[I] = Key;
    X.TopBytes[I] = Bytes;
  } else {
    I = X.NumTop - 1;
    if (Bytes < X.TopBytes[I] || (Bytes == X.TopBytes[I] && Key > X.TopIds[I]))
      return;
    X.TopIds[I] = Key;
    X.TopBytes[I] = Bytes;
  }
  auto Before = [&](uint64_t A, uint64_t B) {
    return X.TopBytes[A] > X.TopBytes[B] ||
           (X.TopBytes[A] == X.TopBytes[B] && X.TopIds[A] < X.TopIds[B]);
  };
  for (; I > 0 && Before(I, I - 1); --I) {
    uint64_t Id = X.TopIds[I], B = X.TopBytes[I];
    X.TopIds[I] = X.TopIds[I - 1];
    X.TopBytes[I] = X.TopBytes[I - 1];
    X.TopIds[I - 1] = Id;
    X.TopBytes[I - 1] = B;
  }
}
} // namespace

namespace {
/// A timeline sample (docs/heap-data.md): called outside every shard's
/// lock by the allocation or free that found one due.
MEMPROF_NOINLINE void takeSample(uint32_t Now) {
  if (!H.SampleLock.tryLock())
    return; // another thread samples now
  uint64_t Total = loadRelaxed(&H.LiveBytes);
  if (!sampleDue(Total, Now) || H.SamplesUnmapped) {
    H.SampleLock.unlock();
    return;
  }
  // The samples' times never go back (another thread's sample may have
  // read the clock after this one's caller did), and no sample is above
  // the peak: the total can be read between another thread's add and its
  // raising of the peak (by compare-and-swap here, whatever the mode: that
  // thread raises it to the same value).
  Now = nowMs();
  if (H.NumSamples && Now < H.Samples[H.NumSamples - 1].TimeMs)
    Now = uint32_t(H.Samples[H.NumSamples - 1].TimeMs);
  if (Total > loadRelaxed(&H.PeakBytes))
    raisePeak(Total, Now);
  if (!H.Samples) {
    H.Samples = static_cast<HeapSampleInfo *>(
        mapMemory(raw::HeapMaxSamples * sizeof(HeapSampleInfo)));
    if (!H.Samples) {
      H.SamplesUnmapped = true; // no timeline; never asked again
      storeRelaxed(&H.NextSampleMs, ~0u);
      storeRelaxed(&H.SampleLo, uint64_t(0));
      storeRelaxed(&H.SampleHi, ~uint64_t(0));
      H.SampleLock.unlock();
      return;
    }
  }
  if (H.NumSamples == raw::HeapMaxSamples) {
    // Full: every other sample goes, and the thresholds double.
    for (uint64_t I = 1; I < raw::HeapMaxSamples / 2; ++I)
      H.Samples[I] = H.Samples[2 * I];
    H.NumSamples = raw::HeapMaxSamples / 2;
    ++H.Thinnings;
  }
  HeapSampleInfo &X = H.Samples[H.NumSamples++];
  X.TimeMs = Now;
  X.TotalBytes = Total;
  X.NumTop = 0;
  // The scans for the largest contexts are rationed.
  uint64_t Start = preciseNs();
  if (H.ScanNs * ScanShare < Start - G.StartNs) {
    for (Shard &S : Shards) {
      ScopedLock Guard(S.Lock);
      for (uint64_t I = 0; I < S.Freed.Capacity; ++I) {
        const MIBEntry &E = S.Freed.Entries[I];
        if (E.Key && E.LiveBytes)
          insertTop(X, E.Key, E.LiveBytes);
      }
    }
    H.ScanNs += preciseNs() - Start;
  }
  uint32_t Shift = H.Thinnings < 20 ? H.Thinnings : 20;
  uint64_t Delta =
      loadRelaxed(&H.PeakBytes) / 1000 * (SamplePermille << Shift);
  if (Delta < (SampleMinBytes << Shift))
    Delta = SampleMinBytes << Shift;
  storeRelaxed(&H.NextSampleMs, Now + (SampleIntervalMs << Shift));
  storeRelaxed(&H.SampleLo, Total > Delta ? Total - Delta : 0);
  storeRelaxed(&H.SampleHi, Total + Delta);
  H.SampleLock.unlock();
}
} // namespace

void lockAllShards() {
  H.SampleLock.lock();
  for (Shard &S : Shards)
    S.Lock.lock();
  SlabRegion.EmptyLock.lock();
}

void unlockAllShards() {
  SlabRegion.EmptyLock.unlock();
  for (Shard &S : Shards)
    S.Lock.unlock();
  H.SampleLock.unlock();
}

void resetShardsInChild() {
  // The parent reports what it allocated; the child starts with an empty
  // record, and its frees of inherited chunks (slots below GenBase) record
  // nothing and never free their slots, so no slot of the child's own chunks
  // is ever below GenBase. No inherited header is written, so no page of the
  // heap is copied; the parent's free slots are left unused.
  for (Shard &S : Shards) {
    S.Live.startGeneration();
    S.Freed.release();
  }
  // Nothing is live in the child's record: its own peak and timeline.
  storeRelaxed(&H.LiveBytes, uint64_t(0));
  storeRelaxed(&H.PeakBytes, uint64_t(0));
  storeRelaxed(&H.PeakTimeMs, nowMs());
  H.NumSamples = 0;
  H.Thinnings = 0;
  H.ScanNs = 0;
  storeRelaxed(&H.NextSampleMs, 0u);
  storeRelaxed(&H.SampleLo, uint64_t(0));
  storeRelaxed(&H.SampleHi, uint64_t(0));
}

} // namespace rt
} // namespace memprof
