// capture-memo.test: allocations whose contexts a memoized capture could get
// wrong, each at a site of its own (site_*): the same depth reached through
// other callers, recursion deeper than the depth cap, exceptions, signal
// handlers, threads, longjmp, fibers (swapcontext, on a stack inside the
// thread's bounds and on one outside) and a library closed and another
// opened where it was. Deterministic but for "storm", which allocates under
// a stream of timer signals whose handler allocates too.
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <stdexcept>
#include <string>

extern "C" int lib_recurse(int Depth, int (*Cb)(int), int Arg);
extern "C" void lib_throw(int Depth);

#define NOINLINE __attribute__((noinline))
static void *volatile Sink;
static NOINLINE void keep(void *P) {
  Sink = P;
  free(P);
}

// The same depth through two callers with frames of one size: a frame of
// site_same at one address with one return address, whose callers differ.
extern "C" NOINLINE int site_same(int X) {
  keep(malloc(16 + X % 4));
  return X;
}
extern "C" NOINLINE int caller_one(int X) {
  volatile int Pad = X;
  return site_same(Pad) + 1;
}
extern "C" NOINLINE int caller_two(int X) {
  volatile int Pad = X;
  return site_same(Pad) + 2;
}
extern "C" NOINLINE int via_one(int X) { return caller_one(X) * 3; }
extern "C" NOINLINE int via_two(int X) { return caller_two(X) * 5; }

extern "C" NOINLINE int site_callback(int X) {
  keep(malloc(24));
  return X;
}

// Recursion past the depth cap (64): allocations on the way down and up.
extern "C" NOINLINE int site_deep(int Depth) {
  keep(malloc(32));
  int R = Depth > 0 ? site_deep(Depth - 1) : 0;
  keep(malloc(40));
  return R + 1;
}

extern "C" NOINLINE void site_catch(int I) {
  try {
    lib_throw(I % 5);
  } catch (const std::exception &E) {
    std::string Copy(E.what());
    keep(malloc(Copy.size()));
  }
}

static volatile sig_atomic_t InHandler;
extern "C" NOINLINE void site_signal(int) { keep(malloc(56)); }
extern "C" NOINLINE void raise_at(int Depth) {
  if (Depth > 0)
    return raise_at(Depth - 1), (void)Sink;
  raise(SIGUSR1);
}

static thread_local jmp_buf Jmp; // each thread jumps on its own stack
extern "C" NOINLINE void jump_down(int Depth) {
  keep(malloc(64));
  if (Depth <= 0)
    longjmp(Jmp, 1);
  jump_down(Depth - 1);
  asm volatile("");
}
extern "C" NOINLINE void site_jmp(int X) { keep(malloc(72 + X % 2)); }
extern "C" NOINLINE void after_jmp(int X) {
  volatile char Pad[32] = {char(X)};
  site_jmp(Pad[0]);
}

static ucontext_t MainCtx, FiberCtx;
extern "C" NOINLINE void site_fiber(int X) { keep(malloc(80 + X % 3)); }
static void fiberBody() {
  for (int I = 0; I < 50; ++I) {
    site_fiber(I);
    lib_recurse(I % 3, site_callback, I);
    swapcontext(&FiberCtx, &MainCtx);
  }
}
static void runFiber(char *Stack, size_t Size) {
  getcontext(&FiberCtx);
  FiberCtx.uc_stack.ss_sp = Stack;
  FiberCtx.uc_stack.ss_size = Size;
  FiberCtx.uc_link = &MainCtx;
  makecontext(&FiberCtx, fiberBody, 0);
  for (int I = 0; I < 50; ++I) {
    swapcontext(&MainCtx, &FiberCtx);
    site_fiber(-I); // on the thread's stack, between the fiber's turns
  }
}
extern "C" NOINLINE void fibers() {
  char OnStack[64 * 1024]; // inside the thread's stack bounds
  runFiber(OnStack, sizeof(OnStack));
  void *Mapped = mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  runFiber(static_cast<char *>(Mapped), 1 << 16); // outside them
  munmap(Mapped, 1 << 16);
}

extern "C" NOINLINE int site_dl(int X) {
  keep(malloc(88));
  return X;
}
static void dlRound(const char *Path) {
  void *H = dlopen(Path, RTLD_NOW);
  if (!H) {
    fprintf(stderr, "error: %s\n", dlerror());
    exit(1);
  }
  auto Entry = reinterpret_cast<int (*)(int, int (*)(int))>(dlsym(H, "dl_entry"));
  for (int I = 0; I < 20; ++I)
    Entry(I % 4, site_dl);
  dlclose(H);
}

extern "C" NOINLINE void work(int Rounds) {
  for (int I = 0; I < Rounds; ++I) {
    via_one(I);
    via_two(I);
    (I % 2 ? via_one : via_two)(I);
    lib_recurse(I % 7, site_callback, I);
    lib_recurse(I % 7, site_same, I);
    site_deep(I % 3 ? 3 : 70);
    site_catch(I);
    raise_at(I % 4);
    if (!setjmp(Jmp))
      jump_down(I % 6);
    after_jmp(I);
  }
}

static void *threadMain(void *) {
  work(60);
  return nullptr;
}

extern "C" NOINLINE void site_storm_handler(int) {
  void *P = malloc(48);
  Sink = P;
  free(P);
}

int main(int Argc, char **Argv) {
  signal(SIGUSR1, site_signal);
  if (Argc > 1 && !strcmp(Argv[1], "storm")) {
    signal(SIGPROF, site_storm_handler);
    itimerval T = {{0, 50}, {0, 50}};
    setitimer(ITIMER_PROF, &T, nullptr);
    work(3000);
    T = {};
    setitimer(ITIMER_PROF, &T, nullptr);
    puts("done");
    return 0;
  }
  work(100);
  fibers();
  if (Argc > 2) {
    dlRound(Argv[1]);
    dlRound(Argv[2]);
    dlRound(Argv[1]);
  }
  pthread_t T[3];
  for (pthread_t &Th : T)
    pthread_create(&Th, nullptr, threadMain, nullptr);
  for (pthread_t &Th : T)
    pthread_join(Th, nullptr);
  puts("done");
  return 0;
}
