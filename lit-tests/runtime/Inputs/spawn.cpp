// R5: children started with posix_spawn (32 at once), fork+exec and
// vfork+exec run the same program in child mode; the runtime's environment
// is inherited, so each writes its own %p file. One more posix_spawn child
// gets an environment without LD_PRELOAD and MEMPROF_*: it runs without the
// runtime and writes nothing. Each role allocates a known set.
//   spawn parent | spawn child
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;

extern "C" __attribute__((noinline)) void *site_parent(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_child(size_t N) {
  return malloc(N);
}

int main(int Argc, char **Argv) {
  if (Argc > 1 && !strcmp(Argv[1], "child")) {
    for (int I = 0; I < 10; ++I)
      free(site_child(64));
    return 0;
  }
  for (int I = 0; I < 20; ++I)
    free(site_parent(32));
  char *Args[] = {Argv[0], (char *)"child", nullptr};
  constexpr int Spawned = 32, Children = Spawned + 3;
  pid_t Pids[Children];
  int Failed = 0;
  for (int I = 0; I < Spawned; ++I)
    Failed += posix_spawn(&Pids[I], Argv[0], nullptr, nullptr, Args,
                          environ) != 0;
  Pids[Spawned] = fork();
  if (Pids[Spawned] == 0) {
    execv(Argv[0], Args);
    _exit(127);
  }
  Pids[Spawned + 1] = vfork();
  if (Pids[Spawned + 1] == 0) {
    execv(Argv[0], Args);
    _exit(127);
  }
  // The environment without the runtime's variables.
  static char *Clean[256];
  int N = 0;
  for (char **E = environ; *E && N < 255; ++E)
    if (strncmp(*E, "LD_PRELOAD=", 11) && strncmp(*E, "MEMPROF_", 8))
      Clean[N++] = *E;
  Clean[N] = nullptr;
  Failed += posix_spawn(&Pids[Spawned + 2], Argv[0], nullptr, nullptr, Args,
                        Clean) != 0;
  int Bad = 0;
  for (int I = 0; I < Children; ++I) {
    int St = 0;
    waitpid(Pids[I], &St, 0);
    Bad += !WIFEXITED(St) || WEXITSTATUS(St) != 0;
  }
  printf("spawn failures %d, bad children %d\n", Failed, Bad);
  printf("parent pid %d\n", (int)getpid());
  return 0;
}
