// R4: fork without exec.
//   fork basic   allocations before the fork, a child that frees inherited
//                blocks and allocates, and the parent after the fork; each
//                process prints the truth of what it allocated itself.
//   fork stress  100 forks in a loop and 8 threads forking at once, while
//                another thread spins in malloc/free and a third dumps to
//                /dev/null without pause; every child must be able to
//                allocate and dump (an alarm kills a deadlocked child).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

// The test's own character device (mknod c 1 3 in its temp directory), so a
// runtime bug can never replace the machine's /dev/null.
static const char *nullDevice() {
  const char *P = getenv("MEMPROF_TEST_NULL");
  return P ? P : "/nonexistent/MEMPROF_TEST_NULL-unset";
}

extern "C" int memprof_dump(void) __attribute__((weak));
extern "C" int memprof_set_output_path(const char *) __attribute__((weak));

extern "C" __attribute__((noinline)) void *site_before(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_child(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_after(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_spin(size_t N) { return malloc(N); }

static int basic() {
  std::vector<void *> Inherited;
  long Before = 0;
  for (int I = 0; I < 100; ++I) {
    void *P = site_before(10 + I);
    Before += 10 + I;
    if (I % 2)
      Inherited.push_back(P); // 50 blocks live across the fork
    else
      free(P);
  }
  // 40 blocks allocated together and then freed: the parent has free slots
  // in its live table at the fork, which the child must not reuse (they
  // are below its generation's slots).
  std::vector<void *> Freed;
  for (int I = 0; I < 40; ++I) {
    Freed.push_back(site_before(20));
    Before += 20;
  }
  for (void *P : Freed)
    free(P);
  fflush(stdout);
  pid_t Pid = fork();
  if (Pid < 0)
    return 1;
  if (Pid == 0) {
    // The child frees half of the inherited blocks: not its allocations, so
    // they must not appear in its profile.
    for (size_t I = 0; I < Inherited.size(); I += 2)
      free(Inherited[I]);
    long Bytes = 0;
    for (int I = 0; I < 30; ++I) {
      void *P = site_child(100 + I);
      Bytes += 100 + I;
      if (I % 3)
        free(P);
    }
    for (int I = 0; I < 7; ++I)
      free(site_after(1000));
    printf("site site_child 30 %ld\n", Bytes);
    printf("site site_after 7 7000\n");
    fflush(stdout);
    exit(0); // the child's exit dump goes to its own file
  }
  int Status;
  waitpid(Pid, &Status, 0);
  for (int I = 0; I < 5; ++I)
    free(site_after(1000));
  printf("site site_before 140 %ld\n", Before);
  printf("site site_after 5 5000\n");
  printf("child %s\n", WIFEXITED(Status) && WEXITSTATUS(Status) == 0 ? "ok" : "FAILED");
  return 0;
}

static std::atomic<bool> Stop;
static std::atomic<int> Failures;

static void forkAndCheck() {
  pid_t Pid = fork();
  if (Pid == 0) {
    alarm(10); // a deadlocked child dies of SIGALRM
    for (int I = 0; I < 100; ++I)
      free(site_child(64));
    _exit(memprof_dump() == 0 ? 0 : 2); // no exit dump, which _exit skips
  }
  int Status;
  if (Pid < 0 || waitpid(Pid, &Status, 0) != Pid || !WIFEXITED(Status) ||
      WEXITSTATUS(Status) != 0)
    Failures++;
}

static int stress() {
  if (memprof_set_output_path(nullDevice()) != 0)
    return 1;
  std::thread Spinner([] {
    while (!Stop)
      free(site_spin(1 + rand() % 512));
  });
  std::thread Dumper([] {
    while (!Stop)
      memprof_dump();
  });
  for (int I = 0; I < 100; ++I)
    forkAndCheck();
  std::vector<std::thread> Forkers;
  for (int T = 0; T < 8; ++T)
    Forkers.emplace_back([] {
      for (int I = 0; I < 5; ++I)
        forkAndCheck();
    });
  for (auto &T : Forkers)
    T.join();
  Stop = true;
  Spinner.join();
  Dumper.join();
  printf("forks done, %d failed\n", Failures.load());
  return 0;
}

int main(int argc, char **argv) {
  return argc > 1 && !strcmp(argv[1], "stress") ? stress() : basic();
}
