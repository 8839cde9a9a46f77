//===- SequenceSort.cpp - Sort integer sequences lexicographically --------===//
#include "memprof/ProfileData/SequenceSort.h"
#include <algorithm>

using namespace llvm;

namespace memprof {

/// sequenceLess, for sequences that agree on their first D elements.
static bool lessFrom(size_t L, size_t R, size_t D, ArrayRef<uint32_t> Elems,
                     ArrayRef<std::pair<size_t, size_t>> Spans,
                     ArrayRef<uint64_t> TieKeys) {
  const uint32_t *LB = Elems.data() + Spans[L].first + D;
  const uint32_t *RB = Elems.data() + Spans[R].first + D;
  const uint32_t *LE = LB + (Spans[L].second - D);
  const uint32_t *RE = RB + (Spans[R].second - D);
  auto [LI, RI] = std::mismatch(LB, LE, RB, RE);
  if (LI != LE && RI != RE)
    return *LI < *RI;
  if (LI != LE || RI != RE)
    return LI == LE; // the left one is a prefix of the right one
  return TieKeys[L] < TieKeys[R];
}

bool sequenceLess(size_t L, size_t R, ArrayRef<uint32_t> Elems,
                  ArrayRef<std::pair<size_t, size_t>> Spans,
                  ArrayRef<uint64_t> TieKeys) {
  return lessFrom(L, R, 0, Elems, Spans, TieKeys);
}

namespace {

class Sorter {
public:
  Sorter(ArrayRef<uint32_t> Elems, ArrayRef<std::pair<size_t, size_t>> Spans,
         ArrayRef<uint64_t> TieKeys)
      : Elems(Elems), Spans(Spans), TieKeys(TieKeys) {}

  /// Sorts A[0, N), whose sequences all agree on their first D elements
  /// (and so are all at least D long). Budget bounds the recursion on the
  /// parts below and above a pivot at one depth; spent, a comparison sort
  /// finishes the part.
  void sort(size_t *A, size_t N, size_t D, unsigned Budget) const {
    while (N > 1) {
      if (N <= 16) {
        insertionSort(A, N, D);
        return;
      }
      if (Budget == 0) {
        std::sort(A, A + N,
                  [&](size_t L, size_t R) { return lessFrom(L, R, D); });
        return;
      }
      const uint64_t V = medianOf3(at(A[0], D), at(A[N / 2], D),
                                   at(A[N - 1], D));
      // Three-way partition at depth D: [0, Lt) below V, [Lt, Gt) equal,
      // [Gt, N) above.
      size_t Lt = 0, I = 0, Gt = N;
      while (I < Gt) {
        const uint64_t C = at(A[I], D);
        if (C < V)
          std::swap(A[Lt++], A[I++]);
        else if (C > V)
          std::swap(A[I], A[--Gt]);
        else
          ++I;
      }
      sort(A, Lt, D, Budget - 1);
      sort(A + Gt, N - Gt, D, Budget - 1);
      A += Lt;
      N = Gt - Lt;
      if (V == 0) {
        // Every sequence of the middle part ends here: equal ones.
        std::sort(A, A + N,
                  [&](size_t L, size_t R) { return TieKeys[L] < TieKeys[R]; });
        return;
      }
      ++D; // the middle part agrees on one more element
    }
  }

private:
  /// Element D of sequence I plus one; 0 past its end (before any element).
  uint64_t at(size_t I, size_t D) const {
    const std::pair<size_t, size_t> &S = Spans[I];
    return D < S.second ? uint64_t(Elems[S.first + D]) + 1 : 0;
  }
  static uint64_t medianOf3(uint64_t A, uint64_t B, uint64_t C) {
    return std::max(std::min(A, B), std::min(std::max(A, B), C));
  }
  bool lessFrom(size_t L, size_t R, size_t D) const {
    return memprof::lessFrom(L, R, D, Elems, Spans, TieKeys);
  }
  void insertionSort(size_t *A, size_t N, size_t D) const {
    for (size_t I = 1; I < N; ++I) {
      const size_t X = A[I];
      size_t J = I;
      for (; J > 0 && lessFrom(X, A[J - 1], D); --J)
        A[J] = A[J - 1];
      A[J] = X;
    }
  }

  ArrayRef<uint32_t> Elems;
  ArrayRef<std::pair<size_t, size_t>> Spans;
  ArrayRef<uint64_t> TieKeys;
};

} // namespace

void sortSequences(MutableArrayRef<size_t> Order, ArrayRef<uint32_t> Elems,
                   ArrayRef<std::pair<size_t, size_t>> Spans,
                   ArrayRef<uint64_t> TieKeys) {
  unsigned Budget = 4;
  for (size_t N = Order.size(); N > 1; N >>= 1)
    Budget += 2;
  Sorter(Elems, Spans, TieKeys).sort(Order.data(), Order.size(), 0, Budget);
}

} // namespace memprof
