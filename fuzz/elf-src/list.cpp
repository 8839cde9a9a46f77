#include <cstdlib>
static inline __attribute__((always_inline)) void *grow(unsigned long n) { return malloc(n * 2); }
struct Node { Node *next; int v; };
__attribute__((noinline)) Node *push(Node *h, int v) { Node *n = new Node{h, v}; return n; }
int main(int argc, char **) {
  Node *h = nullptr;
  for (int i = 0; i < argc * 3; ++i) h = push(h, i);
  void *p = grow(argc);
  free(p);
  return h ? 0 : 1;
}
