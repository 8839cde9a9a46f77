/* The heap section under threads, fork and resets (docs/heap-data.md).
 * Each mode prints the truth for check-heap.py.
 *
 * heap-modes threads T   T threads hold 1000 blocks of 256 bytes each at
 *                        once (site hold) while allocating and freeing
 *                        64-byte blocks (site churn) all along: the peak
 *                        is when every hold block is live, give or take the
 *                        blocks other threads were then applying.
 * heap-modes fork        the parent holds 5 MiB over a fork; the child
 *                        (its own profile, child.raw) builds 1 MiB and
 *                        frees it.
 * heap-modes reset       2 MiB built and freed, memprof_dump_and_reset,
 *                        then 1 MiB kept to the end. */
#include "memprof/Runtime/memprof_runtime.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma weak memprof_dump_and_reset
#pragma weak memprof_set_output_path

__attribute__((noinline)) void *hold(size_t N) { return malloc(N); }
__attribute__((noinline)) void *churn(size_t N) { return malloc(N); }
__attribute__((noinline)) void *parent_block(size_t N) { return malloc(N); }
__attribute__((noinline)) void *child_block(size_t N) { return malloc(N); }
__attribute__((noinline)) void *before_reset(size_t N) { return malloc(N); }
__attribute__((noinline)) void *after_reset(size_t N) { return malloc(N); }

static pthread_barrier_t Barrier;

static void *worker(void *Arg) {
  (void)Arg;
  void *Held[1000];
  int I;
  pthread_barrier_wait(&Barrier);
  for (I = 0; I < 1000; ++I) {
    Held[I] = hold(256);
    free(churn(64));
  }
  pthread_barrier_wait(&Barrier); /* every hold block is live */
  for (I = 0; I < 1000; ++I) {
    free(Held[I]);
    free(churn(64));
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *Mode = argc > 1 ? argv[1] : "";
  if (!strcmp(Mode, "threads")) {
    int T = argc > 2 ? atoi(argv[2]) : 4, I;
    pthread_t Th[256];
    if (T < 1 || T > 256)
      return 2;
    pthread_barrier_init(&Barrier, 0, (unsigned)T);
    for (I = 0; I < T; ++I)
      pthread_create(&Th[I], 0, worker, 0);
    for (I = 0; I < T; ++I)
      pthread_join(Th[I], 0);
    /* Within one block per other thread (peak-within: tolerance). */
    printf("peak-within hold %d %d %d %d\n", T * 1000, T * 1000 * 256,
           T - 1, (T - 1) * 256);
    printf("peak-diff-max %d\n", (T - 1) * 256);
    printf("live hold 0 0\nlive churn 0 0\nexit 1\n");
    return 0;
  }
  if (!strcmp(Mode, "fork")) {
    void *P[80];
    int I;
    for (I = 0; I < 80; ++I)
      P[I] = parent_block(64 * 1024);
    fflush(stdout);
    pid_t Pid = fork();
    if (Pid == 0) {
      void *C[16];
      if (!memprof_set_output_path || memprof_set_output_path("child.raw"))
        return 3;
      for (I = 0; I < 16; ++I)
        C[I] = child_block(64 * 1024);
      for (I = 0; I < 16; ++I)
        free(C[I]);
      free(P[0]); /* the parent's block: not the child's to count */
      printf("child: peak child_block 16 1048576\n"
             "child: peak parent_block 0 0\n"
             "child: live child_block 0 0\n"
             "child: live parent_block 0 0\n"
             "child: exit 1\n");
      return 0;
    }
    int Status;
    waitpid(Pid, &Status, 0);
    for (I = 1; I < 80; ++I)
      free(P[I]);
    printf("parent: peak parent_block 80 5242880\n"
           "parent: peak child_block 0 0\n"
           "parent: live parent_block 1 65536\n"
           "parent: exit 1\n");
    return 0;
  }
  if (!strcmp(Mode, "reset")) {
    void *P[32];
    int I;
    if (!memprof_dump_and_reset)
      return 3;
    for (I = 0; I < 32; ++I)
      P[I] = before_reset(64 * 1024);
    for (I = 0; I < 32; ++I)
      free(P[I]);
    P[0] = before_reset(1000); /* live at the reset: forgotten */
    if (memprof_dump_and_reset() != 0)
      return 4;
    for (I = 0; I < 16; ++I)
      P[I + 1] = after_reset(64 * 1024);
    free(P[0]); /* forgotten: not counted as freed either */
    printf("1: peak before_reset 32 2097152\n"
           "1: live before_reset 1 1000\n"
           "1: peak after_reset 0 0\n"
           "1: exit 0\n"
           "2: peak after_reset 16 1048576\n"
           "2: live after_reset 16 1048576\n"
           "2: peak before_reset 0 0\n"
           "2: live before_reset 0 0\n"
           "2: exit 1\n");
    return 0;
  }
  return 1;
}
