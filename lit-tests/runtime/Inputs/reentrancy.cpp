// R13: allocations before the runtime's constructor (a .preinit_array entry
// runs before every initializer, and calls dlsym, which allocates itself),
// from a constructor, from a signal handler, from stdio, locale and dlopen.
// Prints the truth of the sites it controls.
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

extern "C" __attribute__((noinline)) void *site_preinit(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_ctor(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_handler(size_t N) { return malloc(N); }

static void *Kept[4];
static void *Found;

static void preinit(int, char **, char **) {
  for (void *&P : Kept)
    P = site_preinit(64);
  Found = dlsym(RTLD_DEFAULT, "printf");
  for (int I = 0; I < 2; ++I)
    free(site_preinit(16));
}
__attribute__((section(".preinit_array"), used)) static void (*PreinitEntry)(
    int, char **, char **) = preinit;

__attribute__((constructor(101))) static void ctor() {
  for (int I = 0; I < 3; ++I)
    free(site_ctor(10));
}

static void handler(int) { free(site_handler(32)); }

int main(int argc, char **argv) {
  signal(SIGUSR1, handler);
  for (int I = 0; I < 5; ++I)
    raise(SIGUSR1);
  setlocale(LC_ALL, "C.UTF-8");
  if (FILE *F = fopen(argv[1], "w")) {
    fprintf(F, "stdio allocates its buffer\n");
    fclose(F);
  }
  if (void *M = dlopen("libm.so.6", RTLD_NOW))
    dlclose(M);
  for (void *P : Kept)
    free(P);
  printf("dlsym in preinit: %s\n", Found ? "found" : "NULL");
  printf("site site_preinit 6 288\n");
  printf("site site_ctor 3 30\n");
  printf("site site_handler 5 160\n");
  return 0;
}
