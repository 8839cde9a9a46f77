// A shared library of link-anywhere.test, built twice: -DNAME=a and -DNAME=b.
// Its sites allocate with operator new, new[] and malloc; the blocks are
// written, so that the library's instrumented code counts accesses too.
#include <cstdlib>
#include <cstring>

#define CAT2(A, B) A##_##B
#define CAT(A, B) CAT2(A, B)

extern "C" __attribute__((noinline)) char *CAT(NAME, new_site)(size_t N) {
  return new char[N];
}
extern "C" __attribute__((noinline)) long *CAT(NAME, object_site)() {
  return new long(7);
}
extern "C" __attribute__((noinline)) void *CAT(NAME, malloc_site)(size_t N) {
  return malloc(N);
}

// Allocates Rounds times at each site, touches every byte, frees it all.
extern "C" void CAT(NAME, work)(int Rounds) {
  for (int I = 0; I < Rounds; ++I) {
    char *A = CAT(NAME, new_site)(100);
    memset(A, 1, 100);
    delete[] A;
    long *L = CAT(NAME, object_site)();
    *L += 1;
    delete L;
    void *M = CAT(NAME, malloc_site)(40);
    memset(M, 2, 40);
    free(M);
  }
}
