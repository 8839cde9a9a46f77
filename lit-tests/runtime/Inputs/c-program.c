/* A C program: linking the static runtime needs no C++ library. */
#include "memprof/Runtime/memprof_runtime.h"
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *c_site(size_t N) { return malloc(N); }

int main(void) {
  for (int I = 0; I < 7; ++I)
    free(c_site(10 * (size_t)I));
  printf("site c_site 7 210\n");
  return memprof_dump() == 0 ? 0 : 1; /* also links the C API */
}
