// Known truth: N live blocks of SIZE bytes, each touched ACC times at
// offsets 0, 8, 16, ... (mod SIZE); then the same with one block reused N times.
#include <stdio.h>
#include <stdlib.h>
#define ACC 10
__attribute__((noinline)) static void touch(volatile char *p, size_t n) {
  for (int i = 0; i < ACC; ++i) (void)p[(i * 8) % n];
}
__attribute__((noinline)) void *site_live(size_t n) { return malloc(n); }
__attribute__((noinline)) void *site_reuse(size_t n) { return malloc(n); }
int main(int argc, char **argv) {
  size_t size = atoi(argv[1]); int n = atoi(argv[2]);
  char **v = malloc(n * sizeof *v);
  for (int r = 0; r < n; ++r) v[r] = site_live(size);
  for (int r = 0; r < n; ++r) touch(v[r], size);
  for (int r = 0; r < n; ++r) free(v[r]);
  for (int r = 0; r < n; ++r) { char *p = site_reuse(size); touch(p, size); free(p); }
  free(v);
  return 0;
}
