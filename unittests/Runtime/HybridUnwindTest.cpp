//===- HybridUnwindTest.cpp - The hybrid walk against libgcc's unwinder ---===//
//
// Oracle: _Unwind_Backtrace (libgcc_s, the full DWARF unwinder), taken at the
// same point as the walk, must list the same return addresses, frame for
// frame, on stacks that pass through code without frame pointers: libc's
// qsort calling back into this test (built at -O2, without frame pointers
// too), libstdc++'s call_once proxy under pthread_once, a signal handler
// through the kernel's signal frame, and a std::thread's start routine down
// to clone3, where both end. The hybrid walk too, whichever modules here it
// finds keeping frame pointers (lit's runtime/unwind-dlclose.test walks a
// library that does, and one that does not, mapped in turn at one address).
//
//===----------------------------------------------------------------------===//
#include "HybridUnwind.h"
#include "gtest/gtest.h"
#include <mutex>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <thread>
#include <unwind.h>
#include <map>
#include <vector>

using namespace memprof::rt;
using namespace memprof::rt::unwind;

namespace {

struct Captured {
  std::vector<uint64_t> Ours, Hybrid, Libgcc;
  End Why = End::Depth, HybridWhy = End::Depth;
};

RuleCache Cache;

void stackBounds(uintptr_t &Lo, uintptr_t &Hi) {
  pthread_attr_t A;
  void *Addr = nullptr;
  size_t Size = 0;
  ASSERT_EQ(pthread_getattr_np(pthread_self(), &A), 0);
  ASSERT_EQ(pthread_attr_getstack(&A, &Addr, &Size), 0);
  pthread_attr_destroy(&A);
  Lo = reinterpret_cast<uintptr_t>(Addr);
  Hi = Lo + Size;
}

_Unwind_Reason_Code collect(_Unwind_Context *Ctx, void *Arg) {
  auto *V = static_cast<std::vector<uint64_t> *>(Arg);
  V->push_back(_Unwind_GetIP(Ctx));
  return V->size() < 256 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/// Both walks, from this function's caller on.
__attribute__((noinline)) void capture(Captured &C) {
  uintptr_t Lo, Hi;
  stackBounds(Lo, Hi);
  const uintptr_t *Fp =
      static_cast<const uintptr_t *>(__builtin_frame_address(0));
  uint64_t PCs[256];
  unsigned N = walk(&Cache, Fp[1], reinterpret_cast<uintptr_t>(Fp) + 16,
                    Fp[0], Lo, Hi, PCs, 256, C.Why);
  C.Ours.assign(PCs, PCs + N);
  // The hybrid walk: frame pointers where a module keeps them.
  N = walk(&Cache, Fp[1], reinterpret_cast<uintptr_t>(Fp) + 16, Fp[0], Lo, Hi,
           PCs, 256, C.HybridWhy, /*Hybrid=*/true);
  C.Hybrid.assign(PCs, PCs + N);
  std::vector<uint64_t> L;
  _Unwind_Backtrace(collect, &L);
  // libgcc's first frame is this function itself, and its last one the
  // outermost frame's undefined return address, as 0.
  if (!L.empty())
    L.erase(L.begin());
  if (!L.empty() && L.back() == 0)
    L.pop_back();
  C.Libgcc = L;
  asm volatile("" ::: "memory"); // keep the call above a call
}

void expectSame(const Captured &C, const char *What) {
  ASSERT_GE(C.Libgcc.size(), 3u) << What;
  EXPECT_EQ(C.Ours, C.Libgcc) << What;
  EXPECT_EQ(C.Why, End::EndOfStack) << What;
  EXPECT_EQ(C.Hybrid, C.Libgcc) << What << ", hybrid";
  EXPECT_EQ(C.HybridWhy, End::EndOfStack) << What << ", hybrid";
}

Captured FromQsort;
int compare(const void *A, const void *B) {
  if (FromQsort.Ours.empty())
    capture(FromQsort);
  return *static_cast<const int *>(A) - *static_cast<const int *>(B);
}

class HybridUnwind : public ::testing::Test {};

TEST_F(HybridUnwind, ThroughLibcQsort) {
  std::vector<int> V(64);
  for (int I = 0; I < 64; ++I)
    V[I] = (I * 37) % 64;
  qsort(V.data(), V.size(), sizeof(int), compare);
  expectSame(FromQsort, "qsort");
  // The walk left its rules in the cache; a second walk of the same stack
  // takes them from there. (The cache is direct-mapped: a frame whose slot
  // another frame of the walk shares may have been evicted by it, about one
  // run in 60 with address randomization; those are not asked for.)
  cfi::Rule R;
  std::map<size_t, unsigned> Slots;
  for (uint64_t Pc : FromQsort.Ours)
    ++Slots[RuleCache::index(Pc)];
  for (uint64_t Pc : FromQsort.Ours)
    if (Slots[RuleCache::index(Pc)] == 1)
      EXPECT_TRUE(Cache.lookup(Pc, R)) << std::hex << Pc;
  FromQsort = Captured();
  qsort(V.data(), V.size(), sizeof(int), compare);
  expectSame(FromQsort, "qsort, cached");
}

TEST_F(HybridUnwind, ThroughLibstdcxxCallOnce) {
  static std::once_flag Flag;
  Captured C;
  std::call_once(Flag, [&] { capture(C); });
  expectSame(C, "call_once");
}

TEST_F(HybridUnwind, ThreadStackEndsAtClone) {
  Captured C;
  std::thread T([&] { capture(C); });
  T.join();
  expectSame(C, "std::thread");
}

Captured FromSignal;
void onSignal(int) { capture(FromSignal); }

TEST_F(HybridUnwind, ThroughTheKernelsSignalFrame) {
  struct sigaction Act = {}, Old;
  Act.sa_handler = onSignal;
  ASSERT_EQ(sigaction(SIGUSR2, &Act, &Old), 0);
  raise(SIGUSR2);
  sigaction(SIGUSR2, &Old, nullptr);
  expectSame(FromSignal, "signal handler");
  // The handler's caller is the kernel's trampoline, then the interrupted
  // code: more frames than the handler alone.
  EXPECT_GE(FromSignal.Ours.size(), 5u);
}

TEST_F(HybridUnwind, InvalidatedCacheDecodesAgain) {
  Captured A, B;
  for (int I = 0; I < 2; ++I) {
    if (I == 1) {
      cfi::Rule R;
      ASSERT_TRUE(Cache.lookup(A.Ours[1], R));
      Cache.invalidate();
      EXPECT_FALSE(Cache.lookup(A.Ours[1], R));
      capture(B);
      EXPECT_TRUE(Cache.lookup(A.Ours[1], R));
    } else {
      capture(A);
    }
  }
  // The same stack but for the call site in this function.
  ASSERT_GE(A.Ours.size(), 2u);
  EXPECT_EQ(std::vector<uint64_t>(A.Ours.begin() + 1, A.Ours.end()),
            std::vector<uint64_t>(B.Ours.begin() + 1, B.Ours.end()));
  EXPECT_EQ(B.Ours, B.Libgcc);
}

TEST_F(HybridUnwind, WalkStaysInsideTheBoundsGiven) {
  // Bounds that end just above the first frame: the walk stops there
  // instead of reading further (the first step needs the caller's CFA).
  const uintptr_t *Fp =
      static_cast<const uintptr_t *>(__builtin_frame_address(0));
  uintptr_t Sp = reinterpret_cast<uintptr_t>(Fp) + 16;
  uint64_t PCs[8];
  End Why;
  unsigned N = walk(nullptr, Fp[1], Sp, Fp[0], Sp, Sp + 8, PCs, 8, Why);
  EXPECT_EQ(N, 1u);
  EXPECT_EQ(Why, End::Bounds);
  // A PC in no module with a garbage rbp: one frame, then no module.
  N = walk(nullptr, 0x1000000, Sp, 0x13, Sp, Sp + 4096, PCs, 8, Why);
  EXPECT_EQ(N, 1u);
  EXPECT_EQ(Why, End::NoModule);
  cfi::Tables T;
  EXPECT_FALSE(tablesAt(0x1000, T));
}


//===-- walkMemo: the full walk's frames, from a thread's last context ----===//

struct MemoTest {
  std::vector<MemoFrame> Storage = std::vector<MemoFrame>(3 * 64);
  Memo M;
  unsigned Compared = 0, Replayed = 0, KnownIds = 0;
  /// The test's depot: an id for each context, in order of first sight.
  std::map<std::vector<uint64_t>, uint32_t> Ids;
  MemoTest() {
    M = Memo();
    M.Cap = 64;
    M.Frames = Storage.data();
    M.Scratch = Storage.data() + 64;
    M.Spare = Storage.data() + 128;
  }
  /// walkMemo and walk from this function's caller: the same PCs (less the
  /// bias walkMemo is given: 1 every other call, as the depot asks), the
  /// same end, and a hash that is the one folded from the outermost frame.
  __attribute__((noinline)) void check(unsigned Max, bool Hybrid) {
    uintptr_t Lo, Hi;
    stackBounds(Lo, Hi);
    const uintptr_t *Fp =
        static_cast<const uintptr_t *>(__builtin_frame_address(0));
    const uintptr_t Sp = reinterpret_cast<uintptr_t>(Fp) + 16;
    uint64_t A[64], B[64];
    End WhyA, WhyB;
    MemoResult Res;
    const uint64_t Bias = Compared % 2;
    unsigned NA = walkMemo(&Cache, M, Fp[1], Sp, Fp[0], Sp, Hi, A, Max, WhyA,
                           Hybrid, Res, Bias);
    unsigned NB = walk(&Cache, Fp[1], Sp, Fp[0], Sp, Hi, B, Max, WhyB, Hybrid);
    const std::vector<uint64_t> Context(B, B + NB);
    for (unsigned I = 0; I < NA; ++I)
      A[I] += Bias;
    ASSERT_EQ(std::vector<uint64_t>(A, A + NA), Context);
    ASSERT_EQ(WhyA, WhyB);
    uint64_t H = HashSeed;
    for (unsigned I = NB; I-- > 0;)
      H = hashFromRoot(H, B[I] - 1);
    ASSERT_EQ(Res.Hash, H);
    ASSERT_EQ(M.NumFrames, NB);
    // The memo's context gets its id (as the depot's caller gives it): the
    // same context again is known by it, and no other.
    const uint32_t Id =
        Ids.emplace(Context, uint32_t(Ids.size() + 1)).first->second;
    if (Res.Id) {
      ++KnownIds;
      ASSERT_EQ(Res.Id, Id);
    }
    M.Id = Id;
    Replayed += Res.Replayed;
    ++Compared;
  }
};

__attribute__((noinline)) void memoLeaf(MemoTest &T, unsigned Max,
                                        bool Hybrid) {
  T.check(Max, Hybrid);
  asm volatile("");
}
// Two callers whose frames are alike: after one returns, the other calls
// memoLeaf at the same stack address, and only the words above tell.
__attribute__((noinline)) void memoCallerOne(MemoTest &T, unsigned Max,
                                             bool Hybrid) {
  volatile int Pad[4] = {1};
  memoLeaf(T, Max, Hybrid);
  (void)Pad[0];
}
__attribute__((noinline)) void memoCallerTwo(MemoTest &T, unsigned Max,
                                             bool Hybrid) {
  volatile int Pad[4] = {2};
  memoLeaf(T, Max, Hybrid);
  (void)Pad[0];
}
__attribute__((noinline)) void memoRecurse(MemoTest &T, unsigned Depth,
                                           unsigned Max, bool Hybrid,
                                           unsigned Which) {
  if (Depth == 0)
    return Which % 3 == 0   ? memoLeaf(T, Max, Hybrid)
           : Which % 3 == 1 ? memoCallerOne(T, Max, Hybrid)
                            : memoCallerTwo(T, Max, Hybrid);
  memoRecurse(T, Depth - 1, Max, Hybrid, Which);
  if (Depth % 4 == 0) // on the way back too
    memoCallerOne(T, Max, Hybrid);
  asm volatile("");
}

TEST_F(HybridUnwind, MemoizedWalkEqualsTheFullWalk) {
  for (bool Hybrid : {false, true})
    for (unsigned Max : {64u, 6u}) {
      MemoTest T;
      for (unsigned I = 0; I < 300; ++I)
        memoRecurse(T, (I * 7) % 23, Max, Hybrid, I);
      // Again and again the same context (one call site: the loop is not
      // unrolled): known by its id.
#pragma clang loop unroll(disable)
      for (unsigned I = 0; I < 10; ++I)
        memoCallerTwo(T, Max, Hybrid);
      EXPECT_GT(T.Compared, 300u);
      EXPECT_GT(T.Replayed, 0u);
      EXPECT_GE(T.KnownIds, 9u);
      if (HasFailure())
        return;
    }
}

TEST_F(HybridUnwind, MemoIsDroppedWithTheRules) {
  MemoTest T;
  memoCallerOne(T, 64, false);
  ASSERT_GT(T.M.NumFrames, 2u);
  unsigned Before = T.Replayed;
  memoCallerOne(T, 64, false);
  EXPECT_GT(T.Replayed, Before);
  // A module loaded or unloaded: nothing of the memo is taken.
  Cache.invalidate();
  Before = T.Replayed;
  memoCallerOne(T, 64, false);
  EXPECT_EQ(T.Replayed, Before);
}

} // namespace
