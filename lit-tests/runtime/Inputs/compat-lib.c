/* compat-matrix.test's library, opened with dlopen. */
#include <stdlib.h>
__attribute__((noinline)) void *compat_lib_alloc(size_t N) { return malloc(N); }
