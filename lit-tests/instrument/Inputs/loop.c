long sum(const long *p, long n) {
  long s = 0;
  for (long i = 0; i < n; ++i)
    s += p[i];
  return s;
}
