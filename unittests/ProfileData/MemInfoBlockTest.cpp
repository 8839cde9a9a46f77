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
  // The same when every sequence has one cheap hash (what a hostile file
  // could aim at): the table keeps what its bounded search reaches, and the
  // rest is hashed each time.
  CallStackIdCache Colliding([](llvm::ArrayRef<FrameId>) { return uint64_t(42); });
  for (int Round = 0; Round < 3; ++Round)
    for (const auto &S : Seqs)
      ASSERT_EQ(Colliding.get(S), hashCallStack(S));
  EXPECT_EQ(CallStackIdCache().get({}), hashCallStack({}));
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

// A weight W is W copies merged by the cross-input rule: sums multiply,
// minima, maxima, timestamps and CPU ids stay.
TEST(MemInfoBlock, ScaleEqualsRepeatedCrossMerge) {
  MemInfoBlock X = block(100, 10, 5, 20, 3, 4);
  X.NumLifetimeOverlaps = 2;
  X.NumSameAllocCpu = 1;
  X.DataTypeId = 77;
  for (uint64_t W : {1ull, 2ull, 3ull, 7ull, 1000ull}) {
    MemInfoBlock Copies = X;
    for (uint64_t I = 1; I < W; ++I)
      Copies.mergeCross(X);
    MemInfoBlock Scaled = X;
    EXPECT_EQ(Scaled.scale(W), 0u);
    EXPECT_EQ(Scaled, Copies) << "W=" << W;
  }
  MemInfoBlock S = X;
  S.scale(1000);
  EXPECT_EQ(S.AllocCount, 1000u);
  EXPECT_EQ(S.TotalSize, 100000u);
  EXPECT_EQ(S.MinSize, 100u);
  EXPECT_EQ(S.MaxSize, 100u);
  EXPECT_EQ(S.TotalLifetime, 15000u);
  EXPECT_EQ(S.MinLifetime, 15u);
  EXPECT_EQ(S.AllocTimestamp, 5u);
  EXPECT_EQ(S.DeallocTimestamp, 20u);
  EXPECT_EQ(S.NumLifetimeOverlaps, 2000u);
  EXPECT_EQ(S.DataTypeId, 77u);
  // The summed fields are exactly the ones MIBFields.def sums across inputs.
  unsigned Summed = 0;
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    Summed += mibFieldIsSummed(T);
  EXPECT_EQ(Summed, 10u);
  EXPECT_TRUE(mibFieldIsSummed(unsigned(MIBTag::TotalLifetimeAccessDensity)));
  EXPECT_FALSE(mibFieldIsSummed(unsigned(MIBTag::MaxAccessCount)));
  EXPECT_FALSE(mibFieldIsSummed(0));
}

TEST(MemInfoBlock, ScaleSaturatesAndReportsFields) {
  EXPECT_EQ(satMul(0, ~0ULL), 0u);
  EXPECT_EQ(satMul(1ull << 32, 1ull << 31), 1ull << 63);
  EXPECT_EQ(satMul(1ull << 32, 1ull << 32), ~0ULL);
  EXPECT_EQ(satMul(3, 0x5555555555555556ULL), ~0ULL);
  EXPECT_EQ(satMul(3, 0x5555555555555555ULL), ~0ULL); // exactly 2^64-1
  MemInfoBlock M;
  M.AllocCount = 0xFFFFFFFFull;
  M.TotalSize = 1ull << 40;
  M.TotalLifetime = 5;
  M.MaxSize = 0xFFFFFFFFull;
  const uint64_t W = 1ull << 32; // the largest weight memprof-merge takes
  uint32_t Sat = M.scale(W);
  EXPECT_EQ(M.AllocCount, 0xFFFFFFFFull << 32); // fits in 64 bits: exact
  EXPECT_EQ(M.TotalSize, ~0ULL);                 // 2^72: saturated
  EXPECT_EQ(M.TotalLifetime, 5ull << 32);
  EXPECT_EQ(M.MaxSize, 0xFFFFFFFFull); // a maximum: not scaled
  EXPECT_EQ(Sat, 1u << (unsigned(MIBTag::TotalSize) - 1));
  // What the written file cannot hold: AllocCount (32-bit on disk) and the
  // saturated TotalSize; TotalLifetime fits.
  EXPECT_EQ(saturatedFields(M, hotColdSchema()),
            (1u << (unsigned(MIBTag::AllocCount) - 1)) |
                (1u << (unsigned(MIBTag::TotalSize) - 1)));
  // With the full schema, MaxSize at 2^32-1 is at its maximum too.
  EXPECT_EQ(saturatedFields(M, fullSchema()) &
                (1u << (unsigned(MIBTag::MaxSize) - 1)),
            1u << (unsigned(MIBTag::MaxSize) - 1));
  MemInfoBlock Small;
  Small.AllocCount = 0xFFFFFFFEull;
  Small.TotalSize = ~0ULL - 1;
  EXPECT_EQ(saturatedFields(Small, fullSchema()), 0u);
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
