// Calls the helpers of the two util.c files (counter-records.test).
#include <stdio.h>
#include <stdlib.h>
int from_a(int), from_b(int);
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5;
  printf("%d %d\n", from_a(n), from_b(n));
  return 0;
}
