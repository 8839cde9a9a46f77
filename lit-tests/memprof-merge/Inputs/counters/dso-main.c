#include <stdlib.h>
int lib_work(int);
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 5; return lib_work(n) == 12345; }
