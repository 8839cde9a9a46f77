// The CMake consumer's program: N rounds, each an allocation here, one in
// the shared library and a branch taken every other time. Prints the truth
// of the heap profile ("site NAME COUNT BYTES").
#include <stdio.h>
#include <stdlib.h>

extern "C" char *word_make(int i); // lib.cpp, allocates word_site(24 + i)

static volatile int Sink;
extern "C" {
__attribute__((noinline)) char *app_site(size_t n) { return new char[n]; }
__attribute__((noinline)) void app_even(char *p) { Sink += p[0]; }
__attribute__((noinline)) void app_odd(char *p) { Sink -= p[0]; }
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 10;
  size_t AppBytes = 0, LibBytes = 0;
  for (int i = 0; i < N; ++i) {
    char *p = app_site(40 + i);
    p[0] = (char)i;
    AppBytes += 40 + i;
    if (i % 2 == 0)
      app_even(p);
    else
      app_odd(p);
    delete[] p;
    char *w = word_make(i);
    LibBytes += 24 + i;
    delete[] w;
  }
  printf("site app_site %d %zu\nsite word_site %d %zu\n", N, AppBytes, N, LibBytes);
  return 0;
}
