// The program of shared-library.test: its blocks are touched by an
// instrumented library, and the library's blocks by the program. Prints
// the truth: "site NAME COUNT BYTES" and "accesses NAME N".
#include <stdio.h>
#include <stdlib.h>

char *lib_site(size_t N);
long lib_read(const volatile char *P, size_t N, int Rounds);
void lib_store(volatile char *P, size_t N);
void lib_fill(char *P, size_t N);

__attribute__((noinline)) char *main_site(size_t N) { return malloc(N); }

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
  printf("accesses lib_site %d\n", 4 * (1024 / 16 + 1024 / 64));
  return Sink == 42; // keeps Sink alive; 0 in practice
}
