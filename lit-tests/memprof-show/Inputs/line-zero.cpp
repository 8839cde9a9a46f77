// At -O2 the two malloc calls of pick() are hoisted into one, which DWARF
// gives line 0: code of no one line (line-zero.test). pick is declared on
// line 5, so LLVM's line offset of that frame is 0 - 5, as a u32.
#include <cstdio>
__attribute__((noinline)) char *pick(int k) {
  char *p;
  if (k & 1) {
    p = static_cast<char *>(__builtin_malloc(64));
    p[1] = 2;
  } else {
    p = static_cast<char *>(__builtin_malloc(64));
    p[1] = 3;
  }
  return p;
}
int main(int argc, char **argv) {
  char *a = pick(argc), *b = pick(argc + 1);
  a[0] = b[0] = 1;
  printf("%d\n", a[0] + b[0] + a[1]);
  __builtin_free(a);
  __builtin_free(b);
  return 0;
}
