/* relative-path.test: allocates, changes directory to argv[1], allocates
 * again; with argv[2], sets the output path argv[2] after the change. */
#include "memprof/Runtime/memprof_runtime.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void *before_site(size_t N) { return malloc(N); }
__attribute__((noinline)) void *after_site(size_t N) { return malloc(N); }

int main(int Argc, char **Argv) {
  free(before_site(10));
  if (Argc < 2 || chdir(Argv[1]) != 0)
    return 1;
  free(after_site(20));
  if (Argc > 2 && memprof_set_output_path(Argv[2]) != 0)
    return 2;
  printf("site before_site 1 10\nsite after_site 1 20\n");
  return 0;
}
