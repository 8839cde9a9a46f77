/* The libraries of dlclose-reuse.test: built twice, as liba (a_alloc) and
 * libb (b_alloc, with a function before it, so its code differs). */
#include <stdlib.h>
#ifdef PAD
int pad(int X) { return X * 3 + 1; }
#endif
__attribute__((noinline)) void *NAME(size_t N) { return malloc(N); }
