// A shared library that allocates; its constructor's allocation is a context
// that lies wholly inside the library (and the dynamic loader).
#include <cstdlib>
#include <cstring>

extern "C" __attribute__((noinline)) char *lib_site(size_t N) {
  char *P = static_cast<char *>(malloc(N));
  memset(P, 1, N);
  return P;
}
extern "C" __attribute__((noinline)) char *lib_entry(size_t N) {
  return lib_site(N);
}
static char *Kept;
__attribute__((constructor)) static void lib_init() { Kept = lib_site(777); }
