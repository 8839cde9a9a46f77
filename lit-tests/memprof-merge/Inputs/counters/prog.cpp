// Counters and value profiles for the -fprofile-generate tests: indirect calls
// through function pointers to static functions, virtual calls, and memcpy of
// sizes that depend on the arguments. "prog N SEED" runs N iterations; for one
// SEED, a run with a smaller N profiles a subset of the values of a larger N.
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Shape { virtual long area(long) const = 0; virtual ~Shape() {} };
struct Sq : Shape { long area(long x) const override { return x * x; } };
struct Tri : Shape { long area(long x) const override { return x * x / 2; } };
struct Circ : Shape { long area(long x) const override { return 3 * x * x; } };

static long add1(long x) { return x + 1; }
static long dbl(long x) { return x * 2; }
static long neg(long x) { return -x; }
typedef long (*fn_t)(long);

__attribute__((noinline)) long apply(fn_t f, long v) { return f(v); }

__attribute__((noinline)) static void copy(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
}

__attribute__((noinline)) static long pick(long i, long seed) {
  if (i % 5 == seed % 5)
    return 2;
  return (i + seed) % 2;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 3;
  long seed = argc > 2 ? atol(argv[2]) : 0;
  fn_t fns[3] = {add1, dbl, neg};
  Shape *shapes[3] = {new Sq, new Tri, new Circ};
  static char src[512], dst[512];
  memset(src, 'a', sizeof src);
  long sum = 0;
  for (long i = 0; i < n; ++i) {
    sum += apply(fns[pick(i, seed)], i);
    sum += shapes[(i * 7 + seed) % 3]->area(i);
    copy(dst, src, (size_t)((i * 13 + seed * 5) % 300) + 1);
    sum += dst[i % 100];
  }
  printf("%ld\n", sum);
  for (Shape *s : shapes)
    delete s;
  return 0;
}
