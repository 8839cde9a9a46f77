// A shared library whose destructor frees and allocates, possibly after the
// runtime's final dump: those calls must be handled safely.
#include <cstdlib>

static void *Early;

__attribute__((constructor)) static void lateInit() { Early = malloc(123); }

__attribute__((destructor)) static void lateFini() {
  free(Early);
  free(malloc(77));
}
