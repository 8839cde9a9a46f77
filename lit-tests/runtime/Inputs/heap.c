/* Known truth for the heap section (docs/heap-data.md): a phase that builds
 * 10 MiB and frees it, a smaller later phase, a resident block set, and
 * leaks from three sites whose other blocks are freed. Prints the truth:
 * "peak NAME BLOCKS BYTES", "live NAME BLOCKS BYTES".
 *
 * heap [phase2-bytes]   (the later phase's size; default 1 MiB) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BIG (64 * 1024)
static void *Big[160];
static void *Resident[100];
static void *Leaks[64];
static int NumLeaks;

__attribute__((noinline)) void *resident_alloc(size_t N) { return malloc(N); }
__attribute__((noinline)) void *phase1_alloc(size_t N) { return malloc(N); }
__attribute__((noinline)) void *phase2_alloc(size_t N) { return calloc(1, N); }
__attribute__((noinline)) void *leak_a(size_t N) { return malloc(N); }
__attribute__((noinline)) void *leak_b(size_t N) { return malloc(N); }
__attribute__((noinline)) void *leak_c(size_t N) {
  void *P = malloc(N / 2 + 1);
  return realloc(P, N); /* the realloc's block is what stays */
}

/* Pauses, so that the timeline's samples (millisecond times) spread. */
static void pause_ms(int Ms) {
  struct timespec T = {0, Ms * 1000000L};
  nanosleep(&T, 0);
}

int main(int argc, char **argv) {
  size_t Phase2 = argc > 1 ? strtoul(argv[1], 0, 10) : 1024 * 1024;
  size_t I;
  for (I = 0; I < 100; ++I)
    Resident[I] = resident_alloc(1000);
  pause_ms(20);
  for (I = 0; I < 160; ++I) { /* 10 MiB, over about 80 ms */
    Big[I] = phase1_alloc(BIG);
    memset(Big[I], 1, BIG);
    if (I % 10 == 9)
      pause_ms(5);
  }
  pause_ms(30);
  for (I = 0; I < 160; ++I) {
    free(Big[I]);
    if (I % 40 == 39)
      pause_ms(5);
  }
  pause_ms(20);
  size_t N2 = Phase2 / BIG;
  for (I = 0; I < N2; ++I)
    Big[I] = phase2_alloc(BIG);
  pause_ms(30);
  for (I = 0; I < N2; ++I)
    free(Big[I]);
  pause_ms(20);
  /* Leaks, and freed blocks of the same sites that must not count. */
  for (I = 0; I < 10; ++I)
    free(leak_a(100));
  for (I = 0; I < 5; ++I)
    Leaks[NumLeaks++] = leak_a(100);
  for (I = 0; I < 3; ++I)
    Leaks[NumLeaks++] = leak_b(2000);
  for (I = 0; I < 4; ++I)
    free(leak_b(2000));
  for (I = 0; I < 7; ++I)
    Leaks[NumLeaks++] = leak_c(33);
  for (I = 0; I < 100; ++I)
    free(Resident[I]);
  /* The truth: the peak is phase 1's last allocation (phase 2 is smaller,
   * the leaks come after it). */
  printf("peak resident_alloc 100 100000\n");
  printf("peak phase1_alloc 160 %d\n", 160 * BIG);
  printf("peak phase2_alloc 0 0\n");
  printf("peak leak_a 0 0\npeak leak_b 0 0\npeak leak_c 0 0\n");
  printf("live resident_alloc 0 0\nlive phase1_alloc 0 0\nlive phase2_alloc 0 0\n");
  printf("live leak_a 5 500\nlive leak_b 3 6000\nlive leak_c 7 231\n");
  printf("exit 1\n");
  fflush(stdout);
  return 0;
}
