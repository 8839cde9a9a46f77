//===- MemInfoBlockTest.cpp - MIB merge rules and GUID/hash facts ---------===//
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/ProfileData/MemProfData.h"
#include "gtest/gtest.h"
#include <vector>

using namespace memprof;

namespace {

// Values published in the format spec (sections 2.3, 2.4), computed by LLVM.
TEST(MemProfData, GuidMatchesLLVM) {
  EXPECT_EQ(functionGUID("main"), 0xDB956436E78DD5FAULL);
  EXPECT_EQ(functionGUID("_Z7alloc_am"), 0x03D1833F9B5C4988ULL);
}

TEST(MemProfData, CanonicalNameStripsLLVMAndPartSuffixes) {
  EXPECT_EQ(canonicalFunctionName("foo.llvm.123"), "foo");
  EXPECT_EQ(canonicalFunctionName("bar.part.1"), "bar");
  EXPECT_EQ(canonicalFunctionName("baz.__uniq.55"), "baz.__uniq.55");
  EXPECT_EQ(functionGUID("foo.llvm.123"), functionGUID("foo"));
}

TEST(MemProfData, FrameAndStackHashesMatchLLVM) {
  Frame Main6{functionGUID("main"), 6, 13, false};
  EXPECT_EQ(hashFrame(Main6), 0x20C9F8FB44078E90ULL);
  Frame AllocA{functionGUID("_Z7alloc_am"), 0, 67, false};
  Frame Wrap{0x65186e62ed9360f0ULL, 0, 57, false};
  Frame Main2{functionGUID("main"), 2, 15, false};
  FrameId Ids[] = {hashFrame(AllocA), hashFrame(Wrap), hashFrame(Main2)};
  EXPECT_EQ(hashCallStack(Ids), 0x3DD4DAE65CABD83DULL);
}

// The memo gives hashCallStack's value for every sequence, first time or
// repeated, including sequences that are prefixes or permutations of others.
TEST(MemProfData, CallStackIdCacheEqualsHashCallStack) {
  CallStackIdCache Cache;
  uint64_t X = 0x9E3779B97F4A7C15ULL;
  std::vector<std::vector<FrameId>> Seqs;
  for (int I = 0; I < 200; ++I) {
    std::vector<FrameId> S;
    for (int J = 0, N = 1 + I % 9; J < N; ++J) {
      X ^= X << 13; X ^= X >> 7; X ^= X << 17;
      S.push_back(I % 3 ? X : uint64_t(J)); // some small, repeated ids
    }
    Seqs.push_back(S);
    Seqs.push_back(std::vector<FrameId>(S.rbegin(), S.rend()));
    Seqs.push_back(std::vector<FrameId>(S.begin(), S.begin() + S.size() / 2));
  }
  for (int Round = 0; Round < 2; ++Round)
    for (const auto &S : Seqs)
      ASSERT_EQ(Cache.get(S), hashCallStack(S));
}

MemInfoBlock block(uint64_t Size, uint64_t Acc, uint32_t ATs, uint32_t DTs,
                   uint32_t ACpu, uint32_t DCpu) {
  return MemInfoBlock::forAllocation(Size, Acc, ATs, DTs, ACpu, DCpu);
}

TEST(MemInfoBlock, SingleAllocationMatchesRuntimeConstructor) {
  MemInfoBlock M = block(100, 42, 10, 15, 1, 2);
  EXPECT_EQ(M.AllocCount, 1u);
  EXPECT_EQ(M.TotalAccessDensity, 42u * 100 / 100);
  EXPECT_EQ(M.TotalLifetime, 5u);
  EXPECT_EQ(M.TotalLifetimeAccessDensity, 42u * 1000 / 5);
  EXPECT_EQ(M.NumMigratedCpu, 1u);
}

TEST(MemInfoBlock, DumpMergeFollowsLLVMOrderOfStatements) {
  MemInfoBlock A = block(100, 10, 5, 20, 3, 4);
  MemInfoBlock B = block(50, 30, 10, 12, 3, 7);
  A.mergeDump(B);
  EXPECT_EQ(A.AllocCount, 2u);
  EXPECT_EQ(A.TotalSize, 150u);
  EXPECT_EQ(A.MinSize, 50u);
  EXPECT_EQ(A.MaxSize, 100u);
  EXPECT_EQ(A.TotalAccessCount, 40u);
  EXPECT_EQ(A.MinAccessCount, 10u);
  EXPECT_EQ(A.MaxAccessCount, 30u);
  // B.AllocTimestamp (10) < A.DeallocTimestamp (20): one overlap, read
  // before the timestamps are replaced.
  EXPECT_EQ(A.NumLifetimeOverlaps, 1u);
  EXPECT_EQ(A.AllocTimestamp, 10u);
  EXPECT_EQ(A.DeallocTimestamp, 12u);
  EXPECT_EQ(A.NumSameAllocCpu, 1u);   // 3 == 3
  EXPECT_EQ(A.NumSameDeallocCpu, 0u); // 4 != 7
  EXPECT_EQ(A.AllocCpuId, 3u);
  EXPECT_EQ(A.DeallocCpuId, 7u);
  EXPECT_EQ(A.NumMigratedCpu, 1u); // untouched by LLVM's Merge
}

TEST(MemInfoBlock, CrossMergeIsCommutativeAndAssociative) {
  MemInfoBlock X = block(100, 10, 5, 20, 3, 4);
  MemInfoBlock Y = block(50, 30, 10, 12, 1, 7);
  MemInfoBlock Z = block(7, 0, 1, 100, 9, 9);
  Y.NumLifetimeOverlaps = 4;
  MemInfoBlock XY = X;
  XY.mergeCross(Y);
  MemInfoBlock YX = Y;
  YX.mergeCross(X);
  EXPECT_EQ(XY, YX);
  MemInfoBlock L = XY;
  L.mergeCross(Z);
  MemInfoBlock YZ = Y;
  YZ.mergeCross(Z);
  MemInfoBlock R = X;
  R.mergeCross(YZ);
  EXPECT_EQ(L, R);
  EXPECT_EQ(L.AllocCount, 3u);
  EXPECT_EQ(L.TotalSize, 157u);
  EXPECT_EQ(L.AllocTimestamp, 1u);
  EXPECT_EQ(L.DeallocTimestamp, 100u);
  EXPECT_EQ(L.NumLifetimeOverlaps, 4u);
}

TEST(MemInfoBlock, SumsSaturateAndWriterClampsNarrowFields) {
  MemInfoBlock A, B;
  A.TotalSize = ~0ULL - 1;
  B.TotalSize = 5;
  A.AllocCount = 0xFFFFFFFFull;
  B.AllocCount = 1;
  A.mergeCross(B);
  EXPECT_EQ(A.TotalSize, ~0ULL);
  EXPECT_EQ(A.AllocCount, 0x100000000ull);
  llvm::SmallVector<char, 64> Out;
  EXPECT_EQ(writeMIB(Out, A, hotColdSchema()), 1u);
  ASSERT_EQ(Out.size(), 28u);
  EXPECT_EQ(uint8_t(Out[0]), 0xFF);
  EXPECT_EQ(uint8_t(Out[3]), 0xFF);
}

TEST(MemInfoBlock, SchemaSizesAndNames) {
  EXPECT_EQ(schemaBlockSize(hotColdSchema()), 28u);
  EXPECT_EQ(schemaBlockSize(fullSchema()), 144u);
  EXPECT_EQ(mibFieldName(23), "TotalLifetimeAccessDensity");
  EXPECT_EQ(mibFieldTag("MaxSize"), 7u);
  EXPECT_EQ(mibFieldWidth(0), 0u);
  EXPECT_EQ(mibFieldWidth(28), 0u);
}

} // namespace
