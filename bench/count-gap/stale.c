// Known truth: one block of SIZE bytes at a time, its last byte read ACC
// times, freed; N rounds (the allocator hands the same memory back).
#include <stdlib.h>
#define ACC 10
__attribute__((noinline)) void *site_stale(size_t n) { return malloc(n); }
int main(int argc, char **argv) {
  size_t size = atoi(argv[1]); int n = atoi(argv[2]);
  for (int r = 0; r < n; ++r) { volatile char *p = site_stale(size); for (int i = 0; i < ACC; ++i) (void)p[size - 1]; free((void *)p); }
  return 0;
}
