//===- Allocator.cpp - Chunks, shadow, live set and the MIB table ---------===//
//
// Chunks come from glibc's allocator (__libc_malloc/__libc_memalign), with a
// 32-byte header placed so that the user pointer is 32 mod 64 (or aligned as
// requested) and no 64-byte granule holds bytes of two allocations.
//
// Recording is sharded by the chunk's address into 64 shards, each with its
// own spin lock, set of live chunks and table of freed MIBs. A free takes
// only its shard's lock; a dump visits the shards one at a time, so every
// allocation is counted exactly once per dump: freed (in the table) or live
// (as if freed at the dump), never both and never neither.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"
#include "Shadow.h"
#include "StackDepot.h"

#include <dlfcn.h>
#include <errno.h>
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

GlobalState G = {0,     0,     0, false, false, 0, {64, true, 0, false, 0, false, HistogramMaxBytesDefault, -1},
                 false, 0, false};
__thread ThreadState TLS __attribute__((tls_model("initial-exec")));

//===-- Initialization, time and CPU --------------------------------------===//

namespace {
// Timestamps are milliseconds, and MemProf's thresholds are seconds: the
// coarse clock (one tick, 1-10 ms, of resolution) costs a quarter of the
// precise one in the vDSO, on every allocation and free.
uint64_t monotonicNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &Ts);
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
  // The shadow covers the whole user address space; pages materialize only
  // when a counter is written. Without it access counts are 0.
  if (void *Shadow = mapMemory(ShadowReserveBytes, /*NoReserve=*/true)) {
    madvise(Shadow, ShadowReserveBytes, MADV_NOHUGEPAGE);
    madvise(Shadow, ShadowReserveBytes, MADV_DONTDUMP);
    storeRelease(&memprof_shadow_base, reinterpret_cast<uintptr_t>(Shadow));
  }
  errno = SavedErrno;
  storeRelease(&G.InitState, 2u);
}

uint32_t nowMs() { return uint32_t((monotonicNs() - G.StartNs) / 1000000); }

uint32_t currentCpu() {
  // The rseq area's cpu_id (struct rseq: cpu_id_start at 0, cpu_id at 4),
  // written by the kernel on every return to this thread: one load instead
  // of sched_getcpu's vDSO call. Negative before registration or if it
  // failed; sched_getcpu then.
  if (&__rseq_size && __rseq_size >= 8) {
    const char *Area = static_cast<const char *>(__builtin_thread_pointer()) +
                       __rseq_offset;
    int32_t Cpu = __atomic_load_n(
        reinterpret_cast<const int32_t *>(Area + 4), __ATOMIC_RELAXED);
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
uint64_t shadowAccessCount(uintptr_t User, uint64_t Size, bool Clear) {
  uintptr_t Base = loadAcquire(&memprof_shadow_base);
  if (!Base)
    return 0;
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

/// The live chunks of a shard: a dense array of user pointers (0: a free
/// slot) whose index is kept in the chunk's header (ChunkHeader::Slot), and
/// a stack of the free slots. Inserting pops a recently freed slot (in
/// cache), removing pushes one; neither reads a cold slot, so neither waits
/// for memory. Validity is the header's business: ContextId 0 (a reset
/// forgot the chunk) or an older Gen (inherited across fork).
struct SlotTable {
  uint64_t *Slots;
  uint32_t *FreeStack; ///< as many entries as Slots: never overflows
  uint64_t Capacity;   ///< slots mapped
  uint64_t Used;       ///< slots ever handed out (the high-water mark)
  uint64_t NumFree;    ///< entries on FreeStack
  uint64_t Count;      ///< live chunks

  static constexpr uint64_t MaxSlots = uint64_t(1) << 32;

  static void *resize(void *Old, uint64_t OldBytes, uint64_t NewBytes) {
    if (!Old)
      return mapMemory(NewBytes);
    int SavedErrno = errno;
    void *New = mremap(Old, OldBytes, NewBytes, MREMAP_MAYMOVE);
    errno = SavedErrno;
    return New == MAP_FAILED ? nullptr : New;
  }

  bool grow() {
    uint64_t NewCap = Capacity ? Capacity * 2 : 4096;
    if (NewCap > MaxSlots)
      return false;
    void *NewSlots = resize(Slots, Capacity * 8, NewCap * 8);
    if (!NewSlots)
      return false;
    Slots = static_cast<uint64_t *>(NewSlots);
    void *NewStack = resize(FreeStack, Capacity * 4, NewCap * 4);
    if (!NewStack) {
      // Keep the tables consistent: Slots has room that is not used yet.
      return false;
    }
    FreeStack = static_cast<uint32_t *>(NewStack);
    Capacity = NewCap;
    return true;
  }

  /// The slot now holding \p User; false when out of memory.
  MEMPROF_ALWAYS_INLINE bool insert(uint64_t User, uint32_t &Slot) {
    uint64_t I;
    if (NumFree) {
      I = FreeStack[--NumFree];
    } else {
      if (Used == Capacity && !grow())
        return false;
      I = Used++;
    }
    Slots[I] = User;
    ++Count;
    Slot = uint32_t(I);
    return true;
  }

  MEMPROF_ALWAYS_INLINE void remove(uint32_t I) {
    Slots[I] = 0;
    FreeStack[NumFree++] = I;
    --Count;
  }

  template <typename F> void forEach(F Fn) const {
    for (uint64_t I = 0; I < Used; ++I)
      if (Slots[I])
        Fn(Slots[I]);
  }

  void release() {
    unmapMemory(Slots, Capacity * 8);
    unmapMemory(FreeStack, Capacity * 4);
    Slots = nullptr;
    FreeStack = nullptr;
    Capacity = Used = NumFree = Count = 0;
  }
};

constexpr unsigned NumShards = 64;

struct alignas(64) Shard {
  SpinLock Lock;
  SlotTable Live; ///< tracked chunks not yet freed
  MIBMap Freed;   ///< MIBs of the tracked chunks freed so far
};
Shard Shards[NumShards];
static_assert(NumShards <= 64, "the shard takes 6 bits of the header");
uint32_t NextShard;

/// The shard this thread records its allocations in: threads are spread
/// round-robin, so a thread's allocations and frees take a lock no other
/// thread normally touches. A chunk's header names its shard, so a free
/// from another thread finds it.
MEMPROF_ALWAYS_INLINE unsigned threadShard(ThreadState &T) {
  if (MEMPROF_UNLIKELY(!T.ShardPlusOne))
    T.ShardPlusOne = uint8_t(
        1 + __atomic_fetch_add(&NextShard, 1u, __ATOMIC_RELAXED) % NumShards);
  return T.ShardPlusOne - 1u;
}

MEMPROF_ALWAYS_INLINE unsigned kindOf(const ChunkHeader *H) {
  return H->KindShard & 3u;
}
MEMPROF_ALWAYS_INLINE Shard &shardOf(const ChunkHeader *H) {
  return Shards[H->KindShard >> 2];
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

bool MIBMap::merge(uint32_t Key, const MIB &M) {
  if ((Count + 1) * 2 > Capacity) {
    uint64_t NewCap = Capacity ? Capacity * 2 : 64;
    MIBEntry *New =
        static_cast<MIBEntry *>(mapMemory(NewCap * sizeof(MIBEntry)));
    if (!New)
      return false;
    for (uint64_t I = 0; I < Capacity; ++I)
      if (Entries[I].Key)
        for (uint64_t J = mix64(Entries[I].Key) & (NewCap - 1);;
             J = (J + 1) & (NewCap - 1))
          if (!New[J].Key) {
            New[J] = Entries[I];
            break;
          }
    unmapMemory(Entries, Capacity * sizeof(MIBEntry));
    Entries = New;
    Capacity = NewCap;
  }
  uint64_t Mask = Capacity - 1;
  for (uint64_t I = mix64(Key) & Mask;; I = (I + 1) & Mask) {
    MIBEntry &E = Entries[I];
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
      E.Block = M;
      E.Block.AccessHistogram = 0;
      E.Block.AccessHistogramSize = 0;
      ++Count;
      if (uint64_t N = M.AccessHistogramSize) {
        if (uint64_t *H = histogramBuffer(N)) {
          memcpy(H, reinterpret_cast<const void *>(M.AccessHistogram),
                 N * sizeof(uint64_t));
          E.Block.AccessHistogram = reinterpret_cast<uintptr_t>(H);
          E.Block.AccessHistogramSize = N;
        }
      }
      return true;
    }
  }
}

MEMPROF_ALWAYS_INLINE bool MIBMap::mergeAllocation(uint32_t Key,
                                                    const MIB &M) {
  if (MEMPROF_LIKELY(Capacity && !M.AccessHistogramSize)) {
    uint64_t Mask = Capacity - 1;
    for (uint64_t I = mix64(Key) & Mask;; I = (I + 1) & Mask) {
      MIBEntry &E = Entries[I];
      if (E.Key == Key) {
        // As merge() does without a new histogram: the rule's HISTPTR
        // clears the pointer, and the entry keeps its own.
        uint64_t Histogram = E.Block.AccessHistogram;
        mergeDump(E.Block, M);
        E.Block.AccessHistogram = Histogram;
        return true;
      }
      if (!E.Key)
        break;
    }
  }
  return merge(Key, M);
}

void MIBMap::release() {
  unmapMemory(Entries, Capacity * sizeof(MIBEntry));
  Entries = nullptr;
  Capacity = Count = 0;
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

MEMPROF_ALWAYS_INLINE ChunkHeader *headerOf(uintptr_t User) {
  return reinterpret_cast<ChunkHeader *>(User - sizeof(ChunkHeader));
}

// Tells our headers from whatever precedes a foreign pointer: a keyed hash
// of the header's address and the fields that never change while the chunk
// lives (size and generation, kind, shard and layout), so that a reset may
// clear ContextId without touching it (not cryptographic; the key only makes
// an accidental match in foreign memory vanishingly unlikely).
uint64_t computeCheck(const ChunkHeader *H) {
  uint64_t W0;
  memcpy(&W0, H, sizeof(W0));
  uint16_t Layout;
  memcpy(&Layout, reinterpret_cast<const uint8_t *>(H) + 22, sizeof(Layout));
  uint64_t X =
      (reinterpret_cast<uintptr_t>(H) ^ G.Secret) * 0x9E3779B97F4A7C15ULL;
  X ^= (W0 ^ G.Secret) * 0xC2B2AE3D27D4EB4FULL;
  X ^= (uint64_t(Layout) + G.Secret) * 0x165667B19E3779F9ULL;
  X ^= X >> 31;
  return X | 1; // a cleared header (Check = 0) never matches
}

void *blockOf(const ChunkHeader *H) {
  uintptr_t HA = reinterpret_cast<uintptr_t>(H);
  if (kindOf(H) == KindAligned)
    return reinterpret_cast<void *>(HA + sizeof(ChunkHeader) -
                                    (uintptr_t(1) << H->Info));
  return reinterpret_cast<void *>(HA - uintptr_t(H->Info) * 16);
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

MEMPROF_NOINLINE uint32_t contextOf(const void *Frame) {
  ThreadState &T = TLS;
  if (MEMPROF_UNLIKELY(!T.BoundsKnown))
    computeStackBounds(T);
  uint64_t PCs[MaxStackDepthLimit];
  uintptr_t Sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t Lo = T.StackLo, Hi = T.StackHi;
  // On a stack we do not know (sigaltstack, coroutines) only the caller of
  // the interceptor is recorded: it is read from our own frame.
  if (Sp < Lo || Sp >= Hi)
    Lo = Hi = 0;
  else
    Lo = Sp;
  unsigned N = captureStack(PCs, G.Opts.MaxStackDepth, Frame, Lo, Hi);
  return depotPut(PCs, N);
}

MEMPROF_ALWAYS_INLINE bool recording() { return !loadRelaxed(&G.Finished); }

/// The runtime ran out of memory for its tables (or of stack ids): some
/// allocations go unrecorded. Said once; the program is never stopped.
MEMPROF_NOINLINE void reportDegraded() {
  static uint32_t Reported;
  if (__atomic_exchange_n(&Reported, 1u, __ATOMIC_RELAXED))
    return;
  Line L;
  L.add("memprof: warning: out of memory for the profile's tables; some "
        "allocations are not recorded\n");
  writeStderr(L);
}

} // namespace

ChunkHeader *ownChunk(const void *P) {
  uintptr_t U = reinterpret_cast<uintptr_t>(P);
  // Ours are 16-aligned: 32 mod 64 (granule-exclusive), aligned to >= 64,
  // or (compact) 32 bytes into a glibc block. Reading the 32 bytes before
  // any 32-aligned glibc pointer stays inside glibc's memory, and so does
  // reading them before a pointer at least 32 bytes into its page. The one
  // 16-aligned pointer left out, 16 bytes into a page, is what glibc gives
  // for a block of its own mmap (nothing before it need be mapped); the
  // runtime never places a compact chunk there.
  if (!U || (U & 15) || ((U & 31) && (U & 4095) < 32) ||
      loadAcquire(&G.InitState) != 2)
    return nullptr;
  ChunkHeader *H = headerOf(U);
  return H->Check == computeCheck(H) ? H : nullptr;
}

namespace {

/// Records the end of tracked chunk \p H (user pointer \p User): its MIB
/// (with its access histogram, if enabled) is merged into its shard's table
/// and it leaves the live set; its shadow counters are cleared for the next
/// owner of the memory. \p Record false: only forgotten (runtime code, or
/// after the exit dump). The chunk's memory is not touched.
void recordEnd(ChunkHeader *H, uintptr_t User, bool Record) {
  uint64_t Size = H->UserSize;
  uint64_t Accesses = shadowAccessCount(User, Size, /*Clear=*/false);
  // Not tracked, forgotten by a reset, or inherited across fork (recorded by
  // the parent): nothing to record.
  uint32_t Ctx = loadRelaxed(&H->ContextId);
  if (Ctx && H->Gen == loadRelaxed(&G.Gen)) {
    uint32_t AllocTs = H->AllocTimestampMs, AllocCpu = H->AllocCpuId;
    uint32_t Now = 0, Cpu = 0;
    if (Record) {
      Now = nowMs();
      Cpu = currentCpu();
    }
    Shard &S = shardOf(H);
    // The block of this allocation, merged into its context's: inlined
    // twice, so that without the pass (no accesses) the compiler folds
    // the access fields' arithmetic away.
    auto Merge = [&](uint64_t A) __attribute__((always_inline)) {
      MIB M = mibForAllocation(Size, A, AllocTs, Now, AllocCpu, Cpu);
      attachHistogram(M, User, Size);
      return S.Freed.mergeAllocation(Ctx, M);
    };
    S.Lock.lock();
    // A reset may have forgotten the chunk meanwhile (under this lock).
    bool Lost = false;
    if (loadRelaxed(&H->ContextId)) {
      S.Live.remove(H->Slot);
      if (Record)
        Lost = !(Accesses ? Merge(Accesses) : Merge(0));
    }
    S.Lock.unlock();
    if (MEMPROF_UNLIKELY(Lost))
      reportDegraded();
  }
  if (Accesses)
    shadowAccessCount(User, Size, /*Clear=*/true);
}

/// Fills the recorded fields of a new chunk's header (context, time, CPU,
/// shard and live slot; ContextId 0 if it is not recorded) and writes the
/// header. A recorded chunk's header is written under its shard's lock,
/// together with its insertion into the live table: a dump, which reads the
/// live chunks' headers under that lock, never sees a chunk whose header is
/// not written yet (or overwrites a reset's mark on it).
MEMPROF_ALWAYS_INLINE void recordStart(ThreadState &T, ChunkHeader &Fields,
                                       uintptr_t User, const void *Frame) {
  ChunkHeader *H = headerOf(User);
  auto Write = [&] {
    *H = Fields;
    H->Check = computeCheck(H);
  };
  Fields.ContextId = 0;
  if (!recording())
    return Write();
  Fields.ContextId = contextOf(Frame);
  if (MEMPROF_UNLIKELY(!Fields.ContextId)) {
    reportDegraded();
    return Write();
  }
  Fields.AllocTimestampMs = nowMs();
  uint32_t Cpu = currentCpu();
  Fields.AllocCpuId = uint16_t(Cpu > 0xFFFF ? 0xFFFF : Cpu);
  Fields.Gen = loadRelaxed(&G.Gen);
  unsigned Index = threadShard(T);
  Fields.KindShard = uint8_t((Fields.KindShard & 3u) | (Index << 2));
  Shard &S = Shards[Index];
  S.Lock.lock();
  bool Tracked = S.Live.insert(User, Fields.Slot);
  if (MEMPROF_UNLIKELY(!Tracked))
    Fields.ContextId = 0;
  Write();
  S.Lock.unlock();
  if (MEMPROF_UNLIKELY(!Tracked))
    reportDegraded();
}

using UsableSizeFn = size_t (*)(void *);
UsableSizeFn RealUsableSize;

} // namespace

void *allocate(size_t Size, size_t Align, bool Zero, const void *Frame) {
  ThreadState &T = TLS;
  if (MEMPROF_UNLIKELY(T.InRuntime))
    return rawAllocate(Size, Align, Zero);
  T.InRuntime = 1;
  ensureInit();
  if (MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest();

  uintptr_t User;
  ChunkHeader Fields = {};
  if (Align <= 16 && loadRelaxed(&G.CompactChunks)) {
    // Compact: the header at the block's start. A user pointer 16 bytes
    // into a page would be taken for a glibc mmap block (ownChunk): such a
    // block is grown by 16 bytes (glibc extends it in place or moves it) and
    // the header moves 16 bytes further in. (Freeing it and asking again
    // would get the same block back from glibc's cache, every time.)
    if (Size > SIZE_MAX - CompactOverhead - 16) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    void *Block = Zero ? __libc_calloc(1, Size + CompactOverhead)
                       : __libc_malloc(Size + CompactOverhead);
    if (!Block) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    uintptr_t B = reinterpret_cast<uintptr_t>(Block);
    Fields.Info = 0;
    if (MEMPROF_UNLIKELY(((B + sizeof(ChunkHeader)) & 4095) == 16)) {
      void *Grown = __libc_realloc(Block, Size + CompactOverhead + 16);
      if (!Grown) {
        __libc_free(Block);
        T.InRuntime = 0;
        errno = ENOMEM;
        return nullptr;
      }
      B = reinterpret_cast<uintptr_t>(Grown);
      if (((B + sizeof(ChunkHeader)) & 4095) == 16)
        Fields.Info = 1; // header at B + 16, user pointer 48 bytes in
      if (Zero) // the 16 bytes glibc added (the rest was copied or kept)
        memset(reinterpret_cast<void *>(B + CompactOverhead + Size), 0, 16);
    }
    User = B + Fields.Info * 16 + sizeof(ChunkHeader);
    Fields.KindShard = KindCompact;
  } else if (Align <= 32) {
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
    Fields.KindShard = KindPlain;
    Fields.Info = uint8_t((H - B) / 16);
  } else {
    if (Size > SIZE_MAX - Align) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    void *Block = __libc_memalign(Align, Size + Align);
    if (!Block) {
      T.InRuntime = 0;
      errno = ENOMEM;
      return nullptr;
    }
    User = reinterpret_cast<uintptr_t>(Block) + Align;
    Fields.KindShard = KindAligned;
    Fields.Info = uint8_t(__builtin_ctzll(Align));
    if (Zero)
      memset(reinterpret_cast<void *>(User), 0, Size);
  }

  Fields.UserSize = Size;
  recordStart(T, Fields, User, Frame); // writes the header
  T.InRuntime = 0;
  return reinterpret_cast<void *>(User);
}

size_t glibcUsableSize(void *P) {
  UsableSizeFn F = loadAcquire(&RealUsableSize);
  if (!F) {
    RuntimeScope Scope; // dlsym may allocate
    F = reinterpret_cast<UsableSizeFn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
    storeRelease(&RealUsableSize, F);
  }
  return F ? F(P) : 0;
}

void deallocate(void *P) {
  if (!P)
    return;
  ChunkHeader *H = ownChunk(P);
  if (!H) {
    __libc_free(P);
    return;
  }
  int SavedErrno = errno;
  RuntimeScope Scope;
  if (!Scope.nested() && MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest();
  recordEnd(H, reinterpret_cast<uintptr_t>(P), !Scope.nested() && recording());
  void *Block = blockOf(H);
  H->Check = 0;
  __libc_free(Block);
  errno = SavedErrno;
}

namespace {
/// realloc by moving: a new chunk, a copy, a free of the old one.
void *reallocateByMoving(void *P, ChunkHeader *H, size_t Size,
                         const void *Frame) {
  void *New = allocate(Size, 0, false, Frame);
  if (!New)
    return nullptr;
  uint64_t Old = H->UserSize;
  memcpy(New, P, Old < Size ? Old : Size);
  deallocate(P);
  return New;
}

/// A shrink that would leave this many bytes unused gives them back to
/// glibc (which shrinks in place) instead of keeping them in the chunk.
constexpr size_t ShrinkReturnBytes = 4096;
} // namespace

void *reallocate(void *P, size_t Size, const void *Frame) {
  ChunkHeader *H = ownChunk(P);
  if (!H)
    return __libc_realloc(P, Size);
  ThreadState &T = TLS;
  // Aligned chunks keep their alignment only through a move; runtime code
  // (the guard is set) gets the simple path.
  if (kindOf(H) == KindAligned || T.InRuntime)
    return reallocateByMoving(P, H, Size, Frame);
  if (Size > SIZE_MAX - PlainOverhead) {
    errno = ENOMEM;
    return nullptr;
  }
  int SavedErrno = errno;
  T.InRuntime = 1;
  if (MEMPROF_UNLIKELY(loadRelaxed(&G.PendingDump)))
    serviceDumpRequest();

  // In place when glibc's block has room (or shrinks in place); otherwise
  // glibc's realloc, which may extend the block or move it. Either way the
  // old allocation ends here and a new one starts at the realloc's context,
  // as a move would record it (docs/runtime.md).
  const ChunkHeader Old = *H;
  uintptr_t User = reinterpret_cast<uintptr_t>(P);
  uint8_t *Block = static_cast<uint8_t *>(blockOf(H));
  size_t Offset = size_t(User - reinterpret_cast<uintptr_t>(Block));
  bool Compact = kindOf(H) == KindCompact;
  size_t Room = glibcUsableSize(Block) - Offset;
  uint64_t Keep = Old.UserSize < Size ? Old.UserSize : Size;
  bool Recording = recording();
  if (Size > Room || Room - Size >= ShrinkReturnBytes) {
    // The old allocation ends before glibc may release its memory.
    size_t Need = Size + (Compact ? Offset : PlainOverhead);
    recordEnd(H, User, Recording);
    H->Check = 0;
    uint8_t *NewBlock = static_cast<uint8_t *>(__libc_realloc(Block, Need));
    bool Failed = !NewBlock;
    if (Failed) {
      // glibc left the block as it was: it lives on (as a new allocation
      // of the old size; its accesses so far are in the ended one).
      NewBlock = Block;
      Size = Old.UserSize;
      Keep = Size;
    }
    uintptr_t NB = reinterpret_cast<uintptr_t>(NewBlock);
    uintptr_t NewUser;
    if (Compact) {
      NewUser = NB + Offset;
      if (MEMPROF_UNLIKELY((NewUser & 4095) == 16)) {
        // ownChunk would take this pointer for a glibc mmap block. The data
        // moves to the block's start, which is handed out as a plain glibc
        // block: correct for free and realloc, but not recorded (rare: a
        // move to 16 bytes before a page boundary).
        memmove(NewBlock, NewBlock + Offset, Keep);
        T.InRuntime = 0;
        if (Failed) {
          errno = ENOMEM;
          return nullptr; // unreachable: a failed realloc did not move
        }
        errno = SavedErrno;
        return NewBlock;
      }
    } else {
      NewUser = alignUp(NB, 64) + sizeof(ChunkHeader);
      if (NewUser - NB != Offset)
        memmove(reinterpret_cast<void *>(NewUser), NewBlock + Offset, Keep);
    }
    ChunkHeader Fields = {};
    Fields.UserSize = Size;
    Fields.KindShard = uint8_t(Old.KindShard & 3u);
    Fields.Info = uint8_t((NewUser - sizeof(ChunkHeader) - NB) / 16);
    recordStart(T, Fields, NewUser, Frame); // writes the header
    T.InRuntime = 0;
    if (Failed) {
      errno = ENOMEM;
      return nullptr;
    }
    errno = SavedErrno;
    return reinterpret_cast<void *>(NewUser);
  }
  // In place: the same chunk, a new allocation.
  recordEnd(H, User, Recording);
  ChunkHeader Fields = Old;
  Fields.UserSize = Size;
  recordStart(T, Fields, User, Frame); // writes the header
  T.InRuntime = 0;
  errno = SavedErrno;
  return P;
}

size_t usableSize(void *P) {
  if (ChunkHeader *H = ownChunk(P))
    return H->UserSize;
  return 0;
}

//===-- Dumps, resets and fork --------------------------------------------===//

namespace {
/// Empties a shard (its lock held): the MIB table, and the live chunks,
/// whose headers are marked as forgotten (ContextId 0; the check word does
/// not cover it) so that their frees record nothing.
void forgetShard(Shard &S) {
  S.Live.forEach([](uint64_t User) {
    storeRelaxed(&headerOf(User)->ContextId, 0u);
  });
  S.Freed.release();
  S.Live.release();
}
} // namespace

bool collectProfile(MIBMap &Out, bool Reset) {
  uint32_t Now = nowMs();
  uint32_t Cpu = currentCpu();
  bool Ok = true;
  for (Shard &S : Shards) {
    ScopedLock Guard(S.Lock);
    for (uint64_t I = 0; I < S.Freed.Capacity; ++I)
      if (S.Freed.Entries[I].Key)
        Ok &= Out.merge(S.Freed.Entries[I].Key, S.Freed.Entries[I].Block);
    // The shard's lock keeps these chunks allocated while we read them.
    S.Live.forEach([&](uint64_t User) {
      const ChunkHeader *H = headerOf(User);
      MIB M = mibForAllocation(H->UserSize,
                               shadowAccessCount(User, H->UserSize, false),
                               H->AllocTimestampMs, Now, H->AllocCpuId, Cpu);
      attachHistogram(M, User, H->UserSize);
      Ok &= Out.merge(H->ContextId, M);
    });
    if (Reset)
      forgetShard(S);
  }
  return Ok;
}

void resetProfile() {
  for (Shard &S : Shards) {
    ScopedLock Guard(S.Lock);
    forgetShard(S);
  }
}

void lockAllShards() {
  for (Shard &S : Shards)
    S.Lock.lock();
}

void unlockAllShards() {
  for (Shard &S : Shards)
    S.Lock.unlock();
}

void resetShardsInChild() {
  // The parent reports what it allocated; the child starts empty, and its
  // frees of inherited chunks (an older generation) record nothing. No
  // inherited header is written, so no page of the heap is copied.
  storeRelaxed(&G.Gen, uint16_t(G.Gen + 1));
  for (Shard &S : Shards) {
    S.Freed.release();
    S.Live.release();
  }
}

} // namespace rt
} // namespace memprof
