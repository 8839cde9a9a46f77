//===- BoundedHashIndex.h - A hash index of bounded searches ----*- C++ -*-===//
//
// An index over entries kept elsewhere (a vector, by position), for tables
// keyed by a cheap hash of something a file chooses: open addressing with
// linear probing, at most half full, each slot an entry's hash and
// position. A lookup or an insert visits at most MaxProbes slots, so hashes
// that a hostile file makes collide cost a bounded search, never one through
// every entry; an entry that finds no slot within that bound is not indexed
// (no lookup could reach it), and its caller takes its full path instead.
// The merger's known contexts and CallStackIdCache are such tables.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPROF_PROFILEDATA_BOUNDEDHASHINDEX_H
#define MEMPROF_PROFILEDATA_BOUNDEDHASHINDEX_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace memprof {

class BoundedHashIndex {
public:
  static constexpr size_t MaxProbes = 32;
  static constexpr uint32_t None = ~0u;

  /// The first indexed entry of hash \p Hash for which \p Match(position)
  /// holds, within MaxProbes slots; None if there is none.
  template <typename MatchFn>
  uint32_t find(uint64_t Hash, MatchFn Match) const {
    if (Slots.empty())
      return None;
    const size_t Mask = Slots.size() - 1;
    size_t S = Hash & Mask;
    for (size_t P = 0; P < MaxProbes; ++P, S = (S + 1) & Mask) {
      const auto &[H, I] = Slots[S];
      if (I == None)
        return None;
      if (H == Hash && Match(I))
        return I;
    }
    return None;
  }

  /// Indexes the entry at \p Pos, of hash \p Hash: entries 0 to Pos - 1 were
  /// offered before, and when the index grows (past half full) \p HashOf
  /// gives their hashes to place them again. False if the entry found no
  /// slot: the caller does not keep it.
  template <typename HashFn>
  bool insert(uint64_t Hash, uint32_t Pos, HashFn HashOf) {
    if (2 * (size_t(Pos) + 1) > Slots.size()) {
      // (An entry that found no slot before finds none again, or one.)
      Slots.assign(std::max<size_t>(64, 2 * Slots.size()), {0, None});
      for (uint32_t I = 0; I < Pos; ++I)
        place(HashOf(I), I);
    }
    return place(Hash, Pos);
  }

  /// Asks for the slot a lookup of \p Hash starts at to be brought into
  /// the cache (a hint: nothing changes).
  void prefetch(uint64_t Hash) const {
    if (!Slots.empty())
      __builtin_prefetch(&Slots[Hash & (Slots.size() - 1)]);
  }
  /// The position in the slot a lookup of \p Hash starts at, if that slot
  /// holds hash \p Hash, else None: what find() will most likely return,
  /// without asking Match (for prefetching what it will look at).
  uint32_t first(uint64_t Hash) const {
    if (Slots.empty())
      return None;
    const auto &[H, I] = Slots[Hash & (Slots.size() - 1)];
    return H == Hash ? I : None;
  }

  void clear() { Slots.clear(); }

private:
  bool place(uint64_t Hash, uint32_t Pos) {
    const size_t Mask = Slots.size() - 1;
    size_t S = Hash & Mask;
    for (size_t P = 0; P < MaxProbes; ++P, S = (S + 1) & Mask)
      if (Slots[S].second == None) {
        Slots[S] = {Hash, Pos};
        return true;
      }
    return false;
  }

  std::vector<std::pair<uint64_t, uint32_t>> Slots;
};

} // namespace memprof

#endif
