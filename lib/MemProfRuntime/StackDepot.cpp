//===- StackDepot.cpp - Frame-pointer unwinding and stack interning -------===//
#include "StackDepot.h"
#include "HybridUnwind.h"
#include "RuntimeInternal.h"
#include "Support.h"

#include <pthread.h>
#include <string.h>

namespace memprof {
namespace rt {

namespace {

struct Node {
  Node *Next;
  uint64_t Hash;
  uint32_t Id;
  uint32_t NumPCs;
  uint64_t *pcs() { return reinterpret_cast<uint64_t *>(this + 1); }
};

constexpr unsigned BucketBits = 18;
constexpr unsigned NumLocks = 1024;
constexpr unsigned IdPageBits = 12;
constexpr unsigned NumIdPages = 4096;
constexpr uint32_t MaxIds = NumIdPages << IdPageBits; // 16M stacks

Node *Buckets[1u << BucketBits];
SpinLock Locks[NumLocks];
Node **IdPages[NumIdPages];
uint32_t NextId = 1;
uint64_t Dropped;

/// (cachedOneFrameStackId, in StackDepot.h, knows when this walk ends at the
/// first frame: keep the two in step.)
MEMPROF_ALWAYS_INLINE unsigned walkStack(uint64_t *PCs, unsigned MaxDepth,
                                         const void *Frame, uintptr_t StackLo,
                                         uintptr_t StackHi, uint64_t &Hash) {
  if (MaxDepth > MaxStackDepthLimit)
    MaxDepth = MaxStackDepthLimit;
  uintptr_t Fp = reinterpret_cast<uintptr_t>(Frame);
  unsigned N = 0;
  // The hash is computed during the walk, whose loads it overlaps.
  uint64_t H = 0x9E3779B97F4A7C15ULL;
  while (N < MaxDepth) {
    // The interceptor's own frame (N == 0) is trusted; every later one must
    // be a plausible frame of this thread's stack.
    if (N != 0 && ((Fp & 7) || Fp < StackLo || Fp > StackHi - 16))
      break;
    const uintptr_t *F = reinterpret_cast<const uintptr_t *>(Fp);
    uintptr_t Ret = F[1];
    uintptr_t Next = F[0];
    if (Ret < 4096)
      break;
    PCs[N++] = Ret - 1;
    H = ((H << 5 | H >> 59) ^ (Ret - 1)) * 0x9E3779B97F4A7C15ULL;
    if (Next <= Fp)
      break;
    Fp = Next;
  }
  Hash = H ^ N; // the depot's hash (its top bits pick the bucket)
  return N;
}

/// Whether the stored stack \p Stored holds \p PCs. Stacks are short (often
/// 1-2 frames without frame pointers above the interceptor): an inline loop,
/// not a call to memcmp. The stored words are read atomically (plain loads
/// on x86-64), as depotRelocate may rewrite them meanwhile.
MEMPROF_ALWAYS_INLINE bool samePCs(const uint64_t *Stored, const uint64_t *PCs,
                                   unsigned N) {
  for (unsigned I = 0; I < N; ++I)
    if (__atomic_load_n(&Stored[I], __ATOMIC_RELAXED) != PCs[I])
      return false;
  return true;
}

MEMPROF_ALWAYS_INLINE Node *find(Node *N, uint64_t Hash, const uint64_t *PCs,
                                 unsigned NumPCs) {
  for (; N; N = loadAcquire(&N->Next))
    if (N->Hash == Hash && N->NumPCs == NumPCs &&
        samePCs(N->pcs(), PCs, NumPCs))
      return N;
  return nullptr;
}

bool publishId(uint32_t Id, Node *N) {
  Node ***Slot = &IdPages[Id >> IdPageBits];
  Node **Page = loadAcquire(Slot);
  if (!Page) {
    Node **Fresh =
        static_cast<Node **>(arenaAllocate(sizeof(Node *) << IdPageBits));
    if (!Fresh)
      return false;
    Node **Expected = nullptr;
    // Losing the race leaks one page of the arena; harmless and rare.
    if (__atomic_compare_exchange_n(Slot, &Expected, Fresh, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      Page = Fresh;
    else
      Page = Expected;
  }
  storeRelease(&Page[Id & ((1u << IdPageBits) - 1)], N);
  return true;
}

/// The lookup's slow path: the stack was not found without the lock.
MEMPROF_NOINLINE uint32_t depotInsert(const uint64_t *PCs, unsigned NumPCs,
                                      uint64_t Hash, Node **Bucket) {
  // The lock of the bucket: two stacks that share a bucket share its lock,
  // or both could link their node to the same head and one would be lost.
  ScopedLock Guard(Locks[(Bucket - Buckets) % NumLocks]);
  // All inserts into this bucket hold this lock, so a re-scan is exact.
  Node *Head = loadAcquire(Bucket);
  if (Node *N = find(Head, Hash, PCs, NumPCs))
    return N->Id;
  uint32_t Id = __atomic_load_n(&NextId, __ATOMIC_RELAXED);
  if (Id >= MaxIds) {
    __atomic_fetch_add(&Dropped, 1, __ATOMIC_RELAXED);
    return 0;
  }
  Node *N = static_cast<Node *>(
      arenaAllocate(sizeof(Node) + NumPCs * sizeof(uint64_t)));
  Id = __atomic_fetch_add(&NextId, 1u, __ATOMIC_RELAXED);
  if (!N || Id >= MaxIds) {
    __atomic_fetch_add(&Dropped, 1, __ATOMIC_RELAXED);
    return 0;
  }
  N->Hash = Hash;
  N->Id = Id;
  N->NumPCs = NumPCs;
  memcpy(N->pcs(), PCs, NumPCs * sizeof(uint64_t));
  N->Next = Head;
  if (!publishId(Id, N)) {
    __atomic_fetch_add(&Dropped, 1, __ATOMIC_RELAXED);
    return 0;
  }
  storeRelease(Bucket, N);
  return Id;
}

/// \p Hash: the walk's hash, whose last step multiplies: its top bits are
/// mixed and pick the bucket (no further mixing on the lookup's path).
MEMPROF_ALWAYS_INLINE uint32_t lookupOrInsert(const uint64_t *PCs,
                                              unsigned NumPCs,
                                              uint64_t Hash) {
  Node **Bucket = &Buckets[Hash >> (64 - BucketBits)];
  if (Node *N = find(loadAcquire(Bucket), Hash, PCs, NumPCs))
    return N->Id;
  return depotInsert(PCs, NumPCs, Hash, Bucket);
}
} // namespace

uint64_t OneFrame[1u << OneFrameBits];

uint32_t captureStackId(unsigned MaxDepth, const void *Frame,
                        uintptr_t StackLo, uintptr_t StackHi) {
  uint64_t PCs[MaxStackDepthLimit];
  uint64_t Hash;
  unsigned N = walkStack(PCs, MaxDepth, Frame, StackLo, StackHi, Hash);
  if (N != 1)
    return lookupOrInsert(PCs, N, Hash);
  if (uint32_t Id = oneFrameCached(PCs[0]))
    return Id;
  uint32_t Id = lookupOrInsert(PCs, N, Hash);
  if (Id && Id >> OneFrameIdBits == 0 && PCs[0] >> OneFramePCBits == 0)
    __atomic_store_n(oneFrameSlot(PCs[0]), PCs[0] << OneFrameIdBits | Id,
                     __ATOMIC_RELAXED);
  return Id;
}

namespace {
unwind::RuleCache UnwindCache;
} // namespace

namespace {

/// capture_check: captures compared, and what the memo did meanwhile.
uint32_t CheckCaptures;
struct {
  uint64_t Captures, Mismatches, Spliced, KnownIds, Walked, Replayed;
} CheckStats;

MEMPROF_NOINLINE bool reportMismatch(const char *What, unsigned Frame,
                                     uint64_t Memo, uint64_t Full) {
  if (__atomic_fetch_add(&CheckStats.Mismatches, 1, __ATOMIC_RELAXED) >= 5)
    return false;
  Line L;
  L.add("memprof: capture_check: the memoized capture differs from the full "
        "walk: ")
      .add(What)
      .add(" at frame ")
      .addUnsigned(Frame)
      .add(": ")
      .addUnsigned(Memo)
      .add(" against ")
      .addUnsigned(Full)
      .add("\n");
  writeStderr(L);
  return false;
}

/// Walks the context again in full and compares it, its hash and (when the
/// memo named it) its id with what the memo gave; false if they differ.
MEMPROF_NOINLINE bool checkCapture(const uint64_t *PCs, unsigned N,
                                   const unwind::MemoResult &Res,
                                   uintptr_t Pc, uintptr_t Sp, uintptr_t Rbp,
                                   uintptr_t StackLo, uintptr_t StackHi,
                                   unsigned MaxDepth, bool Hybrid) {
  uint64_t Full[MaxStackDepthLimit];
  unwind::End Why;
  unsigned FullN = unwind::walk(&UnwindCache, Pc, Sp, Rbp, StackLo, StackHi,
                                Full, MaxDepth, Why, Hybrid);
  __atomic_fetch_add(&CheckStats.Captures, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&CheckStats.Walked, Res.Walked, __ATOMIC_RELAXED);
  __atomic_fetch_add(&CheckStats.Replayed, Res.Replayed, __ATOMIC_RELAXED);
  if (Res.Replayed || Res.Walked < N)
    __atomic_fetch_add(&CheckStats.Spliced, 1, __ATOMIC_RELAXED);
  if (Res.Id)
    __atomic_fetch_add(&CheckStats.KnownIds, 1, __ATOMIC_RELAXED);
  if (FullN != N)
    return reportMismatch("depth", 0, N, FullN);
  uint64_t H = unwind::HashSeed;
  for (unsigned I = N; I-- > 0;) {
    if (PCs[I] != Full[I] - 1) // the memo's PCs less 1
      return reportMismatch("pc", I, PCs[I], Full[I] - 1);
    H = unwind::hashFromRoot(H, Full[I] - 1);
  }
  if (H != Res.Hash)
    return reportMismatch("hash", 0, Res.Hash, H);
  if (Res.Id) {
    uint32_t StoredN = 0;
    const uint64_t *Stored = depotGet(Res.Id, StoredN);
    if (!Stored || StoredN != N)
      return reportMismatch("id's depth", 0, Stored ? StoredN : 0, N);
    for (unsigned I = 0; I < N; ++I)
      if (__atomic_load_n(&Stored[I], __ATOMIC_RELAXED) != Full[I] - 1)
        return reportMismatch("id's pc", I, Stored[I], Full[I] - 1);
  }
  return true;
}

} // namespace

void enableCaptureCheck() { storeRelaxed(&CheckCaptures, 1u); }

void reportCaptureCheck() {
  Line L;
  L.add("memprof: capture_check: ")
      .addUnsigned(loadRelaxed(&CheckStats.Captures))
      .add(" captures compared, ")
      .addUnsigned(loadRelaxed(&CheckStats.Mismatches))
      .add(" mismatches; ")
      .addUnsigned(loadRelaxed(&CheckStats.Spliced))
      .add(" used the memo (")
      .addUnsigned(loadRelaxed(&CheckStats.KnownIds))
      .add(" whole contexts), ")
      .addUnsigned(loadRelaxed(&CheckStats.Walked))
      .add(" frames walked, ")
      .addUnsigned(loadRelaxed(&CheckStats.Replayed))
      .add(" replayed\n");
  writeStderr(L);
}

void invalidateUnwindCache(bool Unloaded) {
  UnwindCache.invalidate();
  if (Unloaded)
    UnwindCache.invalidateModules();
}

uint32_t captureStackIdCfi(unsigned MaxDepth, const void *Frame,
                           uintptr_t StackLo, uintptr_t StackHi, bool Hybrid,
                           unwind::Memo *M) {
  if (MaxDepth > MaxStackDepthLimit)
    MaxDepth = MaxStackDepthLimit;
  // The interceptor's own frame has a frame pointer: the caller's state.
  const uintptr_t *F = static_cast<const uintptr_t *>(Frame);
  const uintptr_t Pc = F[1], Sp = reinterpret_cast<uintptr_t>(Frame) + 16,
                  Rbp = F[0];
  uint64_t PCs[MaxStackDepthLimit];
  unwind::End Why;
  if (M) {
    // The PCs less 1: "previous instruction", as the frame-pointer walk.
    unwind::MemoResult Res;
    unsigned N = unwind::walkMemo(&UnwindCache, *M, Pc, Sp, Rbp, StackLo,
                                  StackHi, PCs, MaxDepth, Why, Hybrid, Res,
                                  /*Bias=*/1);
    if (MEMPROF_LIKELY(!loadRelaxed(&CheckCaptures)) ||
        checkCapture(PCs, N, Res, Pc, Sp, Rbp, StackLo, StackHi, MaxDepth,
                     Hybrid)) {
      if (Res.Id)
        return Res.Id;
      uint32_t Id = lookupOrInsert(PCs, N, Res.Hash ^ N);
      M->Id = Id;
      return Id;
    }
    M->NumFrames = 0; // a difference (reported): the full walk's context
  }
  unsigned N = unwind::walk(&UnwindCache, Pc, Sp, Rbp, StackLo, StackHi, PCs,
                            MaxDepth, Why, Hybrid);
  uint64_t H = unwind::HashSeed;
  for (unsigned I = N; I-- > 0;) {
    PCs[I] -= 1;
    H = unwind::hashFromRoot(H, PCs[I]);
  }
  return lookupOrInsert(PCs, N, H ^ N);
}

//===-- Memos: one a thread, recycled at thread exit ----------------------===//

namespace {

constexpr unsigned MemoPoolSize = 64;
unwind::Memo *MemoPool[MemoPoolSize];
/// 0: no key yet; 1: being created; 2: MemoKey is set; 3: none to be had.
uint32_t MemoKeyState;
pthread_key_t MemoKey;
uint32_t MemoCap;

void releaseMemo(void *P) {
  TLS.CaptureMemo = MEMPROF_NO_MEMO; // the thread's later allocations walk
  auto *M = static_cast<unwind::Memo *>(P);
  for (unwind::Memo *&Slot : MemoPool) {
    unwind::Memo *Empty = nullptr;
    if (__atomic_compare_exchange_n(&Slot, &Empty, M, false, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED))
      return;
  }
  // The pool is full: this one stays in the arena, unused.
}

} // namespace

unwind::Memo *threadMemo(ThreadState &T, unsigned MaxDepth) {
  unwind::Memo *M = T.CaptureMemo;
  if (MEMPROF_LIKELY(M))
    return M == MEMPROF_NO_MEMO ? nullptr : M;
  if (MaxDepth > MaxStackDepthLimit)
    MaxDepth = MaxStackDepthLimit;
  // Thread exit hands the memo back through a key's destructor; without a
  // key, threads walk in full.
  uint32_t State = __atomic_load_n(&MemoKeyState, __ATOMIC_ACQUIRE);
  if (State == 0 &&
      __atomic_compare_exchange_n(&MemoKeyState, &State, 1u, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&MemoCap, MaxDepth, __ATOMIC_RELAXED);
    State = pthread_key_create(&MemoKey, releaseMemo) == 0 ? 2 : 3;
    __atomic_store_n(&MemoKeyState, State, __ATOMIC_RELEASE);
  }
  if (State != 2 || MaxDepth != __atomic_load_n(&MemoCap, __ATOMIC_RELAXED)) {
    if (State != 1)
      T.CaptureMemo = MEMPROF_NO_MEMO;
    return nullptr;
  }
  M = nullptr;
  for (unwind::Memo *&Slot : MemoPool)
    if (__atomic_load_n(&Slot, __ATOMIC_RELAXED) &&
        (M = __atomic_exchange_n(&Slot, nullptr, __ATOMIC_ACQUIRE)))
      break;
  if (!M) {
    void *P = arenaAllocate(sizeof(unwind::Memo) +
                            3 * MaxDepth * sizeof(unwind::MemoFrame));
    if (!P) {
      T.CaptureMemo = MEMPROF_NO_MEMO;
      return nullptr;
    }
    M = static_cast<unwind::Memo *>(P);
    M->Cap = MaxDepth;
    M->Frames = reinterpret_cast<unwind::MemoFrame *>(M + 1);
    M->Scratch = M->Frames + MaxDepth;
    M->Spare = M->Scratch + MaxDepth;
  }
  M->NumFrames = 0;
  M->Id = 0;
  if (pthread_setspecific(MemoKey, M) != 0) {
    releaseMemo(M);
    return nullptr;
  }
  T.CaptureMemo = M;
  return M;
}

const uint64_t *depotGet(uint32_t Id, uint32_t &NumPCs) {
  if (Id == 0 || Id >= MaxIds)
    return nullptr;
  Node **Page = loadAcquire(&IdPages[Id >> IdPageBits]);
  if (!Page)
    return nullptr;
  Node *N = loadAcquire(&Page[Id & ((1u << IdPageBits) - 1)]);
  if (!N)
    return nullptr;
  NumPCs = N->NumPCs;
  return N->pcs();
}

uint32_t depotMaxId() {
  uint32_t Next = loadAcquire(&NextId);
  return Next > MaxIds ? MaxIds - 1 : Next - 1;
}

uint64_t depotDropped() { return loadRelaxed(&Dropped); }

void depotRelocate(uint64_t Lo, uint64_t Hi, uint64_t Delta) {
  // A one-frame stack in the range is no longer the stack of its PC: a
  // module loaded there later gets stacks of its own. (An allocation racing
  // with this from the module's own code would return into an unmapped
  // module: no correct program has one.)
  for (uint64_t &Slot : OneFrame) {
    uint64_t PC = __atomic_load_n(&Slot, __ATOMIC_RELAXED) >> OneFrameIdBits;
    if (PC >= Lo && PC < Hi)
      __atomic_store_n(&Slot, uint64_t(0), __ATOMIC_RELAXED);
  }
  uint32_t Last = depotMaxId();
  for (uint32_t Id = 1; Id <= Last; ++Id) {
    Node **Page = loadAcquire(&IdPages[Id >> IdPageBits]);
    Node *N = Page ? loadAcquire(&Page[Id & ((1u << IdPageBits) - 1)]) : nullptr;
    if (!N)
      continue;
    uint64_t *PCs = N->pcs();
    // Lock-free lookups may read these words meanwhile: each is replaced
    // whole, and a lookup that sees a moved one just finds no match.
    for (uint32_t I = 0; I < N->NumPCs; ++I) {
      uint64_t PC = __atomic_load_n(&PCs[I], __ATOMIC_RELAXED);
      if (PC >= Lo && PC < Hi)
        __atomic_store_n(&PCs[I], PC + Delta, __ATOMIC_RELAXED);
    }
  }
}

// Inserts hold a bucket lock and then the arena lock, in that order.
void depotLockAll() {
  for (SpinLock &L : Locks)
    L.lock();
}

void depotUnlockAll() {
  for (SpinLock &L : Locks)
    L.unlock();
}

} // namespace rt
} // namespace memprof
