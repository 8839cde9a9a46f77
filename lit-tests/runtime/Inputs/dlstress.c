/* R6 under stress: 8 threads each open, use and close libraries DIR/lib<i>.so
 * (i from 0 to LIBS-1; copies of one library, so one build id) ROUNDS times,
 * 20 blocks through the library's dso_alloc per opening (10 freed, 10 left
 * live), while another thread dumps without pause (the dump walks the loaded
 * modules while they come and go). Prints the truth: dso_alloc's count and
 * bytes, and how many dumps succeeded.
 *   dlstress DIR LIBS ROUNDS */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern int memprof_dump(void) __attribute__((weak));
static const char *Dir;
static int Libs, Rounds;
static atomic_int Done, Failures, Dumps;
static atomic_long Count, Bytes;

static void *worker(void *Arg) {
  long T = (long)Arg;
  char Path[4096];
  for (int R = 0; R < Rounds; ++R)
    for (int I = (int)T; I < Libs; I += 8) {
      snprintf(Path, sizeof(Path), "%s/lib%d.so", Dir, I);
      void *H = dlopen(Path, RTLD_NOW | RTLD_LOCAL);
      if (!H) {
        ++Failures;
        continue;
      }
      void *(*Alloc)(size_t) = (void *(*)(size_t))dlsym(H, "dso_alloc");
      for (int K = 0; K < 20; ++K) {
        size_t N = 16 + (size_t)((I + K) % 8) * 8;
        void *P = Alloc(N);
        Count += 1;
        Bytes += (long)N;
        if (K % 2)
          free(P);
      }
      if (dlclose(H) != 0)
        ++Failures;
    }
  ++Done;
  return NULL;
}

static void *dumper(void *Arg) {
  (void)Arg;
  while (atomic_load(&Done) < 8)
    if (memprof_dump && memprof_dump() == 0)
      ++Dumps;
  return NULL;
}

int main(int Argc, char **Argv) {
  if (Argc < 4)
    return 2;
  Dir = Argv[1];
  Libs = atoi(Argv[2]);
  Rounds = atoi(Argv[3]);
  pthread_t W[8], D;
  pthread_create(&D, NULL, dumper, NULL);
  for (long T = 0; T < 8; ++T)
    pthread_create(&W[T], NULL, worker, (void *)T);
  for (int T = 0; T < 8; ++T)
    pthread_join(W[T], NULL);
  pthread_join(D, NULL);
  printf("failures %d, dumps %s\n", atomic_load(&Failures),
         atomic_load(&Dumps) > 0 ? "some" : "none");
  printf("site dso_alloc %ld %ld\n", atomic_load(&Count), atomic_load(&Bytes));
  return 0;
}
