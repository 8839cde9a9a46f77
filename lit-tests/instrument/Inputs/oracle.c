/* The same program built with clang-22 -fmemory-profile and with our pass:
 * every allocation site's total access count must be the same (LLVM's
 * counting rule, with our coalescing and hoisting). Blocks are multiples of
 * 64 bytes, accessed in many ways. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SITE(Name)                                                             \
  __attribute__((noinline)) void *Name(size_t N) { return malloc(N); }
SITE(site_fields)
SITE(site_loop)
SITE(site_copy)
SITE(site_atomic)
SITE(site_list)

struct Node {
  struct Node *Next;
  long Key, Val;
  char Name[40];
};

volatile size_t Opaque;

__attribute__((noinline)) long fields(long *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I + 4 < N; I += 3)
    S += P[I] * P[I + 1] - P[I + 4];
  P[2] = S;
  return S;
}

__attribute__((noinline)) long loop(int *P, size_t N) {
  long S = 0;
  for (size_t I = 0; I < N; ++I)
    P[I] = (int)I;
  for (size_t I = N; I-- > 0;)
    S += P[I];
  return S;
}

__attribute__((noinline)) void copy(char *P, size_t N) {
  memset(P, 1, N / 2);
  memcpy(P + N / 2, P, Opaque);
  memmove(P + 1, P, 24);
}

__attribute__((noinline)) long atomic(long *P) {
  long S = 0;
  for (int I = 0; I < 100; ++I)
    S += __atomic_fetch_add(&P[I % 8], 1, __ATOMIC_RELAXED);
  __atomic_store_n(&P[3], S, __ATOMIC_SEQ_CST);
  return __atomic_load_n(&P[5], __ATOMIC_ACQUIRE);
}

__attribute__((noinline)) long list(size_t N) {
  struct Node *Head = 0;
  for (size_t I = 0; I < N; ++I) {
    struct Node *Nd = site_list(sizeof(struct Node) + 8);
    Nd->Next = Head;
    Nd->Key = (long)I;
    Nd->Val = (long)(I * I);
    memcpy(Nd->Name, "node", 5);
    Head = Nd;
  }
  long S = 0;
  while (Head) {
    struct Node *Nx = Head->Next;
    S += Head->Key + Head->Val + Head->Name[1];
    free(Head);
    Head = Nx;
  }
  return S;
}

int main(int argc, char **argv) {
  size_t N = argc > 1 ? strtoul(argv[1], 0, 10) : 1000;
  long S = 0;
  long *F = site_fields(64 * 40);
  memset(F, 0, 64 * 40);
  S += fields(F, 64 * 40 / 8);
  free(F);
  int *L = site_loop(4 * N + 64 - (4 * N) % 64);
  S += loop(L, N);
  free(L);
  char *C = site_copy(64 * 20);
  Opaque = 64 * 9 + 5;
  copy(C, 64 * 20);
  free(C);
  long *A = site_atomic(64);
  memset(A, 0, 64);
  S += atomic(A);
  free(A);
  S += list(N / 10);
  return S == 42;
}
