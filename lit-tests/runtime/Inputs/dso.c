/* The library of dlclose.test: allocations made inside it. */
#include <stdlib.h>
__attribute__((noinline)) void *dso_alloc(size_t N) { return malloc(N); }
