// Exit order with both runtimes (-fprofile-generate and memprof's pass and
// runtime): a thread calls exit() while main waits for it; an atexit handler
// and a static destructor allocate during exit; a destructor of priority 101
// (after memprof's own exit dump, which is the runtime object's destructor
// of that priority, later on the link line) allocates and then makes LLVM's
// profile runtime write again, to the file LATE_PROFRAW names: fopen, malloc
// and free after the heap profile is written. Prints the truth of the heap
// profile ("site NAME COUNT BYTES").
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {
void __llvm_profile_set_filename(const char *);
int __llvm_profile_write_file(void);

static void *volatile Keep;
// One basic block each: one counter, the number of calls.
__attribute__((noinline)) void alloc_in_thread(int i) { char *p = new char[300 + i]; Keep = p; delete[] p; }
__attribute__((noinline)) void alloc_in_atexit(int i) { char *p = new char[200 + i]; Keep = p; delete[] p; }
__attribute__((noinline)) void alloc_in_dtor(int i) { char *p = new char[100 + i]; Keep = p; delete[] p; }
__attribute__((noinline)) void alloc_late(int i) { char *p = new char[50 + i]; Keep = p; delete[] p; }
}

// Constructed before LLVM's profile runtime registers its writer with atexit
// (this object comes first on the link line), so destroyed after it wrote.
struct Global {
  ~Global() {
    for (int i = 0; i < 5; ++i)
      alloc_in_dtor(i);
  }
} G;

__attribute__((destructor(101))) static void late() {
  for (int i = 0; i < 3; ++i)
    alloc_late(i);
  if (const char *Late = getenv("LATE_PROFRAW")) {
    __llvm_profile_set_filename(Late);
    __llvm_profile_write_file();
  }
}

static void handler() {
  for (int i = 0; i < 7; ++i)
    alloc_in_atexit(i);
}

static void *thread_main(void *) {
  for (int i = 0; i < 9; ++i)
    alloc_in_thread(i);
  exit(0);
}

int main() {
  // 9 * 300 + 36, 7 * 200 + 21, 5 * 100 + 10; alloc_late's come after the
  // heap profile was written.
  printf("site alloc_in_thread 9 2736\nsite alloc_in_atexit 7 1421\n"
         "site alloc_in_dtor 5 510\nsite alloc_late 0 0\n");
  fflush(stdout);
  atexit(handler);
  pthread_t T;
  pthread_create(&T, nullptr, thread_main, nullptr);
  pthread_join(T, nullptr); // never returns: the thread exits the process
  return 1;
}
