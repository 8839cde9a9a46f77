// R2: blocks allocated on one thread and freed on another, and many short
// threads (each with a thread_local block freed at thread exit).
// Prints the exact per-site truth.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

extern "C" __attribute__((noinline)) void *produced_malloc(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) char *produced_new(size_t N) { return new char[N]; }
extern "C" __attribute__((noinline)) void *short_thread(size_t N) { return malloc(N); }
extern "C" __attribute__((noinline)) int *tls_block(size_t N) { return new int[N]; }

std::mutex M;
std::condition_variable CV;
std::deque<std::pair<void *, bool>> Queue;
bool Done;

void producer(int Id, int N, long *Count, long *Bytes) {
  for (int I = 0; I < N; ++I) {
    size_t Size = 16 + (I * 31 + Id) % 500;
    bool IsNew = I % 3 == 0;
    void *P = IsNew ? static_cast<void *>(produced_new(Size)) : produced_malloc(Size);
    Count[IsNew] += 1;
    Bytes[IsNew] += long(Size);
    std::lock_guard<std::mutex> G(M);
    Queue.emplace_back(P, IsNew);
    CV.notify_one();
  }
}

void consumer() {
  for (;;) {
    std::unique_lock<std::mutex> L(M);
    CV.wait(L, [] { return !Queue.empty() || Done; });
    if (Queue.empty())
      return;
    auto [P, IsNew] = Queue.front();
    Queue.pop_front();
    L.unlock();
    if (IsNew)
      delete[] static_cast<char *>(P);
    else
      free(P);
  }
}

// Freed by the thread's exit (a thread_local destructor).
struct TlsBlock {
  int *P = nullptr;
  ~TlsBlock() { delete[] P; }
};
thread_local TlsBlock PerThread;

int main(int argc, char **argv) {
  int ShortThreads = argc > 1 ? atoi(argv[1]) : 1000;
  long Count[2] = {}, Bytes[2] = {};
  long PCount[4][2] = {}, PBytes[4][2] = {};
  std::vector<std::thread> Producers, Consumers;
  for (int I = 0; I < 4; ++I)
    Consumers.emplace_back(consumer);
  for (int I = 0; I < 4; ++I)
    Producers.emplace_back(producer, I, 5000, PCount[I], PBytes[I]);
  for (auto &T : Producers)
    T.join();
  {
    std::lock_guard<std::mutex> G(M);
    Done = true;
    CV.notify_all();
  }
  for (auto &T : Consumers)
    T.join();
  for (int I = 0; I < 4; ++I)
    for (int K = 0; K < 2; ++K)
      Count[K] += PCount[I][K], Bytes[K] += PBytes[I][K];

  // Thread churn: each short thread allocates three blocks, frees two, hands
  // one to main, and leaves a thread_local block that its exit frees.
  std::vector<void *> Handed(ShortThreads);
  for (int I = 0; I < ShortThreads; ++I) {
    std::thread T([I, &Handed] {
      void *A = short_thread(24), *B = short_thread(40);
      Handed[I] = short_thread(8);
      free(A);
      free(B);
      PerThread.P = tls_block(10 + I % 7);
    });
    T.join();
  }
  long TlsBytes = 0;
  for (int I = 0; I < ShortThreads; ++I) {
    free(Handed[I]); // freed by a thread other than its allocator
    TlsBytes += long(sizeof(int)) * (10 + I % 7);
  }
  printf("site produced_malloc %ld %ld\n", Count[0], Bytes[0]);
  printf("site produced_new %ld %ld\n", Count[1], Bytes[1]);
  printf("site short_thread %d %d\n", 3 * ShortThreads, 72 * ShortThreads);
  printf("site tls_block %d %ld\n", ShortThreads, TlsBytes);
  return 0;
}
