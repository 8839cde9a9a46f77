/* R6: one library loaded twice: the same file opened again (the loader
 * returns the same handle: one mapping) and a copy of it under another path
 * (a second mapping with the same build id). 20 blocks of 16 bytes come
 * from the first mapping, 30 of 48 bytes from the copy; both stay loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef void *(*AllocFn)(size_t);
int main(int Argc, char **Argv) {
  void *A = dlopen(Argv[1], RTLD_NOW), *Again = dlopen(Argv[1], RTLD_NOW);
  void *Copy = dlopen(Argv[2], RTLD_NOW);
  if (!A || !Again || !Copy) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  AllocFn FromA = (AllocFn)dlsym(Again, "dso_alloc");
  AllocFn FromCopy = (AllocFn)dlsym(Copy, "dso_alloc");
  printf("same handle %d, two mappings %d\n", A == Again,
         (void *)FromA != (void *)FromCopy);
  for (int I = 0; I < 20; ++I)
    FromA(16);
  for (int I = 0; I < 30; ++I)
    FromCopy(48);
  return 0;
}
