// The program of shared-library.test: its blocks are touched by an
// instrumented library, and the library's blocks by the program. Prints
// the truth: "site NAME COUNT BYTES" and "accesses NAME N". Built with
// -DMAIN_UNINSTRUMENTED when the executable is built without the pass (its
// own accesses are then not counted).
#include <stdio.h>
#include <stdlib.h>

char *lib_site(size_t N);
long lib_read(const volatile char *P, size_t N, int Rounds);
void lib_store(volatile char *P, size_t N);
void lib_fill(char *P, size_t N);
void lib_touch_first(volatile char *P, int Times);

#ifdef MAIN_UNINSTRUMENTED
enum { MainCounts = 0 };
#else
enum { MainCounts = 1 };
#endif

__attribute__((noinline)) char *main_site(size_t N) { return malloc(N); }
__attribute__((noinline)) char *pair_first(size_t N) { return malloc(N); }
__attribute__((noinline)) char *pair_second(size_t N) { return malloc(N); }

int main(int Argc, char **Argv) {
  int Rounds = Argc > 1 ? atoi(Argv[1]) : 3;
  long Sink = 0;
  // A block of the executable's site, touched only inside the library.
  char *A = main_site(4096);
  lib_fill(A, 4096);
  Sink += lib_read(A, 4096, Rounds);
  free(A);
  printf("site main_site 1 4096\n");
  printf("accesses main_site %d\n", 4096 / 8 + Rounds * 4096 / 8);
  // Blocks of the library's site, touched by both.
  for (int K = 0; K < 4; ++K) {
    char *B = lib_site(1024);
    lib_store(B, 1024);
    volatile char *V = B;
    for (int I = 0; I < 1024; I += 64)
      Sink += V[I];
    free(B);
  }
  printf("site lib_site 4 4096\n");
  printf("accesses lib_site %d\n", 4 * (1024 / 16 + MainCounts * 1024 / 64));
  // Small blocks side by side, only the second of each pair touched (in the
  // library): with blocks sharing granules, the first ones would be charged
  // for their neighbours' accesses.
  enum { Pairs = 64, Touches = 10 };
  char *First[Pairs], *Second[Pairs];
  int FirstBytes = 0;
  for (int K = 0; K < Pairs; ++K) {
    // Sizes that vary, so that whatever the heap's alignment some pairs
    // would share a granule if blocks could.
    First[K] = pair_first(40 + 16 * (K % 4));
    FirstBytes += 40 + 16 * (K % 4);
    Second[K] = pair_second(40);
  }
  for (int K = 0; K < Pairs; ++K)
    lib_touch_first(Second[K], Touches);
  for (int K = 0; K < Pairs; ++K) {
    free(First[K]);
    free(Second[K]);
  }
  printf("site pair_first %d %d\naccesses pair_first 0\n", Pairs, FirstBytes);
  printf("site pair_second %d %d\naccesses pair_second %d\n", Pairs,
         Pairs * 40, Pairs * Touches);
  return Sink == 42; // keeps Sink alive; 0 in practice
}
