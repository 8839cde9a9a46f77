// One allocation site reached through four call paths a known number of
// times; prints the ground truth for the site as a whole.
#include <cstdio>
#include <cstdlib>

extern "C" __attribute__((noinline)) char *site(size_t N) {
  return static_cast<char *>(malloc(N));
}
extern "C" __attribute__((noinline)) void path_big(int K) {
  for (int I = 0; I < K; ++I)
    free(site(1000));
}
extern "C" __attribute__((noinline)) void path_small1() { free(site(8)); }
extern "C" __attribute__((noinline)) void path_small2() { free(site(16)); }
extern "C" __attribute__((noinline)) void path_mid() {
  for (int I = 0; I < 5; ++I)
    free(site(64));
}
extern "C" __attribute__((noinline)) void deep3() { path_mid(); }
extern "C" __attribute__((noinline)) void deep2() { deep3(); }
extern "C" __attribute__((noinline)) void deep1() { deep2(); }

int main() {
  path_big(20);
  path_small1();
  path_small2();
  deep1();
  printf("site site %d %d\n", 20 + 1 + 1 + 5, 20 * 1000 + 8 + 16 + 5 * 64);
  return 0;
}
