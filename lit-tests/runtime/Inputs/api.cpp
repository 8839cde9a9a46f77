// R11: the allocation API with good and bad arguments. Each line gives a
// call's result (NULL or not), errno, the alignment and usable size checks,
// and whether outputs and contents survived; run with and without the
// runtime, the outputs must be identical. Also prints the truth of what the
// runtime must record ("site call_X COUNT BYTES").
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>
#include <new>
#include <string>
#include <thread>
#include <unistd.h>

extern "C" void *__libc_malloc(size_t);
extern "C" void *__libc_memalign(size_t, size_t);
extern "C" void __libc_free(void *);

#define SITE(Name, Params, Call)                                               \
  extern "C" __attribute__((noinline)) void *call_##Name Params { return Call; }
SITE(malloc, (size_t N), malloc(N))
SITE(calloc, (size_t N, size_t S), calloc(N, S))
SITE(errno_malloc, (size_t N), malloc(N))
SITE(realloc, (void *P, size_t N), realloc(P, N))
SITE(reallocarray, (void *P, size_t N, size_t S), reallocarray(P, N, S))
SITE(memalign, (size_t A, size_t N), memalign(A, N))
SITE(aligned_alloc, (size_t A, size_t N), aligned_alloc(A, N))
SITE(valloc, (size_t N), valloc(N))
SITE(pvalloc, (size_t N), pvalloc(N))
SITE(new, (size_t N), ::operator new(N))
SITE(new_array, (size_t N), ::operator new[](N))
SITE(new_nothrow, (size_t N), ::operator new(N, std::nothrow))
SITE(new_array_nothrow, (size_t N), ::operator new[](N, std::nothrow))
SITE(new_aligned, (size_t N, size_t A), ::operator new(N, std::align_val_t(A)))
SITE(new_array_aligned, (size_t N, size_t A),
     ::operator new[](N, std::align_val_t(A)))
SITE(new_aligned_nothrow, (size_t N, size_t A),
     ::operator new(N, std::align_val_t(A), std::nothrow))
// Calls expected to throw: bad_alloc's exception object is itself allocated
// (by the C++ library, inside these frames), so they are not in the truth.
SITE(throwing_new, (size_t N), ::operator new(N))
SITE(throwing_new_array, (size_t N), ::operator new[](N))
SITE(throwing_new_nothrow, (size_t N), ::operator new(N, std::nothrow))
SITE(throwing_new_aligned, (size_t N, size_t A), ::operator new(N, std::align_val_t(A)))
SITE(throwing_new_aligned_nothrow, (size_t N, size_t A),
     ::operator new(N, std::align_val_t(A), std::nothrow))
extern "C" __attribute__((noinline)) int call_posix_memalign(void **P, size_t A,
                                                             size_t N) {
  return posix_memalign(P, A, N);
}

std::map<std::string, std::pair<long, long>> Truth;

void record(const char *Site, void *P, size_t Bytes) {
  if (P) {
    Truth[Site].first += 1;
    Truth[Site].second += long(Bytes);
  }
}

void report(const char *What, void *P, int Err, size_t Align = 16,
            size_t Req = 0) {
  printf("%s: %s errno=%d", What, P ? "ptr" : "NULL", Err);
  if (P)
    printf(" aligned=%d usable=%d", uintptr_t(P) % Align == 0,
           malloc_usable_size(P) >= Req);
  printf("\n");
}

#define TRY(What, Site, Expr, Align, Req, Bytes)                               \
  do {                                                                         \
    errno = 0;                                                                 \
    void *P = Expr;                                                            \
    int E = errno;                                                             \
    report(What, P, E, Align, Req);                                            \
    record("call_" #Site, P, Bytes);                                           \
    free(P);                                                                   \
  } while (0)

int main() {
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  const size_t Max = SIZE_MAX;
  TRY("malloc(0)", malloc, call_malloc(0), 16, 0, 0);
  TRY("malloc(1)", malloc, call_malloc(1), 16, 1, 1);
  TRY("malloc(100)", malloc, call_malloc(100), 16, 100, 100);
  TRY("malloc(PTRDIFF_MAX)", malloc, call_malloc(PTRDIFF_MAX), 16, 0, 0);
  TRY("malloc(SIZE_MAX)", malloc, call_malloc(Max), 16, 0, 0);
  TRY("malloc(SIZE_MAX-40)", malloc, call_malloc(Max - 40), 16, 0, 0);
  errno = 0;
  free(nullptr);
  printf("free(NULL): errno=%d\n", errno);
  {
    // free keeps errno: a small block, and one glibc maps (and unmaps at
    // free).
    const size_t BigBytes = size_t(64) << 20;
    void *Small = call_errno_malloc(100), *Big = call_errno_malloc(BigBytes);
    record("call_errno_malloc", Small, 100);
    record("call_errno_malloc", Big, BigBytes);
    errno = EXDEV;
    free(Small);
    int SmallErr = errno;
    errno = EXDEV;
    free(Big);
    printf("free keeps errno: small %d, mapped %d\n", SmallErr == EXDEV,
           errno == EXDEV);
  }

  TRY("calloc(0,0)", calloc, call_calloc(0, 0), 16, 0, 0);
  TRY("calloc(SIZE_MAX/2,3)", calloc, call_calloc(Max / 2, 3), 16, 0, 0);
  TRY("calloc(1,SIZE_MAX)", calloc, call_calloc(1, Max), 16, 0, 0);
  TRY("calloc(2^32,2^32)", calloc, call_calloc(size_t(1) << 32, size_t(1) << 32), 16, 0, 0);
  {
    // calloc memory is zero even where a freed block was dirty.
    char *D = static_cast<char *>(call_malloc(4000));
    memset(D, 0xAB, 4000);
    free(D);
    record("call_malloc", D, 4000);
    char *Z = static_cast<char *>(call_calloc(40, 100));
    record("call_calloc", Z, 4000);
    bool Zero = true;
    for (int I = 0; I < 4000; ++I)
      Zero &= Z[I] == 0;
    printf("calloc(40,100): zeroed=%d\n", Zero);
    free(Z);
  }

  {
    errno = 0;
    char *P = static_cast<char *>(call_realloc(nullptr, 50));
    record("call_realloc", P, 50);
    report("realloc(NULL,50)", P, errno, 16, 50);
    for (int I = 0; I < 50; ++I)
      P[I] = char(I);
    P = static_cast<char *>(call_realloc(P, 5000)); // grow
    record("call_realloc", P, 5000);
    bool Same = true;
    for (int I = 0; I < 50; ++I)
      Same &= P[I] == char(I);
    P = static_cast<char *>(call_realloc(P, 20)); // shrink
    record("call_realloc", P, 20);
    for (int I = 0; I < 20; ++I)
      Same &= P[I] == char(I);
    P = static_cast<char *>(call_realloc(P, 20)); // same size
    record("call_realloc", P, 20);
    errno = 0;
    void *Q = call_realloc(P, Max); // fails; P stays valid
    printf("realloc(p,SIZE_MAX): %s errno=%d\n", Q ? "ptr" : "NULL", errno);
    for (int I = 0; I < 20; ++I)
      Same &= P[I] == char(I);
    printf("realloc contents kept=%d usable=%d\n", Same,
           malloc_usable_size(P) >= 20);
    errno = 0;
    Q = call_realloc(P, 0); // frees P
    printf("realloc(p,0): %s errno=%d\n", Q ? "ptr" : "NULL", errno);
    free(Q);
  }
  TRY("reallocarray(NULL,SIZE_MAX/2,3)", reallocarray,
      call_reallocarray(nullptr, Max / 2, 3), 16, 0, 0);
  TRY("reallocarray(NULL,10,10)", reallocarray,
      call_reallocarray(nullptr, 10, 10), 16, 100, 100);
  {
    void *P = call_reallocarray(nullptr, 3, 7);
    record("call_reallocarray", P, 21);
    errno = 0;
    void *Q = call_reallocarray(P, Max, 2); // overflow: P untouched
    printf("reallocarray(p,SIZE_MAX,2): %s errno=%d\n", Q ? "ptr" : "NULL", errno);
    free(P);
  }

  size_t Aligns[] = {0, 1, 3, 8, 16, 17, 24, 32, 48, 64, 100, 4096, 65536};
  for (size_t A : Aligns) {
    size_t Want = A <= 16 ? 16 : A <= 32 ? 32 : 1;
    while (Want < A)
      Want <<= 1;
    std::string L = "memalign(" + std::to_string(A) + ",10)";
    TRY(L.c_str(), memalign, call_memalign(A, 10), Want, 10, 10);
    L = "aligned_alloc(" + std::to_string(A) + ",10)";
    TRY(L.c_str(), aligned_alloc, call_aligned_alloc(A, 10), Want, 10, 10);
    void *Out = reinterpret_cast<void *>(0x1234);
    errno = 0;
    int R = call_posix_memalign(&Out, A, 10);
    int E = errno;
    bool Untouched = Out == reinterpret_cast<void *>(0x1234);
    printf("posix_memalign(%zu,10): ret=%d errno=%d untouched=%d", A, R, E,
           Untouched);
    if (!R) {
      printf(" aligned=%d usable=%d", uintptr_t(Out) % A == 0,
             malloc_usable_size(Out) >= 10);
      record("call_posix_memalign", Out, 10);
      free(Out);
    }
    printf("\n");
  }
  TRY("memalign(2^63,10)", memalign, call_memalign(size_t(1) << 63, 10), 1, 0, 0);
  TRY("memalign(2^63+1,10)", memalign, call_memalign((size_t(1) << 63) + 1, 10), 1, 0, 0);
  TRY("memalign(64,SIZE_MAX-100)", memalign, call_memalign(64, Max - 100), 1, 0, 0);
  {
    void *Out = reinterpret_cast<void *>(0x1234);
    errno = 0;
    int R = call_posix_memalign(&Out, 64, Max);
    printf("posix_memalign(64,SIZE_MAX): ret=%d errno=%d untouched=%d\n", R,
           errno, Out == reinterpret_cast<void *>(0x1234));
  }
  TRY("valloc(100)", valloc, call_valloc(100), Page, 100, 100);
  TRY("valloc(SIZE_MAX)", valloc, call_valloc(Max), Page, 0, 0);
  TRY("pvalloc(100)", pvalloc, call_pvalloc(100), Page, Page, Page);
  TRY("pvalloc(0)", pvalloc, call_pvalloc(0), Page, 0, 0);
  TRY("pvalloc(SIZE_MAX)", pvalloc, call_pvalloc(Max), Page, 0, 0);
  printf("malloc_usable_size(NULL)=%zu\n", malloc_usable_size(nullptr));

  // Memory the runtime did not allocate goes back to glibc.
  {
    void *F = __libc_malloc(40);
    printf("foreign usable=%d\n", malloc_usable_size(F) >= 40);
    F = realloc(F, 4000);
    printf("foreign realloc: %s usable=%d\n", F ? "ptr" : "NULL",
           malloc_usable_size(F) >= 4000);
    free(F);
    // glibc blocks of every kind (small, tcache and bins, mmapped, aligned),
    // each after a glibc block whose last bytes (glibc's prev_size field of
    // the next block, the first half of what the runtime reads as a tail)
    // the program fills with ones: all are glibc's, usable sizes as glibc
    // says, and none is recorded.
    const size_t Sizes[] = {0, 1, 24, 40, 100, 1000, 4096, 65535, 65536,
                            300000, 5 << 20};
    int Bad = 0, Count = 0;
    for (size_t N : Sizes)
      for (size_t A : {size_t(0), size_t(64), size_t(4096)}) {
        void *Before = __libc_malloc(24);
        void *G = A ? __libc_memalign(A, N) : __libc_malloc(N);
        memset(Before, 0xFF, 24);
        size_t U = malloc_usable_size(G);
        Bad += U < N;
        G = realloc(G, N + 10);
        Bad += !G || malloc_usable_size(G) < N + 10;
        free(G);
        free(Before);
        Count += 2;
      }
    // In a thread's arena (glibc's NON_MAIN_ARENA flag, 4) a block after a
    // freed one (no PREV_INUSE flag): glibc's flags alone read as the
    // runtime's small-chunk kind.
    std::thread Thread([&] {
      for (int I = 0; I < 20; ++I) {
        void *A = __libc_malloc(2000), *B = __libc_malloc(100);
        void *C = __libc_malloc(100);
        __libc_free(A);
        Bad += malloc_usable_size(B) < 100;
        B = realloc(B, 120);
        Bad += !B;
        free(B);
        free(C);
        ++Count;
      }
    });
    Thread.join();
    printf("foreign blocks: %d, bad %d\n", Count, Bad);
  }

  // operator new and delete in every form.
  {
    void *P = call_new(0);
    record("call_new", P, 0);
    ::operator delete(P);
    P = call_new(100);
    record("call_new", P, 100);
    ::operator delete(P, size_t(100));
    P = call_new_array(100);
    record("call_new_array", P, 100);
    ::operator delete[](P);
    P = call_new_array(100);
    record("call_new_array", P, 100);
    ::operator delete[](P, size_t(100));
    P = call_new_nothrow(100);
    record("call_new_nothrow", P, 100);
    ::operator delete(P, std::nothrow);
    P = call_new_array_nothrow(100);
    record("call_new_array_nothrow", P, 100);
    ::operator delete[](P, std::nothrow);
    for (size_t A : {size_t(8), size_t(64), size_t(256), size_t(4096)}) {
      P = call_new_aligned(100, A);
      record("call_new_aligned", P, 100);
      printf("new(100,align %zu): aligned=%d\n", A, uintptr_t(P) % A == 0);
      ::operator delete(P, std::align_val_t(A));
      P = call_new_array_aligned(100, A);
      record("call_new_array_aligned", P, 100);
      printf("new[](100,align %zu): aligned=%d\n", A, uintptr_t(P) % A == 0);
      ::operator delete[](P, size_t(100), std::align_val_t(A));
      P = call_new_aligned_nothrow(100, A);
      record("call_new_aligned_nothrow", P, 100);
      ::operator delete(P, std::align_val_t(A), std::nothrow);
    }
    auto Throws = [](const char *What, auto Fn) {
      try {
        void *P = Fn();
        printf("%s: returned %s\n", What, P ? "ptr" : "NULL");
        ::operator delete(P);
      } catch (const std::bad_alloc &) {
        printf("%s: threw bad_alloc\n", What);
      }
    };
    Throws("new(SIZE_MAX)", [] { return call_throwing_new(SIZE_MAX); });
    Throws("new[](SIZE_MAX/2)", [] { return call_throwing_new_array(SIZE_MAX / 2); });
    Throws("new(SIZE_MAX,nothrow)", [] { return call_throwing_new_nothrow(SIZE_MAX); });
    Throws("new(10,align 3)", [] { return call_throwing_new_aligned(10, 3); });
    Throws("new(10,align 3,nothrow)",
           [] { return call_throwing_new_aligned_nothrow(10, 3); });
    // libstdc++ rounds the size up to the alignment and wraps to 0 here.
    Throws("new(SIZE_MAX,align 64)", [] { return call_throwing_new_aligned(SIZE_MAX, 64); });
  }

  for (auto &[Site, CB] : Truth)
    printf("site %s %ld %ld\n", Site.c_str(), CB.first, CB.second);
  return 0;
}
