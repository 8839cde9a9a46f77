// R3: four threads allocate while the main thread dumps every millisecond;
// then one dump after the threads are done, and dumps to /dev/null.
// Prints the exact per-site truth of the final dump.
#include "memprof/Runtime/memprof_runtime.h"
// Defined by the preloaded runtime.
#pragma weak memprof_dump
#pragma weak memprof_set_output_path
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

// The test's own character device (mknod c 1 3 in its temp directory), so a
// runtime bug can never replace the machine's /dev/null.
static const char *nullDevice() {
  const char *P = getenv("MEMPROF_TEST_NULL");
  return P ? P : "/nonexistent/MEMPROF_TEST_NULL-unset";
}

extern "C" __attribute__((noinline)) void *site_freed(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_kept(size_t N) { return malloc(N); }

std::atomic<bool> Stop;

// Allocates until main has finished its dumps (at least N times). At most
// MaxKept blocks stay live per thread: each dump walks every live block, so
// an unbounded live set let a slow dumper (a loaded machine) fall further
// behind with every dump (a run took over 5 minutes).
constexpr size_t MaxKept = 5000;
void worker(int Id, int N, long *Out) {
  std::vector<void *> Kept;
  for (int I = 0; I < N || !Stop.load(std::memory_order_relaxed); ++I) {
    size_t Size = 1 + (I * 13 + Id) % 300;
    void *P = site_freed(Size);
    Out[0] += 1, Out[1] += long(Size);
    free(P);
    if (I % 10 == 0 && Kept.size() < MaxKept) {
      Kept.push_back(site_kept(Size));
      Out[2] += 1, Out[3] += long(Size);
    }
  }
  // The kept blocks stay live: every dump counts them as if freed then.
}

int main(int argc, char **argv) {
  int Dumps = atoi(argv[1]);
  long Truth[4][4] = {};
  std::vector<std::thread> Ts;
  for (int I = 0; I < 4; ++I)
    Ts.emplace_back(worker, I, 1000, Truth[I]);
  int Failed = 0;
  for (int D = 0; D < Dumps; ++D) {
    Failed += memprof_dump() != 0;
    usleep(1000);
  }
  Stop = true;
  for (auto &T : Ts)
    T.join();
  Failed += memprof_dump() != 0; // dump number Dumps + 1: the final truth
  // Dumps to a device are written in place, never renamed over it.
  if (memprof_set_output_path(nullDevice()) != 0)
    return 1;
  for (int D = 0; D < 20; ++D)
    Failed += memprof_dump() != 0;
  struct stat St;
  printf("devnull %s\n", stat(nullDevice(), &St) == 0 && S_ISCHR(St.st_mode)
                             ? "still a character device" : "REPLACED");
  printf("failed dumps %d\n", Failed);
  long Sum[4] = {};
  for (auto &T : Truth)
    for (int K = 0; K < 4; ++K)
      Sum[K] += T[K];
  printf("site site_freed %ld %ld\n", Sum[0], Sum[1]);
  printf("site site_kept %ld %ld\n", Sum[2], Sum[3]);
  return 0;
}
