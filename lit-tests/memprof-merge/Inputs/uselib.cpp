// Calls into libsite.so and prints the ground truth of what it allocated.
#include <cstdio>
#include <cstdlib>

extern "C" char *lib_entry(size_t N);

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 3;
  for (int I = 0; I < N; ++I)
    free(lib_entry(64));
  // lib_init allocated 777 bytes once and keeps them until exit.
  printf("site lib_site %d %d\n", N + 1, 64 * N + 777);
  return 0;
}
