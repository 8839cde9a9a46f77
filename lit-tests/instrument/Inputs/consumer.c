/* A program built by the CMake and pkg-config consumers: it knows its
 * accesses (N stores and N loads of the block, at -O0 or -O2) and prints
 * what the profile must show. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long *consumer_site(size_t N) {
  return (long *)malloc(N * sizeof(long));
}

__attribute__((noinline)) long work(volatile long *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I < N; ++I)
    P[I] = (long)I;
  for (size_t I = 0; I < N; ++I)
    S += P[I];
  return S;
}

int main(int argc, char **argv) {
  size_t N = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
  long *P = consumer_site(N);
  long S = work(P, N);
  free(P);
  printf("site consumer_site 1 %zu\n", N * sizeof(long));
  printf("expect consumer_site TotalAccessCount == %zu\n", 2 * N);
  return S == -1;
}
