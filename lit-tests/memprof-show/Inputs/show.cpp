// Allocation sites with known ground truth for memprof-show's tests. Each
// site prints one line:
//   site COUNT BYTES MIN MAX LINE CALLER_LINE INLINE NAME
// LINE is the line of the allocation call in its function, CALLER_LINE the
// line of the call in main, INLINE 1 when the allocating function is
// inlined, NAME its demangled name (the rest of the line).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

static int BufLine, BufCall, GrabLine, GrabCall, InlLine, InlCall, SlowLine,
    SlowCall, HotLine, HotCall;

namespace app {
__attribute__((noinline)) char *make_buffer(size_t N) {
  BufLine = __LINE__; return new char[N];
}
} // namespace app

struct Pool {
  __attribute__((noinline)) int *grab(int N) {
    GrabLine = __LINE__; return static_cast<int *>(malloc(N * sizeof(int)));
  }
};

static inline __attribute__((always_inline)) char *inl(size_t N) {
  InlLine = __LINE__; return static_cast<char *>(calloc(1, N));
}
__attribute__((noinline)) char *via_inline(size_t N) { return inl(N); }

// Held for a while: the longest lifetime.
__attribute__((noinline)) void slow(size_t N) {
  SlowLine = __LINE__; char *P = new char[N];
  P[0] = 1;
  timespec T{0, 60 * 1000 * 1000};
  nanosleep(&T, nullptr);
  delete[] P;
}

// Read many times: the most accesses.
__attribute__((noinline)) long hot(size_t N) {
  HotLine = __LINE__; volatile char *P = static_cast<char *>(malloc(N));
  long Sum = 0;
  for (int R = 0; R < 400; ++R)
    for (size_t I = 0; I < N; ++I)
      Sum += P[I] = char(I);
  free(const_cast<char *>(P));
  return Sum;
}

struct Truth {
  long Count = 0, Bytes = 0, Min = -1, Max = 0;
  void add(long N) {
    ++Count, Bytes += N;
    Min = Min < 0 || N < Min ? N : Min;
    Max = N > Max ? N : Max;
  }
  void print(int Line, int Call, int Inline, const char *Name) {
    printf("site %ld %ld %ld %ld %d %d %d %s\n", Count, Bytes, Min, Max, Line,
           Call, Inline, Name);
  }
};

int main(int argc, char **argv) {
  int Seed = argc > 1 ? atoi(argv[1]) : 1;
  Truth Buf, Grab, Inl, Slow, Hot;
  Pool Pl;
  for (int I = 0; I < 20 * Seed; ++I) {
    size_t N = 64 + 32 * ((I * 5 + Seed) % 7);
    BufCall = __LINE__; delete[] app::make_buffer(N);
    Buf.add(N);
  }
  for (int I = 0; I < 3 + Seed; ++I) {
    int N = 100 * (1 + I % 4);
    GrabCall = __LINE__; free(Pl.grab(N));
    Grab.add(N * sizeof(int));
  }
  for (int I = 0; I < 2 * Seed; ++I) {
    size_t N = 3000 + 1000 * I;
    InlCall = __LINE__; free(via_inline(N));
    Inl.add(N);
  }
  SlowCall = __LINE__; slow(16);
  Slow.add(16);
  HotCall = __LINE__; long S = hot(256);
  Hot.add(256);
  Buf.print(BufLine, BufCall, 0, "app::make_buffer(unsigned long)");
  Grab.print(GrabLine, GrabCall, 0, "Pool::grab(int)");
  // The inlined site: its caller frame is via_inline (line of the inl call).
  Inl.print(InlLine, InlCall, 1, "inl(unsigned long)");
  Slow.print(SlowLine, SlowCall, 0, "slow(unsigned long)");
  Hot.print(HotLine, HotCall, 0, "hot(unsigned long)");
  return S == 42 ? 1 : 0;
}
