// Allocates from known sites a number of times given on the command line and
// prints the ground truth ("site NAME COUNT BYTES") for the tests to compare.
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" __attribute__((noinline)) char *site_malloc(size_t N) {
  return static_cast<char *>(malloc(N));
}
extern "C" __attribute__((noinline)) char *site_new(size_t N) {
  return new char[N];
}
extern "C" __attribute__((noinline)) char *site_calloc(size_t N) {
  return static_cast<char *>(calloc(1, N));
}

int main(int argc, char **argv) {
  int Seed = argc > 1 ? atoi(argv[1]) : 1;
  long Count[3] = {0, 0, 0}, Bytes[3] = {0, 0, 0};
  for (int I = 0; I < Seed * 3 + 1; ++I) {
    size_t N = 16 + 8 * ((I * 7 + Seed) % 13);
    char *P = site_malloc(N);
    memset(P, I, N);
    free(P);
    Count[0]++, Bytes[0] += N;
  }
  for (int I = 0; I < Seed + 2; ++I) {
    size_t N = 100 + 50 * (I % 3);
    char *P = site_new(N);
    P[0] = 1;
    delete[] P;
    Count[1]++, Bytes[1] += N;
  }
  for (int I = 0; I < 2 * Seed; ++I) {
    size_t N = 4096 * (1 + I % 2);
    char *P = site_calloc(N);
    free(P);
    Count[2]++, Bytes[2] += N;
  }
  printf("site site_malloc %ld %ld\n", Count[0], Bytes[0]);
  printf("site site_new %ld %ld\n", Count[1], Bytes[1]);
  printf("site site_calloc %ld %ld\n", Count[2], Bytes[2]);
  return 0;
}
