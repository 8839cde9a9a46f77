// Code two programs share, as a library's tests and its tools do: the same
// functions (same linkage names, so the same GUIDs) compiled into both.
#include <cstdio>
#include <cstdlib>
#include <new>

struct Tally {
  long Count = 0, Bytes = 0;
};
inline Tally TBuffer, TNode;

// An out-of-line function both programs define (linkonce_odr): the leaf of
// its contexts in both.
__attribute__((noinline)) inline char *make_buffer(size_t N) {
  ++TBuffer.Count, TBuffer.Bytes += static_cast<long>(N);
  return static_cast<char *>(::operator new(N));
}

// A template inlined into each caller: the leaf frame is the same inlined
// function in both programs.
template <class T> inline __attribute__((always_inline)) T *make_node() {
  ++TNode.Count, TNode.Bytes += static_cast<long>(sizeof(T));
  return static_cast<T *>(::operator new(sizeof(T)));
}

inline void print_truth() {
  printf("site _Z11make_bufferm %ld %ld\n", TBuffer.Count, TBuffer.Bytes);
  printf("node %ld %ld\n", TNode.Count, TNode.Bytes);
}
