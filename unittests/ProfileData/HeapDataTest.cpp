//===- HeapDataTest.cpp - The raw heap section and the indexed heap table --===//
//
// The raw reader against sections written here from the layout of
// docs/heap-data.md (every field read back, every single-byte corruption an
// error or a section that keeps its invariants, specific lies named with
// their offsets), and the indexed heap table: bytes written by hand from the
// spec, round trips through the names extension, hostile tables.
//
//===----------------------------------------------------------------------===//
#include "RawBuilder.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/format/NamesFormat.h"
#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"
#include <random>
#include <set>

using namespace memprof;
using namespace memprof::test;
using namespace llvm;

namespace {

std::string dump(const HeapProfile &H) {
  std::string S = "runs " + std::to_string(H.Summary.Runs) + " exit " +
                  std::to_string(H.Summary.ExitRuns) + " peak " +
                  std::to_string(H.Summary.PeakBytes) + "/" +
                  std::to_string(H.Summary.PeakBlocks) + "\n";
  for (const auto &[Id, C] : H.Contexts)
    S += "  ctx " + std::to_string(Id) + " " + std::to_string(C.LiveBytes) +
         " " + std::to_string(C.LiveBlocks) + " " +
         std::to_string(C.PeakBytes) + " " + std::to_string(C.PeakBlocks) +
         "\n";
  S += "  timeline " + std::to_string(H.Timeline.PeakTimeMs) + " " +
       std::to_string(H.Timeline.PeakBytes) + "\n";
  for (const HeapSample &Sm : H.Timeline.Samples) {
    S += "    " + std::to_string(Sm.TimeMs) + " " +
         std::to_string(Sm.TotalBytes);
    for (const HeapTopEntry &E : Sm.Top)
      S += " (" + std::to_string(E.Context) + "," + std::to_string(E.Bytes) +
           ")";
    S += "\n";
  }
  return S;
}

MemInfoBlock block(uint64_t Count, uint64_t Size) {
  MemInfoBlock M = MemInfoBlock::forAllocation(Size, 0, 0, 5, 0, 0);
  M.AllocCount = Count;
  M.TotalSize = Count * Size;
  return M;
}

/// Three MIBs (AllocCount 4, 2, 1) and a heap section whose values are
/// consistent with them: the exit dump at 1,500 ms, the peak of 500 bytes in
/// 5 blocks at 700 ms, three samples.
RawBuilder heapRaw(bool WithPath = false) {
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x5000, 0, std::string("\x01\x02\x03\x04", 4),
                    WithPath ? "/bin/prog" : ""});
  B.MIBs.push_back({1, block(4, 100), {}});
  B.MIBs.push_back({2, block(2, 100), {}});
  B.MIBs.push_back({3, block(1, 64), {}});
  B.Stacks.push_back({1, {0x1100}});
  B.Stacks.push_back({2, {0x1200}});
  B.Stacks.push_back({3, {0x1300}});
  RawHeapSection H;
  H.Flags = 1;
  H.DumpTimeMs = 1500;
  H.PeakTimeMs = 700;
  H.PeakBytes = 500;
  H.PeakBlocks = 5;
  H.Contexts = {{1, 200, 2, 300, 3}, {2, 0, 0, 200, 2}, {3, 64, 1, 0, 0}};
  H.Samples = {{100, 150, {{1, 100}, {2, 50}}},
               {700, 500, {{1, 300}, {2, 200}}},
               {1400, 264, {}}};
  B.Heap = H;
  return B;
}

/// Offset of the heap section in \p Bytes.
size_t heapAt(const std::string &Bytes) {
  size_t At = Bytes.find("MPHEAPV1");
  EXPECT_NE(At, std::string::npos);
  return At;
}

void put64(std::string &B, size_t Off, uint64_t V) {
  support::endian::write64le(&B[Off], V);
}

std::string describe(Error E) {
  std::string Msg;
  handleAllErrors(std::move(E), [&](const MemProfError &M) {
    Msg = (errorCodeName(M.code()) + ": " + M.detail() +
           (M.offset() == MemProfError::NoOffset ? ""
                                                 : " @" + Twine(M.offset())))
              .str();
  });
  return Msg;
}

std::string rawReject(const std::string &B) {
  auto P = readRawProfile(B);
  if (P)
    return "accepted";
  return describe(P.takeError());
}

TEST(HeapRaw, ReadsEveryField) {
  for (bool WithPath : {false, true}) {
    SCOPED_TRACE(WithPath);
    auto P = readRawProfile(heapRaw(WithPath).build());
    ASSERT_TRUE(bool(P)) << describe(P.takeError());
    EXPECT_EQ(P->Segments[0].Path, WithPath ? "/bin/prog" : "");
    ASSERT_EQ(P->HeapDumps.size(), 1u);
    const RawHeapDump &D = P->HeapDumps[0];
    EXPECT_TRUE(D.ExitDump);
    EXPECT_EQ(D.DumpTimeMs, 1500u);
    EXPECT_EQ(D.PeakTimeMs, 700u);
    EXPECT_EQ(D.PeakBytes, 500u);
    EXPECT_EQ(D.PeakBlocks, 5u);
    ASSERT_EQ(D.Contexts.size(), 3u);
    EXPECT_EQ(D.Contexts[0].first, 1u);
    EXPECT_EQ(D.Contexts[0].second, (HeapStats{200, 2, 300, 3}));
    EXPECT_EQ(D.Contexts[2].second, (HeapStats{64, 1, 0, 0}));
    ASSERT_EQ(D.Samples.size(), 3u);
    EXPECT_EQ(D.Samples[1].TimeMs, 700u);
    EXPECT_EQ(D.Samples[1].TotalBytes, 500u);
    ASSERT_EQ(D.Samples[1].Top.size(), 2u);
    EXPECT_EQ(D.Samples[1].Top[1], (HeapTopEntry{2, 200}));
    EXPECT_TRUE(D.Samples[2].Top.empty());
  }
}

TEST(HeapRaw, NoSectionIsNoHeapData) {
  RawBuilder B = heapRaw();
  B.Heap.reset();
  auto P = readRawProfile(B.build());
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(P->HeapDumps.empty());
}

TEST(HeapRaw, SeveralDumpsAreSeveralRuns) {
  RawBuilder Second = heapRaw();
  Second.Heap->Flags = 0;
  Second.Heap->Contexts = {{2, 100, 1, 100, 1}};
  Second.Heap->PeakBytes = 100;
  Second.Heap->PeakBlocks = 1;
  Second.Heap->Samples.clear();
  RawBuilder None = heapRaw();
  None.Heap.reset();
  auto P = readRawProfile(heapRaw().build() + None.build() + Second.build());
  ASSERT_TRUE(bool(P)) << describe(P.takeError());
  EXPECT_EQ(P->NumDumps, 3u);
  ASSERT_EQ(P->HeapDumps.size(), 2u);
  EXPECT_FALSE(P->HeapDumps[1].ExitDump);
  EXPECT_EQ(P->HeapDumps[1].Contexts.size(), 1u);
  // A context checks against its own dump's AllocCount (1 here, not the
  // merged 3).
  Second.Heap->Contexts = {{3, 128, 2, 100, 1}};
  EXPECT_NE(rawReject(heapRaw().build() + Second.build())
                .find("context 0 (stack id 3) has 2 live blocks, more than "
                      "its AllocCount 1"),
            std::string::npos);
}

TEST(HeapRaw, OtherBytesAfterTheSectionsAreSkipped) {
  // As after the stacks: a writer's unknown trailer is skipped...
  RawBuilder B = heapRaw();
  std::string Bytes = B.build();
  std::string Tail = "OTHERSEC" + std::string(16, '\x05');
  std::string WithTail = Bytes + Tail;
  put64(WithTail, 16, WithTail.size()); // TotalSize
  auto P = readRawProfile(WithTail);
  ASSERT_TRUE(bool(P)) << describe(P.takeError());
  EXPECT_EQ(P->HeapDumps.size(), 1u);
  // ... and so is a section of another magic where the heap would be.
  std::string Other = Bytes;
  Other[heapAt(Other) + 7] = '2'; // "MPHEAPV2"
  P = readRawProfile(Other);
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(P->HeapDumps.empty());
}

TEST(HeapRaw, SpecificLies) {
  const std::string Good = heapRaw().build();
  const size_t H = heapAt(Good), C0 = H + 64, S0 = C0 + 3 * 40;
  auto Lie = [&](size_t Off, uint64_t V) {
    std::string B = Good;
    put64(B, Off, V);
    return rawReject(B);
  };
  auto At = [](size_t Off) { return " @" + std::to_string(Off); };
  EXPECT_EQ(Lie(H + 8, 3),
            "malformed: heap section: flags 0x3 set unknown bits" + At(H + 8));
  EXPECT_EQ(Lie(H + 24, 1501),
            "malformed: heap section: peak time 1501 ms is after the dump "
            "(1500 ms)" + At(H + 24));
  EXPECT_EQ(Lie(H + 40, 0),
            "malformed: heap section: peak of 500 bytes in 0 blocks" +
                At(H + 40));
  EXPECT_EQ(Lie(H + 48, 1ULL << 40),
            "malformed: heap context count 1099511627776 does not fit in the " +
                std::to_string(Good.size() - C0) + " bytes that remain" +
                At(C0));
  EXPECT_EQ(Lie(H + 56, 4097),
            "malformed: heap section: sample count 4097 is above the 4096 a "
            "timeline keeps" + At(H + 56));
  EXPECT_EQ(Lie(C0, 9), "malformed: heap section: context 0 (stack id 9) is "
                        "no MIB of this dump" + At(C0));
  EXPECT_EQ(Lie(C0 + 40, 1), "malformed: heap section: context 1 (stack id "
                             "1) is not above the previous context's stack "
                             "id" + At(C0 + 40));
  EXPECT_EQ(Lie(C0 + 16, 5), "malformed: heap section: context 0 (stack id "
                             "1) has 5 live blocks, more than its AllocCount "
                             "4" + At(C0 + 16));
  EXPECT_EQ(Lie(C0 + 32, 5), "malformed: heap section: context 0 (stack id "
                             "1) has 5 blocks at the peak, more than its "
                             "AllocCount 4" + At(C0 + 32));
  EXPECT_EQ(Lie(C0 + 40 + 8, 7), "malformed: heap section: context 1 (stack "
                                 "id 2) has 7 live bytes in 0 blocks" +
                                     At(C0 + 48));
  EXPECT_EQ(Lie(C0 + 80 + 24, 7), "malformed: heap section: context 2 "
                                  "(stack id 3) has 7 bytes at the peak in 0 "
                                  "blocks" + At(C0 + 104));
  {
    std::string B = Good;
    put64(B, C0 + 80 + 8, 0); // context 2: nothing live anywhere
    put64(B, C0 + 80 + 16, 0);
    EXPECT_EQ(rawReject(B), "malformed: heap section: context 2 (stack id 3) "
                            "has nothing live at the dump or at the peak" +
                                At(C0 + 80));
  }
  const size_t S1 = S0 + 24 + 2 * 16, S2 = S1 + 24 + 2 * 16;
  EXPECT_EQ(Lie(S2, 699), "malformed: heap section: sample 2 at 699 ms comes "
                          "before the previous one's 700 ms" + At(S2));
  EXPECT_EQ(Lie(S2, 1501), "malformed: heap section: sample 2 at 1501 ms is "
                           "after the dump (1500 ms)" + At(S2));
  EXPECT_EQ(Lie(S1 + 8, 501), "malformed: heap section: sample 1 total of "
                              "501 bytes is above the peak of 500" +
                                  At(S1 + 8));
  EXPECT_EQ(Lie(S2 + 16, 9), "malformed: heap section: sample 2 names 9 "
                             "contexts; at most 8" + At(S2 + 16));
  EXPECT_EQ(Lie(S1 + 24 + 16, 7), "malformed: heap section: sample 1 entry 1 "
                                  "(stack id 7) is no MIB of this dump" +
                                      At(S1 + 40));
  EXPECT_EQ(Lie(S1 + 24 + 16, 1), "malformed: heap section: sample 1 entry 1 "
                                  "(stack id 1) names a context twice" +
                                      At(S1 + 40));
  EXPECT_EQ(Lie(S1 + 24 + 24, 301), "malformed: heap section: sample 1 entry "
                                    "1 (stack id 2) has 301 bytes, more than "
                                    "the entry before it (largest first)" +
                                        At(S1 + 48));
  // A top count that the bytes left cannot hold.
  EXPECT_EQ(Lie(S2 + 16, 1), "malformed: heap sample top entry count 1 does "
                             "not fit in the 0 bytes that remain" +
                                 At(S2 + 24));
  // A section with our magic is read in full: cut short, it is an error.
  {
    std::string B = Good.substr(0, H + 32);
    put64(B, 16, B.size());
    EXPECT_EQ(rawReject(B), "truncated: heap peak bytes needs 8 bytes but 0 "
                            "remain" + At(H + 32));
  }
}

TEST(HeapRaw, EverySingleByteCorruptionIsAnErrorOrKeepsTheInvariants) {
  const std::string Good = heapRaw().build();
  const size_t H = heapAt(Good);
  unsigned Rejected = 0, Accepted = 0, Dropped = 0;
  for (size_t I = H; I < Good.size(); ++I)
    for (uint8_t Xor : {uint8_t(0x01), uint8_t(0x10), uint8_t(0x80),
                        uint8_t(0xff)}) {
      std::string Bad = Good;
      Bad[I] = char(uint8_t(Bad[I]) ^ Xor);
      auto P = readRawProfile(Bad);
      if (!P) {
        ++Rejected;
        std::string Msg = describe(P.takeError());
        EXPECT_NE(Msg.find(" @"), std::string::npos) << Msg;
        continue;
      }
      if (P->HeapDumps.empty()) {
        ++Dropped; // the magic no longer ours: skipped as unknown bytes
        EXPECT_LT(I, H + 8);
        continue;
      }
      ++Accepted;
      // What was accepted keeps every rule of the spec.
      const RawHeapDump &D = P->HeapDumps[0];
      EXPECT_LE(D.PeakTimeMs, D.DumpTimeMs);
      std::optional<uint64_t> Prev;
      for (const auto &[Id, S] : D.Contexts) {
        ASSERT_TRUE(P->MIBs.count(Id));
        EXPECT_TRUE(!Prev || *Prev < Id);
        Prev = Id;
        const uint64_t Count = P->MIBs.find(Id)->second.Info.AllocCount;
        EXPECT_LE(S.LiveBlocks, Count);
        EXPECT_LE(S.PeakBlocks, Count);
        EXPECT_TRUE(S.LiveBlocks || !S.LiveBytes);
        EXPECT_TRUE(S.PeakBlocks || !S.PeakBytes);
        EXPECT_TRUE(S.LiveBlocks || S.PeakBlocks);
      }
      for (size_t J = 0; J < D.Samples.size(); ++J) {
        const HeapSample &S = D.Samples[J];
        EXPECT_TRUE(J == 0 || D.Samples[J - 1].TimeMs <= S.TimeMs);
        EXPECT_LE(S.TimeMs, D.DumpTimeMs);
        EXPECT_LE(S.TotalBytes, D.PeakBytes);
        EXPECT_LE(S.Top.size(), 8u);
        std::set<uint64_t> Seen;
        for (size_t K = 0; K < S.Top.size(); ++K) {
          EXPECT_TRUE(P->MIBs.count(S.Top[K].Context));
          EXPECT_TRUE(Seen.insert(S.Top[K].Context).second);
          EXPECT_TRUE(K == 0 || S.Top[K - 1].Bytes >= S.Top[K].Bytes);
        }
      }
    }
  EXPECT_GT(Rejected, 200u);
  EXPECT_GT(Accepted, 100u); // bytes of values the spec leaves free
  EXPECT_EQ(Dropped, 4u * 8); // only the magic's bytes drop the section
}

//===----------------------------------------------------------------------===//
// The indexed heap table
//===----------------------------------------------------------------------===//

void uleb(std::string &S, uint64_t V) {
  do {
    uint8_t B = V & 0x7f;
    V >>= 7;
    S.push_back(char(B | (V ? 0x80 : 0)));
  } while (V);
}

void le64(std::string &S, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    S.push_back(char(V >> (8 * I)));
}

/// Two runs, three contexts (the third holds nothing and is named by the
/// timeline), two samples.
HeapProfile smallHeap() {
  HeapProfile H;
  H.Summary = {2, 1, 900, 9};
  H.Contexts[0x10] = {100, 1, 300, 3};
  H.Contexts[0x20] = {0, 0, 200, 2};
  H.Contexts[0x30] = {};
  H.Timeline.PeakTimeMs = 40;
  H.Timeline.PeakBytes = 500;
  H.Timeline.Samples = {{10, 200, {{0x30, 150}, {0x10, 50}}},
                        {200, 500, {{0x10, 300}, {0x20, 200}}}};
  return H;
}

/// smallHeap's table, written here from the layout in heap-data.md.
std::string smallHeapBytes() {
  std::string S;
  for (uint64_t V : {2, 1, 900, 9, 3})
    uleb(S, V);
  le64(S, 0x10);
  for (uint64_t V : {100, 1, 300, 3})
    uleb(S, V);
  le64(S, 0x20);
  for (uint64_t V : {0, 0, 200, 2})
    uleb(S, V);
  le64(S, 0x30);
  for (uint64_t V : {0, 0, 0, 0})
    uleb(S, V);
  // Peak time and bytes, 2 samples: deltas 10 and 190, entries by index.
  for (uint64_t V : {40, 500, 2, 10, 200, 2, 2, 150, 0, 50, 190, 500, 2, 0,
                     300, 1, 200})
    uleb(S, V);
  return S;
}

TEST(HeapTable, BytesAsSpecified) {
  SmallVector<char, 0> Out;
  writeHeapTable(Out, smallHeap());
  EXPECT_EQ(std::string(Out.data(), Out.size()), smallHeapBytes());
  auto H = readHeapTable(smallHeapBytes(), 0);
  ASSERT_TRUE(bool(H)) << describe(H.takeError());
  EXPECT_EQ(*H, smallHeap());
}

/// A profile of \p N allocation contexts in function "alloc", one frame
/// each; their ids in \p Out.
IndexedMemProf profileOf(size_t N, std::vector<CallStackId> &Out) {
  IndexedMemProf P;
  const GUID Alloc = functionGUID("alloc");
  for (size_t I = 0; I < N; ++I) {
    CallStackId Id = P.addCallStack({Frame{Alloc, uint32_t(I), 0, false}});
    P.Records[Alloc].AllocSites.push_back({Id, block(1, 8)});
    Out.push_back(Id);
  }
  return P;
}

/// A random canonical heap profile over \p Ids.
HeapProfile randomHeap(std::mt19937_64 &Rng, ArrayRef<CallStackId> Ids) {
  auto Pick = [&](uint64_t N) { return Rng() % N; };
  auto Big = [&] { return Pick(4) ? Pick(1000) : Rng() >> Pick(64); };
  HeapProfile H;
  H.Summary.Runs = 1 + Pick(5);
  H.Summary.ExitRuns = Pick(H.Summary.Runs + 1);
  for (CallStackId Id : Ids) {
    if (Pick(3) == 0)
      continue;
    HeapStats S;
    S.LiveBlocks = Pick(3);
    S.LiveBytes = S.LiveBlocks ? Big() : 0;
    S.PeakBlocks = Pick(3);
    S.PeakBytes = S.PeakBlocks ? Big() : 0;
    H.Contexts[Id] = S;
  }
  H.Timeline.PeakTimeMs = Big();
  H.Timeline.PeakBytes = Big();
  H.Summary.PeakBytes = satAdd(H.Timeline.PeakBytes, Pick(100));
  H.Summary.PeakBlocks = 1 + Pick(100);
  uint64_t Time = 0;
  for (size_t I = 0, N = Pick(6); I < N; ++I) {
    HeapSample S;
    Time += Pick(3) ? Pick(50) : 0;
    S.TimeMs = Time;
    S.TotalBytes = H.Timeline.PeakBytes ? Rng() % (H.Timeline.PeakBytes + 1)
                                        : 0;
    for (size_t J = 0, K = Pick(9); J < K && !Ids.empty(); ++J)
      S.Top.push_back({Ids[Pick(Ids.size())], Big()});
    normalizeTop(S.Top);
    for (const HeapTopEntry &E : S.Top)
      H.Contexts.try_emplace(E.Context);
    H.Timeline.Samples.push_back(std::move(S));
  }
  // Contexts that hold nothing and are not named are not listed.
  for (auto It = H.Contexts.begin(); It != H.Contexts.end();) {
    bool Named = false;
    for (const HeapSample &S : H.Timeline.Samples)
      for (const HeapTopEntry &E : S.Top)
        Named |= E.Context == It->first;
    It = It->second.empty() && !Named ? H.Contexts.erase(It) : std::next(It);
  }
  return H;
}

TEST(HeapTable, RandomRoundTripsThroughTheExtension) {
  std::mt19937_64 Rng(34);
  for (int Round = 0; Round < 300; ++Round) {
    SCOPED_TRACE(Round);
    std::vector<CallStackId> Ids;
    IndexedMemProf P = profileOf(Rng() % 12, Ids);
    HeapProfile H = randomHeap(Rng, Ids);
    ProfileNames Names;
    if (Round % 2)
      Names.addFunction(functionGUID("alloc"),
                        {"alloc", "alloc", "/a.c", 1, ""});
    SmallVector<char, 0> Out(16, '\0');
    ASSERT_TRUE(bool(appendNamesExtension(Out, P, Names, &H)));
    StringRef Bytes(Out.data(), Out.size());
    HeapProfile Back;
    NamesExtensionInfo Info;
    auto N = readNamesExtension(Bytes, &Info, &Back);
    ASSERT_TRUE(bool(N)) << describe(N.takeError());
    EXPECT_TRUE(Info.Present);
    EXPECT_EQ(Back, H);
    EXPECT_FALSE(bool(checkHeapContexts(Back, P)));
    // The flag is set, and the heap header holds the table's size.
    uint32_t Flags = support::endian::read32le(Bytes.data() + 16 + 12);
    EXPECT_TRUE(Flags & names::FlagHeap);
  }
}

TEST(HeapTable, NoHeapDataNoFlagNoTable) {
  std::vector<CallStackId> Ids;
  IndexedMemProf P = profileOf(2, Ids);
  ProfileNames Names;
  Names.addFunction(functionGUID("main"), {"main", "main", "/a.c", 1, ""});
  P.addCallStack({Frame{functionGUID("main"), 0, 0, false}});
  SmallVector<char, 0> Without(16, '\0'), WithEmpty(16, '\0');
  ASSERT_TRUE(bool(appendNamesExtension(Without, P, Names)));
  HeapProfile Empty;
  ASSERT_TRUE(bool(appendNamesExtension(WithEmpty, P, Names, &Empty)));
  EXPECT_EQ(Without, WithEmpty);
  uint32_t Flags = support::endian::read32le(Without.data() + 16 + 12);
  EXPECT_FALSE(Flags & names::FlagHeap);
  // No names and no heap data: no extension at all; heap data alone makes one.
  SmallVector<char, 0> Bare(16, '\0');
  ASSERT_TRUE(bool(appendNamesExtension(Bare, P, ProfileNames(), &Empty)));
  EXPECT_EQ(Bare.size(), 16u);
  HeapProfile H;
  H.Summary = {1, 0, 0, 0};
  ASSERT_TRUE(bool(appendNamesExtension(Bare, P, ProfileNames(), &H)));
  HeapProfile Back;
  ASSERT_TRUE(bool(readNamesExtension(StringRef(Bare.data(), Bare.size()),
                                      nullptr, &Back)));
  EXPECT_EQ(Back, H);
}

/// An extension holding smallHeap() over a profile of its three contexts,
/// and where its heap table starts.
struct HeapFile {
  std::string Bytes;
  size_t Table = 0;
  IndexedMemProf P;
  HeapFile() {
    // smallHeap's ids are none of P's: checkHeapContexts must see it.
    std::vector<CallStackId> Ids;
    P = profileOf(3, Ids);
    HeapProfile H = smallHeap();
    SmallVector<char, 0> Out(16, '\0');
    EXPECT_TRUE(bool(appendNamesExtension(Out, P, ProfileNames(), &H)));
    Bytes.assign(Out.data(), Out.size());
    // The header's five section sizes, then the heap header's.
    uint64_t Sum = 0;
    for (int I = 0; I < 5; ++I)
      Sum += support::endian::read32le(Bytes.data() + 16 + 24 + 4 * I);
    Table = 16 + 48 + 8 + Sum;
  }
  /// The file with the heap table replaced by \p T.
  std::string with(const std::string &T) const {
    std::string B = Bytes.substr(0, Table) + T;
    while (B.size() % 8)
      B.push_back('\0');
    support::endian::write32le(&B[16 + 48], uint32_t(T.size()));
    le64(B, B.size() + 16 - 16);
    le64(B, names::FooterMagic);
    return B;
  }
};

std::string extReject(const std::string &B) {
  auto N = readNamesExtension(B);
  if (N)
    return "accepted";
  return describe(N.takeError());
}

TEST(HeapTable, SpecificLies) {
  HeapFile F;
  const std::string Good = smallHeapBytes();
  ASSERT_EQ(F.with(Good), F.Bytes);
  const std::string At = " @" + std::to_string(F.Table);
  auto Edit = [&](size_t Off, std::initializer_list<uint8_t> New) {
    std::string T = Good;
    size_t I = Off;
    for (uint8_t B : New)
      T[I++] = char(B);
    return extReject(F.with(T));
  };
  auto Off = [&](size_t O) { return " @" + std::to_string(F.Table + O); };
  EXPECT_EQ(Edit(0, {0}),
            "malformed: names extension: heap table counts 0 runs" + At);
  EXPECT_EQ(Edit(1, {3}), "malformed: names extension: heap table counts 3 "
                          "exit runs of 2 runs" + Off(1));
  // Context ids out of order (the second made the first's).
  EXPECT_EQ(Edit(19, {0x10}), "malformed: names extension: heap context 1 id "
                              "0x10 is not above the previous one" + Off(19));
  // A context with bytes in no blocks.
  EXPECT_EQ(Edit(31, {0}), "malformed: names extension: heap context 1 has "
                           "bytes in 0 blocks" + Off(19));
  // The timeline's peak above the sum of the runs' peaks.
  std::string T = smallHeapBytes();
  EXPECT_EQ(extReject(F.with(T.substr(0, 45) + "\xff\x07" + T.substr(47))),
            "malformed: names extension: heap timeline peak of 1023 bytes is "
            "above the runs' sum of 900" + Off(45));
  // A sample naming context 3 of 3.
  EXPECT_EQ(Edit(52, {3}), "malformed: names extension: heap sample 0 context "
                           "3 is not one of the 3 heap contexts" + Off(52));
  // Entries not largest first: entry 0's 150 bytes made 22 (0x96 0x00).
  EXPECT_EQ(Edit(54, {0}), "malformed: names extension: heap sample 0 entry 1 "
                           "is not ordered after the previous one (largest "
                           "first, then by context)" + Off(55));
  // Sample 1's second entry naming its first's context again.
  EXPECT_EQ(Edit(65, {0}), "malformed: names extension: heap sample 1 entry 1 "
                           "names context 0 again" + Off(65));
  // Nine entries.
  EXPECT_EQ(Edit(51, {9}), "malformed: names extension: heap sample 0 names 9 "
                           "contexts; at most 8" + Off(51));
  {
    // Sample 0's first entry moved from the empty context to context 1:
    // named by no sample and empty, it has no place (one table, one form).
    std::string U = Good;
    U[52] = 1;
    EXPECT_EQ(extReject(F.with(U)),
              "malformed: names extension: heap context 2 id 0x30 holds "
              "nothing and no sample names it" + At);
  }
  EXPECT_EQ(extReject(F.with(Good + std::string(1, '\0'))),
            "malformed: names extension: heap table has 1 bytes after its "
            "last entry" + Off(Good.size()));
  EXPECT_EQ(extReject(F.with(Good.substr(0, Good.size() - 1))),
            "malformed: names extension: heap table heap sample context "
            "bytes: malformed uleb128, extends past end" +
                Off(Good.size() - 2));
  {
    std::string B = F.Bytes;
    support::endian::write32le(&B[16 + 48 + 4], 1);
    EXPECT_EQ(extReject(B), "malformed: names extension: heap header's "
                            "reserved word is 1, not 0 @" +
                                std::to_string(16 + 48 + 4));
  }
  {
    // A context count the table cannot hold.
    std::string U = Good;
    U[5] = char(0x7f);
    EXPECT_TRUE(StringRef(extReject(F.with(U)))
                    .starts_with("malformed: names extension: heap table heap "
                                 "context count 127 does not fit in the "));
  }
  // The context ids are checked against the LLVM part.
  HeapProfile Read;
  ASSERT_TRUE(bool(readNamesExtension(F.Bytes, nullptr, &Read)));
  EXPECT_EQ(describe(checkHeapContexts(Read, F.P)),
            "malformed: names extension: heap context id 0x10 is not an "
            "allocation context of the LLVM part");
}

TEST(HeapTable, EverySingleByteCorruptionIsHandled) {
  std::mt19937_64 Rng(5);
  std::vector<CallStackId> Ids;
  IndexedMemProf P = profileOf(6, Ids);
  HeapProfile H;
  do
    H = randomHeap(Rng, Ids);
  while (H.Timeline.Samples.size() < 3 || H.Contexts.size() < 3);
  SmallVector<char, 0> Out(16, '\0');
  ASSERT_TRUE(bool(appendNamesExtension(Out, P, ProfileNames(), &H)));
  const std::string Good(Out.data(), Out.size());
  unsigned Rejected = 0, Accepted = 0;
  for (size_t I = 16; I < Good.size(); ++I)
    for (uint8_t Xor : {uint8_t(0x01), uint8_t(0x40), uint8_t(0x80),
                        uint8_t(0xff)}) {
      std::string Bad = Good;
      Bad[I] = char(uint8_t(Bad[I]) ^ Xor);
      HeapProfile Back;
      auto N = readNamesExtension(Bad, nullptr, &Back);
      if (!N) {
        ++Rejected;
        EXPECT_NE(describe(N.takeError()).find(" @"), std::string::npos);
        continue;
      }
      ++Accepted;
      // Whatever is accepted writes and reads back unchanged.
      SmallVector<char, 0> Again(16, '\0');
      ASSERT_TRUE(bool(appendNamesExtension(Again, P, *N, &Back)));
      HeapProfile Twice;
      ASSERT_TRUE(bool(readNamesExtension(StringRef(Again.data(), Again.size()),
                                          nullptr, &Twice)));
      EXPECT_EQ(Twice, Back) << "byte " << I << " ^ " << int(Xor) << "\n"
                             << dump(Back) << dump(Twice);
    }
  EXPECT_GT(Rejected, Good.size());
  EXPECT_GT(Accepted, 10u);
}

} // namespace
