// hotcold-alloc.cpp - the allocation loop bench/hotcold-bench.sh times.
//
//   hotcold-alloc MODE THREADS ITERATIONS
//
// Each thread keeps 4096 live blocks and replaces one per iteration (sizes 8
// to 263 bytes, a fixed xorshift sequence): delete then new. MODE plain uses
// the standard operator new and sized delete; hot, notcold and cold call the
// hinted operator new (only in the build linked with libmemprof_hotcold,
// -DMEMPROF_HOTCOLD).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#ifdef MEMPROF_HOTCOLD
#include "memprof/HotCold/hotcold.h"
#endif

namespace {

int Hint = -1; // -1: plain operator new

void *allocate(size_t N) {
#ifdef MEMPROF_HOTCOLD
  if (Hint >= 0)
    return ::operator new(N, static_cast<__hot_cold_t>(Hint));
#endif
  return ::operator new(N);
}

void loop(unsigned Seed, long Iterations) {
  constexpr size_t Live = 4096;
  std::vector<void *> Ring(Live, nullptr);
  std::vector<size_t> Sizes(Live, 0);
  uint64_t X = 0x9e3779b97f4a7c15ull ^ Seed;
  for (long I = 0; I < Iterations; ++I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    size_t Slot = X % Live;
    size_t N = 8 + (X >> 32) % 256;
    if (Ring[Slot])
      ::operator delete(Ring[Slot], Sizes[Slot]);
    Ring[Slot] = allocate(N);
    static_cast<char *>(Ring[Slot])[0] = 1;
    Sizes[Slot] = N;
  }
  for (size_t S = 0; S < Live; ++S)
    if (Ring[S])
      ::operator delete(Ring[S], Sizes[S]);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: hotcold-alloc plain|hot|notcold|cold THREADS ITERATIONS\n");
    return 1;
  }
  if (strcmp(argv[1], "hot") == 0)
    Hint = 254;
  else if (strcmp(argv[1], "notcold") == 0)
    Hint = 128;
  else if (strcmp(argv[1], "cold") == 0)
    Hint = 1;
  else if (strcmp(argv[1], "plain") != 0) {
    fprintf(stderr, "hotcold-alloc: error: unknown mode '%s'\n", argv[1]);
    return 1;
  }
#ifndef MEMPROF_HOTCOLD
  if (Hint >= 0) {
    fprintf(stderr, "hotcold-alloc: error: mode '%s' needs the hot/cold build\n", argv[1]);
    return 1;
  }
#endif
  int Threads = atoi(argv[2]);
  long Iterations = atol(argv[3]);
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back(loop, unsigned(T), Iterations);
  for (auto &T : Ts)
    T.join();
  return 0;
}
