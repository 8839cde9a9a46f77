// R17, scaled down: 400 periodic dumps (memprof_dump_and_reset every round)
// while the program churns allocations over a fixed set of contexts. Each
// dump gets its own file (numbered), and the runtime's memory does not grow
// with the number of dumps: the program compares its resident set after
// dump 100 and after dump 400.
#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" int memprof_dump_and_reset(void) __attribute__((weak));

extern "C" __attribute__((noinline)) void *site_churn(size_t N) {
  return malloc(N);
}

static long rssKb() {
  FILE *F = fopen("/proc/self/status", "r");
  char Line[256];
  long Kb = 0;
  while (F && fgets(Line, sizeof(Line), F))
    if (!strncmp(Line, "VmRSS:", 6))
      Kb = atol(Line + 6);
  if (F)
    fclose(F);
  return Kb;
}

int main() {
  static void *Live[1000];
  long Failed = 0, At100 = 0, At400 = 0, Total = 0;
  for (int Round = 1; Round <= 400; ++Round) {
    for (int I = 0; I < 1000; ++I) {
      free(Live[I]);
      Live[I] = site_churn(32 + (I % 16) * 8);
      ++Total;
    }
    Failed += memprof_dump_and_reset() != 0;
    if (Round == 100)
      At100 = rssKb();
    if (Round == 400)
      At400 = rssKb();
  }
  printf("failed dumps %ld\n", Failed);
  printf("rss growth from dump 100 to 400 under 1 MiB: %d (%ld kB)\n",
         int(At400 - At100 < 1024), At400 - At100);
  printf("allocations %ld\n", Total);
  return 0;
}
