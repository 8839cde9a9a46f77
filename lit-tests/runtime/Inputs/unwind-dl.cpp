// unwind=hybrid across dlopen and dlclose: two libraries, one keeping frame
// pointers and one without, are opened and closed in turn, so that each is
// mapped where the other was; a second thread allocates meanwhile. The
// depth libgcc's unwinder finds for each allocation of site_dl is printed
// for the test to compare with the profile's contexts.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unwind.h>

typedef void (*callback_t)(int);
typedef void (*entry_t)(callback_t);

static int Depth;
static _Unwind_Reason_Code count(_Unwind_Context *Ctx, void *) {
  if (_Unwind_GetIP(Ctx))
    ++Depth;
  return _URC_NO_REASON;
}

static int Depths[2][64];
static int Round, Which;
extern "C" __attribute__((noinline)) void site_dl(int) {
  void *P = malloc(24);
  Depth = 0;
  _Unwind_Backtrace(count, nullptr); // from this function on, as the profile
  Depths[Which][Depth < 63 ? Depth : 63]++;
  asm volatile("" ::"r"(P) : "memory");
  free(P);
}

static pthread_barrier_t Start;
extern "C" __attribute__((noinline)) void *site_worker(void *) {
  pthread_barrier_wait(&Start);
  for (int I = 0; I < 200000; ++I) {
    void *P = malloc(40);
    asm volatile("" ::"r"(P) : "memory");
    free(P);
  }
  return nullptr;
}

int main(int argc, char **argv) {
  const int Rounds = argc > 1 ? atoi(argv[1]) : 20;
  const char *Names[2] = {"./libdlfp.so", "./libdlnofp.so"};
  pthread_barrier_init(&Start, nullptr, 2);
  pthread_t T;
  pthread_create(&T, nullptr, site_worker, nullptr);
  pthread_barrier_wait(&Start);
  void *Base[2] = {nullptr, nullptr};
  int Same = 0;
  for (Round = 0; Round < 2 * Rounds; ++Round) {
    Which = Round & 1;
    void *H = dlopen(Names[Which], RTLD_NOW);
    if (!H) {
      printf("error: %s\n", dlerror());
      return 1;
    }
    entry_t E = (entry_t)dlsym(H, "dl_entry");
    Dl_info Info;
    if (!E || !dladdr((void *)E, &Info)) {
      printf("error: no dl_entry\n");
      return 1;
    }
    if (Base[1 - Which] == Info.dli_fbase)
      ++Same;
    Base[Which] = Info.dli_fbase;
    E(site_dl);
    dlclose(H);
  }
  pthread_join(T, nullptr);
  for (int W = 0; W < 2; ++W)
    for (int D = 0; D < 64; ++D)
      if (Depths[W][D])
        printf("%s: %d allocations of depth %d\n", W ? "nofp" : "fp",
               Depths[W][D], D);
  printf("mapped where the other was: %s\n", Same ? "yes" : "no");
  printf("done\n");
  return 0;
}
