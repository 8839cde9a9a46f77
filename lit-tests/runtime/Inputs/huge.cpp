// R12: huge and odd sizes. malloc(2^i) for i = 0..63 either succeeds or
// fails with ENOMEM; a single 5 GiB block is recorded without truncation
// (TotalSize exact, the 32-bit MinSize/MaxSize saturated); impossible sizes
// in every API fail cleanly; 100000 tiny blocks are all counted.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

extern "C" __attribute__((noinline)) void *site_pow2(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_huge(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_tiny(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) void *site_calloc(size_t N, size_t S) { return calloc(N, S); }

int main(int argc, char **argv) {
  // Not a constant, so the compiler cannot reject the size.
  volatile size_t HugeArray = SIZE_MAX / 2 + argc - 1;
  long Count = 0, WrongErrno = 0;
  unsigned long long Bytes = 0;
  for (int I = 0; I < 64; ++I) {
    size_t N = size_t(1) << I;
    errno = 0;
    char *P = static_cast<char *>(site_pow2(N));
    if (P) {
      P[0] = 1;
      ++Count;
      Bytes += N;
      free(P);
    } else if (errno != ENOMEM) {
      ++WrongErrno;
    }
  }
  printf("site site_pow2 %ld %llu\n", Count, Bytes);
  printf("pow2 failures with another errno: %ld\n", WrongErrno);

  const size_t Huge = size_t(5) << 30;
  char *H = static_cast<char *>(site_huge(Huge));
  if (H) {
    H[0] = H[Huge - 1] = 1;
    free(H);
    printf("site site_huge 1 %zu\n", Huge);
    printf("expect site_huge TotalSize == %zu\n", Huge);
    printf("expect site_huge MaxSize == 4294967295\n");
  } else {
    printf("site site_huge 0 0\n");
  }

  errno = 0;
  void *C = site_calloc(size_t(1) << 40, size_t(1) << 40);
  printf("calloc(2^40,2^40): %s errno=%d\n", C ? "ptr" : "NULL", errno);
  try {
    char *A = new char[HugeArray];
    printf("new[] huge: returned %p\n", static_cast<void *>(A));
  } catch (const std::bad_alloc &) {
    printf("new[] huge: threw bad_alloc\n");
  }

  for (int I = 0; I < 100000; ++I)
    free(site_tiny(1 + I % 8));
  long TinyBytes = 0;
  for (int I = 0; I < 100000; ++I)
    TinyBytes += 1 + I % 8;
  printf("site site_tiny 100000 %ld\n", TinyBytes);
  return 0;
}
