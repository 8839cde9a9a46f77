/* Front-end (clang) instrumentation: static functions, a call through a
   function pointer, a switch and memcpy of varied sizes. "fe N" runs N
   iterations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sq(int x) { return x * x; }
static int inc(int x) { return x + 1; }
typedef int (*fn_t)(int);

__attribute__((noinline)) int classify(int x) {
  switch (x % 4) {
  case 0: return 10;
  case 1: return 20;
  default: return x > 5 ? 30 : 40;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  fn_t fns[2] = {sq, inc};
  char src[256], dst[256];
  memset(src, 'b', sizeof src);
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += fns[i % 3 == 0](i) + classify(i);
    memcpy(dst, src, (size_t)(i * 11 % 200) + 1);
    sum += dst[i % 50];
  }
  printf("%ld\n", sum);
  return 0;
}
