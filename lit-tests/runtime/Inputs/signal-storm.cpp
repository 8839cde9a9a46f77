// R7: a storm of dump signals while four threads allocate. A fifth thread
// sends the dump signal to the process SIGNALS times, a few hundred
// microseconds apart (so signals also arrive during dumps). The handler only
// sets a flag; some allocation then dumps. The program prints the per-site
// truth of its allocations and how many signals it sent.
//   signal-storm SIGNUM SIGNALS
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <unistd.h>

extern "C" __attribute__((noinline)) void *site_storm(size_t N) {
  return malloc(N);
}

static std::atomic<bool> Stop{false};
static constexpr int Threads = 4;
static long Allocs[Threads], Bytes[Threads];
static std::atomic<int> Started{0};

static void *worker(void *Arg) {
  long T = long(Arg);
  free(site_storm(8));
  Allocs[T] = 1;
  Bytes[T] = 8;
  ++Started;
  while (!Stop.load()) {
    size_t N = 16 + (Allocs[T] % 64) * 8;
    free(site_storm(N));
    ++Allocs[T];
    Bytes[T] += N;
  }
  return nullptr;
}

int main(int Argc, char **Argv) {
  int Sig = atoi(Argv[1]), Signals = atoi(Argv[2]);
  pthread_t W[Threads];
  for (long T = 0; T < Threads; ++T)
    pthread_create(&W[T], nullptr, worker, (void *)T);
  // Every dump must hold this site (llvm-profdata rejects a profile none of
  // whose contexts is in the binary).
  while (Started.load() < Threads)
    usleep(100);
  for (int I = 0; I < Signals; ++I) {
    kill(getpid(), Sig);
    usleep(300);
  }
  Stop = true;
  long A = 0, B = 0;
  for (long T = 0; T < Threads; ++T) {
    pthread_join(W[T], nullptr);
    A += Allocs[T];
    B += Bytes[T];
  }
  printf("signals sent %d\n", Signals);
  printf("site site_storm %ld %ld\n", A, B);
  return 0;
}
