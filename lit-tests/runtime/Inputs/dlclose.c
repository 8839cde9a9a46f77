/* R6: allocations from a dlopen'ed library, which is dlclose'd before the
 * exit dump: 30 blocks of 48 bytes stay live, 20 of 16 bytes are freed. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int Argc, char **Argv) {
  void *H = dlopen(Argv[1], RTLD_NOW);
  if (!H) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  void *(*Alloc)(size_t) = (void *(*)(size_t))dlsym(H, "dso_alloc");
  for (int I = 0; I < 20; ++I)
    free(Alloc(16));
  for (int I = 0; I < 30; ++I)
    Alloc(48); /* kept */
  printf("dlclose %d\n", dlclose(H));
  return 0;
}
