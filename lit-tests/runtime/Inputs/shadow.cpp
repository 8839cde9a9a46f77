// The shadow arithmetic end to end: the program increments the counters of
// its blocks through memprof_shadow_base, as instrumented code would, and
// computes the access counts the profile must show. Also checks the chunk
// layout (no granule shared by two blocks), that
// free clears the counters (small and large blocks) while a dump does not,
// and lifetimes measured across a sleep.
#include "memprof/Runtime/memprof_runtime.h"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <utility>
#include <vector>
#pragma weak memprof_shadow_base
#pragma weak memprof_shadow_start
#pragma weak memprof_dump

#define SITE(Name, Call)                                                       \
  extern "C" __attribute__((noinline)) void *Name(size_t N) { return Call; }
SITE(site_counted, malloc(N))
SITE(site_aligned, aligned_alloc(256, N))
SITE(site_live, malloc(N))
SITE(site_large, malloc(N))
SITE(site_long, malloc(N))
SITE(site_live_long, malloc(N))
SITE(site_layout_malloc, malloc(N))
SITE(site_layout_new, new char[N])
SITE(site_layout_aligned, aligned_alloc(128, N))

static uintptr_t firstGranule(void *P) { return uintptr_t(P) & ~uintptr_t(63); }
static uintptr_t lastGranule(void *P, size_t N) {
  return (uintptr_t(P) + (N ? N : 1) - 1) & ~uintptr_t(63);
}

// Adds Inc to every Stride-th counter of the block; returns the total added.
static uint64_t touch(void *P, size_t N, uint64_t Inc, unsigned Stride = 1) {
  uint64_t Total = 0;
  for (uintptr_t G = firstGranule(P); G <= lastGranule(P, N); G += 64 * Stride) {
    *MEMPROF_SHADOW_COUNTER(G) += Inc;
    Total += Inc;
  }
  return Total;
}

static bool cleared(void *P, size_t N) {
  for (uintptr_t G = firstGranule(P); G <= lastGranule(P, N); G += 64)
    if (*MEMPROF_SHADOW_COUNTER(G))
      return false;
  return true;
}

int main() {
  // The runtime has started (an allocation), but nothing that counts has:
  // there is no shadow yet, so frees read no counters.
  free(malloc(8));
  printf("shadow before counting code: %d\n",
         int(&memprof_shadow_base && memprof_shadow_base != 0));
  // Counting by hand, as instrumented code would: the shadow exists only
  // once such code asks for it.
  if (!&memprof_shadow_start || !memprof_shadow_start()) {
    printf("no shadow\n");
    return 1;
  }
  // Two blocks at one site: counts are summed, min and max kept.
  void *AB[2];
  const size_t Sizes[2] = {1000, 100};
  for (int I = 0; I < 2; ++I) // one call site, so one context
    AB[I] = site_counted(Sizes[I]);
  void *A = AB[0], *B = AB[1];
  printf("site_counted 16-aligned: %d %d\n", int(uintptr_t(A) % 16 == 0),
         int(uintptr_t(B) % 16 == 0));
  uint64_t CA = touch(A, 1000, 3), CB = touch(B, 100, 1);
  free(A);
  free(B);
  printf("counted cleared: %d\n", int(cleared(A, 1000) && cleared(B, 100)));
  printf("site site_counted 2 1100\n");
  printf("expect site_counted TotalAccessCount == %llu\n", (unsigned long long)(CA + CB));
  printf("expect site_counted MinAccessCount == %llu\n", (unsigned long long)CB);
  printf("expect site_counted MaxAccessCount == %llu\n", (unsigned long long)CA);
  printf("expect site_counted TotalAccessDensity == %llu\n",
         (unsigned long long)(CA * 100 / 1000 + CB * 100 / 100));

  void *Al = site_aligned(512);
  printf("site_aligned aligned: %d\n", int(uintptr_t(Al) % 256 == 0));
  uint64_t CAl = touch(Al, 512, 2);
  free(Al);
  printf("site site_aligned 1 512\n");
  printf("expect site_aligned TotalAccessCount == %llu\n", (unsigned long long)CAl);

  // Live at exit; the dump in the middle reads its counters without
  // clearing them, so the exit dump sees the same count.
  void *L = site_live(200);
  uint64_t CL = touch(L, 200, 5);
  printf("site site_live 1 200\n");
  printf("expect site_live TotalAccessCount == %llu\n", (unsigned long long)CL);
  printf("dump: %d\n", memprof_dump());

  // A large block: its shadow (512 KiB) takes the page-wise path at free.
  const size_t Large = size_t(4) << 20;
  void *G = site_large(Large);
  uint64_t CG = touch(G, Large, 1, 100);
  free(G);
  printf("large cleared: %d\n", int(cleared(G, Large)));
  printf("site site_large 1 %zu\n", Large);
  printf("expect site_large TotalAccessCount == %llu\n", (unsigned long long)CG);

  // Layout: no 64-byte granule holds bytes of two live blocks.
  std::vector<std::pair<uintptr_t, uintptr_t>> Ranges;
  std::vector<void *> Blocks;
  bool Aligned = true;
  for (int I = 0; I < 3000; ++I) {
    size_t N = size_t(rand() % 300);
    void *P = I % 3 == 0   ? site_layout_malloc(N)
              : I % 3 == 1 ? static_cast<void *>(site_layout_new(N))
                           : site_layout_aligned(N);
    Aligned &= uintptr_t(P) % (I % 3 == 2 ? 128 : 16) == 0;
    Ranges.emplace_back(firstGranule(P), lastGranule(P, N));
    Blocks.push_back(P);
  }
  std::sort(Ranges.begin(), Ranges.end());
  bool Disjoint = true;
  for (size_t I = 1; I < Ranges.size(); ++I)
    Disjoint &= Ranges[I].first > Ranges[I - 1].second;
  printf("layout: aligned=%d granules disjoint=%d\n", int(Aligned), int(Disjoint));
  for (size_t I = 0; I < Blocks.size(); ++I)
    if (I % 3 == 1)
      delete[] static_cast<char *>(Blocks[I]);
    else
      free(Blocks[I]);

  // Lifetimes (ms): about the sleep, for a freed and a live block. The
  // runtime's clock is the coarse one (a tick of at most 10 ms), so the
  // bound leaves room for two ticks.
  void *LiveLong = site_live_long(10);
  void *Long = site_long(10);
  usleep(300 * 1000);
  free(Long);
  (void)LiveLong;
  printf("site site_long 1 10\nsite site_live_long 1 10\n");
  printf("expect site_long MinLifetime >= 280\n");
  printf("expect site_live_long MinLifetime >= 280\n");
  return 0;
}
