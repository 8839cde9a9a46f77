// One of two files named util.c, each with a static helper() (counter-records.test).
__attribute__((noinline)) static int helper(int x) {
  int s = 0;
  for (int i = 0; i < x; ++i)
    if (i & 1)
      s += i;
  return s;
}
int from_b(int x) { return helper(x) - 1; }
