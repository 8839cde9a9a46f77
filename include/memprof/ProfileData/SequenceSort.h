//===- SequenceSort.h - Sort integer sequences lexicographically -*- C++ -*-===//
//
// Sorts sequences of 32-bit integers (a writer's call stacks, as frame ranks)
// lexicographically: by the first element that differs, a sequence before
// any longer one it is a prefix of, equal sequences by a tie key. A
// multikey quicksort (Bentley and Sedgewick): each step compares one element
// at one depth, so the long prefixes call stacks share (main and its
// callers) are read once per partition rather than once per comparison, as
// a comparison sort does. Depth-first work is bounded: a partition that
// recurses too deep is finished by a comparison sort, so no input is
// quadratic and the stack stays shallow.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_SEQUENCESORT_H
#define MEMPROF_PROFILEDATA_SEQUENCESORT_H

#include "llvm/ADT/ArrayRef.h"
#include <cstddef>
#include <cstdint>
#include <utility>

namespace memprof {

/// Sequence \p I is Elems[Spans[I].first, Spans[I].first + Spans[I].second).
/// Reorders \p Order (indexes into Spans and TieKeys) into the order above;
/// equal sequences by ascending TieKeys. The result is the one order that
/// comparator defines when tie keys are distinct.
void sortSequences(llvm::MutableArrayRef<size_t> Order,
                   llvm::ArrayRef<uint32_t> Elems,
                   llvm::ArrayRef<std::pair<size_t, size_t>> Spans,
                   llvm::ArrayRef<uint64_t> TieKeys);

/// The comparator sortSequences orders by (for tests and small inputs).
bool sequenceLess(size_t L, size_t R, llvm::ArrayRef<uint32_t> Elems,
                  llvm::ArrayRef<std::pair<size_t, size_t>> Spans,
                  llvm::ArrayRef<uint64_t> TieKeys);

} // namespace memprof

#endif
