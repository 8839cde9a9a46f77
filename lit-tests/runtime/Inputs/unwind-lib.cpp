// A library built with -fomit-frame-pointer (as Debian builds libstdc++): it
// calls back into the program, recurses, and throws through its frames.
#include <stdexcept>

extern "C" {
typedef void (*callback_t)(int);

__attribute__((noinline)) void lib_recurse(callback_t cb, int depth, int arg) {
  volatile int pad[4] = {depth, arg, 0, 0}; // a frame of its own
  if (depth > 0)
    lib_recurse(cb, depth - 1, arg + pad[0]);
  else
    cb(arg);
  pad[2] = 1;
}

__attribute__((noinline)) void lib_throw(int n) {
  if (n >= 0)
    throw std::runtime_error("thrown through a library without frame pointers");
}
}
