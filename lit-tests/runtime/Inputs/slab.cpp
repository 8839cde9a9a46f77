// Granule slabs (exact granules, requests of at most 240 bytes aligned to at
// most 16): the program checks what it can see for itself and prints the
// truth of its allocations for check-raw.py and check-heap.py.
//
//   slab layout    blocks of 0-300 bytes by every allocation function: 16-
//                  aligned, no 64-byte granule holds bytes of two live
//                  blocks, malloc_usable_size is the request, calloc's
//                  bytes are 0 in a slot freed dirty, and the resident
//                  memory 400,000 blocks of 24 bytes add (RSS, from
//                  /proc/self/statm) is under 80 bytes a block
//   slab realloc   within a slot's size class in place, to another class
//                  or beyond the slabs by a move, the data intact
//   slab counts    shadow counters the program adds (huge ones too) are the
//                  blocks' access counts; a freed slot's counters are 0
//                  when its next block starts
//   slab threads T T producers hand blocks to T consumers, which free them
//                  (cross-thread frees); exact per-site counts; the
//                  resident memory stays bounded (freed slots go back to
//                  their span's owner)
//   slab fork      the child (profile child.memprofraw) frees half of the
//                  parent's blocks and allocates as many: the parent's
//                  other blocks intact, each process's profile holds its
//                  own allocations
//   slab phases    200,000 blocks of 24 bytes held and freed: most of their
//                  memory given back (RSS), and blocks of 200 bytes take
//                  their spans again
//   slab many N    N blocks of 24 bytes live at once: the peak exactly
//   slab double    a double free of a slab block is survived
//   slab forged    a block whose bytes forge a slab chunk's tail (the
//                  runtime's marker and kind) is freed at its 16th byte,
//                  not the start of a slot's user bytes: ignored (said
//                  once), and the block and its neighbours stay distinct
//   slab huge N    N blocks of 24 bytes held: whether the kernel's VmFlags
//                  (/proc/self/smaps) of the mapping of the first and of
//                  the last block have "hg" (MADV_HUGEPAGE)
//   slab compact   compact slabs (preloaded, exact_granules=0): blocks of
//                  0-300 bytes by every allocation function, 16-aligned,
//                  no block's bytes or the 16 before it (its tail) within
//                  another block, malloc_usable_size the request, calloc's
//                  bytes 0 in a slot freed dirty; realloc within 16 bytes
//                  in place; the resident memory 200,000 blocks of 16 bytes
//                  add (a 32-byte slot and the live-table slot, against 48
//                  bytes of glibc's for the block and its tail) under 48
#include "memprof/Runtime/memprof_runtime.h"
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>
#pragma weak memprof_shadow_base
#pragma weak memprof_shadow_start
#pragma weak memprof_set_output_path

#define SITE(Name, Call)                                                       \
  extern "C" __attribute__((noinline)) void *Name(size_t N) { return Call; }
SITE(site_malloc, malloc(N))
SITE(site_calloc, calloc(1, N))
SITE(site_new, new char[N])
SITE(site_aligned16, aligned_alloc(16, N))
SITE(site_aligned32, aligned_alloc(32, N))
SITE(site_memalign64, memalign(64, N))
SITE(site_rss, malloc(N))
SITE(site_counted, malloc(N))
SITE(site_handed, malloc(N))
SITE(site_kept, malloc(N))
SITE(site_before, malloc(N))
SITE(site_child, malloc(N))
SITE(site_many, malloc(N))
SITE(site_phase1, malloc(N))
SITE(site_phase2, malloc(N))
SITE(site_rss16, malloc(N))
extern "C" __attribute__((noinline)) void *site_realloc(void *P, size_t N) {
  return realloc(P, N);
}

static uintptr_t firstGranule(const void *P) {
  return uintptr_t(P) & ~uintptr_t(63);
}
static uintptr_t lastGranule(const void *P, size_t N) {
  return (uintptr_t(P) + (N ? N : 1) - 1) & ~uintptr_t(63);
}

static long residentBytes() {
  long Pages = 0, Resident = 0;
  FILE *F = fopen("/proc/self/statm", "r");
  if (!F || fscanf(F, "%ld %ld", &Pages, &Resident) != 2)
    return -1;
  fclose(F);
  return Resident * sysconf(_SC_PAGESIZE);
}

static void fill(void *P, size_t N, unsigned Seed) {
  for (size_t I = 0; I < N; ++I)
    static_cast<unsigned char *>(P)[I] = (unsigned char)(Seed * 31 + I);
}
static bool filled(const void *P, size_t N, unsigned Seed) {
  for (size_t I = 0; I < N; ++I)
    if (static_cast<const unsigned char *>(P)[I] != (unsigned char)(Seed * 31 + I))
      return false;
  return true;
}

/// A block made by one of the allocation functions (How: 0 malloc, 1 calloc,
/// 2 new[], 3 aligned_alloc(16), 4 aligned_alloc(32), 5 memalign(64)).
struct Block {
  void *P;
  size_t N;
  int How;
};

/// Four rounds of blocks of 0 to 300 bytes, each allocation function in
/// turn, each filled: clears \p Aligned, \p Usable and \p Zero when a
/// block is misaligned, malloc_usable_size is not its size, or calloc's
/// bytes are not zero.
static void allocateEveryWay(std::vector<Block> &Blocks, bool &Aligned,
                             bool &Usable, bool &Zero) {
  for (int Round = 0; Round < 4; ++Round)
    for (size_t N = 0; N <= 300; ++N) {
      int How = int((N + Round) % 6);
      void *P = How == 0   ? site_malloc(N)
                : How == 1 ? site_calloc(N)
                : How == 2 ? static_cast<void *>(site_new(N))
                : How == 3 ? site_aligned16(N)
                : How == 4 ? site_aligned32(N)
                           : site_memalign64(N);
      size_t Align = How == 4 ? 32 : How == 5 ? 64 : 16;
      Aligned &= uintptr_t(P) % Align == 0;
      Usable &= malloc_usable_size(P) == N;
      if (How == 1)
        for (size_t I = 0; I < N; ++I)
          Zero &= static_cast<unsigned char *>(P)[I] == 0;
      fill(P, N, unsigned(N));
      Blocks.push_back({P, N, How});
    }
}

/// The resident memory \p K blocks of \p N bytes from \p Site add, per
/// block, each block written; they are freed after.
static long residentPerBlock(void *(*Site)(size_t), size_t N, int K) {
  std::vector<void *> Held(K);
  long Before = residentBytes();
  for (int I = 0; I < K; ++I) {
    Held[I] = Site(N);
    memset(Held[I], 1, N);
  }
  long After = residentBytes();
  for (void *P : Held)
    free(P);
  return (After - Before) / K;
}

/// Frees the first \p N of \p Blocks, each as it was allocated, and prints
/// one line a site of allocateEveryWay: its blocks and bytes, by How.
static void freeAndPrintSites(const std::vector<Block> &Blocks, size_t N) {
  unsigned long long Count[6] = {}, Bytes[6] = {};
  for (size_t I = 0; I < N; ++I) {
    const Block &B = Blocks[I];
    ++Count[B.How];
    Bytes[B.How] += B.N;
    if (B.How == 2)
      delete[] static_cast<char *>(B.P);
    else
      free(B.P);
  }
  const char *Names[6] = {"site_malloc",    "site_calloc",    "site_new",
                          "site_aligned16", "site_aligned32", "site_memalign64"};
  for (int I = 0; I < 6; ++I)
    printf("site %s %llu %llu\n", Names[I], Count[I], Bytes[I]);
}

/// Whether no two of \p Ranges ([first, last] when \p Closed, else [first,
/// last)) overlap.
static bool disjoint(std::vector<std::pair<uintptr_t, uintptr_t>> Ranges,
                     bool Closed) {
  std::sort(Ranges.begin(), Ranges.end());
  for (size_t I = 1; I < Ranges.size(); ++I)
    if (Closed ? Ranges[I].first <= Ranges[I - 1].second
               : Ranges[I].first < Ranges[I - 1].second)
      return false;
  return true;
}

static int layout() {
  std::vector<Block> Blocks;
  bool Aligned = true, Usable = true, Zero = true;
  // Dirty slots of every class first, so that calloc gets used memory.
  std::vector<void *> Dirty;
  for (size_t N = 0; N <= 300; ++N) {
    void *P = malloc(N);
    memset(P, 0xA5, N);
    Dirty.push_back(P);
  }
  std::vector<void *> Freed = Dirty;
  std::sort(Freed.begin(), Freed.end());
  for (void *P : Dirty)
    free(P);
  // Freed memory is used again: blocks of the same sizes now take the
  // freed ones' places (slots of their classes, or glibc's chunks).
  for (size_t N = 0; N <= 300; ++N)
    Dirty[N] = malloc(N);
  int Again = 0;
  for (void *P : Dirty)
    Again += std::binary_search(Freed.begin(), Freed.end(), P);
  printf("freed memory used again: %s (%d of %zu)\n",
         Again > int(Dirty.size()) * 3 / 4 ? "most" : "little", Again,
         Dirty.size());
  for (void *P : Dirty) {
    memset(P, 0xA5, malloc_usable_size(P));
    free(P);
  }
  allocateEveryWay(Blocks, Aligned, Usable, Zero);
  std::vector<std::pair<uintptr_t, uintptr_t>> Ranges;
  bool Intact = true;
  for (const Block &B : Blocks) {
    Ranges.emplace_back(firstGranule(B.P), lastGranule(B.P, B.N));
    Intact &= filled(B.P, B.N, unsigned(B.N));
  }
  bool Disjoint = disjoint(Ranges, /*Closed=*/true);
  printf("layout: aligned=%d usable=%d calloc zero=%d intact=%d "
         "granules disjoint=%d\n",
         int(Aligned), int(Usable), int(Zero), int(Intact), int(Disjoint));
  freeAndPrintSites(Blocks, Blocks.size());

  // Resident memory: 400,000 blocks of 24 bytes. glibc alone takes 32 bytes
  // a block; granule-exclusive chunks from glibc took 64 (24 + 40, rounded)
  // plus an 8-byte live-table slot; a slab slot is one granule. (Past its
  // first 8 MiB the slab region has huge pages: the last one, partly used,
  // adds up to 2 MiB, 5 bytes a block here.)
  const int K = 400000;
  long PerBlock = residentPerBlock(site_rss, 24, K);
  printf("resident per 24-byte block: %s (%ld)\n",
         PerBlock < 80 ? "under 80" : "80 or more", PerBlock);
  printf("site site_rss %d %d\n", K, K * 24);
  return 0;
}

static int reallocs() {
  bool Intact = true;
  // Within the class of 49-112 bytes: in place.
  void *P = malloc(60);
  fill(P, 60, 7);
  void *Q = site_realloc(P, 100);
  bool InPlace = Q == P;
  Intact &= filled(Q, 60, 7);
  Q = site_realloc(Q, 50);
  InPlace &= Q == P;
  Intact &= filled(Q, 50, 7);
  // To a larger class, then beyond the slabs, then back to a small class.
  fill(Q, 50, 8);
  void *R = site_realloc(Q, 200);
  Intact &= filled(R, 50, 8) && malloc_usable_size(R) == 200;
  fill(R, 200, 9);
  void *S = site_realloc(R, 5000);
  Intact &= filled(S, 200, 9) && malloc_usable_size(S) == 5000;
  fill(S, 5000, 10);
  void *T = site_realloc(S, 30);
  Intact &= filled(T, 30, 10) && malloc_usable_size(T) == 30;
  // And down a class: 200 bytes to 20.
  void *U = malloc(200);
  fill(U, 200, 11);
  void *V = site_realloc(U, 20);
  Intact &= filled(V, 20, 11) && malloc_usable_size(V) == 20;
  // realloc(NULL) is malloc; the failed realloc leaves the block alone.
  void *W = site_realloc(nullptr, 40);
  fill(W, 40, 12);
  void *X = site_realloc(W, SIZE_MAX / 2);
  Intact &= X == nullptr && filled(W, 40, 12);
  // Neighbours: 16 blocks of one class side by side, every other one grown
  // out of its class and written to its end; the others must not change,
  // and no granule holds bytes of two of them.
  void *Row[16];
  for (int I = 0; I < 16; ++I) {
    Row[I] = malloc(60);
    fill(Row[I], 60, unsigned(I));
  }
  for (int I = 0; I < 16; I += 2) {
    Row[I] = site_realloc(Row[I], 200);
    fill(Row[I], 200, unsigned(I));
  }
  std::vector<std::pair<uintptr_t, uintptr_t>> Ranges;
  for (int I = 0; I < 16; ++I) {
    size_t N = I % 2 ? 60 : 200;
    Intact &= filled(Row[I], N, unsigned(I));
    Ranges.emplace_back(firstGranule(Row[I]), lastGranule(Row[I], N));
  }
  bool Disjoint = disjoint(Ranges, /*Closed=*/true);
  for (void *P : Row)
    free(P);
  printf("realloc: in place within the class=%d data intact=%d granules "
         "disjoint=%d\n",
         int(InPlace), int(Intact), int(Disjoint));
  free(T);
  free(V);
  free(W);
  // malloc (1), then realloc: 100, 50, 200, 5000, 30, 20, 40 (from NULL).
  // and 8 of the row's.
  printf("site site_realloc 15 %d\n",
         100 + 50 + 200 + 5000 + 30 + 20 + 40 + 8 * 200);
  return 0;
}

static int counts() {
  if (!&memprof_shadow_start || !memprof_shadow_start()) {
    printf("no shadow\n");
    return 1;
  }
  // One block of each class (two: the slot is used again), with counts of
  // 2^58 and more a granule: their sum over the eight blocks still fits in
  // 64 bits, and the profile's count is that sum.
  const size_t Sizes[4] = {48, 112, 176, 240};
  unsigned long long Total = 0, Min = ~0ull, Max = 0, Bytes = 0;
  for (int I = 0; I < 4; ++I) {
    // Twice: the next block of the class takes the slot just freed, and
    // starts from 0. (One call site: one context.)
    for (int Round = 0; Round < 2; ++Round) {
      void *P = site_counted(Sizes[I]);
      unsigned long long Sum = 0;
      for (uintptr_t G = firstGranule(P); G <= lastGranule(P, Sizes[I]);
           G += 64) {
        uint64_t Inc = Round ? 3 : (uint64_t(1) << 58) + G % 1000;
        *MEMPROF_SHADOW_COUNTER(G) += Inc;
        Sum += Inc;
      }
      // The granules counted are the block's: as many as the slot has.
      if (!Round)
        printf("granules of %zu bytes: %llu\n", Sizes[I],
               (unsigned long long)((lastGranule(P, Sizes[I]) -
                                     firstGranule(P)) / 64 + 1));
      free(P);
      bool Cleared = true;
      for (uintptr_t G = firstGranule(P); G <= lastGranule(P, Sizes[I]);
           G += 64)
        Cleared &= *MEMPROF_SHADOW_COUNTER(G) == 0;
      if (!Round)
        printf("cleared: %d\n", int(Cleared));
      Total += Sum;
      Min = std::min(Min, Sum);
      Max = std::max(Max, Sum);
      Bytes += Sizes[I];
    }
  }
  printf("site site_counted 8 %llu\n", Bytes);
  printf("expect site_counted TotalAccessCount == %llu\n", Total);
  printf("expect site_counted MinAccessCount == %llu\n", Min);
  printf("expect site_counted MaxAccessCount == %llu\n", Max);
  return 0;
}

// Producers allocate, consumers free: a ring per pair.
struct Ring {
  std::atomic<void *> Slot[256];
  std::atomic<bool> Done{false};
};
static const int Rounds = 400, PerRound = 2000;
static std::atomic<long> Kept{0};

static void *producer(void *Arg) {
  Ring &R = *static_cast<Ring *>(Arg);
  unsigned I = 0;
  for (int N = 0; N < Rounds * PerRound; ++N) {
    void *P = site_handed(size_t(N % 4) * 60 + 8); // 8, 68, 128, 188
    while (R.Slot[I % 256].load(std::memory_order_acquire))
      sched_yield();
    R.Slot[I % 256].store(P, std::memory_order_release);
    ++I;
    if (N % 1000 == 0) {
      site_kept(32); // live at exit
      Kept.fetch_add(1);
    }
  }
  R.Done.store(true, std::memory_order_release);
  return nullptr;
}

static void *consumer(void *Arg) {
  Ring &R = *static_cast<Ring *>(Arg);
  unsigned I = 0;
  for (;;) {
    void *P = R.Slot[I % 256].exchange(nullptr, std::memory_order_acq_rel);
    if (P) {
      free(P);
      ++I;
      continue;
    }
    if (R.Done.load(std::memory_order_acquire) && !R.Slot[I % 256].load())
      return nullptr;
    sched_yield();
  }
}

static int threads(int T) {
  std::vector<Ring> Rings(T);
  std::vector<pthread_t> Th(2 * T);
  long Before = residentBytes();
  for (int I = 0; I < T; ++I) {
    pthread_create(&Th[2 * I], nullptr, producer, &Rings[I]);
    pthread_create(&Th[2 * I + 1], nullptr, consumer, &Rings[I]);
  }
  for (pthread_t &X : Th)
    pthread_join(X, nullptr);
  long Grown = residentBytes() - Before;
  // Each pair has at most 256 blocks in flight; without the freed slots'
  // return to their span's shard, every block would take a new slot (about
  // 100 MB a pair).
  printf("resident growth: %s (%ld KiB)\n",
         Grown < (16L << 20) * T ? "bounded" : "unbounded", Grown >> 10);
  unsigned long long Count = (unsigned long long)T * Rounds * PerRound;
  unsigned long long PerFour = 8 + 68 + 128 + 188;
  printf("site site_handed %llu %llu\n", Count, Count / 4 * PerFour);
  printf("site site_kept %ld %ld\n", Kept.load(), Kept.load() * 32);
  return 0;
}

static int forked() {
  const int K = 200;
  std::vector<void *> Mine(K);
  for (int I = 0; I < K; ++I) {
    Mine[I] = site_before(40);
    fill(Mine[I], 40, unsigned(I));
  }
  fflush(stdout);
  pid_t Pid = fork();
  if (Pid == 0) {
    if (!memprof_set_output_path || memprof_set_output_path("child.memprofraw"))
      _exit(3);
    // Half the parent's blocks freed, as many allocated (into the freed
    // slots), written over: the other half must not change.
    for (int I = 0; I < K; I += 2)
      free(Mine[I]);
    std::vector<void *> Theirs;
    for (int I = 0; I < K / 2; ++I) {
      void *P = site_child(40);
      memset(P, 0xEE, 40);
      Theirs.push_back(P);
    }
    bool Intact = true;
    for (int I = 1; I < K; I += 2)
      Intact &= filled(Mine[I], 40, unsigned(I));
    printf("child: intact=%d\n", int(Intact));
    printf("child: site site_child %d %d\n", K / 2, K / 2 * 40);
    printf("child: site site_before 0 0\n");
    for (void *P : Theirs)
      free(P);
    exit(Intact ? 0 : 1); // the child's exit dump: child.memprofraw
  }
  int Status = 0;
  waitpid(Pid, &Status, 0);
  bool Intact = true;
  for (int I = 0; I < K; ++I)
    Intact &= filled(Mine[I], 40, unsigned(I));
  printf("parent: intact=%d child exit=%d\n", int(Intact),
         WIFEXITED(Status) ? WEXITSTATUS(Status) : -1);
  printf("parent: site site_before %d %d\n", K, K * 40);
  printf("parent: site site_child 0 0\n");
  return 0;
}

static int phases() {
  // 200,000 blocks of 24 bytes (12.2 MiB of slots) held, then freed: their
  // spans go back to the system (all but a spare or two), and the next
  // phase's blocks of another class take the same spans again.
  const int K = 200000;
  std::vector<void *> Held(K);
  for (int I = 0; I < K; ++I) {
    Held[I] = site_phase1(24);
    memset(Held[I], 1, 24);
  }
  uintptr_t Lo = UINTPTR_MAX, Hi = 0;
  for (void *P : Held) {
    Lo = std::min(Lo, uintptr_t(P));
    Hi = std::max(Hi, uintptr_t(P));
  }
  long Full = residentBytes();
  for (void *P : Held)
    free(P);
  long Freed = residentBytes();
  printf("given back after the first phase: %s (%ld KiB)\n",
         Full - Freed > (10L << 20) ? "most" : "little",
         (Full - Freed) >> 10);
  int Inside = 0;
  const int K2 = K / 4;
  for (int I = 0; I < K2; ++I) {
    Held[I] = site_phase2(200);
    memset(Held[I], 2, 200);
    Inside += uintptr_t(Held[I]) >= Lo && uintptr_t(Held[I]) <= Hi;
  }
  printf("second phase in the first one's spans: %s (%d of %d)\n",
         Inside > K2 * 9 / 10 ? "most" : "few", Inside, K2);
  for (int I = 0; I < K2; ++I)
    free(Held[I]);
  printf("site site_phase1 %d %d\n", K, K * 24);
  printf("site site_phase2 %d %d\n", K2, K2 * 200);
  return 0;
}

static int many(int N) {
  std::vector<void *> Held(N);
  for (int I = 0; I < N; ++I)
    Held[I] = site_many(24);
  for (int I = 0; I < N; ++I)
    free(Held[I]);
  printf("site site_many %d %d\n", N, N * 24);
  printf("peak site_many %d %d\n", N, N * 24);
  printf("live site_many 0 0\n");
  printf("exit 1\n");
  return 0;
}

static int doubleFree() {
  void *P = malloc(40), *P2 = malloc(100);
  free(P);
  free(P); // glibc would abort; the runtime ignores it (and says so once)
  free(P2);
  free(P2);
  void *Q = malloc(40), *R = malloc(40);
  printf("double free survived, distinct blocks after it: %d\n", int(Q != R));
  free(Q);
  free(R);
  return 0;
}

/// Whether the VmFlags of the mapping that holds \p P have "hg".
static bool hugeAdvised(const void *P) {
  FILE *F = fopen("/proc/self/smaps", "r");
  if (!F)
    return false;
  char Line[512];
  bool In = false, Hg = false;
  while (fgets(Line, sizeof(Line), F)) {
    unsigned long Lo, Hi;
    char Dash;
    if (sscanf(Line, "%lx%c%lx ", &Lo, &Dash, &Hi) == 3 && Dash == '-') {
      In = uintptr_t(P) >= Lo && uintptr_t(P) < Hi;
      continue;
    }
    if (In && !strncmp(Line, "VmFlags:", 8))
      Hg = strstr(Line, " hg") != nullptr;
  }
  fclose(F);
  return Hg;
}

static int huge(int N) {
  std::vector<void *> Held(N);
  for (int I = 0; I < N; ++I) {
    Held[I] = site_many(24);
    memset(Held[I], 1, 24);
  }
  printf("huge pages asked for: first block %s, last block %s\n",
         hugeAdvised(Held[0]) ? "yes" : "no",
         hugeAdvised(Held[N - 1]) ? "yes" : "no");
  for (void *P : Held)
    free(P);
  printf("site site_many %d %d\n", N, N * 24);
  return 0;
}

static int forged() {
  // A block of 40 bytes whose first 16 look like a slab chunk's tail
  // (ChunkTail: size, untracked slot, marker 8 | KindSlab 5, timestamp).
  unsigned char *P = static_cast<unsigned char *>(malloc(40));
  uint32_t Fake[4] = {8, ~0u, 8 | 5, 0};
  memcpy(P, Fake, sizeof(Fake));
  free(P + 16); // not a block's pointer: ignored
  void *Q = malloc(8), *R = malloc(8);
  memset(Q, 1, 8);
  memset(R, 2, 8);
  bool Distinct = Q != P + 16 && R != P + 16 && Q != R;
  printf("forged tail freed: block intact=%d others distinct=%d\n",
         int(!memcmp(P, Fake, sizeof(Fake))), int(Distinct));
  free(P);
  free(Q);
  free(R);
  return 0;
}

static int compact() {
  std::vector<Block> Blocks;
  bool Aligned = true, Usable = true, Zero = true, Intact = true;
  // Dirty slots of every class first, so that calloc gets used memory.
  std::vector<void *> Dirty;
  for (int Round = 0; Round < 2; ++Round)
    for (size_t N = 0; N <= 300; ++N) {
      void *P = malloc(N);
      memset(P, 0xA5, N);
      Dirty.push_back(P);
    }
  for (void *P : Dirty)
    free(P);
  allocateEveryWay(Blocks, Aligned, Usable, Zero);
  // realloc: 20 to 30 bytes stays in its slot (both take 48 with the
  // tail), 30 to 40 moves (64), the data kept.
  void *R = malloc(20);
  fill(R, 20, 3);
  void *R2 = site_realloc(R, 30);
  bool InPlace = R2 == R;
  Intact &= filled(R2, 20, 3);
  fill(R2, 30, 4);
  void *R3 = site_realloc(R2, 40);
  Intact &= filled(R3, 30, 4) && malloc_usable_size(R3) == 40;
  fill(R3, 40, 40);
  Blocks.push_back({R3, 40, 0});
  // Each block with the 16 bytes before it (the runtime's tail): no two
  // overlap, and every block keeps its bytes.
  std::vector<std::pair<uintptr_t, uintptr_t>> Ranges;
  for (const Block &B : Blocks) {
    Ranges.emplace_back(uintptr_t(B.P) - 16, uintptr_t(B.P) + (B.N ? B.N : 1));
    Intact &= filled(B.P, B.N, unsigned(B.N));
  }
  bool Disjoint = disjoint(Ranges, /*Closed=*/false);
  printf("compact: aligned=%d usable=%d calloc zero=%d intact=%d "
         "blocks and tails disjoint=%d realloc in place within 16 bytes=%d\n",
         int(Aligned), int(Usable), int(Zero), int(Intact), int(Disjoint),
         int(InPlace));
  freeAndPrintSites(Blocks, Blocks.size() - 1); // all but R3, the last
  free(R3);
  printf("site site_realloc 2 70\n");

  // Resident memory: 200,000 blocks of 16 bytes.
  const int K = 200000;
  long PerBlock = residentPerBlock(site_rss16, 16, K);
  printf("resident per 16-byte block: %s (%ld)\n",
         PerBlock < 48 ? "under 48" : "48 or more", PerBlock);
  printf("site site_rss16 %d %d\n", K, K * 16);
  return 0;
}

int main(int argc, char **argv) {
  const char *Mode = argc > 1 ? argv[1] : "";
  if (!strcmp(Mode, "layout"))
    return layout();
  if (!strcmp(Mode, "realloc"))
    return reallocs();
  if (!strcmp(Mode, "counts"))
    return counts();
  if (!strcmp(Mode, "threads"))
    return threads(argc > 2 ? atoi(argv[2]) : 2);
  if (!strcmp(Mode, "fork"))
    return forked();
  if (!strcmp(Mode, "phases"))
    return phases();
  if (!strcmp(Mode, "many"))
    return many(argc > 2 ? atoi(argv[2]) : 100000);
  if (!strcmp(Mode, "double"))
    return doubleFree();
  if (!strcmp(Mode, "huge"))
    return huge(argc > 2 ? atoi(argv[2]) : 1000);
  if (!strcmp(Mode, "forged"))
    return forged();
  if (!strcmp(Mode, "compact"))
    return compact();
  return 2;
}
