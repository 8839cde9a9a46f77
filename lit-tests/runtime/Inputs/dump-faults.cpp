// A small program for the fault tests (R8, R9, R15, R16): a known set of
// allocations, then N dumps through the API (each return code printed and,
// with MEMPROF_TEST_SHIM_LOG set, appended to that log between the write
// shim's lines), then an end chosen by the second argument: exit (the exit
// dump), abort, _exit, _Exit, quick_exit, SIGKILL or SIGSEGV from itself, a
// real SIGBUS (a mapped file's page past its end), a stack overflow, or exit
// from 8 threads at once. A third argument B adds 2^B
// more contexts (one allocation of 64 bytes each, site site_tree) to make
// the dump larger; MEMPROF_TEST_FREE_AFTER_DUMP1 names a file removed after
// the first dump (space freed on a full disk). With MEMPROF_TEST_GATE=G
// set, it creates G.ready.<pid> after its allocations and exits only once
// G exists (R16: processes that surely overlap).
//   dump-faults DUMPS [exit|abort|_exit|_Exit|quick_exit|kill|segv|bus|
//                      overflow|exit8] [B]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
extern "C" int memprof_dump(void) __attribute__((weak));

extern "C" __attribute__((noinline)) void *site_kept(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_freed(size_t N) {
  return malloc(N);
}

extern "C" __attribute__((noinline)) void *site_tree(size_t N) {
  return malloc(N);
}
// Bits selects one of two call sites at each of Levels levels: 2^Levels
// distinct stacks that end in site_tree.
extern "C" __attribute__((noinline)) void *tree(unsigned Bits, int Levels) {
  if (Levels == 0)
    return site_tree(64);
  if (Bits & 1)
    return tree(Bits >> 1, Levels - 1);
  return tree(Bits >> 1, Levels - 1);
}

// Recursion without end: each frame keeps a page of its own alive.
extern "C" __attribute__((noinline)) int overflow(int Depth) {
  volatile char Page[4096];
  Page[0] = char(Depth);
  return overflow(Depth + 1) + Page[0];
}

static pthread_barrier_t AllThreads;
static void *exitTogether(void *) {
  pthread_barrier_wait(&AllThreads);
  exit(0);
}

static void note(const char *Line) {
  if (const char *Log = getenv("MEMPROF_TEST_SHIM_LOG")) {
    int Fd = open(Log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (Fd >= 0) {
      (void)!write(Fd, Line, strlen(Line));
      close(Fd);
    }
  }
}

int main(int Argc, char **Argv) {
  int Dumps = Argc > 1 ? atoi(Argv[1]) : 0;
  const char *End = Argc > 2 ? Argv[2] : "exit";
  static void *Kept[100];
  for (int I = 0; I < 100; ++I) {
    Kept[I] = site_kept(100 + I);
    free(site_freed(1000));
  }
  printf("site site_kept 100 %d\n", 100 * 100 + 99 * 100 / 2);
  printf("site site_freed 100 100000\n");
  if (Argc > 3) {
    int Levels = atoi(Argv[3]);
    for (unsigned B = 0; B < (1u << Levels); ++B)
      Kept[B % 100] = tree(B, Levels); // kept or not: counted either way
    printf("site site_tree %u %u\n", 1u << Levels, 64u << Levels);
  }
  for (int I = 1; I <= Dumps; ++I) {
    int Rc = memprof_dump ? memprof_dump() : -2;
    char Line[64];
    snprintf(Line, sizeof(Line), "after dump %d rc=%s\n", I, Rc ? "failed" : "0");
    note(Line);
    fprintf(stderr, "%s", Line);
    if (I == 1)
      if (const char *Free = getenv("MEMPROF_TEST_FREE_AFTER_DUMP1"))
        unlink(Free);
  }
  fflush(stdout);
  if (const char *Gate = getenv("MEMPROF_TEST_GATE")) {
    char Ready[4096];
    snprintf(Ready, sizeof(Ready), "%s.ready.%d", Gate, int(getpid()));
    int Fd = open(Ready, O_WRONLY | O_CREAT, 0644);
    if (Fd >= 0)
      close(Fd);
    for (int Waited = 0; access(Gate, F_OK) != 0 && Waited < 60000; ++Waited)
      usleep(1000); // at most a minute
  }
  if (!strcmp(End, "abort"))
    abort();
  if (!strcmp(End, "_exit"))
    _exit(0);
  if (!strcmp(End, "kill"))
    raise(SIGKILL);
  if (!strcmp(End, "_Exit"))
    _Exit(0);
  if (!strcmp(End, "quick_exit"))
    quick_exit(0);
  if (!strcmp(End, "bus")) {
    // A page of a file that is empty: touching it is SIGBUS.
    char Path[] = "/tmp/memprof-bus-XXXXXX";
    int Fd = mkstemp(Path);
    if (Fd < 0)
      return 3;
    unlink(Path);
    void *P = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, Fd, 0);
    if (P == MAP_FAILED)
      return 3;
    signal(SIGBUS, SIG_DFL);
    return *static_cast<volatile char *>(P);
  }
  if (!strcmp(End, "overflow"))
    return overflow(0);
  if (!strcmp(End, "segv")) {
    signal(SIGSEGV, SIG_DFL);
    *(volatile int *)nullptr = 1;
  }
  if (!strcmp(End, "exit8")) {
    pthread_t T[8];
    pthread_barrier_init(&AllThreads, nullptr, 8);
    for (pthread_t &Th : T)
      pthread_create(&Th, nullptr, exitTogether, nullptr);
    for (pthread_t &Th : T)
      pthread_join(Th, nullptr);
  }
  return 0;
}
