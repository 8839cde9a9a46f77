// Allocation contexts whose leading inline chain (frames up to the first
// non-inlined one) holds the same function more than once. LLVM's indexed
// MemProf attaches a context to the record of every function of that chain,
// so a function found twice there gets the same context twice in its record.
//
// Build with %memprof_cflags -O2: the chains below only form when the
// optimizer turns indirect calls direct and inlines them (shapes 1, 3, 4, 5)
// or flattens a recursion (shape 2). At -O0 nothing repeats.
//
//   1. template allocator inlined twice: Arena<long>::allocate at chain
//      positions 0 and 2 (an Arena refills itself through a refill hook);
//   2. inlined recursion: build_node <-> build_kids flattened into site_tree,
//      build_node at positions 0, 2 and 4;
//   3. one helper at several depths: acquire() (a memory_resource::allocate
//      look-alike) at positions 0, 2 and 4 of a two-layer resource stack;
//   4. as 3, but the leaf heap_block is unique and acquire repeats in the
//      middle of the chain only (positions 2 and 4);
//   5. as 1 with Arena<int>, called from two places on one line of main
//      (a macro): two stack ids symbolize to the same frames, so the leaf's
//      record also holds the same Callstack with two different MemInfoBlocks.
//
// std::vector growth does not give a repeat with clang 22 and libstdc++ 12
// (__new_allocator<T>::allocate appears once in _M_realloc_insert's chain,
// at -O1/-O2/-O3 and -std=c++17/20), so no vector site is used.
//
// Prints "site NAME COUNT BYTES" per leaf (mangled name), from tallies kept
// next to each allocation. Argument N scales the run.
#include <cstdio>
#include <cstdlib>
#include <new>

#define AI inline __attribute__((always_inline))
#define NI __attribute__((noinline))

namespace {
struct Tally {
  long Count = 0, Bytes = 0;
  void add(size_t Size) { ++Count, Bytes += static_cast<long>(Size); }
};
Tally TArenaLong, TArenaInt, TNode, TAcquire, THeapBlock;
} // namespace

extern "C" NI void sink(void *P) { ::operator delete(P); }

// Shape 1 and 5: a template allocator with a refill hook. The hook here pads
// the request and asks the same Arena<T>::allocate again, so after inlining
// the chain is Arena<T>::allocate <- refill_padded<T> <- Arena<T>::allocate.
template <class T> struct Arena {
  using Refill = T *(*)(size_t);
  static AI T *allocate(size_t N, Refill R) {
    if (R)
      return R(N);
    (sizeof(T) == sizeof(long) ? TArenaLong : TArenaInt).add(N * sizeof(T));
    return static_cast<T *>(::operator new(N * sizeof(T)));
  }
};
template <class T> static AI T *refill_padded(size_t N) {
  return Arena<T>::allocate(N + 2, nullptr);
}
NI void site_template(size_t N) {
  sink(Arena<long>::allocate(N, refill_padded<long>));
}
NI void site_twin(size_t N) {
  sink(Arena<int>::allocate(N, refill_padded<int>));
}

// Shape 2: mutual recursion build_node -> build_kids -> build_node, inlined
// into site_tree by flatten (constant depth 2: 1 + 2 + 4 nodes). Internal
// linkage matters: with external build_node/build_kids, clang 22 flattens
// only one level of a depth-2 recursion (none at all with one kid).
struct Node {
  Node *Kid[2];
};
static Node *build_node(size_t N, int Depth);
static Node *build_kids(Node *P, size_t N, int Depth) {
  P->Kid[0] = build_node(N + 1, Depth - 1);
  P->Kid[1] = build_node(N + 2, Depth - 1);
  return P;
}
static Node *build_node(size_t N, int Depth) {
  TNode.add(sizeof(Node) + N);
  Node *P = static_cast<Node *>(::operator new(sizeof(Node) + N));
  if (Depth > 0)
    return build_kids(P, N, Depth);
  P->Kid[0] = P->Kid[1] = nullptr;
  return P;
}
NI void free_tree(Node *P) {
  if (!P)
    return;
  free_tree(P->Kid[0]);
  free_tree(P->Kid[1]);
  sink(P);
}
__attribute__((flatten)) NI Node *site_tree(size_t N) {
  return build_node(N, 2);
}

// Shapes 3 and 4: a stack of memory resources. acquire() is the non-virtual
// entry point (like std::pmr::memory_resource::allocate); each layer's get()
// forwards to its upstream through acquire(). With the layers' dynamic types
// known, -O2 devirtualizes get() and inlines it, so acquire() shows up once
// per layer in the leading inline chain.
struct Resource {
  virtual void *get(size_t N) = 0;
};
static AI void *acquire(Resource *R, size_t N) {
  if (R)
    return R->get(N);
  TAcquire.add(N);
  return ::operator new(N);
}
static AI void *heap_block(size_t N) {
  THeapBlock.add(N);
  return ::operator new(N);
}
struct Padding final : Resource {
  Resource *Up;
  explicit Padding(Resource *U) : Up(U) {}
  AI void *get(size_t N) override { return acquire(Up, N + 16); }
};
struct Rounding final : Resource {
  Resource *Up;
  bool Heap;
  Rounding(Resource *U, bool H) : Up(U), Heap(H) {}
  AI void *get(size_t N) override {
    size_t M = (N + 7) & ~size_t(7);
    return Heap ? heap_block(M) : acquire(Up, M);
  }
};
NI void site_depth(size_t N) { // shape 3: leaf acquire
  Rounding Inner(nullptr, false);
  Padding Outer(&Inner);
  sink(acquire(&Outer, N));
}
NI void site_middle(size_t N) { // shape 4: leaf heap_block
  Rounding Inner(nullptr, true);
  Padding Outer(&Inner);
  sink(acquire(&Outer, N));
}

// Two calls spelled in the macro body: both get main's line:column of the
// macro use, so their stacks differ in the return address only.
#define TWIN_CALLS(A, B) (site_twin(A), site_twin(B))

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 3;
  for (int I = 0; I < N; ++I) {
    site_template(8 * N + I);
    free_tree(site_tree(N + I));
    site_depth(40 + I);
    site_middle(3 * N + I);
  }
  for (int I = 0; I < N; ++I)
    TWIN_CALLS(I + 1, 100 + N * I);
  printf("site _ZN5ArenaIlE8allocateEmPFPlmE %ld %ld\n", TArenaLong.Count,
         TArenaLong.Bytes);
  printf("site _ZL10build_nodemi %ld %ld\n", TNode.Count, TNode.Bytes);
  printf("site _ZL7acquireP8Resourcem %ld %ld\n", TAcquire.Count,
         TAcquire.Bytes);
  printf("site _ZL10heap_blockm %ld %ld\n", THeapBlock.Count,
         THeapBlock.Bytes);
  printf("site _ZN5ArenaIiE8allocateEmPFPimE %ld %ld\n", TArenaInt.Count,
         TArenaInt.Bytes);
  return 0;
}
