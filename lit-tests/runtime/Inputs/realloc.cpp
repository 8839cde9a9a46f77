// realloc in place and by moving: the data survives every call, shrinking
// keeps the pointer (as glibc does), growing one byte at a time stays in
// place most of the time, malloc_usable_size follows the new size, and a
// failed realloc leaves the block intact. Each realloc ends the old
// allocation and starts a new one at the realloc's context: the program
// prints the counts, bytes and access counts (it increments its blocks'
// shadow counters itself) that the profile must hold.
#include "memprof/Runtime/memprof_runtime.h"
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#pragma weak memprof_shadow_base
#pragma weak memprof_shadow_start

extern "C" __attribute__((noinline)) void *site_base(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_realloc(void *P, size_t N) {
  return realloc(P, N);
}
extern "C" __attribute__((noinline)) void *site_shrink(void *P, size_t N) {
  return realloc(P, N);
}
extern "C" __attribute__((noinline)) void *site_fail(void *P, size_t N) {
  return realloc(P, N);
}
extern "C" __attribute__((noinline)) void *site_big(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_big_shrink(void *P, size_t N) {
  return realloc(P, N);
}

extern "C" __attribute__((noinline)) void *site_edge(size_t N) {
  return malloc(N);
}
extern "C" __attribute__((noinline)) void *site_cross(void *P, size_t N) {
  return realloc(P, N);
}

static uint64_t touch(void *P, size_t N) {
  uint64_t Total = 0;
  uintptr_t First = uintptr_t(P) & ~uintptr_t(63);
  uintptr_t Last = (uintptr_t(P) + (N ? N : 1) - 1) & ~uintptr_t(63);
  for (uintptr_t G = First; G <= Last; G += 64) {
    *MEMPROF_SHADOW_COUNTER(G) += 1;
    ++Total;
  }
  return Total;
}

static void fill(void *P, size_t From, size_t To) {
  for (size_t I = From; I < To; ++I)
    static_cast<unsigned char *>(P)[I] = (unsigned char)(I * 7 + 3);
}
static bool intact(void *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (static_cast<unsigned char *>(P)[I] != (unsigned char)(I * 7 + 3))
      return false;
  return true;
}

int main() {
  // Counting by hand, as instrumented code would: the shadow exists only
  // once such code asks for it.
  if (!&memprof_shadow_start || !memprof_shadow_start()) {
    printf("no shadow\n");
    return 1;
  }
  bool DataOk = true, UsableOk = true;
  size_t N = 16;
  char *P = static_cast<char *>(site_base(N));
  fill(P, 0, N);
  uint64_t BaseAccesses = touch(P, N);
  uint64_t Count = 0, Bytes = 0, Accesses = 0, InPlace = 0;
  // Grow one byte at a time to 4 KiB.
  for (size_t M = N + 1; M <= 4096; ++M) {
    char *Q = static_cast<char *>(site_realloc(P, M));
    if (!Q)
      return 2;
    InPlace += Q == P;
    DataOk &= intact(Q, M - 1);
    UsableOk &= malloc_usable_size(Q) == M;
    fill(Q, M - 1, M);
    Accesses += touch(Q, M);
    ++Count;
    Bytes += M;
    P = Q;
    N = M;
  }
  // Shrink a little: always in place.
  unsigned ShrinkSame = 0;
  for (size_t M = N - 1; M >= 4000; --M) {
    char *Q = static_cast<char *>(site_shrink(P, M));
    ShrinkSame += Q == P;
    DataOk &= intact(Q, M);
    P = Q;
    N = M;
  }
  unsigned Shrinks = 4096 - 4000;
  // An impossible size: NULL and ENOMEM, the block intact.
  errno = 0;
  void *F = site_fail(P, SIZE_MAX / 2);
  bool FailOk = F == nullptr && errno == ENOMEM && intact(P, N) &&
                malloc_usable_size(P) == N;
  free(P);

  // A 1 MiB block shrunk to 100 bytes: the data kept.
  char *Big = static_cast<char *>(site_big(1 << 20));
  fill(Big, 0, 1 << 20);
  char *Small = static_cast<char *>(site_big_shrink(Big, 100));
  DataOk &= Small && intact(Small, 100);
  uint64_t SmallAccesses = touch(Small, 100);
  free(Small);

  // Around the preloaded runtime's small-chunk limit (65,535 bytes): blocks
  // on both sides, and one block grown across it and shrunk back.
  uint64_t EdgeBytes = 0;
  for (size_t M = 65533; M <= 65538; ++M) {
    char *E = static_cast<char *>(site_edge(M));
    UsableOk &= E && malloc_usable_size(E) == M;
    fill(E, 0, M);
    DataOk &= intact(E, M);
    EdgeBytes += M;
    free(E);
  }
  char *X = static_cast<char *>(site_edge(65500));
  EdgeBytes += 65500;
  fill(X, 0, 65500);
  size_t XN = 65500;
  uint64_t CrossCount = 0, CrossBytes = 0;
  for (size_t M = 65507; M <= 65600; M += 7) {
    char *Q = static_cast<char *>(site_cross(X, M));
    DataOk &= Q && intact(Q, XN);
    UsableOk &= Q && malloc_usable_size(Q) == M;
    if (!Q)
      return 3;
    fill(Q, XN, M);
    ++CrossCount, CrossBytes += M, X = Q, XN = M;
  }
  for (size_t M = XN - 5; M >= 65480; M -= 5) {
    char *Q = static_cast<char *>(site_cross(X, M));
    DataOk &= Q && intact(Q, M);
    UsableOk &= Q && malloc_usable_size(Q) == M;
    if (!Q)
      return 3;
    ++CrossCount, CrossBytes += M, X = Q, XN = M;
  }
  free(X);

  printf("data intact: %d\n", int(DataOk));
  printf("usable size follows: %d\n", int(UsableOk));
  printf("shrinks in place: %u of %u\n", ShrinkSame, Shrinks);
  printf("grew in place: %s\n", InPlace * 2 > Count ? "mostly" : "rarely");
  printf("failed realloc: %d\n", int(FailOk));
  printf("site site_base 1 16\n");
  printf("expect site_base TotalAccessCount == %llu\n",
         (unsigned long long)BaseAccesses);
  printf("site site_realloc %llu %llu\n", (unsigned long long)Count,
         (unsigned long long)Bytes);
  printf("expect site_realloc TotalAccessCount == %llu\n",
         (unsigned long long)Accesses);
  // The failed call is recorded as a new allocation of the old size.
  uint64_t ShrinkBytes = 0;
  for (size_t M = 4095; M >= 4000; --M)
    ShrinkBytes += M;
  printf("site site_shrink %u %llu\n", Shrinks,
         (unsigned long long)ShrinkBytes);
  printf("expect site_shrink TotalAccessCount == 0\n");
  printf("site site_fail 1 4000\n");
  printf("site site_big 1 1048576\n");
  printf("site site_edge 7 %llu\n", (unsigned long long)EdgeBytes);
  printf("site site_cross %llu %llu\n", (unsigned long long)CrossCount,
         (unsigned long long)CrossBytes);
  printf("site site_big_shrink 1 100\n");
  printf("expect site_big_shrink TotalAccessCount == %llu\n",
         (unsigned long long)SmallAccesses);
  return 0;
}
