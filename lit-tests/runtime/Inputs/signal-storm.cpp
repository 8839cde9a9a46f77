// R7: a storm of dump signals while threads allocate. The main thread sends
// the dump signal SIGNALS times, GAP microseconds apart (so signals also
// arrive during dumps), to each thread in turn: the allocating threads (in
// the middle of malloc and free) and a thread that sits in a blocking
// read() of a pipe written only after the storm (the runtime's handler must
// not make that read fail with EINTR). The handler only sets a flag; some
// allocation then dumps. The program prints the per-site truth
// of its allocations, how many signals it sent and how the read ended.
//   signal-storm SIGNUM SIGNALS [THREADS [GAP]]
//   signal-storm SIGNUM SIGNALS sigwait
// The second form blocks the signal in every thread and takes each one with
// sigwait() on a thread of its own, one at a time: the program's use of the
// signal wins, it receives every one, and the runtime dumps only at exit.
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

extern "C" __attribute__((noinline)) void *site_storm(size_t N) {
  return malloc(N);
}

static std::atomic<bool> Stop{false};
static constexpr int MaxThreads = 64;
static long Allocs[MaxThreads], Bytes[MaxThreads];
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

static int Pipe[2];
static ssize_t ReadResult;
static int ReadErrno;
static void *reader(void *) {
  char C;
  ReadResult = read(Pipe[0], &C, 1);
  ReadErrno = errno;
  return nullptr;
}

static int Sig;
static std::atomic<int> Received{0};
static void *waiter(void *Arg) {
  int Want = int(long(Arg));
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, Sig);
  for (int I = 0; I < Want; ++I) {
    int Got;
    if (sigwait(&Set, &Got) != 0 || Got != Sig)
      break;
    ++Received;
  }
  return nullptr;
}

int main(int Argc, char **Argv) {
  Sig = atoi(Argv[1]);
  int Signals = atoi(Argv[2]);
  bool SigWait = Argc > 3 && !strcmp(Argv[3], "sigwait");
  int Threads = Argc > 3 && !SigWait ? atoi(Argv[3]) : 4;
  int Gap = Argc > 4 ? atoi(Argv[4]) : 300;
  if (Threads < 1 || Threads > MaxThreads)
    return 2;
  pthread_t Waiter;
  if (SigWait) {
    // Blocked before any thread starts, so in every thread.
    sigset_t Set;
    sigemptyset(&Set);
    sigaddset(&Set, Sig);
    pthread_sigmask(SIG_BLOCK, &Set, nullptr);
    pthread_create(&Waiter, nullptr, waiter, (void *)long(Signals));
  }
  if (pipe(Pipe) != 0)
    return 2;
  pthread_t Reader;
  pthread_create(&Reader, nullptr, reader, nullptr);
  pthread_t W[MaxThreads];
  for (long T = 0; T < Threads; ++T)
    pthread_create(&W[T], nullptr, worker, (void *)T);
  // Every dump must hold this site (llvm-profdata rejects a profile none of
  // whose contexts is in the binary).
  while (Started.load() < Threads)
    usleep(100);
  for (int I = 0; I < Signals; ++I) {
    if (SigWait)
      kill(getpid(), Sig);
    else
      pthread_kill(I % (Threads + 1) == Threads ? Reader : W[I % (Threads + 1)],
                   Sig);
    if (SigWait) // one at a time: blocked signals of one kind do not queue
      for (int Waited = 0; Received.load() <= I && Waited < 100000; ++Waited)
        usleep(10);
    else
      usleep(Gap);
  }
  Stop = true;
  long A = 0, B = 0;
  for (long T = 0; T < Threads; ++T) {
    pthread_join(W[T], nullptr);
    A += Allocs[T];
    B += Bytes[T];
  }
  (void)!write(Pipe[1], "x", 1);
  pthread_join(Reader, nullptr);
  if (SigWait) {
    pthread_join(Waiter, nullptr);
    printf("sigwait received %d of %d\n", Received.load(), Signals);
  }
  printf("signals sent %d\n", Signals);
  printf("blocking read: %s\n",
         ReadResult == 1 ? "ok" : ReadErrno == EINTR ? "EINTR" : "failed");
  printf("site site_storm %ld %ld\n", A, B);
  return 0;
}
