// Allocation sites reached through code without frame pointers: libstdc++'s
// std::string and std::vector growth, a callback from a library built with
// -fomit-frame-pointer (recursing), an exception allocated in libstdc++ and
// thrown through that library; from the main thread and two more; and five
// from a signal handler. "unwind N" runs each N times per thread.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern "C" {
typedef void (*callback_t)(int);
void lib_recurse(callback_t cb, int depth, int arg);
void lib_throw(int n);
}

static volatile long Sink;
static char *volatile Kept; // an escape, so the new/delete pair stays

extern "C" __attribute__((noinline)) void site_callback(int n) {
  char *P = new char[64 + n % 8];
  Kept = P; // each thread frees its own block
  delete[] P;
}

__attribute__((noinline)) std::string site_string(int n) {
  std::string S;
  for (int I = 0; I < n; ++I)
    S.push_back(char('a' + I % 26));
  return S;
}

__attribute__((noinline)) size_t site_vector(int n) {
  std::vector<long> V;
  for (int I = 0; I < n; ++I)
    V.push_back(I);
  return V.size();
}

__attribute__((noinline)) int site_throw(int n) {
  try {
    lib_throw(n);
  } catch (const std::exception &E) {
    return int(E.what()[0]);
  }
  return 0;
}

__attribute__((noinline)) void work(int n) {
  for (int I = 0; I < n; ++I) {
    Sink = Sink + site_string(40 + I % 50).size() + site_vector(20);
    lib_recurse(site_callback, 3 + I % 3, I);
    Sink = Sink + site_throw(I);
  }
}

// Allocates in a signal handler (the walk meets the kernel's signal frame).
extern "C" __attribute__((noinline)) void site_signal(int) {
  char *P = static_cast<char *>(malloc(96));
  Kept = P;
  free(P);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  signal(SIGUSR1, site_signal);
  for (int I = 0; I < 5; ++I)
    raise(SIGUSR1);
  std::thread A(work, n), B(work, n);
  work(n);
  A.join();
  B.join();
  printf("done\n");
  return 0;
}
