// capture-memo.test: code without frame pointers (built -fomit-frame-pointer)
// on the way to the program's allocation sites: recursion, callbacks and a
// throw, stepped by CFI rules.
#include <stdexcept>

extern "C" __attribute__((noinline)) int lib_recurse(int Depth, int (*Cb)(int),
                                                     int Arg) {
  volatile int Pad[3] = {Depth, Arg, 0}; // a frame of its own
  if (Depth <= 0)
    return Cb(Arg) + Pad[2];
  return lib_recurse(Depth - 1, Cb, Arg + Pad[0] % 3) + 1;
}

extern "C" __attribute__((noinline)) void lib_throw(int Depth) {
  if (Depth <= 0)
    throw std::runtime_error("a message long enough to be allocated");
  lib_throw(Depth - 1);
  asm volatile("");
}
