// Measurement aid, not part of memprof: the small-chunk layout of the
// preloaded runtime (16 bytes before every block, written at allocation and
// cleared at free) with nothing recorded, to tell the layout's cost from the
// recording's (docs/PERFORMANCE.md, "The runtime", session 7).
//
//   gcc -O2 -shared -fPIC -o layout-shim.so bench/layout-shim.c
//   LD_PRELOAD=./layout-shim.so perl bench/alloc-workload.pl
//
// With -DPASS_THROUGH it only forwards every call to glibc: the cost of
// interposing the allocator at all (session 8).
//
// Covers what bench/alloc-workload.pl's perl calls (malloc, calloc, realloc,
// free, posix_memalign); blocks it did not make go to glibc untouched
// (malloc_usable_size says 0 for them: enough for perl, not in general).
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#ifdef PASS_THROUGH
void *malloc(size_t N) { return __libc_malloc(N); }
void *calloc(size_t A, size_t B) { return __libc_calloc(A, B); }
void *realloc(void *P, size_t N) { return __libc_realloc(P, N); }
void free(void *P) { __libc_free(P); }
#else
#define MARK 0x5a5a5a5a00000001ull

static void *tag(char *P, size_t N) {
  if (!P)
    return 0;
  ((uint64_t *)P)[0] = MARK;
  ((uint64_t *)P)[1] = N;
  return P + 16;
}
static int ours(void *P) {
  return P && ((uintptr_t)P & 15) == 0 && ((uint64_t *)P)[-2] == MARK;
}
void *malloc(size_t N) { return N > SIZE_MAX - 16 ? 0 : tag(__libc_malloc(N + 16), N); }
void *calloc(size_t A, size_t B) {
  size_t N;
  if (__builtin_mul_overflow(A, B, &N) || N > SIZE_MAX - 16) {
    errno = ENOMEM;
    return 0;
  }
  return tag(__libc_calloc(1, N + 16), N);
}
void free(void *P) {
  if (!ours(P)) {
    __libc_free(P);
    return;
  }
  ((uint64_t *)P)[-2] = 0;
  __libc_free((char *)P - 16);
}
void *realloc(void *P, size_t N) {
  if (!P)
    return malloc(N);
  if (!ours(P))
    return __libc_realloc(P, N);
  return N > SIZE_MAX - 16 ? 0 : tag(__libc_realloc((char *)P - 16, N + 16), N);
}
size_t malloc_usable_size(void *P) { return ours(P) ? ((uint64_t *)P)[-1] : 0; }
int posix_memalign(void **R, size_t A, size_t N) {
  void *P = __libc_memalign(A, N);
  if (!P)
    return ENOMEM;
  *R = P;
  return 0;
}
#endif
