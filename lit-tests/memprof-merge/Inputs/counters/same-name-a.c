// One of two files named util.c, each with a static helper() (counter-records.test).
__attribute__((noinline)) static int helper(int x) { return x * 3; }
int from_a(int x) { return helper(x) + 1; }
