// Options and the dump signal: a four-deep call chain (for max_stack_depth),
// then the dump signal, whose dump happens at the next allocation.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

extern "C" __attribute__((noinline)) void *leaf_site(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *middle(size_t N) { return leaf_site(N); }
extern "C" __attribute__((noinline)) void *outer(size_t N) { return middle(N); }
extern "C" __attribute__((noinline)) void *after_signal(size_t N) { return malloc(N); }

int main(int argc, char **argv) {
  for (int I = 0; I < 3; ++I)
    free(outer(64));
  if (argc > 1) {
    raise(atoi(argv[1])); // the handler only sets a flag
    free(after_signal(8)); // the dump happens here, before this block counts
    free(after_signal(8));
  }
  printf("done\n");
  return 0;
}
