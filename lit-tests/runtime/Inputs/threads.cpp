// R1: THREADS threads x ALLOCS allocations over twelve sites (six allocation
// functions, each with a site whose blocks are freed at once and a site whose
// blocks stay live until exit). Sizes mix 1 B .. 2 KiB with some of 1 MiB.
// Prints the exact per-site truth: "site NAME COUNT BYTES".
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#define SITES(X)                                                               \
  X(malloc_freed, malloc(N), free(P))                                          \
  X(malloc_live, malloc(N), free(P))                                           \
  X(calloc_freed, calloc(1, N), free(P))                                       \
  X(calloc_live, calloc(1, N), free(P))                                        \
  X(new_freed, new char[N], delete[] static_cast<char *>(P))                   \
  X(new_live, new char[N], delete[] static_cast<char *>(P))                    \
  X(opnew_freed, ::operator new(N), ::operator delete(P, N))                   \
  X(opnew_live, ::operator new(N), ::operator delete(P, N))                    \
  X(aligned_freed, aligned_alloc(64, N), free(P))                              \
  X(aligned_live, aligned_alloc(64, N), free(P))                               \
  X(realloc_freed, realloc(nullptr, N), free(P))                               \
  X(realloc_live, realloc(nullptr, N), free(P))

#define DEFINE(Name, Alloc, Free)                                              \
  extern "C" __attribute__((noinline)) void *Name(size_t N) { return Alloc; }  \
  __attribute__((noinline)) void release_##Name(void *P, size_t N) { Free; }
SITES(DEFINE)

struct Site {
  const char *Name;
  void *(*Alloc)(size_t);
  void (*Free)(void *, size_t);
};
#define ENTRY(Name, Alloc, Free) {#Name, Name, release_##Name},
const Site Sites[] = {SITES(ENTRY)};
constexpr int NumSites = sizeof(Sites) / sizeof(Sites[0]);

std::mutex M;
long Count[NumSites], Bytes[NumSites];
std::vector<void *> Live;

void worker(int T, int Allocs) {
  long C[NumSites] = {}, B[NumSites] = {};
  std::vector<void *> Keep;
  for (int I = 0; I < Allocs; ++I) {
    int S = (I * 5 + T) % NumSites;
    size_t N = 1 + (size_t(I) * 7919 + size_t(T) * 104729) % 2048;
    if (I % 499 == 0)
      N = 1 << 20;
    void *P = Sites[S].Alloc(N);
    if (!P)
      abort();
    static_cast<char *>(P)[0] = 1;
    ++C[S];
    B[S] += long(N);
    if (S % 2 == 0)
      Sites[S].Free(P, N);
    else
      Keep.push_back(P);
  }
  std::lock_guard<std::mutex> G(M);
  for (int S = 0; S < NumSites; ++S)
    Count[S] += C[S], Bytes[S] += B[S];
  Live.insert(Live.end(), Keep.begin(), Keep.end());
}

int main(int argc, char **argv) {
  int Threads = argc > 1 ? atoi(argv[1]) : 8;
  int Allocs = argc > 2 ? atoi(argv[2]) : 1000;
  {
    std::vector<std::thread> Ts;
    for (int T = 0; T < Threads; ++T)
      Ts.emplace_back(worker, T, Allocs);
    for (std::thread &T : Ts)
      T.join();
  }
  for (int S = 0; S < NumSites; ++S)
    printf("site %s %ld %ld\n", Sites[S].Name, Count[S], Bytes[S]);
  return 0; // the *_live blocks are still allocated at exit
}
