// A program whose heap grows with its argument N, site by site, for the
// tests of diffs, pictures and groups. It prints its own ground truth, one
// line per function that main calls and that allocates (itself or through
// its callees):
//   site FUNCTION COUNT BYTES
// summed over every allocation context that passes through FUNCTION.
// FUNCTION is the short name memprof-show prints. Every block is freed
// before exit; N must be at least 1.
//   - build_table: N blocks of 64 bytes in app::Table::grow, and a vector
//     of N pointers (reserve) in build_table itself
//   - make_rows: N vectors of 40 chars (40-byte blocks from libstdc++'s
//     templates, instantiated here) and one vector of N of them (reserve)
//   - fixed: 10 blocks of 100 bytes whatever N
//   - only_big: N blocks of 32 bytes when N >= 100 (new in a big run)
//   - only_small: 5 blocks of 16 bytes when N < 100 (gone in a big run)
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace app {
struct Table {
  std::vector<char *> Rows;
  __attribute__((noinline)) void grow(size_t N) {
    for (size_t I = 0; I < N; ++I)
      Rows.push_back(static_cast<char *>(malloc(64)));
  }
  ~Table() {
    for (char *R : Rows)
      free(R);
  }
};
} // namespace app

__attribute__((noinline)) void build_table(app::Table &T, size_t N) {
  T.Rows.reserve(N);
  T.grow(N);
}

__attribute__((noinline)) size_t make_rows(size_t N) {
  std::vector<std::vector<char>> V;
  V.reserve(N);
  for (size_t I = 0; I < N; ++I)
    V.emplace_back(40, char('a' + I % 26));
  size_t Sum = 0;
  for (const std::vector<char> &S : V)
    Sum += S.size();
  return Sum;
}

__attribute__((noinline)) void fixed() {
  char *P[10];
  for (int I = 0; I < 10; ++I)
    P[I] = static_cast<char *>(malloc(100));
  for (int I = 0; I < 10; ++I)
    free(P[I]);
}

__attribute__((noinline)) void only_big(size_t N) {
  for (size_t I = 0; I < N; ++I)
    free(malloc(32));
}

__attribute__((noinline)) void only_small() {
  for (int I = 0; I < 5; ++I)
    free(malloc(16));
}

int main(int argc, char **argv) {
  size_t N = argc > 1 ? strtoul(argv[1], nullptr, 10) : 10;
  {
    app::Table T;
    build_table(T, N);
  }
  printf("site build_table %zu %zu\n", N + 1, N * 64 + N * sizeof(char *));
  size_t Chars = make_rows(N);
  printf("site make_rows %zu %zu\n", N + 1,
         N * 40 + N * sizeof(std::vector<char>));
  fixed();
  printf("site fixed 10 1000\n");
  if (N >= 100) {
    only_big(N);
    printf("site only_big %zu %zu\n", N, N * 32);
  } else {
    only_small();
    printf("site only_small 5 80\n");
  }
  return Chars == N * 40 ? 0 : 1;
}
