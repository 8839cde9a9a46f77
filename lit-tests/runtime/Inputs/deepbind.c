/* R6: dlopen LIB MODE. MODE deep opens it with RTLD_DEEPBIND (the runtime
 * warns once; the library's own mallocs go to glibc, unrecorded, and the
 * program frees them safely); plain opens it normally, by whatever name is
 * given (a bare name is searched in the program's DT_RUNPATH, which the
 * runtime's dlopen must leave glibc seeing as the caller's). Ten blocks from
 * the library's dso_alloc, five from the program's main_alloc. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void *main_alloc(size_t N) { return malloc(N); }
int main(int Argc, char **Argv) {
  int Deep = Argc > 2 && !strcmp(Argv[2], "deep");
  void *H = dlopen(Argv[1], RTLD_NOW | (Deep ? RTLD_DEEPBIND : 0));
  if (!H) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  void *(*Alloc)(size_t) = (void *(*)(size_t))dlsym(H, "dso_alloc");
  for (int I = 0; I < 10; ++I)
    free(Alloc(24));
  for (int I = 0; I < 5; ++I)
    free(main_alloc(40));
  printf("loaded %s\n", Argv[1]);
  return 0;
}
