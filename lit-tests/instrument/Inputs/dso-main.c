/* Not instrumented, linked with the static runtime: the accesses are those
 * of the instrumented library (Inputs/dso-lib.c). */
#include "memprof/Runtime/memprof_runtime.h"
#include <stdio.h>
#include <stdlib.h>

extern char lib_early_buf[];
extern uintptr_t lib_early_base;
uint64_t lib_touch(char *p, size_t n);

__attribute__((noinline)) void *site_dso(size_t n) { return malloc(n); }

int main(int argc, char **argv) {
  /* lib_touch(buf, 16) in the library's DT_INIT: 16 loads and a store. */
  uint64_t got = 0;
  for (int g = 0; g < 4; ++g)
    got += *MEMPROF_SHADOW_COUNTER(lib_early_buf + 64 * g);
  printf("early: base %lu at entry, counted %llu of 17\n",
         (unsigned long)lib_early_base, (unsigned long long)got);
  size_t words = (size_t)atoi(argv[1]);
  char *p = site_dso(8 * words);
  for (int k = 0; k < 3; ++k)
    lib_touch(p, words);
  free(p);
  printf("expect site_dso %zu\n", 3 * (words + 1));
  return 0;
}
