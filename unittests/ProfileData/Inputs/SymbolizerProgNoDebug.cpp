// Test program part built without -g: symbol-table-only functions.
#include <cstdlib>

extern "C" __attribute__((noinline)) int nodebug_helper(int X) {
  int S = 0;
  for (int I = 0; I < X; ++I)
    S += I * X;
  return S;
}

// Named like a profiler-runtime interceptor: a runtime frame without DWARF.
extern "C" __attribute__((noinline)) void *
__interceptor_fake_alloc(unsigned long N) {
  return malloc(N + 8);
}
