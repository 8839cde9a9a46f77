// Access histograms with a known truth: the program increments the shadow
// counter of each granule of its blocks itself (as instrumented code would)
// and prints the histogram each context must show: one count per 64-byte
// granule the block touches, from its first byte's granule on. Blocks of one
// context merge with LLVM's rule (the longer histogram kept, the shorter
// added into it element by element); a block still live at exit is in the
// exit dump; a block over histogram_max_bytes has no histogram. Counts above
// 4095 go through raw v5's lossy 16-bit encoding, so the truth uses exactly
// representable values (multiples of a power of two).
#include "memprof/Runtime/memprof_runtime.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#pragma weak memprof_shadow_base
#pragma weak memprof_shadow_start

extern "C" __attribute__((noinline)) void *site_hist(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_hist_live(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_hist_big(size_t N) {
  return malloc(N);
}

static std::vector<uint64_t *> counters(void *P, size_t N) {
  std::vector<uint64_t *> C;
  uintptr_t First = uintptr_t(P) & ~uintptr_t(63);
  uintptr_t Last = (uintptr_t(P) + (N ? N : 1) - 1) & ~uintptr_t(63);
  for (uintptr_t G = First; G <= Last; G += 64)
    C.push_back(MEMPROF_SHADOW_COUNTER(G));
  return C;
}

static void print(const char *Name, const std::vector<uint64_t> &H) {
  printf("hist %s", Name);
  for (uint64_t V : H)
    printf(" %llu", (unsigned long long)V);
  printf("\n");
}

int main() {
  // Counting by hand, as instrumented code would: the shadow exists only
  // once such code asks for it.
  if (!&memprof_shadow_start || !memprof_shadow_start()) {
    printf("no shadow\n");
    return 1;
  }
  // Two blocks at one context, 200 and 1000 bytes.
  std::vector<uint64_t> Want;
  void *Blocks[2];
  const size_t Sizes[2] = {200, 1000};
  for (int I = 0; I < 2; ++I)
    Blocks[I] = site_hist(Sizes[I]);
  for (int I = 0; I < 2; ++I) {
    std::vector<uint64_t *> C = counters(Blocks[I], Sizes[I]);
    if (Want.size() < C.size())
      Want.resize(C.size());
    for (size_t G = 0; G < C.size(); ++G) {
      uint64_t V = (G * 3 + 1) * (I + 1); // known, distinct per granule
      if (G == 1 && I == 1)
        V = 8192; // the sum, 8196, is above 4095 yet exact in v5 (2049 << 2)
      *C[G] += V;
      Want[G] += V;
    }
  }
  free(Blocks[0]);
  free(Blocks[1]);
  print("site_hist", Want);
  printf("granules: %zu\n", Want.size());

  // A live block, reported at the exit dump.
  void *L = site_hist_live(100);
  std::vector<uint64_t *> C = counters(L, 100);
  std::vector<uint64_t> WantLive;
  for (size_t G = 0; G < C.size(); ++G) {
    *C[G] += 10 + G;
    WantLive.push_back(10 + G);
  }
  print("site_hist_live", WantLive);

  // Over the bound: no histogram, but the access count is kept.
  size_t BigN = 8192;
  void *B = site_hist_big(BigN);
  uint64_t BigTotal = 0;
  for (uint64_t *P : counters(B, BigN)) {
    *P += 1;
    ++BigTotal;
  }
  free(B);
  printf("hist site_hist_big\n");
  printf("expect site_hist_big TotalAccessCount == %llu\n",
         (unsigned long long)BigTotal);
  return 0;
}
