// Built twice: with frame pointers (libdlfp.so) and without (libdlnofp.so).
// Both recurse before calling back into the program, so a frame of the
// second stepped as if it kept a frame pointer loses the frames above it.
extern "C" {
typedef void (*callback_t)(int);

__attribute__((noinline)) void dl_recurse(callback_t cb, int depth) {
  volatile int pad[4] = {depth, 0, 0, 0}; // a frame of its own
  if (depth > 0)
    dl_recurse(cb, depth - 1);
  else
    cb(pad[0]);
  pad[2] = 1;
}

void dl_entry(callback_t cb) {
  dl_recurse(cb, 3);
  asm volatile("" ::: "memory"); // not a tail call
}
}
