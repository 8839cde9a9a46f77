#include <stdlib.h>
int main(int argc, char **argv) {
  int *p = malloc(sizeof(int) * 4);
  p[argc & 3] = argc;
  int r = p[0];
  free(p);
  return r == 12345;
}
