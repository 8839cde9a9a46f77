// Exact access counts: every scenario allocates a block at its own site,
// accesses it in a known way, and records each access's address in a truth
// table that is not instrumented. Before the free, the block's counters must
// sum to the truth (one increment per access; a memory intrinsic counts one
// access per 8-byte word of its range, as LLVM's runtime does), and built
// with -DGRANULES (for -memprof-instrument-granules, or without coalescing)
// every granule counter must equal the truth of its granule (the granule of
// each access's first byte). The program prints the totals the profile must
// hold. Built at -O0 and -O2, with and without coalescing and hoisting: the
// counts never change.
#include "memprof/Runtime/memprof_runtime.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#define NOINSTR __attribute__((disable_sanitizer_instrumentation, noinline))
#define NOINLINE __attribute__((noinline))

#define SITE(Name)                                                             \
  extern "C" NOINLINE char *Name(size_t N) {                                   \
    return static_cast<char *>(malloc(N));                                     \
  }
SITE(site_loads)
SITE(site_stores)
SITE(site_unaligned)
SITE(site_atomics)
SITE(site_intrinsics_const)
SITE(site_intrinsics_var)
SITE(site_loop_invariant)
SITE(site_loop_strided)
SITE(site_loop_reverse)
SITE(site_loop_wide)
SITE(site_loop_exit)
SITE(site_loop_call)
SITE(site_loop_nested)
SITE(site_returning_calls)
SITE(site_coalesced)
SITE(site_stack_or_heap)
SITE(site_cross_blocks)
SITE(site_opt_out)
SITE(site_switch)

//===-- The truth (not instrumented) ----------------------------------------===//

constexpr size_t MaxGranules = 1 << 12;
static uint64_t Want[MaxGranules];
static uintptr_t FirstGranule;
static uint64_t Total;
static int Failures;
static volatile size_t Opaque; // lengths and trip counts the compiler can't see

NOINSTR static void note(const void *Addr, uint64_t Times = 1) {
  uintptr_t G = (uintptr_t(Addr) >> 6) - FirstGranule;
  if (G >= MaxGranules) {
    printf("MISMATCH: access outside the block\n");
    ++Failures;
    return;
  }
  Want[G] += Times;
  Total += Times;
}

/// The words of a memory intrinsic's range.
NOINSTR static void noteRange(const void *Addr, size_t Len) {
  for (size_t K = 0; K * 8 < Len; ++K)
    note(static_cast<const char *>(Addr) + K * 8);
}

NOINSTR static char *begin(char *P) {
  memset(Want, 0, sizeof(Want));
  FirstGranule = uintptr_t(P) >> 6;
  Total = 0;
  return P;
}

/// Compares the block's counters with the truth, prints the profile's
/// expectations and frees the block.
NOINSTR static void finish(const char *Site, char *P, size_t N) {
  uintptr_t Last = (uintptr_t(P) + N - 1) >> 6;
  bool Ok = true;
  uint64_t Sum = 0;
  for (uintptr_t G = FirstGranule; G <= Last; ++G) {
    uint64_t Got = *MEMPROF_SHADOW_COUNTER(G << 6);
    Sum += Got;
#ifdef GRANULES
    if (Got != Want[G - FirstGranule]) {
      if (Ok) // the first difference of the block
        printf("MISMATCH %s: granule %lu: want %llu got %llu\n", Site,
             (unsigned long)(G - FirstGranule),
             (unsigned long long)Want[G - FirstGranule],
             (unsigned long long)Got);
      Ok = false;
    }
#endif
  }
  if (Sum != Total) {
    printf("MISMATCH %s: the block's counters sum to %llu, want %llu\n", Site,
           (unsigned long long)Sum, (unsigned long long)Total);
    Ok = false;
  }
  Failures += !Ok;
  printf("%s counters %s, %llu accesses\n", Site, Ok ? "ok" : "MISMATCH",
         (unsigned long long)Total);
  printf("site %s 1 %zu\n", Site, N);
  printf("expect %s TotalAccessCount == %llu\n", Site, (unsigned long long)Total);
  free(P);
}

//===-- Scenarios (instrumented) --------------------------------------------===//

template <typename T> using Unaligned = T __attribute__((aligned(1)));

NOINLINE uint64_t loads(char *P) {
  uint64_t S = 0;
  S += *(volatile uint8_t *)(P + 0);
  S += *(volatile uint16_t *)(P + 30);
  S += *(volatile uint32_t *)(P + 32);
  S += *(volatile uint64_t *)(P + 96);
  S += *(volatile uint64_t *)(P + 96);
  S += *(volatile long double *)(P + 160);
  S += *(volatile uint8_t *)(P + 255);
  return S;
}
NOINSTR void notedLoads(char *P) {
  for (int O : {0, 30, 32, 96, 96, 160, 255})
    note(P + O);
}

NOINLINE void stores(char *P) {
  *(volatile uint8_t *)(P + 1) = 1;
  *(volatile uint16_t *)(P + 62) = 2;
  *(volatile uint32_t *)(P + 64) = 3;
  *(volatile uint64_t *)(P + 120) = 4;
  *(volatile double *)(P + 200) = 5;
  *(volatile uint64_t *)(P + 200) = 6;
}
NOINSTR void notedStores(char *P) {
  for (int O : {1, 62, 64, 120, 200, 200})
    note(P + O);
}

// Accesses that straddle two granules count in the granule of the first byte.
NOINLINE uint64_t unaligned(char *P) {
  uint64_t S = 0;
  for (int O = 25; O < 100; O += 13)
    S += *(volatile Unaligned<uint64_t> *)(P + O);
  *(volatile Unaligned<uint32_t> *)(P + 126) = 7;
  return S;
}
NOINSTR void notedUnaligned(char *P) {
  for (int O = 25; O < 100; O += 13)
    note(P + O);
  note(P + 126);
}

NOINLINE uint64_t atomics(char *P) {
  uint64_t *A = (uint64_t *)(P + 8), *B = (uint64_t *)(P + 64);
  uint32_t *C = (uint32_t *)(P + 120);
  uint64_t S = __atomic_fetch_add(A, 1, __ATOMIC_SEQ_CST);
  S += __atomic_exchange_n(B, 5, __ATOMIC_ACQ_REL);
  uint32_t E = 0;
  S += __atomic_compare_exchange_n(C, &E, 9, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST);
  S += __atomic_load_n(B, __ATOMIC_ACQUIRE);
  __atomic_store_n(A, S, __ATOMIC_RELEASE);
  __atomic_fetch_or(C, 2u, __ATOMIC_RELAXED);
  return S;
}
NOINSTR void notedAtomics(char *P) {
  for (int O : {8, 64, 120, 64, 8, 120})
    note(P + O);
}

// Constant lengths: counted inline up to 64 bytes, by the runtime above.
// Only at -O0: at -O2 the optimizer rewrites small constant-length
// intrinsics as loads and stores (counted as such) before the pass runs.
template <size_t Len> NOINLINE void constRange(char *P, int Dst, int Src) {
  __builtin_memset(P + Dst, 1, Len);
  __builtin_memcpy(P + Dst, P + Src, Len);
  __builtin_memmove(P + Dst + 3, P + Dst, Len);
}
template <size_t Len> NOINSTR void notedConstRange(char *P, int Dst, int Src) {
  noteRange(P + Dst, Len);
  noteRange(P + Dst, Len);
  noteRange(P + Src, Len);
  noteRange(P + Dst + 3, Len);
  noteRange(P + Dst, Len);
}
#define CONST_RANGE(Len, Dst, Src)                                             \
  constRange<Len>(P, Dst, Src);                                                \
  notedConstRange<Len>(P, Dst, Src);
NOINSTR void intrinsicsConst(char *P) {
#ifndef __OPTIMIZE__
  CONST_RANGE(1, 0, 2000)
  CONST_RANGE(7, 33, 2100)
  CONST_RANGE(8, 60, 2200)
  CONST_RANGE(9, 100, 2300)
  CONST_RANGE(16, 250, 2400)
  CONST_RANGE(24, 300, 2500)
  CONST_RANGE(63, 420, 2600)
  CONST_RANGE(64, 500, 2700)
  CONST_RANGE(65, 640, 2800)
  CONST_RANGE(200, 801, 3000)
  CONST_RANGE(1000, 1024, 3300)
#else
  (void)P;
#endif
}

NOINLINE void varRange(char *P, size_t Dst, size_t Src, size_t Len) {
  memset(P + Dst, 1, Len);
  memcpy(P + Dst, P + Src, Len);
  memmove(P + Dst + 3, P + Dst, Len);
}
NOINSTR void intrinsicsVar(char *P) {
  const size_t Cases[][3] = {{0, 2000, 0},     {0, 2000, 1},    {33, 2100, 7},
                             {60, 2200, 8},    {100, 2300, 9},  {250, 2400, 16},
                             {420, 2600, 63},  {500, 2700, 64}, {640, 2800, 65},
                             {801, 3000, 200}, {1024, 3300, 1000},
                             // around the two-granule limit, at in-granule
                             // offsets 44, 6, 8, 17, 32, 4, 6 (blocks are
                             // 32 mod 64)
                             {1100, 3400, 72}, {1190, 3500, 121},
                             {1320, 3630, 128}, {1457, 3760, 129},
                             {1600, 3900, 66}, {1700, 4000, 100},
                             {1830, 4150, 127}};
  for (auto &C : Cases) {
    Opaque = C[2];
    varRange(P, C[0], C[1], Opaque);
    noteRange(P + C[0], C[2]);
    noteRange(P + C[0], C[2]);
    noteRange(P + C[1], C[2]);
    noteRange(P + C[0] + 3, C[2]);
    noteRange(P + C[0], C[2]);
  }
}

// One address every iteration: one update of N before the loop.
NOINLINE uint64_t loopInvariant(char *P, size_t N) {
  uint64_t S = 0;
  volatile uint64_t *X = (volatile uint64_t *)(P + 40);
  for (size_t I = 0; I < N; ++I)
    S += *X;
  return S;
}

// Strided loads and stores of several element sizes from a misaligned start.
struct Rec {
  uint32_t A;
  uint8_t Pad[20];
};
NOINLINE uint64_t loopStrided(char *P, size_t N) {
  uint64_t S = 0;
  uint64_t *L = (uint64_t *)(P + 8);
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    S += L[I];
  uint32_t *W = (uint32_t *)(P + 1028);
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    W[I] = uint32_t(I);
  Rec *R = (Rec *)(P + 1500);
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    S += R[I].A;
  unsigned char *C = (unsigned char *)(P + 2900);
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    C[I] = (unsigned char)I;
  return S;
}
NOINSTR void notedStrided(char *P, size_t N) {
  for (size_t I = 0; I < N; ++I) {
    note(P + 8 + 8 * I);
    note(P + 1028 + 4 * I);
    note(P + 1500 + sizeof(Rec) * I);
    note(P + 2900 + I);
  }
}

NOINLINE void loopReverse(char *P, size_t N) {
  uint64_t *L = (uint64_t *)(P + 16);
#pragma clang loop vectorize(disable)
  for (size_t I = N; I-- > 0;)
    L[I] = I;
}

// Strides of a granule and more: one update per access.
NOINLINE uint64_t loopWide(char *P, size_t N) {
  uint64_t S = 0;
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    S += *(uint64_t *)(P + 8 + 64 * I) + *(uint64_t *)(P + 4 + 200 * I);
  return S;
}

// An early exit: not hoisted, still exact.
NOINLINE size_t loopExit(char *P, size_t N) {
  size_t I = 0;
  for (; I < N; ++I)
    if (P[I] == 7)
      break;
  return I;
}

NOINLINE void sideEffect(uint64_t V) { Opaque = V; }
// A call in the loop: not hoisted, still exact.
NOINLINE void loopCall(char *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    sideEffect(((uint64_t *)P)[I]);
}

// Calls that always return (willreturn nounwind, inferred for this C++
// function) do not split groups or stop hoisting.
NOINLINE uint64_t mix(uint64_t V) { return V * 0x9E3779B97F4A7C15ull >> 7; }
NOINLINE uint64_t returningCalls(uint64_t *P, size_t N) {
  uint64_t S = mix(P[0]);
  S += mix(P[1]) + P[2];
  for (size_t I = 0; I < N; ++I)
    S += mix(P[I + 3]);
  return S;
}

NOINLINE uint64_t loopNested(char *P, size_t Rows, size_t Cols) {
  uint64_t S = 0;
  for (size_t R = 0; R < Rows; ++R)
#pragma clang loop vectorize(disable)
    for (size_t C = 0; C < Cols; ++C)
      S += ((uint32_t *)P)[R * Cols + C];
  return S;
}

// Fields of one pointer at constant offsets in one block: one update per
// granule, whatever the base's position in its granule.
struct Wide {
  uint64_t A, B;
  uint8_t Mid[24];
  uint32_t C;
  uint8_t Pad[12];
  uint64_t D;
  uint16_t E;
};
static_assert(__builtin_offsetof(Wide, D) == 56, "layout");
NOINLINE uint64_t coalesced(volatile Wide *W) {
  uint64_t S = W->A + W->B + W->C + W->D + W->E;
  W->B = S;
  W->E = 3;
  return S;
}
NOINSTR void notedCoalesced(char *W) {
  for (int O : {0, 8, 40, 56, 64, 8, 64})
    note(W + O);
}

// Fields of one pointer in blocks that run once each time the entry does
// (the join of an if/else) share the entry's update; a field accessed under
// a condition, after an early return or in a loop keeps its own.
static volatile int G1, G2;
NOINLINE uint64_t crossBlocks(volatile Wide *W, size_t K) {
  uint64_t S = W->A;
  if (K & 1) {
    G1 = 1;
    S += W->C;
  } else {
    G2 = 2;
  }
  S += W->B;
  if (K & 2)
    return S;
  S += W->D;
  for (size_t I = 0; I < (K & 4); ++I)
    S += W->E;
  W->B = S;
  return S;
}
NOINSTR void notedCrossBlocks(char *W, size_t K) {
  note(W);
  if (K & 1)
    note(W + 40);
  note(W + 8);
  if (K & 2)
    return;
  note(W + 56);
  for (size_t I = 0; I < (K & 4); ++I)
    note(W + 64);
  note(W + 8);
}

// A switch on a field whose cases read other fields of the struct (its
// update moves into theirs), one that reads nothing of it (an update of its
// own) and one that reads it after a call (a barrier: its own updates).
NOINLINE __attribute__((noipa)) void opaqueCall() { G1 = 3; }
NOINLINE uint64_t switched(volatile Wide *W, size_t K) {
  switch (W->A & 7) {
  case 0:
    return W->B;
  case 1:
    return W->C + W->D;
  case 2:
    G2 = 5;
    return 1;
  case 3:
    opaqueCall();
    return W->E;
  case 4:
    if (K & 8)
      return W->B + W->C;
    return W->D;
  default:
    return W->Mid[K & 15];
  }
}
NOINSTR void notedSwitched(char *W, size_t K) {
  note(W);
  switch (*(uint64_t *)W & 7) {
  case 0:
    note(W + 8);
    break;
  case 1:
    note(W + 40);
    note(W + 56);
    break;
  case 2:
    break;
  case 3:
    note(W + 64);
    break;
  case 4:
    if (K & 8) {
      note(W + 8);
      note(W + 40);
    } else {
      note(W + 56);
    }
    break;
  default:
    note(W + 16 + (K & 15));
  }
}

// A pointer that is a stack slot on every path (a select or phi of
// allocas) is not instrumented; one that may be the heap block on some path
// is, and counts exactly when it is.
NOINLINE uint64_t stackOrHeap(char *P, size_t Pick) {
  uint64_t Local[8];
  for (int I = 0; I < 8; ++I)
    ((volatile uint64_t *)Local)[I] = I;
  volatile uint64_t *Q = (Pick & 1) ? (volatile uint64_t *)P : Local;
  volatile uint64_t *R = (Pick & 2) ? Local + 1 : Local + 2;
  uint64_t S = Q[1] + Q[2] + *R;
  if (Pick & 4)
    R = Local + 5;
  return S + *R + Q[7];
}

NOINLINE uint64_t touchAll(char *P) {
  uint64_t S = 0;
  for (int I = 0; I < 16; ++I)
    S += ((volatile uint64_t *)P)[I];
  ((volatile uint64_t *)P)[3] = S;
  memset(P + 32, 0, Opaque);
  return S;
}

// Code that runs before the runtime has started (this .preinit_array
// function runs before every constructor; in real programs, another
// library's constructor) finds memprof_shadow_base 0 and must not crash. It
// reserves the shadow then (memprof_shadow_start), which the runtime uses
// when it starts, and counts; by default it counts nothing (each
// instrumented function it calls runs its uninstrumented copy, or with
// -memprof-instrument-clone=false counts into the sink). It touches a static buffer the pass cannot see through (a heap
// block would start the runtime).
alignas(64) static char EarlyBuf[256];
static uintptr_t EarlyBase = 1;
NOINSTR static void early() {
  EarlyBase = memprof_shadow_base;
  Opaque = 100;
  char *volatile P = EarlyBuf;
  touchAll(P);
}
__attribute__((section(".preinit_array"), used)) static void (*EarlyEntry)() =
    early;
NOINSTR static void checkEarly() {
  uint64_t Want[4] = {}, Truth = 0, Got = 0;
  bool Ok = true;
  for (int I = 0; I < 16; ++I)
    ++Want[I * 8 / 64];
  ++Want[24 / 64];
  for (int K = 0; K * 8 < 100; ++K)
    ++Want[(32 + 8 * K) / 64];
  for (int G = 0; G < 4; ++G) {
    uint64_t C = *MEMPROF_SHADOW_COUNTER(EarlyBuf + 64 * G);
    Truth += Want[G];
    Got += C;
#ifdef GRANULES
    Ok &= C == Want[G];
#endif
  }
  Ok &= Got == Truth;
  printf("early: base %lu at entry, counted %llu of %llu, counters %s\n",
         (unsigned long)EarlyBase, (unsigned long long)Got,
         (unsigned long long)Truth, Ok ? "ok" : "differ");
}

// The opt-out attribute: no counts from this function.
__attribute__((disable_sanitizer_instrumentation)) NOINLINE uint64_t
optedOut(char *P) {
  uint64_t S = 0;
  for (int I = 0; I < 16; ++I)
    S += ((volatile uint64_t *)P)[I];
  return S;
}

// Not instrumented: only the scenarios count.
NOINSTR int main(int Argc, char **Argv) {
  size_t N = Argc > 1 ? strtoul(Argv[1], nullptr, 10) : 100;
  uint64_t Sink = 0;
  char *P;

  P = begin(site_loads(256));
  memset(P, 0, 256);
  Sink += loads(P);
  notedLoads(P);
  finish("site_loads", P, 256);

  P = begin(site_stores(256));
  stores(P);
  notedStores(P);
  finish("site_stores", P, 256);

  P = begin(site_unaligned(256));
  memset(P, 0, 256);
  Sink += unaligned(P);
  notedUnaligned(P);
  finish("site_unaligned", P, 256);

  P = begin(site_atomics(256));
  memset(P, 0, 256);
  Sink += atomics(P);
  notedAtomics(P);
  finish("site_atomics", P, 256);

  P = begin(site_intrinsics_const(4500));
  intrinsicsConst(P);
  finish("site_intrinsics_const", P, 4500);

  P = begin(site_intrinsics_var(4500));
  intrinsicsVar(P);
  finish("site_intrinsics_var", P, 4500);

  P = begin(site_loop_invariant(64));
  memset(P, 0, 64);
  Sink += loopInvariant(P, N);
  note(P + 40, N);
  finish("site_loop_invariant", P, 64);

  size_t SN = 3000 + 30 * N;
  P = begin(site_loop_strided(SN));
  memset(P, 0, SN);
  Sink += loopStrided(P, N);
  notedStrided(P, N);
  finish("site_loop_strided", P, SN);

  P = begin(site_loop_reverse(16 + 8 * N));
  loopReverse(P, N);
  for (size_t I = 0; I < N; ++I)
    note(P + 16 + 8 * I);
  finish("site_loop_reverse", P, 16 + 8 * N);

  size_t WN = 16 + 200 * N;
  P = begin(site_loop_wide(WN));
  memset(P, 0, WN);
  Sink += loopWide(P, N);
  for (size_t I = 0; I < N; ++I) {
    note(P + 8 + 64 * I);
    note(P + 4 + 200 * I);
  }
  finish("site_loop_wide", P, WN);

  P = begin(site_loop_exit(N + 1));
  memset(P, 0, N + 1);
  P[N / 2] = 7;
  Sink += loopExit(P, N + 1);
  for (size_t I = 0; I <= N / 2; ++I)
    note(P + I);
  finish("site_loop_exit", P, N + 1);

  P = begin(site_loop_call(8 * N));
  memset(P, 0, 8 * N);
  loopCall(P, N);
  for (size_t I = 0; I < N; ++I)
    note(P + 8 * I);
  finish("site_loop_call", P, 8 * N);

  P = begin(site_returning_calls(8 * N + 24));
  memset(P, 0, 8 * N + 24);
  Sink += returningCalls((uint64_t *)P, N);
  for (size_t I = 0; I < N + 3; ++I)
    note(P + 8 * I);
  finish("site_returning_calls", P, 8 * N + 24);

  size_t Rows = 7, Cols = N / 3 + 1;
  P = begin(site_loop_nested(4 * Rows * Cols));
  memset(P, 0, 4 * Rows * Cols);
  Sink += loopNested(P, Rows, Cols);
  for (size_t I = 0; I < Rows * Cols; ++I)
    note(P + 4 * I);
  finish("site_loop_nested", P, 4 * Rows * Cols);

  // Every position of the struct in its granule.
  P = begin(site_coalesced(64 * 3 + 128));
  memset(P, 0, 64 * 3 + 128);
  for (int O = 0; O < 128; O += 4) {
    Sink += coalesced((volatile Wide *)(P + O));
    notedCoalesced(P + O);
  }
  finish("site_coalesced", P, 64 * 3 + 128);

  // Every path, at every position of the struct in its granule.
  P = begin(site_cross_blocks(64 * 3 + 128));
  memset(P, 0, 64 * 3 + 128);
  for (int O = 0; O < 128; O += 4)
    for (size_t K = 0; K < 8; ++K) {
      Opaque = K;
      Sink += crossBlocks((volatile Wide *)(P + O), Opaque);
      notedCrossBlocks(P + O, K);
    }
  finish("site_cross_blocks", P, 64 * 3 + 128);

  // Every case, at every position of the struct in its granule.
  P = begin(site_switch(64 * 3 + 128));
  memset(P, 0, 64 * 3 + 128);
  for (int O = 0; O < 128; O += 4)
    for (size_t K = 0; K < 16; ++K) {
      *(volatile uint64_t *)(P + O) = K;
      Opaque = K;
      Sink += switched((volatile Wide *)(P + O), Opaque);
      notedSwitched(P + O, K);
    }
  finish("site_switch", P, 64 * 3 + 128);

  P = begin(site_stack_or_heap(64));
  memset(P, 0, 64);
  for (size_t Pick = 0; Pick < 8; ++Pick) {
    Opaque = Pick;
    Sink += stackOrHeap(P, Opaque);
    if (Pick & 1)
      for (int O : {8, 16, 56})
        note(P + O);
  }
  finish("site_stack_or_heap", P, 64);

  checkEarly();

  P = begin(site_opt_out(256));
  memset(P, 0, 256);
  Sink += optedOut(P);
  finish("site_opt_out", P, 256);

  printf("failures: %d (%llu)\n", Failures, (unsigned long long)(Sink & 1));
  return Failures != 0;
}
