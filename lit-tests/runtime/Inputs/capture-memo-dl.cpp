// capture-memo.test: a library opened, used and closed, built two ways
// (-DVARIANT=1 with frame pointers and a bigger frame): the second is
// loaded where the first was, with the memo of the first's frames.
extern "C" __attribute__((noinline)) int dl_entry(int Depth, int (*Cb)(int)) {
#if VARIANT
  volatile char Pad[48] = {char(Depth)};
#else
  volatile char Pad[8] = {char(Depth)};
#endif
  if (Depth <= 0)
    return Cb(Pad[0]);
  return dl_entry(Depth - 1, Cb) + Pad[0];
}
