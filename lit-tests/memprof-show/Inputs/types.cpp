// Allocates objects of known types from known sites and prints, as its own
// ground truth, what it allocated of each: "type NAME COUNT BYTES" (the
// names memprof-merge gives them: docs/memprof-merge.md, "Allocated
// types"), and "untyped malloc COUNT BYTES" for the plain mallocs, whose
// type nothing in the binary says. Built with clang -g -O2 and frame
// pointers; run with memprof's runtime. Argument: a repeat count.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

struct Foo {
  long A[5];
  int B;
};
struct Bar {
  int X;
  double Y;
  char Z[12];
};

static void *volatile Sink;

// new T: DWARF's call site says Foo.
__attribute__((noinline)) Foo *makeFoo() { return new Foo(); }
// new T[n]: the element type, int.
__attribute__((noinline)) int *makeInts(size_t N) { return new int[N]; }
// A plain malloc: no type.
__attribute__((noinline)) void *makeRaw(size_t N) { return malloc(N); }

// std::vector<Bar> growth: the allocator's frames say Bar. Returns the
// bytes of every buffer the vector allocated, read from its capacity.
__attribute__((noinline)) size_t growBars(int N, size_t &Allocs) {
  std::vector<Bar> V;
  size_t Bytes = 0, Cap = V.capacity();
  for (int I = 0; I < N; ++I) {
    V.push_back(Bar{I, 1.0 * I, {}});
    if (V.capacity() != Cap) {
      Cap = V.capacity();
      Bytes += Cap * sizeof(Bar);
      ++Allocs;
    }
  }
  Sink = V.data();
  return Bytes;
}

// std::string growth beyond the small-string buffer: libstdc++ allocates
// capacity() + 1 bytes each time its capacity changes.
__attribute__((noinline)) size_t growString(int N, size_t &Allocs) {
  std::string S;
  size_t Bytes = 0, Cap = S.capacity();
  for (int I = 0; I < N; ++I) {
    S += "0123456789abcdef";
    if (S.capacity() != Cap) {
      Cap = S.capacity();
      Bytes += Cap + 1;
      ++Allocs;
    }
  }
  Sink = const_cast<char *>(S.data());
  return Bytes;
}

int main(int Argc, char **Argv) {
  int Repeat = Argc > 1 ? atoi(Argv[1]) : 10;
  size_t FooN = 0, IntN = 0, IntBytes = 0, RawN = 0, RawBytes = 0;
  size_t BarN = 0, BarBytes = 0, StrN = 0, StrBytes = 0;
  for (int R = 0; R < Repeat; ++R) {
    Foo *F = makeFoo();
    Sink = F;
    delete F;
    ++FooN;
    size_t Ints = 10 + R;
    int *P = makeInts(Ints);
    Sink = P;
    delete[] P;
    ++IntN;
    IntBytes += Ints * sizeof(int);
    void *Raw = makeRaw(100 + R);
    Sink = Raw;
    free(Raw);
    ++RawN;
    RawBytes += 100 + R;
    BarBytes += growBars(50, BarN);
    StrBytes += growString(40, StrN);
  }
  printf("type Foo %zu %zu\n", FooN, FooN * sizeof(Foo));
  printf("type int %zu %zu\n", IntN, IntBytes);
  printf("type Bar %zu %zu\n", BarN, BarBytes);
  printf("type std::string %zu %zu\n", StrN, StrBytes);
  printf("untyped malloc %zu %zu\n", RawN, RawBytes);
  return 0;
}
