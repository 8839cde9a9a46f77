// Built with -fprofile-generate and memprof's pass and runtime (pkg-config
// memprof-pgo): threads, then a fork, each process writing a .profraw and a
// .memprofraw. Prints the truth: "site NAME COUNT BYTES" for the heap part
// (the parent's allocations on stdout; the child's into argv[1]) and the
// process ids. The counters the test expects follow from the constants here.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
// Allocation sites: the leaf of their contexts, one per phase.
__attribute__((noinline)) char *site_main(size_t n) { return new char[n]; }
__attribute__((noinline)) char *site_thread(size_t n) { return new char[n]; }
__attribute__((noinline)) char *site_child(size_t n) { return new char[n]; }
__attribute__((noinline)) char *site_after(size_t n) { return new char[n]; }

static volatile int Sink;
// One basic block each: one counter, the number of calls.
__attribute__((noinline)) void hit(char *p) { p[0] = 1; Sink += p[0]; }
__attribute__((noinline)) void miss(char *p) { p[0] = 2; Sink += p[0]; }
__attribute__((noinline)) void in_thread(int i) { Sink += i; }
__attribute__((noinline)) void in_child(int i) { char *p = site_child(32); p[0] = (char)i; Sink += p[0]; delete[] p; }
__attribute__((noinline)) void in_parent_after(int i) { char *p = site_after(48); p[0] = (char)i; Sink += p[0]; delete[] p; }

// A branch taken a third of the time: hit 10, miss 20 for 30 calls.
__attribute__((noinline)) void counted(int i) {
  char *p = site_main(16 + i);
  if (i % 3 == 0)
    hit(p);
  else
    miss(p);
  delete[] p;
}
}

enum { Calls = 30, Threads = 4, PerThread = 25, ChildCalls = 7, AfterCalls = 3 };
static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *) {
  for (int i = 0; i < PerThread; ++i) {
    // Allocations in every thread at once (the heap profile is exact under
    // concurrency); the counted call under a lock (-fprofile-generate's
    // counter updates are not atomic without -fprofile-update=atomic).
    char *p = site_thread(8 + i);
    p[0] = (char)i;
    pthread_mutex_lock(&Lock);
    in_thread(p[0]);
    pthread_mutex_unlock(&Lock);
    delete[] p;
  }
  return nullptr;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: threads-fork CHILD-TRUTH\n");
    return 2;
  }
  size_t Bytes = 0;
  for (int i = 0; i < Calls; ++i) {
    counted(i);
    Bytes += 16 + i;
  }
  printf("site site_main %d %zu\n", (int)Calls, Bytes);

  pthread_t T[Threads];
  for (int t = 0; t < Threads; ++t)
    pthread_create(&T[t], nullptr, worker, nullptr);
  for (int t = 0; t < Threads; ++t)
    pthread_join(T[t], nullptr);
  Bytes = 0;
  for (int i = 0; i < PerThread; ++i)
    Bytes += 8 + i;
  printf("site site_thread %d %zu\n", Threads * PerThread, Threads * Bytes);
  fflush(stdout);

  pid_t Child = fork();
  if (Child < 0)
    return 1;
  if (Child == 0) {
    for (int i = 0; i < ChildCalls; ++i)
      in_child(i);
    exit(0); // a normal exit: both runtimes write the child's profiles
  }
  int Status = 0;
  if (waitpid(Child, &Status, 0) != Child || !WIFEXITED(Status) ||
      WEXITSTATUS(Status) != 0)
    return 1;
  for (int i = 0; i < AfterCalls; ++i)
    in_parent_after(i);
  printf("site site_child %d %d\n", (int)ChildCalls, ChildCalls * 32);
  printf("site site_after %d %d\n", (int)AfterCalls, AfterCalls * 48);
  printf("pid parent %d\npid child %d\n", (int)getpid(), (int)Child);

  // The child's own heap profile: its allocations only, none of its parent's.
  FILE *F = fopen(argv[1], "w");
  if (!F)
    return 1;
  fprintf(F, "site site_child %d %d\n", (int)ChildCalls, ChildCalls * 32);
  fprintf(F, "site site_main 0 0\nsite site_thread 0 0\nsite site_after 0 0\n");
  return fclose(F) != 0;
}
