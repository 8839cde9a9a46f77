// An allocation site inlined into its caller.
#include <cstdio>
#include <cstdlib>

static inline __attribute__((always_inline)) char *make(size_t N) {
  return new char[N];
}
extern "C" __attribute__((noinline)) char *outer(size_t N) { return make(N); }

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 3;
  for (int I = 0; I < N; ++I)
    delete[] outer(32 + I);
  printf("site _ZL4makem %d %d\n", N, 32 * N + N * (N - 1) / 2);
  return 0;
}
