// R5: children started with posix_spawn (8 at once) and fork+exec run the
// same program in child mode; the runtime's environment is inherited, so
// each writes its own %p file. Each role allocates a known set.
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
  pid_t Pids[9];
  int Failed = 0;
  for (int I = 0; I < 8; ++I)
    Failed += posix_spawn(&Pids[I], Argv[0], nullptr, nullptr, Args,
                          environ) != 0;
  Pids[8] = fork();
  if (Pids[8] == 0) {
    execv(Argv[0], Args);
    _exit(127);
  }
  int Bad = 0;
  for (int I = 0; I < 9; ++I) {
    int St = 0;
    waitpid(Pids[I], &St, 0);
    Bad += !WIFEXITED(St) || WEXITSTATUS(St) != 0;
  }
  printf("spawn failures %d, bad children %d\n", Failed, Bad);
  printf("parent pid %d\n", (int)getpid());
  return 0;
}
