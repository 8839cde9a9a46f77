// One call site of malloc, reached with two frame-pointer chains: with the
// frame pointer register cleared, the runtime's walk ends at once (a
// one-frame stack, as in code built without frame pointers, which the
// depot's one-frame table caches by PC); with this function's own frame
// pointer, the walk goes on to its callers (a deeper stack with the same
// leaf PC, which must never be taken for the one-frame one).
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *alloc_at_site(size_t N, int Broken) {
  void *Fp = Broken ? 0 : __builtin_frame_address(0);
  void *P;
  // Below the red zone, 16-aligned at the call; rbp saved and restored.
  __asm__ volatile("mov %%rsp, %%r12\n\t"
                   "sub $128, %%rsp\n\t"
                   "and $-16, %%rsp\n\t"
                   "push %%rbp\n\t"
                   "push %%rbp\n\t"
                   "mov %[fp], %%rbp\n\t"
                   "call malloc@PLT\n\t"
                   "pop %%rbp\n\t"
                   "pop %%rbp\n\t"
                   "mov %%r12, %%rsp\n\t"
                   : "=a"(P), "+D"(N)
                   : [fp] "r"(Fp)
                   : "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12",
                     "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                     "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                     "xmm13", "xmm14", "xmm15", "memory", "cc");
  return P;
}

int main(void) {
  enum { OneFrame = 1000, Walked = 700 };
  static void *Blocks[OneFrame + Walked];
  int N = 0;
  // The one-frame stack first, so that its PC is in the table before any
  // walked allocation at the same PC.
  for (int I = 0; I < OneFrame || I < Walked; ++I) {
    if (I < OneFrame)
      Blocks[N++] = alloc_at_site(16, 1);
    if (I < Walked)
      Blocks[N++] = alloc_at_site(48, 0);
  }
  for (int I = 0; I < N; ++I)
    free(Blocks[I]);
  printf("one-frame %d %d walked %d %d\n", OneFrame, OneFrame * 16, Walked,
         Walked * 48);
  return 0;
}
