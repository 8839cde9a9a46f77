// R18: address space running out under the runtime. After start the
// program caps RLIMIT_AS a few MiB above what it uses, then makes blocks
// from 3,000 distinct contexts (recursion depths) until malloc fails and
// frees them. The runtime's tables and stack depot cannot grow: it must
// degrade (stop recording what it cannot place, say so) and never crash;
// the program's own mallocs fail with NULL as they would without it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <vector>

static long vmSizeKb() {
  FILE *F = fopen("/proc/self/status", "r");
  char Line[256];
  long Kb = 0;
  while (F && fgets(Line, sizeof(Line), F))
    if (!strncmp(Line, "VmSize:", 7))
      Kb = atol(Line + 7);
  if (F)
    fclose(F);
  return Kb;
}

extern "C" __attribute__((noinline)) void *deep(int Depth, size_t N) {
  if (Depth == 0)
    return malloc(N);
  void *P = deep(Depth - 1, N);
  asm volatile("" ::: "memory"); // not a tail call
  return P;
}

int main() {
  static void *Blocks[200000];
  long Limit = (vmSizeKb() + 8 * 1024) * 1024;
  rlimit R = {(rlim_t)Limit, (rlim_t)Limit};
  if (setrlimit(RLIMIT_AS, &R) != 0)
    return 2;
  long N = 0, Nulls = 0;
  for (int Round = 0; Round < 200000 && N < 200000; ++Round) {
    void *P = deep(Round % 3000, 64 + Round % 512);
    if (!P) {
      if (++Nulls > 1000)
        break;
      continue;
    }
    Blocks[N++] = P;
  }
  for (long I = 0; I < N; ++I)
    free(Blocks[I]);
  printf("blocks %ld, failed mallocs %ld\n", N, Nulls);
  printf("survived\n");
  return 0;
}
