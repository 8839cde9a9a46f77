// An instrumented shared library (shared-library.test): an allocation site
// of its own, and code that touches blocks allocated anywhere. The pointers
// are volatile so that every access of the source is made (the truth the
// main program prints counts them one by one).
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *lib_site(size_t N) { return malloc(N); }

// Rounds * N / 8 loads.
__attribute__((noinline)) long lib_read(const volatile char *P, size_t N,
                                        int Rounds) {
  long S = 0;
  for (int R = 0; R < Rounds; ++R)
    for (size_t I = 0; I < N; I += 8)
      S += P[I];
  return S;
}

// N / 16 stores.
__attribute__((noinline)) void lib_store(volatile char *P, size_t N) {
  for (size_t I = 0; I < N; I += 16)
    P[I] = (char)I;
}

// One memset of N bytes: N / 8 accesses (one per 8-byte word; P is 8-byte
// aligned and N a multiple of 8).
__attribute__((noinline)) void lib_fill(char *P, size_t N) { memset(P, 1, N); }

// Times loads of P's first byte.
__attribute__((noinline)) void lib_touch_first(volatile char *P, int Times) {
  for (int I = 0; I < Times; ++I)
    (void)P[0];
}
