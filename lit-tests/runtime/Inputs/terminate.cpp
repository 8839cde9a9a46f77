// terminate.test's program. Allocates known sites, prints the truth and
// "ready", then:
//   terminate idle      waits in pause() for a signal
//   terminate busy      allocates and frees at busy_site until killed, so
//                       that the signal often lands inside malloc or free
//   terminate own       installs its own SIGTERM handler and waits for it,
//                       then prints "handled" and exits with status 3
//   terminate raise SIG asks signal() for SIG_DFL, then raises SIG itself
//                       (as Python does to end with SIGINT)
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

extern "C" __attribute__((noinline)) void *known_site(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *live_site(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *busy_site(size_t N) {
  return malloc(N);
}

static volatile sig_atomic_t Handled;
static void handled(int) { Handled = 1; }

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  for (int I = 0; I < 100; ++I)
    free(known_site(32));
  static void *Live[10];
  for (int I = 0; I < 10; ++I)
    Live[I] = live_site(1000);
  printf("site known_site 100 3200\nsite live_site 10 10000\n");
  sigset_t Blocked, Old;
  if (!strcmp(Argv[1], "own")) {
    // The program's own handler only sets a flag; main then exits with
    // status 3 (SIGTERM blocked until sigsuspend, so none is missed).
    signal(SIGTERM, handled);
    sigemptyset(&Blocked);
    sigaddset(&Blocked, SIGTERM);
    sigprocmask(SIG_BLOCK, &Blocked, &Old);
  }
  printf("ready\n");
  fflush(stdout);
  if (!strcmp(Argv[1], "own")) {
    while (!Handled)
      sigsuspend(&Old);
    printf("handled\n");
    exit(3);
  }
  if (!strcmp(Argv[1], "busy")) {
    for (;;) {
      void *P = busy_site(64);
      *(volatile char *)P = 1;
      free(P);
    }
  }
  if (!strcmp(Argv[1], "raise") && Argc > 2) {
    int Sig = atoi(Argv[2]);
    signal(Sig, SIG_DFL);
    raise(Sig);
    return 4; // not reached
  }
  for (;;)
    pause();
}
