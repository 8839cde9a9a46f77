//===- U64IndexMap.h - uint64_t -> index, any key value ---------*- C++ -*-===//
//
// The index of U64MapVector: what std::unordered_map<uint64_t, unsigned> did
// for MapVector, without a node allocation per key. Open addressing with
// linear probing, at most half full, slots of (key, index). Every key value is
// allowed (a file chooses them: DenseMap reserves two), and keys are hashed
// with a per-process random seed, so that no file can choose keys that
// collide. Iteration order is the table's, which MapVector never exposes (its
// order is the vector's), so outputs do not depend on the seed.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPROF_PROFILEDATA_U64INDEXMAP_H
#define MEMPROF_PROFILEDATA_U64INDEXMAP_H

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace memprof {

class U64IndexMap {
public:
  using key_type = uint64_t;
  /// MapVector's index into its vector. ~0u marks an empty slot: MapVector
  /// never stores it (its vector would need 2^32 - 1 entries first).
  using mapped_type = unsigned;
  using value_type = std::pair<uint64_t, unsigned>;
  using size_type = size_t;
  /// The largest index a key can map to (~0u marks an empty slot).
  static constexpr unsigned MaxIndex = ~0u - 1;

  template <typename Slot> class Iter {
  public:
    Iter() = default;
    Iter(Slot *P, Slot *End) : P(P), End(End) { skip(); }
    template <typename O>
    Iter(const Iter<O> &I) : P(I.P), End(I.End) {} // iterator -> const
    Slot &operator*() const { return *P; }
    Slot *operator->() const { return P; }
    Iter &operator++() {
      ++P;
      skip();
      return *this;
    }
    template <typename O> bool operator==(const Iter<O> &I) const {
      return P == I.P;
    }
    template <typename O> bool operator!=(const Iter<O> &I) const {
      return P != I.P;
    }

  private:
    template <typename> friend class Iter;
    void skip() {
      while (P != End && P->second == Empty)
        ++P;
    }
    Slot *P = nullptr, *End = nullptr;
  };
  using iterator = Iter<value_type>;
  using const_iterator = Iter<const value_type>;

  iterator begin() { return {Slots.data(), Slots.data() + Slots.size()}; }
  iterator end() {
    return {Slots.data() + Slots.size(), Slots.data() + Slots.size()};
  }
  const_iterator begin() const {
    return {Slots.data(), Slots.data() + Slots.size()};
  }
  const_iterator end() const {
    return {Slots.data() + Slots.size(), Slots.data() + Slots.size()};
  }

  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  void clear() {
    Slots.clear();
    Count = 0;
  }
  /// Room for \p N keys without growing.
  void reserve(size_t N) {
    if (2 * N > Slots.size())
      rehash(capacityFor(N));
  }

  iterator find(uint64_t K) { return at(lookup(K)); }
  const_iterator find(uint64_t K) const {
    size_t S = lookup(K);
    const value_type *B = Slots.data(), *E = B + Slots.size();
    return {S == NotFound ? E : B + S, E};
  }
  size_t count(uint64_t K) const { return lookup(K) != NotFound; }

  /// Inserts \p K with index 0 if absent.
  std::pair<iterator, bool> try_emplace(uint64_t K) {
    size_t S = lookup(K);
    if (S != NotFound)
      return {at(S), false};
    if (2 * (Count + 1) > Slots.size())
      rehash(capacityFor(Count + 1));
    S = home(K);
    while (Slots[S].second != Empty)
      S = (S + 1) & (Slots.size() - 1);
    Slots[S] = {K, 0};
    ++Count;
    return {at(S), true};
  }
  unsigned &operator[](uint64_t K) { return try_emplace(K).first->second; }

  size_t erase(uint64_t K) {
    size_t S = lookup(K);
    if (S == NotFound)
      return 0;
    eraseSlot(S);
    return 1;
  }
  void erase(iterator It) { eraseSlot(size_t(&*It - Slots.data())); }

private:
  static constexpr unsigned Empty = ~0u;
  static constexpr size_t NotFound = ~size_t(0);
  /// Drawn once per process (getentropy), on first use: no static
  /// initializer can meet it unset.
  static uint64_t seed() {
    static const uint64_t S = makeSeed();
    return S;
  }
  static uint64_t makeSeed();
  static size_t capacityFor(size_t N) {
    size_t C = 16;
    while (C < 2 * N)
      C *= 2;
    return C;
  }
  size_t home(uint64_t K) const {
    // splitmix64's finalizer of the seeded key.
    uint64_t X = K ^ seed();
    X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ULL;
    X = (X ^ (X >> 27)) * 0x94D049BB133111EBULL;
    X ^= X >> 31;
    return size_t(X) & (Slots.size() - 1);
  }
  size_t lookup(uint64_t K) const {
    if (Slots.empty())
      return NotFound;
    for (size_t S = home(K);; S = (S + 1) & (Slots.size() - 1)) {
      if (Slots[S].second == Empty)
        return NotFound;
      if (Slots[S].first == K)
        return S;
    }
  }
  iterator at(size_t S) {
    value_type *B = Slots.data(), *E = B + Slots.size();
    return {S == NotFound ? E : B + S, E};
  }
  void rehash(size_t NewSize) {
    std::vector<value_type> Old(NewSize, value_type(0, Empty));
    Old.swap(Slots);
    for (const value_type &V : Old)
      if (V.second != Empty) {
        size_t S = home(V.first);
        while (Slots[S].second != Empty)
          S = (S + 1) & (Slots.size() - 1);
        Slots[S] = V;
      }
  }
  /// Backward-shift deletion: later keys of the probe run move up, so that
  /// no lookup meets an empty slot before its key.
  void eraseSlot(size_t I) {
    const size_t Mask = Slots.size() - 1;
    Slots[I].second = Empty;
    --Count;
    for (size_t J = (I + 1) & Mask; Slots[J].second != Empty;
         J = (J + 1) & Mask) {
      size_t H = home(Slots[J].first);
      // Slot J's key may move to I when I lies cyclically in [H, J).
      if (((J - H) & Mask) >= ((J - I) & Mask)) {
        Slots[I] = Slots[J];
        Slots[J].second = Empty;
        I = J;
      }
    }
  }

  std::vector<value_type> Slots;
  size_t Count = 0;
};

} // namespace memprof

#endif
