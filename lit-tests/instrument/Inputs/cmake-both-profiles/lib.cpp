// The shared library of the CMake consumer: one allocation site.
extern "C" __attribute__((noinline)) char *word_site(unsigned long n) { return new char[n]; }
extern "C" char *word_make(int i) {
  char *p = word_site(24 + i);
  p[0] = (char)('a' + i % 26);
  return p;
}
