/* An instrumented shared library. Its DT_INIT function (-Wl,-init) runs
 * before the library's constructors, its module constructor included, and
 * before the executable's: no runtime has started, memprof_shadow_base is 0. */
#include "memprof/Runtime/memprof_runtime.h"
#include <stddef.h>
#include <stdint.h>

_Alignas(64) char lib_early_buf[256];
uintptr_t lib_early_base = 1;

__attribute__((noinline)) uint64_t lib_touch(char *p, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i)
    s += ((volatile uint64_t *)p)[i];
  ((volatile uint64_t *)p)[0] = s;
  return s;
}

MEMPROF_NO_INSTRUMENT void lib_early(void) {
  lib_early_base = memprof_shadow_base;
  char *volatile p = lib_early_buf; /* a buffer the pass cannot see through */
  lib_touch(p, 16);
}
