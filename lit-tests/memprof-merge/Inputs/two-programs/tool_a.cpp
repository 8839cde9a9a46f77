// Program A of two that share shared.h: a parser-like tool.
#include "shared.h"

struct Token {
  long Kind, Pos;
};

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 3;
  for (int I = 0; I < N; ++I) {
    ::operator delete(make_buffer(64 + I));
    ::operator delete(make_node<Token>());
  }
  print_truth();
  return 0;
}
