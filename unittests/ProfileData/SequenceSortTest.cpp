//===- SequenceSortTest.cpp - sortSequences against a comparison sort -----===//
#include "memprof/ProfileData/SequenceSort.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace memprof;

namespace {

struct Sequences {
  std::vector<uint32_t> Elems;
  std::vector<std::pair<size_t, size_t>> Spans;
  std::vector<uint64_t> Ties;

  void add(const std::vector<uint32_t> &S, uint64_t Tie) {
    Spans.push_back({Elems.size(), S.size()});
    Elems.insert(Elems.end(), S.begin(), S.end());
    Ties.push_back(Tie);
  }
  /// sortSequences' order, and std::sort's with sequenceLess (the truth).
  std::pair<std::vector<size_t>, std::vector<size_t>> orders() const {
    std::vector<size_t> Got(Spans.size()), Want(Spans.size());
    std::iota(Got.begin(), Got.end(), 0);
    std::iota(Want.begin(), Want.end(), 0);
    sortSequences(Got, Elems, Spans, Ties);
    std::sort(Want.begin(), Want.end(), [&](size_t L, size_t R) {
      return sequenceLess(L, R, Elems, Spans, Ties);
    });
    return {Got, Want};
  }
};

/// Call-stack-like sequences: a few shared roots, branching as they go
/// deeper, some a prefix of others, some repeated (distinct tie keys),
/// some empty; drawn from a small or a large alphabet.
Sequences stackLike(std::mt19937_64 &R, size_t N, uint32_t Alphabet) {
  Sequences S;
  std::vector<std::vector<uint32_t>> Made;
  std::vector<uint64_t> Ties(N);
  std::iota(Ties.begin(), Ties.end(), 0);
  std::shuffle(Ties.begin(), Ties.end(), R); // distinct, in no order
  for (size_t I = 0; I < N; ++I) {
    std::vector<uint32_t> Seq;
    if (!Made.empty() && R() % 3) {
      // Extend, cut or repeat an earlier one: shared prefixes.
      Seq = Made[R() % Made.size()];
      switch (R() % 3) {
      case 0:
        Seq.resize(R() % (Seq.size() + 1));
        break;
      case 1:
        for (unsigned K = R() % 6; K; --K)
          Seq.push_back(uint32_t(R() % Alphabet));
        break;
      default:
        break; // the same sequence again
      }
    } else {
      for (unsigned K = R() % 30; K; --K)
        Seq.push_back(uint32_t(R() % Alphabet));
    }
    Made.push_back(Seq);
    S.add(Seq, Ties[I]);
  }
  return S;
}

// The multikey sort gives exactly the comparison sort's order, for inputs
// of every size (the insertion sort below 17, partitions above), with
// shared prefixes, prefixes of one another, repeats and empty sequences.
TEST(SequenceSort, EqualsTheComparisonSort) {
  std::mt19937_64 R(5);
  for (size_t N : {0, 1, 2, 3, 15, 16, 17, 40, 200, 1000, 5000})
    for (uint32_t Alphabet : {2u, 7u, 1000u, 0xFFFFFFFFu}) {
      SCOPED_TRACE(testing::Message() << N << " sequences, " << Alphabet);
      Sequences S = stackLike(R, N, Alphabet);
      auto [Got, Want] = S.orders();
      EXPECT_EQ(Got, Want);
    }
}

// Inputs a partition's pivot handles worst: all equal (only tie keys
// differ), already sorted, reversed, and one very long shared prefix with
// many branches at its end. The largest element value sorts after every
// other (no overflow of element + 1).
TEST(SequenceSort, HardInputsAndExtremeValues) {
  std::mt19937_64 R(9);
  auto Check = [](const Sequences &S) {
    auto [Got, Want] = S.orders();
    EXPECT_EQ(Got, Want);
  };
  {
    Sequences S;
    for (uint64_t I = 0; I < 3000; ++I)
      S.add({4, 4, 4}, (I * 7919) % 3001);
    Check(S);
  }
  for (bool Reverse : {false, true}) {
    Sequences S;
    for (uint32_t I = 0; I < 3000; ++I)
      S.add({Reverse ? 3000 - I : I, I % 5}, I);
    Check(S);
  }
  {
    Sequences S;
    std::vector<uint32_t> Long(20000, 1);
    for (uint64_t I = 0; I < 500; ++I) {
      std::vector<uint32_t> Seq = Long;
      Seq.push_back(uint32_t(R() % 50));
      if (I % 3 == 0)
        Seq.push_back(0xFFFFFFFFu);
      S.add(Seq, I);
    }
    S.add(Long, 1000); // a prefix of all the others
    S.add({0xFFFFFFFFu}, 1001);
    S.add({}, 1002);
    Check(S);
  }
}

} // namespace
