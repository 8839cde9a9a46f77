// Program B of two that share shared.h: a test-suite-like driver, whose
// calls come from other functions than A's.
#include "shared.h"

struct Event {
  long A, B, C, D;
};

__attribute__((noinline)) void run_case(int I) {
  ::operator delete(make_buffer(1000 + 10 * I));
  ::operator delete(make_node<Event>());
  ::operator delete(make_node<Event>());
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 3;
  for (int I = 0; I < N; ++I)
    run_case(I);
  print_truth();
  return 0;
}
