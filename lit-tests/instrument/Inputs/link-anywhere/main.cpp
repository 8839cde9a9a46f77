// The program of link-anywhere.test: its own sites (operator new and
// malloc) and two instrumented shared libraries' (liba, libb); prints the
// truth as "site NAME COUNT BYTES" lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" void a_work(int Rounds);
extern "C" void b_work(int Rounds);

__attribute__((noinline)) int *main_new_site() { return new int[25]; }
__attribute__((noinline)) void *main_malloc_site() { return malloc(64); }

int main() {
  for (int I = 0; I < 5; ++I) {
    int *P = main_new_site();
    memset(P, 0, 100);
    delete[] P;
    free(main_malloc_site());
  }
  a_work(3);
  b_work(4);
  printf("site main_new_site() 5 500\n");
  printf("site main_malloc_site() 5 320\n");
  printf("site a_new_site 3 300\nsite a_object_site 3 24\nsite a_malloc_site 3 120\n");
  printf("site b_new_site 4 400\nsite b_object_site 4 32\nsite b_malloc_site 4 160\n");
  return 0;
}
