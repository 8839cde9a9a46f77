/* R6: a library is dlclose'd and another one is loaded at its address.
 * liba's a_alloc makes 10 blocks of 16 bytes, then libb's b_alloc 7 of 32. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long use(const char *Path, const char *Sym, int N, size_t Size) {
  void *H = dlopen(Path, RTLD_NOW);
  struct link_map *LM = 0;
  if (!H || dlinfo(H, RTLD_DI_LINKMAP, &LM) != 0) {
    printf("dlopen: %s\n", dlerror());
    exit(1);
  }
  void *(*Alloc)(size_t) = (void *(*)(size_t))dlsym(H, Sym);
  for (int I = 0; I < N; ++I)
    free(Alloc(Size));
  unsigned long Base = LM->l_addr;
  dlclose(H);
  return Base;
}
int main(int Argc, char **Argv) {
  unsigned long A = use(Argv[1], "a_alloc", 10, 16);
  unsigned long B = use(Argv[2], "b_alloc", 7, 32);
  printf("same address: %d\n", A == B);
  return 0;
}
