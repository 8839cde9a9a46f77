/* The compatibility matrix's C program (compat-matrix.test), built as a PIE
 * and as a non-PIE executable. Every allocation function is called at a
 * site of its own, directly and (site_through_pointer) through pointers to
 * malloc and free: in a non-PIE executable, taking their address makes the
 * program's PLT entries their canonical addresses, as in Debian's python3.11.
 * Prints the truth as "site NAME COUNT BYTES" lines.
 *   compat api          the allocation API
 *   compat api-common   the same without pvalloc, which jemalloc lacks
 *                       (glibc's block would crash jemalloc's free)
 *   compat dlopen LIB   LIB's compat_lib_alloc, called through dlopen/dlsym
 *   compat spawn        a child through posix_spawn and one through
 *                       fork + exec of sh -c (sh is profiled too)
 *   compat child        what each child runs */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Set in main: an address taken in code (not in initialized data) is what
 * makes a non-PIE program's PLT entry canonical. */
static void *(*volatile Malloc)(size_t);
static void (*volatile Free)(void *);
static int Unusable;

static void check(void *P, size_t N) {
  if (!P || malloc_usable_size(P) < N)
    ++Unusable;
}

#define SITE(NAME, ...)                                                        \
  __attribute__((noinline)) void *NAME(size_t N) { return __VA_ARGS__; }
SITE(site_malloc, malloc(N))
SITE(site_through_pointer, Malloc(N))
SITE(site_calloc, calloc(N, 4))
SITE(site_realloc, realloc(NULL, N))
SITE(site_reallocarray, reallocarray(NULL, N, 8))
SITE(site_aligned_alloc, aligned_alloc(64, N))
SITE(site_memalign, memalign(128, N))
SITE(site_valloc, valloc(N))
SITE(site_pvalloc, pvalloc(N))
SITE(site_child, malloc(N))
__attribute__((noinline)) void *site_posix_memalign(size_t N) {
  void *P = NULL;
  return posix_memalign(&P, 256, N) == 0 ? P : NULL;
}
__attribute__((noinline)) void *site_grow(void *P, size_t N) {
  return realloc(P, N);
}
__attribute__((noinline)) void *site_grow_array(void *P, size_t N) {
  return reallocarray(P, N, 8);
}

static int api(int WithPvalloc) {
  for (int I = 0; I < 3; ++I) {
    void *P = site_malloc(100);
    check(P, 100);
    free(P);
  }
  for (int I = 0; I < 5; ++I) {
    void *P = site_through_pointer(24);
    check(P, 24);
    Free(P);
  }
  void *P = site_calloc(25);
  check(P, 100);
  free(P);
  /* realloc ends the old allocation and starts one at its own site. */
  P = site_realloc(40);
  check(P, 40);
  P = site_grow(P, 4000);
  check(P, 4000);
  free(P);
  P = site_reallocarray(10);
  check(P, 80);
  P = site_grow_array(P, 30);
  check(P, 240);
  free(P);
  for (int I = 0; I < 2; ++I) {
    P = site_aligned_alloc(128);
    check(P, 128);
    if ((size_t)P % 64)
      ++Unusable;
    free(P);
  }
  P = site_memalign(100);
  check(P, 100);
  free(P);
  P = site_posix_memalign(300);
  check(P, 300);
  free(P);
  P = site_valloc(1000);
  check(P, 1000);
  free(P);
  if (WithPvalloc) {
    P = site_pvalloc(100);
    check(P, 4096);
    free(P);
  }
  printf("site site_malloc 3 300\n");
  printf("site site_through_pointer 5 120\n");
  printf("site site_calloc 1 100\n");
  printf("site site_realloc 1 40\n");
  printf("site site_grow 1 4000\n");
  printf("site site_reallocarray 1 80\n");
  printf("site site_grow_array 1 240\n");
  printf("site site_aligned_alloc 2 256\n");
  printf("site site_memalign 1 100\n");
  printf("site site_posix_memalign 1 300\n");
  printf("site site_valloc 1 1000\n");
  if (WithPvalloc)
    printf("site site_pvalloc 1 %ld\n", sysconf(_SC_PAGESIZE));
  printf("unusable %d\n", Unusable);
  return Unusable != 0;
}

static int loadLibrary(const char *Path) {
  void *H = dlopen(Path, RTLD_NOW);
  void *(*Alloc)(size_t) = H ? (void *(*)(size_t))dlsym(H, "compat_lib_alloc")
                             : NULL;
  if (!Alloc) {
    fprintf(stderr, "compat: %s\n", dlerror());
    return 1;
  }
  for (int I = 0; I < 7; ++I)
    free(Alloc(48));
  printf("site compat_lib_alloc 7 336\n");
  return dlclose(H) != 0;
}

static int spawnChildren(const char *Self) {
  char *Args[] = {(char *)Self, (char *)"child", NULL};
  pid_t Spawned;
  if (posix_spawn(&Spawned, Self, NULL, NULL, Args, environ) != 0)
    return 1;
  pid_t Forked = fork();
  if (Forked == 0) {
    /* Not the last command, so sh forks and waits instead of exec'ing. */
    execl("/bin/sh", "sh", "-c", "\"$0\" child && true", Self, (char *)NULL);
    _exit(127);
  }
  int Bad = 0, St;
  Bad += waitpid(Spawned, &St, 0) != Spawned || !WIFEXITED(St) ||
         WEXITSTATUS(St) != 0;
  Bad += waitpid(Forked, &St, 0) != Forked || !WIFEXITED(St) ||
         WEXITSTATUS(St) != 0;
  printf("children failed %d\n", Bad);
  printf("parent pid %d\n", (int)getpid());
  return Bad != 0;
}

int main(int Argc, char **Argv) {
  Malloc = malloc;
  Free = free;
  if (Argc > 1 && !strcmp(Argv[1], "api"))
    return api(1);
  if (Argc > 1 && !strcmp(Argv[1], "api-common"))
    return api(0);
  if (Argc > 2 && !strcmp(Argv[1], "dlopen"))
    return loadLibrary(Argv[2]);
  if (Argc > 1 && !strcmp(Argv[1], "spawn"))
    return spawnChildren(Argv[0]);
  if (Argc > 1 && !strcmp(Argv[1], "child")) {
    for (int I = 0; I < 10; ++I)
      free(site_child(64));
    printf("site site_child 10 640\n");
    return 0;
  }
  fprintf(stderr, "usage: compat api|api-common|dlopen LIB|spawn|child\n");
  return 2;
}
