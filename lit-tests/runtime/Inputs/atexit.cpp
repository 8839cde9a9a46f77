// R10 and the dump/reset API: memprof_dump, memprof_reset and
// memprof_dump_and_reset split the run into dumps that count each allocation
// once; allocations in thread_local destructors, atexit handlers and static
// destructors happen before the exit dump and are part of it. Writes the
// truth of dump N to the file argv[N].
#include "memprof/Runtime/memprof_runtime.h"
#include <cstdio>
#include <cstdlib>
#include <vector>
#pragma weak memprof_dump
#pragma weak memprof_reset
#pragma weak memprof_dump_and_reset

#define SITE(Name)                                                             \
  extern "C" __attribute__((noinline)) void *Name(size_t N) { return malloc(N); }
SITE(phase1)
SITE(phase2)
SITE(phase3)
SITE(in_atexit)
SITE(in_static_dtor)
SITE(in_tls_dtor)

std::vector<void *> *Kept1, *Kept2;

struct StaticObject {
  ~StaticObject() {
    for (int I = 0; I < 4; ++I)
      in_static_dtor(32); // still live at the exit dump
  }
} Static;

struct TlsObject {
  int Touch = 0;
  ~TlsObject() {
    for (int I = 0; I < 2; ++I)
      free(in_tls_dtor(16));
  }
};
thread_local TlsObject Tls;

void handler1() {
  for (int I = 0; I < 3; ++I)
    free(in_atexit(50));
}

void handler2() {
  // Blocks of dumps that were reset: forgotten, so freeing them now records
  // nothing.
  for (void *P : *Kept1)
    free(P);
  for (void *P : *Kept2)
    free(P);
}

int main(int argc, char **argv) {
  Kept1 = new std::vector<void *>;
  Kept2 = new std::vector<void *>;
  for (int I = 0; I < 10; ++I) {
    void *P = phase1(100);
    if (I < 4)
      Kept1->push_back(P);
    else
      free(P);
  }
  int Failed = memprof_dump() != 0; // dump 1: phase 1, 4 blocks live
  Failed += memprof_reset() != 0;
  for (int I = 0; I < 8; ++I) {
    void *P = phase2(200);
    if (I < 2)
      Kept2->push_back(P);
    else
      free(P);
  }
  Failed += memprof_dump_and_reset() != 0; // dump 2: phase 2 only
  for (int I = 0; I < 5; ++I)
    free(phase3(300));
  atexit(handler1);
  atexit(handler2);
  Tls.Touch = 1;

  FILE *F = fopen(argv[1], "w");
  fprintf(F, "site phase1 10 1000\nsite phase2 0 0\n");
  fclose(F);
  F = fopen(argv[2], "w");
  fprintf(F, "site phase1 0 0\nsite phase2 8 1600\nsite phase3 0 0\n");
  fclose(F);
  F = fopen(argv[3], "w");
  fprintf(F, "site phase1 0 0\nsite phase2 0 0\nsite phase3 5 1500\n"
             "site in_atexit 3 150\nsite in_static_dtor 4 128\n"
             "site in_tls_dtor 2 32\n");
  fclose(F);
  printf("failed API calls: %d\n", Failed);
  return 0;
}
