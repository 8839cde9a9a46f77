// A small program for the fault tests (R8, R9, R15, R16): a known set of
// allocations, then N dumps through the API (each return code printed and,
// with MEMPROF_TEST_SHIM_LOG set, appended to that log between the write
// shim's lines), then an end chosen by the second argument: exit (the exit
// dump), abort, _exit, or SIGKILL from itself. With MEMPROF_TEST_GATE=G set,
// it creates G.ready.<pid> after its allocations and exits only once G
// exists (R16: processes that surely overlap).
//   dump-faults DUMPS [exit|abort|_exit|kill]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
extern "C" int memprof_dump(void) __attribute__((weak));

extern "C" __attribute__((noinline)) void *site_kept(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_freed(size_t N) {
  return malloc(N);
}

static void note(const char *Line) {
  if (const char *Log = getenv("MEMPROF_TEST_SHIM_LOG")) {
    int Fd = open(Log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (Fd >= 0) {
      (void)!write(Fd, Line, strlen(Line));
      close(Fd);
    }
  }
}

int main(int Argc, char **Argv) {
  int Dumps = Argc > 1 ? atoi(Argv[1]) : 0;
  const char *End = Argc > 2 ? Argv[2] : "exit";
  static void *Kept[100];
  for (int I = 0; I < 100; ++I) {
    Kept[I] = site_kept(100 + I);
    free(site_freed(1000));
  }
  printf("site site_kept 100 %d\n", 100 * 100 + 99 * 100 / 2);
  printf("site site_freed 100 100000\n");
  for (int I = 1; I <= Dumps; ++I) {
    int Rc = memprof_dump ? memprof_dump() : -2;
    char Line[64];
    snprintf(Line, sizeof(Line), "after dump %d rc=%s\n", I, Rc ? "failed" : "0");
    note(Line);
    fprintf(stderr, "%s", Line);
  }
  fflush(stdout);
  if (const char *Gate = getenv("MEMPROF_TEST_GATE")) {
    char Ready[4096];
    snprintf(Ready, sizeof(Ready), "%s.ready.%d", Gate, int(getpid()));
    int Fd = open(Ready, O_WRONLY | O_CREAT, 0644);
    if (Fd >= 0)
      close(Fd);
    for (int Waited = 0; access(Gate, F_OK) != 0 && Waited < 60000; ++Waited)
      usleep(1000); // at most a minute
  }
  if (!strcmp(End, "abort"))
    abort();
  if (!strcmp(End, "_exit"))
    _exit(0);
  if (!strcmp(End, "kill"))
    raise(SIGKILL);
  return 0;
}
