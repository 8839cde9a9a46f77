// Allocation and deallocation CPUs: the program pins itself to each CPU it
// may run on (up to four), in turn, and allocates and frees 50 blocks there
// at that CPU's own site, in a thread that is pinned before it allocates
// anything (and in the main thread). Every block of a site is allocated and
// freed on the one CPU, so its MemInfoBlock must say so: AllocCpuId and
// DeallocCpuId are that CPU and no block migrated.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sched.h>

#define SITE(N)                                                                \
  extern "C" __attribute__((noinline)) void *site_cpu##N(size_t S) {           \
    return malloc(S);                                                          \
  }
SITE(0)
SITE(1)
SITE(2)
SITE(3)
static void *(*const Sites[])(size_t) = {site_cpu0, site_cpu1, site_cpu2,
                                        site_cpu3};

static bool pinTo(int Cpu) {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);
  return sched_setaffinity(0, sizeof(Set), &Set) == 0 && sched_getcpu() == Cpu;
}

struct Job {
  int Cpu, Index;
  bool Ok;
};

static void run(Job &J) {
  void *P[50];
  for (int I = 0; I < 50; ++I)
    P[I] = Sites[J.Index](size_t(24 + J.Index));
  for (int I = 0; I < 50; ++I)
    free(P[I]);
}

static void *threadMain(void *Arg) {
  Job &J = *static_cast<Job *>(Arg);
  J.Ok = pinTo(J.Cpu);
  if (J.Ok)
    run(J);
  return nullptr;
}

int main() {
  cpu_set_t Allowed;
  if (sched_getaffinity(0, sizeof(Allowed), &Allowed) != 0)
    return 1;
  int Cpus[4], N = 0;
  for (int C = 0; C < CPU_SETSIZE && N < 4; ++C)
    if (CPU_ISSET(C, &Allowed))
      Cpus[N++] = C;
  for (int I = 0; I < N; ++I) {
    // Even sites in a new thread, odd ones in the main thread.
    Job J = {Cpus[I], I, false};
    if (I % 2 == 0) {
      pthread_t T;
      if (pthread_create(&T, nullptr, threadMain, &J) != 0)
        return 1;
      pthread_join(T, nullptr);
    } else {
      J.Ok = pinTo(J.Cpu);
      if (J.Ok)
        run(J);
    }
    if (!J.Ok) {
      fprintf(stderr, "cannot pin to CPU %d\n", J.Cpu);
      return 1;
    }
    printf("site site_cpu%d 50 %d\n", I, 50 * (24 + I));
    printf("expect site_cpu%d AllocCpuId == %d\n", I, J.Cpu);
    printf("expect site_cpu%d DeallocCpuId == %d\n", I, J.Cpu);
    printf("expect site_cpu%d NumMigratedCpu == 0\n", I);
  }
  return 0;
}
