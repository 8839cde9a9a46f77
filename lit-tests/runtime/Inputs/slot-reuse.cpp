// The live table's slot reuse: blocks freed in a scattered order, their
// slots taken again by later allocations (the search for a free slot wraps
// around), blocks live across memprof_dump_and_reset and freed after it.
// Writes the exact truth of the first dump (the reset) to argv[1] and of the
// exit dump to argv[2]: "site NAME COUNT BYTES".
#include <cstdio>
#include <cstdlib>
#include <vector>

// Weak, so that the preloaded runtime provides it (memprof_runtime.h).
extern "C" int memprof_dump_and_reset(void) __attribute__((weak));

#define SITE(Name)                                                             \
  extern "C" __attribute__((noinline)) void *Name(size_t N) {                  \
    return malloc(N);                                                          \
  }
SITE(site_a)
SITE(site_b)
SITE(site_c)
SITE(site_d)

struct Truth {
  long Count[4] = {}, Bytes[4] = {};
  void add(int S, size_t N) { ++Count[S], Bytes[S] += long(N); }
  void write(const char *Path) const {
    static const char *Names[] = {"site_a", "site_b", "site_c", "site_d"};
    FILE *F = fopen(Path, "w");
    if (!F)
      abort();
    for (int S = 0; S < 4; ++S)
      fprintf(F, "site %s %ld %ld\n", Names[S], Count[S], Bytes[S]);
    fclose(F);
  }
};

static void *take(void *(*Site)(size_t), int S, size_t N, Truth &T) {
  void *P = Site(N);
  if (!P)
    abort();
  static_cast<char *>(P)[0] = 1;
  T.add(S, N);
  return P;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  Truth First, Second;
  const int N = 20000;
  std::vector<void *> A(N), B;
  for (int I = 0; I < N; ++I)
    A[I] = take(site_a, 0, 1 + (I * 37) % 300, First);
  // 70% of them, in a scattered order (7919 is prime to N).
  for (int I = 0; I < N * 7 / 10; ++I) {
    int J = int((long(I) * 7919) % N);
    free(A[J]);
    A[J] = nullptr;
  }
  for (int I = 0; I < N; ++I) {
    void *P = take(site_b, 1, 1 + (I * 53) % 500, First);
    if (I % 3 == 0)
      free(P);
    else
      B.push_back(P);
  }
  for (int I = 0; I < 5000; ++I) {
    void *P = take(site_c, 2, 16, First);
    void *Q = take(site_c, 2, 48, First);
    void *R = take(site_c, 2, 80, First);
    free(Q);
    free(P);
    B.push_back(R);
  }
  if (!memprof_dump_and_reset || memprof_dump_and_reset() != 0)
    return 3;
  // Everything above is forgotten: freeing it now records nothing.
  for (int I = 0; I < N; I += 2)
    free(A[I]);
  for (void *P : B)
    free(P);
  std::vector<void *> D;
  for (int I = 0; I < 3 * N; ++I) {
    void *P = take(site_d, 3, 1 + (I * 101) % 700, Second);
    if (I % 4 == 1)
      free(P);
    else
      D.push_back(P);
  }
  for (size_t I = D.size(); I-- > 0;)
    if (I % 3 == 0)
      free(D[I]);
  First.write(argv[1]);
  Second.write(argv[2]);
  return 0; // the rest of D, and of A, stay live until exit
}
