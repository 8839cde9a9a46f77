// Test program for SymbolizerTest, built -g -O1 and never run: inline chains,
// out-of-line functions and a "runtime" source file for the symbolizer.
#include <cstdlib>

extern "C" int nodebug_helper(int X);
extern "C" void *__interceptor_fake_alloc(unsigned long N);
void *fakeRuntimeNew(unsigned long N);

__attribute__((always_inline)) inline int *initAlloc(unsigned long N) {
  int *P = static_cast<int *>(malloc(N * sizeof(int)));
  if (P)
    P[0] = static_cast<int>(N);
  return P;
}

__attribute__((always_inline)) inline int *checkedAlloc(unsigned long N) {
  if (N > 1000000)
    return nullptr;
  int *P = initAlloc(N + 1);
  if (P && N > 2)
    P[1] = 42;
  return P;
}

__attribute__((noinline)) int *makeBuffer(unsigned long N) {
  int *P = checkedAlloc(N);
  if (P && N > 3)
    P[2] = nodebug_helper(static_cast<int>(N));
  return P;
}

__attribute__((noinline)) long sumBuffer(const int *P, unsigned long N) {
  long S = 0;
  for (unsigned long I = 0; I < N; ++I)
    S += P[I % 3] * static_cast<long>(I);
  return S;
}

template <typename T>
__attribute__((always_inline)) inline T clampAdd(T A, T B, T Max) {
  T S = A + B;
  return S > Max ? Max : S;
}

__attribute__((noinline)) int classify(int X) {
  switch (X % 5) {
  case 0:
    return clampAdd(X, 3, 100);
  case 1:
    return clampAdd(X * 2, 7, 1000);
  case 2:
    return static_cast<int>(clampAdd<long>(X, 11, 77));
  case 3:
    return X ^ 0x55;
  default:
    return -X;
  }
}

#ifdef SECOND_SEGMENT
// Placed into a second executable PT_LOAD by SymbolizerSeg2.ld.
__attribute__((noinline, section(".text.seg2"))) int farFunction(int X) {
  int *P = checkedAlloc(static_cast<unsigned long>(X));
  return P ? P[0] * 3 + 1 : 0;
}
#endif

int main(int Argc, char **Argv) {
  int *P = makeBuffer(static_cast<unsigned long>(Argc) + 4);
  long S = sumBuffer(P, 10) + classify(Argc);
  void *Q = __interceptor_fake_alloc(static_cast<unsigned long>(S));
  void *R = fakeRuntimeNew(16);
#ifdef SECOND_SEGMENT
  S += farFunction(Argc);
#endif
  free(P);
  free(Q);
  free(R);
  return static_cast<int>(S & 1);
}

// Frames whose DWARF file is one of the memprof runtime's sources are
// runtime frames (spec 2.2).
#line 10 "compiler-rt/lib/memprof/memprof_new_delete.cpp"
__attribute__((noinline)) void *fakeRuntimeNew(unsigned long N) {
  void *P = malloc(N);
  if (!P)
    abort();
  return P;
}
