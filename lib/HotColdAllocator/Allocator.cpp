//===- Allocator.cpp - the cold arena, its address range and statistics --===//
//
// Cold blocks come from one jemalloc arena whose extent hooks carve memory out
// of a single reserved range of our own, so "is this block cold" is an
// address-range test and cold pages never share a page with hot blocks. Cold
// blocks are allocated and freed through a per-thread explicit cache of their
// own (tcache.create), never through the thread's default cache, so a freed
// cold block can never come back for a hot request. Everything else uses
// jemalloc's default arenas.
//
//===----------------------------------------------------------------------===//
#include "HotColdInternal.h"

#include <jemalloc/jemalloc.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if JEMALLOC_VERSION_MAJOR != 5 || JEMALLOC_VERSION_MINOR != 3
#error "jemalloc other than 5.3: check the fork handler's rtree lock below"
#endif
// jemalloc 5.3's internals, linked from libjemalloc_pic.a (src/emap.c,
// src/base.c, src/mutex.c), for the fork handler below. emap_t is an rtree_t:
// { base_t *base; malloc_mutex_t init_lock; ... }.
extern "C" {
extern char je_arena_emap_global[];
void *je_b0get(void);
void je_malloc_mutex_postfork_child(void *Tsdn, void *Mutex);
}

namespace memprof::hotcold {

std::atomic<uintptr_t> ColdBase{0};
std::atomic<uintptr_t> ColdSize{0};
__thread ThreadCounters *MyCounters
    __attribute__((tls_model("initial-exec"))) = nullptr;
ThreadCounters SharedCounters;

namespace {

constexpr unsigned MaxThreadSlots = 1024;
ThreadCounters Slots[MaxThreadSlots];
bool SlotInUse[MaxThreadSlots];
ThreadCounters Retired; // counts of exited threads
pthread_mutex_t SlotLock = PTHREAD_MUTEX_INITIALIZER;
pthread_key_t SlotKey;
pthread_once_t SlotKeyOnce = PTHREAD_ONCE_INIT;

void releaseSlot(void *Arg) {
  auto *T = static_cast<ThreadCounters *>(Arg);
  pthread_mutex_lock(&SlotLock);
  for (unsigned C = 0; C < MEMPROF_HOTCOLD_NUM_CLASSES; ++C) {
    Retired.Requests[C].fetch_add(T->Requests[C].exchange(0));
    Retired.Bytes[C].fetch_add(T->Bytes[C].exchange(0));
  }
  Retired.ColdBlocks.fetch_add(T->ColdBlocks.exchange(0));
  Retired.ColdBytes.fetch_add(T->ColdBytes.exchange(0));
  SlotInUse[T - Slots] = false;
  pthread_mutex_unlock(&SlotLock);
  // Any allocation by a later destructor of this thread goes to the shared slot.
  MyCounters = &SharedCounters;
}

void makeSlotKey() {
  if (pthread_key_create(&SlotKey, releaseSlot) != 0)
    SlotKey = static_cast<pthread_key_t>(-1);
}

// Options, read once from MEMPROF_HOTCOLD.
bool OptIgnoreHints = false;
bool OptStats = false;
size_t OptColdSize = size_t(64) << 30;
std::atomic<bool> OptionsRead{false};
pthread_once_t OptionsOnce = PTHREAD_ONCE_INIT;

void warn(const char *Msg, const char *Value) {
  char Buf[256];
  int N = snprintf(Buf, sizeof(Buf), "memprof-hotcold: warning: %s: '%s'\n", Msg,
                   Value);
  if (N > 0)
    (void)!write(2, Buf, N < (int)sizeof(Buf) ? N : sizeof(Buf) - 1);
}

bool parseSize(const char *S, size_t Len, size_t &Out) {
  if (Len == 0)
    return false;
  uint64_t V = 0;
  size_t I = 0;
  for (; I < Len && S[I] >= '0' && S[I] <= '9'; ++I) {
    if (V > (UINT64_MAX - 9) / 10)
      return false;
    V = V * 10 + (S[I] - '0');
  }
  unsigned Shift = 0;
  if (I + 1 == Len) {
    switch (S[I] | 0x20) {
    case 'k': Shift = 10; break;
    case 'm': Shift = 20; break;
    case 'g': Shift = 30; break;
    case 't': Shift = 40; break;
    default: return false;
    }
  } else if (I != Len) {
    return false;
  }
  if (I == 0 || (Shift && V > (UINT64_MAX >> Shift)))
    return false;
  Out = V << Shift;
  return true;
}

void readOptions() {
  const char *Env = getenv("MEMPROF_HOTCOLD");
  if (!Env) {
    OptionsRead.store(true, std::memory_order_release);
    return;
  }
  for (const char *P = Env; *P;) {
    const char *End = strchr(P, ',');
    size_t Len = End ? size_t(End - P) : strlen(P);
    const char *Eq = static_cast<const char *>(memchr(P, '=', Len));
    char Item[128];
    snprintf(Item, sizeof(Item), "%.*s", (int)Len, P);
    if (!Eq) {
      if (Len)
        warn("MEMPROF_HOTCOLD: option without a value ignored", Item);
    } else {
      size_t KeyLen = Eq - P;
      const char *Val = Eq + 1;
      size_t ValLen = Len - KeyLen - 1;
      auto Is = [&](const char *K) {
        return strlen(K) == KeyLen && memcmp(K, P, KeyLen) == 0;
      };
      auto Flag = [&](bool &Dst) {
        if (ValLen == 1 && (*Val == '0' || *Val == '1'))
          Dst = *Val == '1';
        else
          warn("MEMPROF_HOTCOLD: expected 0 or 1, option ignored", Item);
      };
      size_t Size;
      if (Is("ignore_hints"))
        Flag(OptIgnoreHints);
      else if (Is("stats"))
        Flag(OptStats);
      else if (Is("cold_size")) {
        if (parseSize(Val, ValLen, Size) && Size >= (size_t(1) << 20))
          OptColdSize = Size;
        else
          warn("MEMPROF_HOTCOLD: cold_size needs a size of 1m or more, option "
               "ignored",
               Item);
      } else
        warn("MEMPROF_HOTCOLD: unknown option ignored", Item);
    }
    if (!End)
      break;
    P = End + 1;
  }
  OptionsRead.store(true, std::memory_order_release);
}

void ensureOptions() {
  if (!OptionsRead.load(std::memory_order_acquire))
    pthread_once(&OptionsOnce, readOptions);
}

// The cold range and the bump pointer the extent hooks take from.
std::atomic<uintptr_t> ColdNext{0};
uintptr_t ColdEnd = 0;
int ColdArena = -1;
pthread_once_t ColdOnce = PTHREAD_ONCE_INIT;
std::atomic<bool> ColdReady{false};
std::atomic<uint64_t> ColdFallbacks{0};

void *coldExtentAlloc(extent_hooks_t *, void *NewAddr, size_t Size,
                      size_t Alignment, bool *Zero, bool *Commit, unsigned) {
  if (Alignment == 0 || (Alignment & (Alignment - 1)))
    return nullptr;
  uintptr_t Cur = ColdNext.load(std::memory_order_relaxed);
  uintptr_t Start;
  do {
    Start = NewAddr ? reinterpret_cast<uintptr_t>(NewAddr)
                    : (Cur + Alignment - 1) & ~(Alignment - 1);
    // jemalloc asks for a given address only to grow in place: only the
    // untouched tail of the range can serve it.
    if ((NewAddr && Start != Cur) || Start < Cur || Start > ColdEnd ||
        Size > ColdEnd - Start)
      return nullptr;
  } while (!ColdNext.compare_exchange_weak(Cur, Start + Size,
                                           std::memory_order_relaxed));
  if (mprotect(reinterpret_cast<void *>(Start), Size, PROT_READ | PROT_WRITE) !=
      0)
    return nullptr; // the range stays reserved; later requests fail likewise
  *Zero = true; // never handed out before: fresh anonymous pages
  *Commit = true;
  return reinterpret_cast<void *>(Start);
}

// Opting out (true) makes jemalloc keep the virtual range for reuse.
bool coldExtentDalloc(extent_hooks_t *, void *, size_t, bool, unsigned) {
  return true;
}
void coldExtentDestroy(extent_hooks_t *, void *Addr, size_t Size, bool,
                       unsigned) {
  madvise(Addr, Size, MADV_DONTNEED);
}
bool coldExtentCommit(extent_hooks_t *, void *, size_t, size_t, size_t,
                      unsigned) {
  return false; // always committed: never decommitted below
}
bool coldExtentDecommit(extent_hooks_t *, void *, size_t, size_t, size_t,
                        unsigned) {
  return true; // opt out: jemalloc purges instead
}
bool coldExtentPurgeLazy(extent_hooks_t *, void *Addr, size_t, size_t Offset,
                         size_t Length, unsigned) {
  return madvise(static_cast<char *>(Addr) + Offset, Length, MADV_FREE) != 0;
}
bool coldExtentPurgeForced(extent_hooks_t *, void *Addr, size_t, size_t Offset,
                           size_t Length, unsigned) {
  return madvise(static_cast<char *>(Addr) + Offset, Length, MADV_DONTNEED) !=
         0;
}
bool coldExtentSplit(extent_hooks_t *, void *, size_t, size_t, size_t, bool,
                     unsigned) {
  return false; // one mapping: any split is fine
}
bool coldExtentMerge(extent_hooks_t *, void *, size_t, void *, size_t, bool,
                     unsigned) {
  return false;
}

extent_hooks_t ColdHooks = {coldExtentAlloc,     coldExtentDalloc,
                            coldExtentDestroy,   coldExtentCommit,
                            coldExtentDecommit,  coldExtentPurgeLazy,
                            coldExtentPurgeForced, coldExtentSplit,
                            coldExtentMerge};

void initCold() {
  ensureOptions();
  if (OptIgnoreHints)
    return;
  void *Base = mmap(nullptr, OptColdSize, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Base == MAP_FAILED) {
    warn("cannot reserve the cold range, cold hints ignored", strerror(errno));
    return;
  }
  uintptr_t B = reinterpret_cast<uintptr_t>(Base);
  ColdNext.store(B, std::memory_order_relaxed);
  ColdEnd = B + OptColdSize;
  unsigned Arena;
  size_t ArenaLen = sizeof(Arena);
  extent_hooks_t *Hooks = &ColdHooks;
  if (mallctl("arenas.create", &Arena, &ArenaLen, &Hooks, sizeof(Hooks)) != 0) {
    warn("jemalloc could not create the cold arena, cold hints ignored",
         "arenas.create");
    munmap(Base, OptColdSize);
    return;
  }
  ColdArena = int(Arena);
  // The arena's own metadata also lives in the range (jemalloc's base uses
  // the hooks): harmless, no user block is ever carved from it.
  // Base before size: a reader that sees the size sees the base.
  ColdBase.store(B, std::memory_order_relaxed);
  ColdSize.store(OptColdSize, std::memory_order_release);
  ColdReady.store(true, std::memory_order_release);
}

bool ensureCold() {
  if (!ColdReady.load(std::memory_order_acquire))
    pthread_once(&ColdOnce, initCold);
  return ColdReady.load(std::memory_order_acquire);
}

// The calling thread's cache for cold blocks: -1 not made yet, -2 none (it
// could not be made, or the thread is exiting); then no cache at all.
__thread int ColdTcache __attribute__((tls_model("initial-exec"))) = -1;
pthread_key_t ColdTcacheKey;
bool ColdTcacheKeyOk = false;
pthread_once_t ColdTcacheKeyOnce = PTHREAD_ONCE_INIT;

void destroyColdTcache(void *Arg) {
  unsigned Tc = unsigned(reinterpret_cast<uintptr_t>(Arg) - 1);
  ColdTcache = -2; // later frees of this thread go without a cache
  // Flushes the cached cold blocks back to the cold arena.
  mallctl("tcache.destroy", nullptr, nullptr, &Tc, sizeof(Tc));
}

void makeColdTcacheKey() {
  ColdTcacheKeyOk = pthread_key_create(&ColdTcacheKey, destroyColdTcache) == 0;
}

__attribute__((noinline)) int makeColdTcache() {
  ColdTcache = -2;
  pthread_once(&ColdTcacheKeyOnce, makeColdTcacheKey);
  unsigned Tc;
  size_t Len = sizeof(Tc);
  if (!ColdTcacheKeyOk || mallctl("tcache.create", &Tc, &Len, nullptr, 0) != 0)
    return MALLOCX_TCACHE_NONE; // jemalloc has at most 4096 such caches
  if (pthread_setspecific(ColdTcacheKey,
                          reinterpret_cast<void *>(uintptr_t(Tc) + 1)) != 0) {
    mallctl("tcache.destroy", nullptr, nullptr, &Tc, sizeof(Tc));
    return MALLOCX_TCACHE_NONE;
  }
  ColdTcache = int(Tc);
  return MALLOCX_TCACHE(Tc);
}

inline int coldTcacheFlag() {
  int Tc = ColdTcache;
  if (__builtin_expect(Tc >= 0, 1))
    return MALLOCX_TCACHE(Tc);
  if (Tc == -2)
    return MALLOCX_TCACHE_NONE;
  return makeColdTcache();
}

int coldFlags(size_t Align) {
  int F = MALLOCX_ARENA(ColdArena) | coldTcacheFlag();
  if (Align)
    F |= MALLOCX_LG_ALIGN(__builtin_ctzll(Align));
  return F;
}

uint64_t residentBytes(uintptr_t Start, uintptr_t End) {
  if (End <= Start)
    return 0;
  const size_t Page = sysconf(_SC_PAGESIZE);
  unsigned char Vec[4096];
  uint64_t Pages = 0;
  for (uintptr_t P = Start; P < End;) {
    size_t Len = End - P;
    if (Len > sizeof(Vec) * Page)
      Len = sizeof(Vec) * Page;
    if (mincore(reinterpret_cast<void *>(P), Len, Vec) != 0)
      return 0;
    for (size_t I = 0, N = (Len + Page - 1) / Page; I < N; ++I)
      Pages += Vec[I] & 1;
    P += Len;
  }
  return Pages * Page;
}

uint64_t jemallocResident(int Arena) {
  uint64_t Epoch = 1;
  size_t Len = sizeof(Epoch);
  mallctl("epoch", &Epoch, &Len, &Epoch, Len);
  size_t Value = 0;
  Len = sizeof(Value);
  char Name[64];
  if (Arena < 0)
    snprintf(Name, sizeof(Name), "stats.resident");
  else
    snprintf(Name, sizeof(Name), "stats.arenas.%d.resident", Arena);
  if (mallctl(Name, &Value, &Len, nullptr, 0) != 0)
    return 0;
  return Value;
}

// jemalloc 5.3's fork handlers miss one of its locks: the one its radix tree
// of extents (arena_emap_global) takes to add a leaf, once per new GiB of
// address space. A thread that takes it and then waits for the base allocator
// (which jemalloc_prefork holds) is still in it when fork copies the process,
// so the child's first allocation in that GiB waits forever (jemalloc issue
// 1805, open). The lock guards a single pointer published atomically, and the
// leaf's memory comes from the base allocator under its own (forked) lock, so
// the child may start with the lock re-made, as jemalloc's postfork_child does
// for the locks it knows. Taking it in the parent instead would deadlock:
// jemalloc takes it between locks its prefork takes in one go.
void *RtreeInitLock = nullptr; // null: jemalloc not started, or not 5.3's layout

void findRtreeInitLock() {
  // The tree's base is b0: a check that the fields sit where 5.3 puts them.
  void *Base;
  memcpy(&Base, je_arena_emap_global, sizeof(Base));
  if (Base && Base == je_b0get())
    RtreeInitLock = je_arena_emap_global + sizeof(void *);
}

// A fork while another thread holds the slot lock would leave it locked in
// the child.
void lockSlotsForFork() {
  findRtreeInitLock(); // at fork, not at start: jemalloc may start after us
  pthread_mutex_lock(&SlotLock);
}
void unlockSlotsAfterFork() { pthread_mutex_unlock(&SlotLock); }
void resetLocksInChild() {
  pthread_mutex_unlock(&SlotLock);
  if (RtreeInitLock)
    je_malloc_mutex_postfork_child(nullptr, RtreeInitLock);
}

__attribute__((constructor)) void startUp() {
  ensureOptions();
  pthread_atfork(lockSlotsForFork, unlockSlotsAfterFork, resetLocksInChild);
}
__attribute__((destructor)) void shutDown() {
  if (OptStats)
    memprof_hotcold_print_stats(2);
}

} // namespace

ThreadCounters *claimCounters() {
  pthread_once(&SlotKeyOnce, makeSlotKey);
  ThreadCounters *T = &SharedCounters;
  pthread_mutex_lock(&SlotLock);
  if (SlotKey != static_cast<pthread_key_t>(-1))
    for (unsigned I = 0; I < MaxThreadSlots; ++I)
      if (!SlotInUse[I]) {
        SlotInUse[I] = true;
        T = &Slots[I];
        break;
      }
  pthread_mutex_unlock(&SlotLock);
  if (T != &SharedCounters && pthread_setspecific(SlotKey, T) != 0) {
    releaseSlot(T);
    T = &SharedCounters;
  }
  MyCounters = T;
  return T;
}

bool ignoreHints() {
  ensureOptions();
  return OptIgnoreHints;
}

void *allocCold(size_t Size, size_t Align) {
  if (!ensureCold())
    return nullptr;
  void *P = mallocx(Size ? Size : 1, coldFlags(Align));
  if (!P)
    return nullptr;
  addToMine(&ThreadCounters::ColdBlocks, 1);
  addToMine(&ThreadCounters::ColdBytes, sallocx(P, 0));
  return P;
}

void countFallback() { ColdFallbacks.fetch_add(1, std::memory_order_relaxed); }

void freeCold(void *P) {
  addToMine(&ThreadCounters::ColdBlocks, uint64_t(-1));
  addToMine(&ThreadCounters::ColdBytes, 0 - uint64_t(sallocx(P, 0)));
  dallocx(P, coldTcacheFlag());
}

void *reallocCold(void *P, size_t Size) {
  size_t Old = sallocx(P, 0);
  void *Q = rallocx(P, Size ? Size : 1,
                    MALLOCX_ARENA(ColdArena) | coldTcacheFlag());
  if (Q) {
    addToMine(&ThreadCounters::ColdBytes, sallocx(Q, 0) - Old);
    return Q;
  }
  // The range is exhausted: move the block to the default arenas.
  Q = mallocx(Size ? Size : 1, 0);
  if (!Q)
    return nullptr;
  memcpy(Q, P, Old < Size ? Old : Size);
  freeCold(P);
  countFallback();
  return Q;
}

} // namespace memprof::hotcold

using namespace memprof::hotcold;

extern "C" __attribute__((visibility("default"))) int memprof_hotcold_stats(struct memprof_hotcold_stats *Out) {
  if (!Out)
    return -1;
  ensureOptions();
  memset(Out, 0, sizeof(*Out));
  auto Add = [&](const ThreadCounters &T) {
    Out->cold_live_blocks += T.ColdBlocks.load(std::memory_order_relaxed);
    Out->cold_live_bytes += T.ColdBytes.load(std::memory_order_relaxed);
    for (unsigned C = 0; C < MEMPROF_HOTCOLD_NUM_CLASSES; ++C) {
      Out->classes[C].requests += T.Requests[C].load(std::memory_order_relaxed);
      Out->classes[C].requested_bytes +=
          T.Bytes[C].load(std::memory_order_relaxed);
    }
  };
  pthread_mutex_lock(&SlotLock);
  Add(Retired);
  Add(SharedCounters);
  for (unsigned I = 0; I < MaxThreadSlots; ++I)
    if (SlotInUse[I])
      Add(Slots[I]);
  pthread_mutex_unlock(&SlotLock);
  Out->cold_fallbacks = ColdFallbacks.load(std::memory_order_relaxed);
  Out->ignore_hints = OptIgnoreHints;
  Out->cold_arena = -1;
  Out->other_resident_bytes = jemallocResident(-1);
  if (ColdReady.load(std::memory_order_acquire)) {
    uintptr_t B = ColdBase.load(std::memory_order_relaxed);
    uintptr_t Next = ColdNext.load(std::memory_order_relaxed);
    Out->cold_arena = ColdArena;
    Out->cold_range_reserved_bytes = ColdSize.load(std::memory_order_relaxed);
    Out->cold_range_used_bytes = Next - B;
    Out->cold_resident_bytes = residentBytes(B, Next);
    uint64_t ColdArenaResident = jemallocResident(ColdArena);
    Out->other_resident_bytes = Out->other_resident_bytes > ColdArenaResident
                                    ? Out->other_resident_bytes - ColdArenaResident
                                    : 0;
  }
  return 0;
}

extern "C" __attribute__((visibility("default"))) void memprof_hotcold_print_stats(int Fd) {
  static const char *const Names[MEMPROF_HOTCOLD_NUM_CLASSES] = {
      "unhinted", "cold", "notcold", "ambiguous", "hot", "other"};
  struct memprof_hotcold_stats S;
  memprof_hotcold_stats(&S);
  char Buf[2048];
  int N = snprintf(Buf, sizeof(Buf), "memprof-hotcold: ignore_hints=%d\n",
                   S.ignore_hints);
  for (unsigned C = 0; C < MEMPROF_HOTCOLD_NUM_CLASSES; ++C)
    N += snprintf(Buf + N, sizeof(Buf) - N,
                  "memprof-hotcold: %-9s requests=%llu bytes=%llu\n", Names[C],
                  (unsigned long long)S.classes[C].requests,
                  (unsigned long long)S.classes[C].requested_bytes);
  N += snprintf(Buf + N, sizeof(Buf) - N,
                "memprof-hotcold: cold live_blocks=%llu live_bytes=%llu "
                "fallbacks=%llu resident_bytes=%llu range_used=%llu "
                "range_reserved=%llu\n"
                "memprof-hotcold: other resident_bytes=%llu\n",
                (unsigned long long)S.cold_live_blocks,
                (unsigned long long)S.cold_live_bytes,
                (unsigned long long)S.cold_fallbacks,
                (unsigned long long)S.cold_resident_bytes,
                (unsigned long long)S.cold_range_used_bytes,
                (unsigned long long)S.cold_range_reserved_bytes,
                (unsigned long long)S.other_resident_bytes);
  for (int Off = 0; Off < N;) {
    ssize_t W = write(Fd, Buf + Off, N - Off);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      break;
    Off += W;
  }
}

extern "C" __attribute__((visibility("default"))) int memprof_hotcold_is_cold(const void *P) { return isCold(P); }
