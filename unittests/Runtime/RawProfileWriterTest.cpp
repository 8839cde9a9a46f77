//===- RawProfileWriterTest.cpp - The runtime's serializer and shadow math ===//
//
// The golden byte image of a tiny profile pins the raw v5 layout the runtime
// writes (spec section 1): header offsets, 8-byte alignment, field offsets
// inside the MemInfoBlock, and TotalSize == bytes. The same bytes are checked
// against the test suite's independent RawBuilder and read back by the
// project's raw reader.
//
//===----------------------------------------------------------------------===//
#include "RawProfileWriter.h"
#include "../ProfileData/RawBuilder.h"
#include "MIB.h"
#include "Shadow.h"
#include "memprof/ProfileData/RawReader.h"
#include "gtest/gtest.h"
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace memprof;

namespace {

uint64_t read64(const std::vector<uint8_t> &B, size_t Off) {
  uint64_t V = 0;
  for (unsigned I = 0; I < 8; ++I)
    V |= uint64_t(B.at(Off + I)) << (8 * I);
  return V;
}

uint32_t read32(const std::vector<uint8_t> &B, size_t Off) {
  uint32_t V = 0;
  for (unsigned I = 0; I < 4; ++I)
    V |= uint32_t(B.at(Off + I)) << (8 * I);
  return V;
}

/// The fake table: one module, two contexts (the first merged from two
/// allocations), and their stacks.
struct FakeTable {
  rt::SegmentInfo Seg = {};
  rt::MIB A, B;
  uint64_t PCs1[2] = {0x1100, 0x1200};
  uint64_t PCs2[3] = {0x1300, 0x1400, 0x7f0000001234};
  std::vector<rt::MIBInfo> MIBs;
  std::vector<rt::StackInfo> Stacks;

  FakeTable() {
    Seg.Start = 0x1000;
    Seg.End = 0x5000;
    Seg.Offset = 0x800;
    Seg.BuildIdSize = 20;
    for (unsigned I = 0; I < 20; ++I)
      Seg.BuildId[I] = uint8_t(I + 1);
    A = rt::mibForAllocation(100, 7, 10, 30, 1, 2);
    rt::mergeDump(A, rt::mibForAllocation(300, 20, 25, 60, 2, 2));
    B = rt::mibForAllocation(48, 0, 5, 5, 3, 3);
    MIBs = {{1, &A}, {2, &B}};
    Stacks = {{1, PCs1, 2}, {2, PCs2, 3}};
  }

  std::vector<uint8_t> write() const {
    uint64_t HistogramEntries = 0;
    for (const rt::MIBInfo &M : MIBs)
      HistogramEntries += M.Block->AccessHistogramSize;
    rt::RawProfileLayout L = rt::computeRawProfileLayout(
        &Seg, 1, MIBs.size(), Stacks.data(), Stacks.size(), HistogramEntries);
    std::vector<uint8_t> Out(L.TotalSize, 0xAA); // padding must become 0
    rt::writeRawProfile(Out.data(), L, &Seg, 1, MIBs.data(), MIBs.size(),
                        Stacks.data(), Stacks.size());
    return Out;
  }
};

// 48 header + (8 + 64) segments + (8 + 2 * 152) MIBs + (8 + 32 + 40) stacks.
// clang-format off
const char *const GoldenHex =
    // Header: magic, version 5, TotalSize 512, offsets 48, 120, 432.
    "8172666f72706dff" "0500000000000000" "0002000000000000"
    "3000000000000000" "7800000000000000" "b001000000000000"
    // Segments: 1 x {Start, End, Offset, BuildIdSize=20, BuildId[32]}.
    "0100000000000000"
    "0010000000000000" "0050000000000000" "0008000000000000"
    "1400000000000000"
    "0102030405060708090a0b0c0d0e0f1011121314000000000000000000000000"
    // MIBs: 2 x {StackId, 144-byte block}.
    "0200000000000000"
    "0100000000000000"
    "02000000"         // AllocCount 2
    "1b00000000000000" // TotalAccessCount 27
    "0700000000000000" // MinAccessCount 7
    "1400000000000000" // MaxAccessCount 20
    "9001000000000000" // TotalSize 400
    "64000000"         // MinSize 100
    "2c010000"         // MaxSize 300
    "19000000"         // AllocTimestamp 25 (replaced by the newer block)
    "3c000000"         // DeallocTimestamp 60
    "3700000000000000" // TotalLifetime 20 + 35
    "14000000"         // MinLifetime 20
    "23000000"         // MaxLifetime 35
    "02000000"         // AllocCpuId 2
    "02000000"         // DeallocCpuId 2
    "01000000"         // NumMigratedCpu 1 (kept from the first block)
    "01000000"         // NumLifetimeOverlaps 1 (25 < 30)
    "00000000"         // NumSameAllocCpu 0 (1 != 2)
    "01000000"         // NumSameDeallocCpu 1 (2 == 2)
    "0000000000000000" // DataTypeId
    "0d00000000000000" // TotalAccessDensity 7 + 6
    "06000000"         // MinAccessDensity 6 (20*100/300)
    "07000000"         // MaxAccessDensity 7 (7*100/100)
    "0902000000000000" // TotalLifetimeAccessDensity 350 + 171
    "ab000000"         // MinLifetimeAccessDensity 171 (6*1000/35)
    "5e010000"         // MaxLifetimeAccessDensity 350 (7*1000/20)
    "00000000"         // AccessHistogramSize 0
    "0000000000000000" // AccessHistogram (a pointer in LLVM; always 0 here)
    "0200000000000000"
    "01000000" "0000000000000000" "0000000000000000" "0000000000000000"
    "3000000000000000" "30000000" "30000000" "05000000" "05000000"
    "0000000000000000" "00000000" "00000000" "03000000" "03000000"
    "00000000" "00000000" "00000000" "00000000" "0000000000000000"
    "0000000000000000" "00000000" "00000000" "0000000000000000"
    "00000000" "00000000" "00000000" "0000000000000000"
    // Stacks: 2 x {StackId, NumPCs, PCs...}.
    "0200000000000000"
    "0100000000000000" "0200000000000000" "0011000000000000" "0012000000000000"
    "0200000000000000" "0300000000000000" "0013000000000000" "0014000000000000"
    "34120000007f0000";
// clang-format on

std::vector<uint8_t> fromHex(const char *Hex) {
  std::vector<uint8_t> Out;
  for (size_t I = 0; Hex[I] && Hex[I + 1]; I += 2)
    Out.push_back(uint8_t(std::stoi(std::string(Hex + I, 2), nullptr, 16)));
  return Out;
}

TEST(RawProfileWriter, GoldenBytes) {
  std::vector<uint8_t> Got = FakeTable().write();
  std::vector<uint8_t> Want = fromHex(GoldenHex);
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I)
    ASSERT_EQ(Got[I], Want[I]) << "first difference at byte " << I;
}

TEST(RawProfileWriter, HeaderOffsetsAndAlignment) {
  std::vector<uint8_t> B = FakeTable().write();
  EXPECT_EQ(read64(B, 0), 0xFF6D70726F667281ULL);
  EXPECT_EQ(read64(B, 8), 5u);
  EXPECT_EQ(read64(B, 16), B.size()); // TotalSize == bytes
  EXPECT_EQ(read64(B, 24), 48u);      // SegmentOffset
  EXPECT_EQ(read64(B, 32), 48u + 8 + 64);
  EXPECT_EQ(read64(B, 40), 120u + 8 + 2 * 152);
  EXPECT_EQ(B.size() % 8, 0u);
  // MemInfoBlock field offsets from the spec's table (section 1.4).
  size_t Mib = 120 + 8 + 8;
  EXPECT_EQ(read32(B, Mib + 0), 2u);     // AllocCount
  EXPECT_EQ(read64(B, Mib + 28), 400u);  // TotalSize
  EXPECT_EQ(read32(B, Mib + 44), 25u);   // AllocTimestamp
  EXPECT_EQ(read64(B, Mib + 52), 55u);   // TotalLifetime
  EXPECT_EQ(read32(B, Mib + 76), 1u);    // NumMigratedCpu
  EXPECT_EQ(read64(B, Mib + 116), 521u); // TotalLifetimeAccessDensity
  EXPECT_EQ(read32(B, Mib + 132), 0u);   // AccessHistogramSize
}

TEST(RawProfileWriter, EmptyProfileLayout) {
  rt::RawProfileLayout L = rt::computeRawProfileLayout(nullptr, 0, 0, nullptr, 0);
  EXPECT_EQ(L.SegmentOffset, 48u);
  EXPECT_EQ(L.MIBOffset, 56u);
  EXPECT_EQ(L.StackOffset, 64u);
  EXPECT_EQ(L.TotalSize, 72u);
  std::vector<uint8_t> B(L.TotalSize, 0xAA);
  rt::writeRawProfile(B.data(), L, nullptr, 0, nullptr, 0, nullptr, 0);
  EXPECT_EQ(read64(B, 16), 72u);
  EXPECT_EQ(read64(B, 48), 0u);
  EXPECT_EQ(read64(B, 56), 0u);
  EXPECT_EQ(read64(B, 64), 0u);
}

/// The bytes the test's own builder (written from the spec, apart from the
/// writer) gives for \p T's table, with the segment's path if it has one.
std::string builtIndependently(const FakeTable &T) {
  test::RawBuilder RB;
  RB.Segs.push_back(
      {0x1000, 0x5000, 0x800,
       std::string(reinterpret_cast<const char *>(T.Seg.BuildId), 20),
       T.Seg.Path ? std::string(T.Seg.Path, T.Seg.PathSize) : std::string()});
  for (const rt::MIBInfo &M : T.MIBs) {
    MemInfoBlock Info;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Info.Name = M.Block->Name;
#include "memprof/format/MIBFields.def"
    RB.MIBs.push_back({M.StackId, Info, {}});
  }
  RB.Stacks.push_back({1, {0x1100, 0x1200}});
  RB.Stacks.push_back({2, {0x1300, 0x1400, 0x7f0000001234}});
  std::string Built = RB.build(5);
  // RawBuilder fills AccessHistogram with a made-up pointer value.
  for (size_t Mib = 0; Mib < 2; ++Mib)
    std::memset(&Built[120 + 8 + Mib * 152 + 8 + 136], 0, 8);
  return Built;
}

TEST(RawProfileWriter, MatchesTheIndependentTestBuilder) {
  FakeTable T;
  std::vector<uint8_t> Got = T.write();
  EXPECT_EQ(std::string(Got.begin(), Got.end()), builtIndependently(T));
}

// The module paths after the stacks agree with the test's own builder
// byte for byte, and the reader gets them back; a path over the format's
// limit is left out, and no path at all leaves LLVM's layout as it was.
TEST(RawProfileWriter, ModulePaths) {
  FakeTable T;
  const char Path[] = "/opt/app/bin/prog-1"; // 19 bytes: padded to 24
  T.Seg.Path = Path;
  T.Seg.PathSize = sizeof(Path) - 1;
  std::vector<uint8_t> Got = T.write();
  EXPECT_EQ(std::string(Got.begin(), Got.end()), builtIndependently(T));
  // 512 bytes without the path, 16 + 16 + 24 with it; the offsets LLVM
  // reads are unchanged.
  EXPECT_EQ(Got.size(), 512u + 56u);
  EXPECT_EQ(read64(Got, 16), 568u);
  EXPECT_EQ(read64(Got, 40), 432u);
  auto P = readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Got.data()), Got.size()));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Segments[0].Path, Path);

  std::string Long(raw::ModulePathMaxSize + 1, 'x');
  T.Seg.Path = Long.data();
  T.Seg.PathSize = Long.size();
  EXPECT_EQ(T.write().size(), 512u);
}

TEST(RawProfileWriter, RoundTripsThroughTheReader) {
  FakeTable T;
  std::vector<uint8_t> B = T.write();
  auto P = readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(B.data()), B.size()));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Version, 5u);
  ASSERT_EQ(P->Segments.size(), 1u);
  EXPECT_EQ(P->Segments[0].Start, 0x1000u);
  EXPECT_EQ(P->Segments[0].End, 0x5000u);
  EXPECT_EQ(P->Segments[0].BuildId.size(), 20u);
  ASSERT_EQ(P->MIBs.size(), 2u);
  for (const rt::MIBInfo &M : T.MIBs) {
    const MemInfoBlock &Got = P->MIBs.find(M.StackId)->second.Info;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  EXPECT_EQ(Got.Name, M.Block->Name) << #Name;
#include "memprof/format/MIBFields.def"
  }
  std::vector<uint64_t> Want2 = {0x1300, 0x1400, 0x7f0000001234};
  EXPECT_EQ(*P->Stacks.find(2), llvm::ArrayRef(Want2));
}

// Access histograms: u16-encoded counts right after their MIB (raw v5), the
// section padded at its end; the bytes agree with the test's own builder and
// the reader gets the counts back (4098 and up are where v5's encoding
// rounds: the reader sees what the encoding keeps).
TEST(RawProfileWriter, HistogramsFollowTheirMIB) {
  FakeTable T;
  uint64_t Counts[5] = {1, 0, 4095, 8192, 123456789};
  T.A.AccessHistogramSize = 5;
  T.A.AccessHistogram = reinterpret_cast<uintptr_t>(Counts);
  std::vector<uint8_t> Got = T.write();

  test::RawBuilder RB;
  RB.Segs.push_back(
      {0x1000, 0x5000, 0x800,
       std::string(reinterpret_cast<const char *>(T.Seg.BuildId), 20)});
  for (const rt::MIBInfo &M : T.MIBs) {
    MemInfoBlock Info;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Info.Name = M.Block->Name;
#include "memprof/format/MIBFields.def"
    std::vector<uint64_t> H;
    if (M.StackId == 1)
      H.assign(Counts, Counts + 5);
    RB.MIBs.push_back({M.StackId, Info, H});
  }
  RB.Stacks.push_back({1, {0x1100, 0x1200}});
  RB.Stacks.push_back({2, {0x1300, 0x1400, 0x7f0000001234}});
  std::string Built = RB.build(5);
  std::memset(&Built[120 + 8 + 8 + 136], 0, 8);           // pointer, MIB 1
  std::memset(&Built[120 + 8 + 152 + 10 + 8 + 136], 0, 8); // MIB 2
  EXPECT_EQ(std::string(Got.begin(), Got.end()), Built);

  auto P = readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Got.data()), Got.size()));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto &E = P->MIBs.find(1)->second;
  ASSERT_EQ(E.Histogram.size(), 5u);
  EXPECT_EQ(E.Histogram[0], 1u);
  EXPECT_EQ(E.Histogram[1], 0u);
  EXPECT_EQ(E.Histogram[2], 4095u);
  EXPECT_EQ(E.Histogram[3], 8192u);
  EXPECT_EQ(E.Histogram[4], raw::decodeHistogramCount(
                                raw::encodeHistogramCount(123456789)));
  EXPECT_TRUE(P->MIBs.find(2)->second.Histogram.empty());
}

TEST(RawProfileWriter, SaturatesNarrowFieldsOnly) {
  FakeTable T;
  uint64_t Huge = uint64_t(5) << 30; // 5 GiB
  T.A = rt::mibForAllocation(Huge, 0, 0, 1, 0, 0);
  std::vector<uint8_t> B = T.write();
  size_t Mib = 120 + 8 + 8;
  EXPECT_EQ(read64(B, Mib + 28), Huge);        // TotalSize: u64, exact
  EXPECT_EQ(read32(B, Mib + 36), 0xFFFFFFFFu); // MinSize: u32, saturated
  EXPECT_EQ(read32(B, Mib + 40), 0xFFFFFFFFu); // MaxSize
}

// The runtime's merge and ProfileData's are two expansions of the same list;
// they must agree on every field for arbitrary blocks.
TEST(RuntimeMIB, MergeAgreesWithProfileData) {
  std::mt19937_64 Rng(42);
  for (int Round = 0; Round < 1000; ++Round) {
    auto Random = [&] {
      return rt::mibForAllocation(Rng() % 5000, Rng() % 100, Rng() % 50,
                                  50 + Rng() % 50, Rng() % 4, Rng() % 4);
    };
    rt::MIB A = Random(), B = Random();
    MemInfoBlock PA = MemInfoBlock::forAllocation(
        A.TotalSize, A.TotalAccessCount, A.AllocTimestamp, A.DeallocTimestamp,
        A.AllocCpuId, A.DeallocCpuId);
    MemInfoBlock PB = MemInfoBlock::forAllocation(
        B.TotalSize, B.TotalAccessCount, B.AllocTimestamp, B.DeallocTimestamp,
        B.AllocCpuId, B.DeallocCpuId);
    rt::mergeDump(A, B);
    PA.mergeDump(PB);
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  ASSERT_EQ(A.Name, PA.Name) << #Name;
#include "memprof/format/MIBFields.def"
  }
}

TEST(Shadow, CounterAddressIsBasePlusGranuleTimesEight) {
  using namespace rt;
  EXPECT_EQ(shadowAddress(0x10000000, 0), 0x10000000u);
  EXPECT_EQ(shadowAddress(0x10000000, 63), 0x10000000u);
  EXPECT_EQ(shadowAddress(0x10000000, 64), 0x10000008u);
  EXPECT_EQ(shadowAddress(0x10000000, 0x7fffffffffffULL),
            0x10000000u + (0x7fffffffffffULL >> 6) * 8);
  // The whole 47-bit address space fits the reservation.
  EXPECT_LT(shadowAddress(0, 0x7fffffffffffULL), ShadowReserveBytes);
}

TEST(Shadow, GranulesOfAnAllocation) {
  using namespace rt;
  // A runtime chunk: user pointer 32 mod 64, header in the first granule.
  GranuleRange R = granulesOf(0x1020, 32);
  EXPECT_EQ(R.First, 0x1000u);
  EXPECT_EQ(R.Count, 1u);
  EXPECT_EQ(granulesOf(0x1020, 33).Count, 2u);
  EXPECT_EQ(granulesOf(0x1020, 1000).Count, 17u); // (32 + 1000) / 64 rounded up
  EXPECT_EQ(granulesOf(0x1020, 0).Count, 1u);     // malloc(0) owns its granule
  EXPECT_EQ(granulesOf(0x1040, 64).Count, 1u);    // an aligned chunk
  EXPECT_EQ(granulesOf(0x1040, 65).Count, 2u);
}

} // namespace
