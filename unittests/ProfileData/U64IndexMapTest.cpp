#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/U64IndexMap.h"
#include "gtest/gtest.h"
#include <map>
#include <random>

using namespace memprof;

namespace {

/// The keys a test draws from: the values DenseMap reserves, 0, small runs
/// (neighbours in the table before hashing) and random ones.
std::vector<uint64_t> keyPool() {
  std::vector<uint64_t> K = {0, 1, ~0ULL, ~0ULL - 1, 1ULL << 63};
  for (uint64_t I = 2; I < 300; ++I)
    K.push_back(I * 16);
  std::mt19937_64 R(7);
  for (int I = 0; I < 300; ++I)
    K.push_back(R());
  return K;
}

// Random inserts, lookups, erases (by key and by iterator), [], clear and
// reserve against std::map: after every step the same keys map to the same
// values, and iteration visits each exactly once.
TEST(U64IndexMap, AgreesWithStdMapUnderRandomOperations) {
  const std::vector<uint64_t> Keys = keyPool();
  std::mt19937_64 R(11);
  U64IndexMap M;
  std::map<uint64_t, unsigned> Truth;
  for (int Step = 0; Step < 60000; ++Step) {
    uint64_t K = Keys[R() % Keys.size()];
    unsigned V = unsigned(R() % 1000000);
    switch (R() % 16) {
    case 0: case 1: case 2: case 3: case 4: {
      auto [It, New] = M.try_emplace(K);
      ASSERT_EQ(New, !Truth.count(K));
      ASSERT_EQ(It->first, K);
      if (New)
        ASSERT_EQ(It->second, 0u);
      It->second = V;
      Truth[K] = V;
      break;
    }
    case 5: case 6:
      M[K] = V;
      Truth[K] = V;
      break;
    case 7: case 8: case 9:
      ASSERT_EQ(M.erase(K), Truth.erase(K));
      break;
    case 10: {
      auto It = M.find(K);
      ASSERT_EQ(It != M.end(), Truth.count(K) == 1);
      if (It != M.end()) {
        M.erase(It);
        Truth.erase(K);
      }
      break;
    }
    case 11:
      if (R() % 64 == 0) {
        M.clear();
        Truth.clear();
      } else {
        M.reserve(M.size() + R() % 100);
      }
      break;
    default: {
      const U64IndexMap &C = M;
      auto It = C.find(K);
      ASSERT_EQ(It != C.end(), Truth.count(K) == 1);
      if (It != C.end())
        ASSERT_EQ(It->second, Truth[K]);
      ASSERT_EQ(C.count(K), Truth.count(K));
    }
    }
    ASSERT_EQ(M.size(), Truth.size());
    if (Step % 997 == 0) {
      std::map<uint64_t, unsigned> Seen;
      for (const auto &[Key, Val] : M)
        ASSERT_TRUE(Seen.emplace(Key, Val).second);
      ASSERT_EQ(Seen, Truth);
      for (const auto &[Key, Val] : Truth) {
        auto It = M.find(Key);
        ASSERT_NE(It, M.end());
        ASSERT_EQ(It->second, Val);
      }
    }
  }
}

// As MapVector's index: insertion order kept, every key value allowed, and
// erase, remove_if and pop_back leave the index pointing at the right entries.
TEST(U64IndexMap, IndexesAMapVector) {
  U64MapVector<uint64_t> MV;
  std::vector<uint64_t> Order;
  for (uint64_t K : keyPool())
    if (MV.try_emplace(K, K * 3).second)
      Order.push_back(K);
  ASSERT_EQ(MV.size(), Order.size());
  size_t I = 0;
  for (const auto &[K, V] : MV) {
    ASSERT_EQ(K, Order[I++]);
    ASSERT_EQ(V, K * 3);
  }
  MV.erase(MV.find(~0ULL));
  MV.remove_if([](const auto &KV) { return KV.first % 32 == 0; });
  MV.pop_back();
  std::vector<uint64_t> Left;
  for (uint64_t K : Order)
    if (K != ~0ULL && K % 32 != 0)
      Left.push_back(K);
  Left.pop_back();
  ASSERT_EQ(MV.size(), Left.size());
  for (size_t J = 0; J < Left.size(); ++J) {
    auto It = MV.find(Left[J]);
    ASSERT_NE(It, MV.end());
    ASSERT_EQ(size_t(It - MV.begin()), J);
    ASSERT_EQ(It->second, Left[J] * 3);
  }
  for (uint64_t K : Order)
    if (K == ~0ULL || K % 32 == 0)
      ASSERT_EQ(MV.find(K), MV.end());
}

} // namespace
