//===- RawReaderTest.cpp - The raw MemProf reader --------------------------===//
#include "RawBuilder.h"
#include "memprof/ProfileData/RawReader.h"
#include "gtest/gtest.h"
#include <cstring>
#include <random>

using namespace memprof;
using namespace memprof::test;

namespace {

RawBuilder sample() {
  RawBuilder B;
  B.Segs.push_back({0x1000, 0x5000, 0x0, std::string("\x01\x02\x03\x04", 4)});
  B.Segs.push_back({0x7f0000001000, 0x7f0000009000, 0x7f0000000000, "libid"});
  MemInfoBlock A = MemInfoBlock::forAllocation(100, 7, 10, 20, 1, 1);
  MemInfoBlock C = MemInfoBlock::forAllocation(48, 0, 5, 5, 0, 3);
  B.MIBs.push_back({1, A, {1, 2, 3, 5000, 0}});
  B.MIBs.push_back({2, C, {}});
  B.Stacks.push_back({1, {0x1100, 0x1200, 0x7f0000001234}});
  B.Stacks.push_back({2, {0x1300, 0, 0x1400}});
  return B;
}

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

TEST(RawReader, ReadsEveryVersion) {
  for (unsigned V : {3u, 4u, 5u}) {
    SCOPED_TRACE(V);
    std::string Bytes = sample().build(V);
    auto P = readRawProfile(Bytes);
    ASSERT_TRUE(bool(P)) << errorText(P.takeError());
    EXPECT_EQ(P->Version, V);
    EXPECT_EQ(P->NumDumps, 1u);
    ASSERT_EQ(P->Segments.size(), 2u);
    EXPECT_EQ(P->Segments[1].BuildId, "libid");
    EXPECT_EQ(P->Segments[1].Offset, 0x7f0000000000u);
    ASSERT_EQ(P->MIBs.size(), 2u);
    const RawMIB &M = P->MIBs.find(1)->second;
    EXPECT_EQ(M.Info.TotalSize, 100u);
    EXPECT_EQ(M.Info.TotalAccessCount, 7u);
    EXPECT_EQ(M.Info.AccessHistogram, 0u); // the pointer is dropped
    if (V == 3) {
      EXPECT_TRUE(M.Histogram.empty());
    } else {
      // v5 rounds 5000 to a 12-bit mantissa: 2500<<1.
      std::vector<uint64_t> Want = {1, 2, 3, 5000, 0};
      EXPECT_EQ(M.Histogram, Want);
      EXPECT_EQ(M.Info.AccessHistogramSize, 5u);
    }
    // A trace ends at its first zero PC.
    std::vector<uint64_t> Want2 = {0x1300};
    EXPECT_EQ(*P->Stacks.find(2), llvm::ArrayRef(Want2));
  }
}

TEST(RawReader, HistogramEncodingRoundsLikeTheRuntime) {
  EXPECT_EQ(RawBuilder::encode(4095), 4095);
  EXPECT_EQ(RawBuilder::encode(4097), (1 << 12) | 2049);
  RawBuilder B = sample();
  B.MIBs[0].Histogram = {4097};
  auto P = readRawProfile(B.build(5));
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->MIBs.find(1)->second.Histogram[0], 4098u);
}

TEST(RawReader, ConcatenatedDumpsMergeByStackIdWithLLVMRule) {
  RawBuilder B = sample();
  std::string One = B.build(5);
  auto P = readRawProfile(One + One);
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_EQ(P->NumDumps, 2u);
  const RawMIB &M = P->MIBs.find(1)->second;
  EXPECT_EQ(M.Info.AllocCount, 2u);
  EXPECT_EQ(M.Info.TotalSize, 200u);
  EXPECT_EQ(M.Info.NumLifetimeOverlaps, 1u); // 10 < 20
  std::vector<uint64_t> Doubled = {2, 4, 6, 10000, 0};
  EXPECT_EQ(M.Histogram, Doubled);
  // Zero padding between dumps is skipped.
  auto Padded = readRawProfile(One + std::string(16, '\0') + One);
  ASSERT_TRUE(bool(Padded)) << errorText(Padded.takeError());
  EXPECT_EQ(Padded->NumDumps, 2u);
}

TEST(RawReader, RejectsDumpsThatDisagree) {
  RawBuilder B = sample();
  RawBuilder Other = sample();
  Other.Segs.pop_back();
  auto P = readRawProfile(B.build() + Other.build());
  ASSERT_FALSE(bool(P));
  EXPECT_NE(errorText(P.takeError()).find("different segment information"),
            std::string::npos);
  RawBuilder Stack = sample();
  Stack.Stacks[0].second[0] = 0x1101;
  auto Q = readRawProfile(B.build() + Stack.build());
  ASSERT_FALSE(bool(Q));
  EXPECT_NE(errorText(Q.takeError()).find("different call stack"),
            std::string::npos);
}

TEST(RawReader, StacksOfEveryDumpEachIdOnceInFileOrder) {
  // Stacks in no id order, one given twice alike; a second dump repeats one
  // and adds one.
  RawBuilder A = sample();
  A.Stacks = {{9, {0x1900}}, {2, {0x1300}}, {1, {0x1100, 0x1200}}, {2, {0x1300}}};
  A.MIBs.push_back({9, MemInfoBlock::forAllocation(8, 0, 0, 1, 0, 0), {}});
  RawBuilder B = A;
  B.Stacks = {{2, {0x1300}}, {5, {0x1500, 0x1501}}, {1, {0x1100, 0x1200}},
              {9, {0x1900}}};
  // A third dump: ids below and between the others, and one repeated.
  RawBuilder C3 = A;
  C3.Stacks = {{0, {0x1000}}, {3, {0x1333}}, {9, {0x1900}}};
  auto P = readRawProfile(A.build() + B.build() + C3.build());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_EQ(P->NumDumps, 3u);
  ASSERT_EQ(P->Stacks.size(), 6u);
  std::vector<uint64_t> Ids;
  for (const RawStacks::Entry &E : P->Stacks.Entries)
    Ids.push_back(E.Id);
  // Each id once, in the order the file first gives them.
  EXPECT_EQ(Ids, std::vector<uint64_t>({9, 2, 1, 5, 0, 3}));
  std::vector<uint64_t> Three = {0x1333};
  EXPECT_EQ(*P->Stacks.find(3), llvm::ArrayRef(Three));
  // Every MIB knows where its stack is.
  for (const auto &[Id, M] : P->MIBs)
    EXPECT_EQ(P->Stacks.Entries[M.StackIndex].Id, Id);
  // A later dump that gives the first dump's stack other PCs.
  RawBuilder Bad = C3;
  Bad.Stacks = {{0, {0x1000}}, {1, {0x1100, 0x1201}}};
  auto Q = readRawProfile(A.build() + B.build() + Bad.build());
  ASSERT_FALSE(bool(Q));
  EXPECT_NE(errorText(Q.takeError())
                .find("dump 2 has a different call stack for stack id 1"),
            std::string::npos);
  std::vector<uint64_t> One = {0x1100, 0x1200}, Five = {0x1500, 0x1501};
  EXPECT_EQ(*P->Stacks.find(1), llvm::ArrayRef(One));
  EXPECT_EQ(*P->Stacks.find(5), llvm::ArrayRef(Five));
  EXPECT_FALSE(P->Stacks.find(4));
  EXPECT_FALSE(P->Stacks.find(~0ull));

  // Ids given twice with different PCs: the first such record in the file
  // is named, even when a record after it is malformed.
  RawBuilder D = sample();
  D.Stacks = {{2, {0x1300}}, {1, {0x1100}}, {2, {0x1301}}, {1, {0x1101}},
              {7, {0x1700}}};
  std::string Bytes = D.build();
  EXPECT_NE(errorText(readRawProfile(Bytes).takeError())
                .find("stack id 2 appears twice with different PCs"),
            std::string::npos);
  // The last record's PC count (the section ends the dump) made too large.
  for (int I = 0; I < 8; ++I)
    Bytes[Bytes.size() - 16 + I] = I == 1 ? 0x10 : 0;
  EXPECT_NE(errorText(readRawProfile(Bytes).takeError())
                .find("stack id 2 appears twice with different PCs"),
            std::string::npos);
  D.Stacks = {{2, {0x1300}}, {1, {0x1100}}, {7, {0x1700}}};
  Bytes = D.build();
  for (int I = 0; I < 8; ++I)
    Bytes[Bytes.size() - 16 + I] = I == 1 ? 0x10 : 0;
  std::string Why = errorText(readRawProfile(Bytes).takeError());
  EXPECT_NE(Why.find("stack PC"), std::string::npos) << Why;
  EXPECT_EQ(Why.find("appears twice"), std::string::npos) << Why;
}

// The runtimes write a dump's stacks in the order of its MIBs, and the
// reader then builds no index of them. Stacks that follow the MIBs for a
// while and then do not, and later dumps, must read as they do by the index:
// every MIB finds its own PCs, and repeats are still compared.
TEST(RawReader, StacksThatFollowTheMIBsReadAsAnyOthers) {
  std::mt19937_64 Rng(7);
  RawBuilder A = sample();
  A.MIBs.clear();
  A.Stacks.clear();
  for (uint64_t I = 0; I < 40; ++I) {
    uint64_t Id = Rng() | 1; // distinct in practice; checked below
    A.MIBs.push_back({Id, MemInfoBlock::forAllocation(8 + I, 0, 0, 1, 0, 0), {}});
    std::vector<uint64_t> PCs;
    for (uint64_t J = 0, N = 1 + Rng() % 6; J < N; ++J)
      PCs.push_back(0x1000 + Rng() % 0x4000);
    A.Stacks.push_back({Id, PCs});
  }
  auto Check = [&](const RawBuilder &B, const std::string &Bytes) {
    auto P = readRawProfile(Bytes);
    ASSERT_TRUE(bool(P)) << errorText(P.takeError());
    ASSERT_EQ(P->MIBs.size(), B.MIBs.size());
    for (const auto &[Id, PCs] : B.Stacks) {
      auto M = P->MIBs.find(Id);
      ASSERT_NE(M, P->MIBs.end());
      ASSERT_LT(M->second.StackIndex, P->Stacks.size());
      EXPECT_EQ(P->Stacks.Entries[M->second.StackIndex].Id, Id);
      EXPECT_EQ(P->Stacks.pcs(P->Stacks.Entries[M->second.StackIndex]),
                llvm::ArrayRef(PCs));
      EXPECT_EQ(*P->Stacks.find(Id), llvm::ArrayRef(PCs));
    }
    EXPECT_FALSE(P->Stacks.find(2)); // (every id above is odd)
  };
  Check(A, A.build());
  // Not in the MIBs' order from the first stack, from the middle, or at
  // the last one.
  for (size_t At : {size_t(0), size_t(20), size_t(38)}) {
    SCOPED_TRACE(At);
    RawBuilder B = A;
    std::swap(B.Stacks[At], B.Stacks[At + 1]);
    Check(B, B.build());
  }
  // A repeat after the stacks that followed, in place of a later stack (so
  // the counts still agree): compared with the first record.
  RawBuilder Repeat = A;
  Repeat.Stacks.push_back(A.Stacks[3]);
  std::swap(Repeat.Stacks[30], Repeat.Stacks.back());
  Repeat.Stacks.pop_back();
  Repeat.Stacks.push_back(A.Stacks[30]); // (one more stack than MIBs again)
  Check(A, Repeat.build());
  RawBuilder Other = Repeat;
  Other.Stacks[30].second.push_back(0x1fff);
  EXPECT_NE(errorText(readRawProfile(Other.build()).takeError())
                .find("stack id " + std::to_string(A.Stacks[3].first) +
                      " appears twice with different PCs"),
            std::string::npos);
  Other.Stacks.pop_back(); // the counts agree: the stacks follow, then not
  EXPECT_NE(errorText(readRawProfile(Other.build()).takeError())
                .find("stack id " + std::to_string(A.Stacks[3].first) +
                      " appears twice with different PCs"),
            std::string::npos);
  // A second dump after one whose stacks followed its MIBs: the same
  // stacks read as one; other PCs for one of them are an error.
  Check(A, A.build() + A.build());
  RawBuilder Later = A;
  Later.Stacks[5].second[0] ^= 0x10;
  EXPECT_NE(errorText(readRawProfile(A.build() + Later.build()).takeError())
                .find("dump 1 has a different call stack for stack id " +
                      std::to_string(A.Stacks[5].first)),
            std::string::npos);
}

// memprof-merge reads PCs in place (no copy): every file reads to the same
// profile, or the same error, either way; in place, entries point into the
// buffer where it is 8-byte aligned, and nowhere else.
TEST(RawReader, PCsReadInPlaceAsCopied) {
  std::vector<std::string> Files;
  RawBuilder A = sample();
  Files.push_back(A.build(3));
  Files.push_back(A.build(4));
  Files.push_back(A.build() + A.build()); // the second dump's stacks compared
  RawBuilder Out = A;                     // not in the MIBs' order, repeated
  Out.Stacks = {{2, {0x1300}}, {1, {0x1100, 0x1200}}, {2, {0x1300}}};
  Files.push_back(Out.build());
  RawBuilder Other = A; // a later dump's other PCs, then its own repeat
  Other.Stacks = {{1, {0x1101}}, {2, {0x1300}}, {1, {0x1101}}};
  Files.push_back(A.build() + Other.build());
  Other.Stacks.push_back({1, {0x1102}});
  Files.push_back(A.build() + Other.build());
  std::mt19937_64 Rng(11);
  for (int I = 0; I < 200; ++I) { // damaged copies
    std::string F = A.build() + Out.build();
    for (int J = 0; J < 3; ++J)
      F[Rng() % F.size()] ^= char(1 + Rng() % 255);
    Files.push_back(F);
  }
  size_t Read = 0;
  for (const std::string &F : Files) {
    // Aligned: in words. Not aligned: one byte on.
    std::vector<uint64_t> Words((F.size() + 7) / 8 + 1);
    char *Aligned = reinterpret_cast<char *>(Words.data());
    std::memcpy(Aligned, F.data(), F.size());
    std::vector<char> Odd(F.size() + 1);
    std::memcpy(Odd.data() + 1, F.data(), F.size());
    auto Copied = readRawProfile(F);
    for (llvm::StringRef Buf : {llvm::StringRef(Aligned, F.size()),
                                llvm::StringRef(Odd.data() + 1, F.size())}) {
      auto InPlace = readRawProfile(Buf, /*PCsInPlace=*/true);
      ASSERT_EQ(bool(Copied), bool(InPlace));
      if (!Copied) {
        EXPECT_EQ(errorText(Copied.takeError()),
                  errorText(InPlace.takeError()));
        Copied = readRawProfile(F);
        continue;
      }
      ++Read;
      ASSERT_EQ(Copied->Stacks.size(), InPlace->Stacks.size());
      bool Aligned8 = Buf.data() == Aligned;
      for (size_t E = 0; E < Copied->Stacks.size(); ++E) {
        const RawStacks::Entry &C = Copied->Stacks.Entries[E];
        const RawStacks::Entry &P = InPlace->Stacks.Entries[E];
        EXPECT_EQ(C.Id, P.Id);
        EXPECT_FALSE(C.InPlace);
        EXPECT_EQ(P.InPlace, Aligned8);
        llvm::ArrayRef<uint64_t> PCs = InPlace->Stacks.pcs(P);
        EXPECT_EQ(Copied->Stacks.pcs(C), PCs);
        if (Aligned8 && !PCs.empty()) {
          const char *At = reinterpret_cast<const char *>(PCs.data());
          EXPECT_TRUE(At >= Buf.begin() && At + 8 * PCs.size() <= Buf.end());
        }
      }
      ASSERT_EQ(Copied->MIBs.size(), InPlace->MIBs.size());
      for (const auto &[Id, M] : Copied->MIBs) {
        auto It = InPlace->MIBs.find(Id);
        ASSERT_NE(It, InPlace->MIBs.end());
        EXPECT_EQ(M.StackIndex, It->second.StackIndex);
        EXPECT_EQ(M.Info.get(1), It->second.Info.get(1));
      }
    }
  }
  EXPECT_GE(Read, 8u); // the good files, both ways
}

// A dump that gives an earlier dump's stack other PCs is named once the
// dump is read, for its smallest such id, after the dump's own errors: a
// repeat in it that differs from its first record of the id, a bad section.
TEST(RawReader, OtherPCsForAnEarlierDumpsStackComeAfterTheDumpsOwnErrors) {
  RawBuilder A = sample();
  A.Stacks.push_back({3, {0x1500}});
  RawBuilder B = sample();
  B.Stacks = {{3, {0x1501}}, {1, {0x1101}}, {2, {0x1300}}};
  auto Why = [&](const RawBuilder &Second) {
    return errorText(readRawProfile(A.build() + Second.build()).takeError());
  };
  EXPECT_NE(Why(B).find("dump 1 has a different call stack for stack id 1"),
            std::string::npos)
      << Why(B);
  // Repeats of the dump's own first record are no error of their own ...
  RawBuilder Same = B;
  Same.Stacks.push_back({1, {0x1101}});
  Same.Stacks.push_back({2, {0x1300}});
  EXPECT_NE(Why(Same).find("dump 1 has a different call stack for stack id 1"),
            std::string::npos)
      << Why(Same);
  // ... one that differs from it is, and comes first (also when it matches
  // the earlier dump's PCs).
  RawBuilder Repeat = B;
  Repeat.Stacks.push_back({3, {0x1500}});
  EXPECT_NE(Why(Repeat).find("stack id 3 appears twice with different PCs"),
            std::string::npos)
      << Why(Repeat);
  // A heap section naming no MIB of the dump comes first too.
  RawBuilder Heap = B;
  Heap.Heap.emplace();
  Heap.Heap->Contexts.push_back({99, 8, 1, 8, 1});
  std::string HeapWhy = Why(Heap);
  EXPECT_NE(HeapWhy.find("heap section"), std::string::npos) << HeapWhy;
  EXPECT_EQ(HeapWhy.find("different call stack"), std::string::npos)
      << HeapWhy;
}

TEST(RawReader, SpecificErrors) {
  EXPECT_NE(errorText(readRawProfile("").takeError()).find("empty: "),
            std::string::npos);
  RawBuilder B = sample();
  std::string Bytes = B.build();
  std::string T = Bytes;
  T[16] = 0; // TotalSize = 0 (low byte), the rest still set: make it all 0
  for (int I = 16; I < 24; ++I)
    T[I] = 0;
  EXPECT_NE(errorText(readRawProfile(T).takeError())
                .find("malformed: total size 0 is smaller than the header"),
            std::string::npos);
  RawBuilder Missing = sample();
  Missing.Stacks.pop_back();
  EXPECT_NE(errorText(readRawProfile(Missing.build()).takeError())
                .find("MIB references stack id 2"),
            std::string::npos);
  RawBuilder Zero = sample();
  Zero.MIBs[0].Info.AllocCount = 0;
  EXPECT_NE(errorText(readRawProfile(Zero.build()).takeError())
                .find("AllocCount is 0"),
            std::string::npos);
}

TEST(RawReader, EveryPrefixIsRejectedCleanly) {
  std::string One = sample().build(5);
  std::string Two = One + One;
  for (size_t L = 0; L < Two.size(); ++L) {
    if (L == One.size())
      continue; // exactly one complete dump: valid
    auto P = readRawProfile(llvm::StringRef(Two.data(), L));
    EXPECT_FALSE(bool(P)) << "prefix " << L;
    if (!P)
      llvm::consumeError(P.takeError());
  }
}

TEST(RawReader, RandomCorruptionNeverCrashes) {
  std::string Good = sample().build(5) + sample().build(5);
  std::mt19937_64 Rng(1234);
  unsigned Accepted = 0;
  for (int Iter = 0; Iter < 20000; ++Iter) {
    std::string Bad = Good;
    size_t Pos = Rng() % Bad.size();
    if (Iter % 2)
      Bad[Pos] ^= char(1 << (Rng() % 8));
    else
      for (size_t I = Pos & ~size_t(7); I < std::min(Bad.size(), (Pos & ~size_t(7)) + 8); ++I)
        Bad[I] = char(Rng());
    auto P = readRawProfile(Bad);
    if (P)
      ++Accepted;
    else
      llvm::consumeError(P.takeError());
  }
  // Flips in PCs, timestamps and counts are still well-formed files.
  EXPECT_GT(Accepted, 0u);
}

// memprof's module paths after the stack section
// (docs/runtime.md#module-paths-in-the-raw-profile), from the test's own
// builder: read per segment, kept across dumps, and skipped by the layout
// LLVM reads (the sections stay where the header says).
RawBuilder withPaths() {
  RawBuilder B = sample();
  B.Segs[0].Path = "/usr/bin/prog";
  B.Segs[1].Path = "/opt/lib/libx.so.1"; // 18 bytes: padded to 24
  return B;
}

TEST(RawReader, ModulePaths) {
  auto P = readRawProfile(withPaths().build(5));
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  ASSERT_EQ(P->Segments.size(), 2u);
  EXPECT_EQ(P->Segments[0].Path, "/usr/bin/prog");
  EXPECT_EQ(P->Segments[1].Path, "/opt/lib/libx.so.1");
  EXPECT_EQ(P->MIBs.size(), 2u);
  // A path for one segment only; none at all (clang's runtime).
  RawBuilder One = sample();
  One.Segs[1].Path = "/l.so";
  auto Q = readRawProfile(One.build(5));
  ASSERT_TRUE(bool(Q)) << errorText(Q.takeError());
  EXPECT_EQ(Q->Segments[0].Path, "");
  EXPECT_EQ(Q->Segments[1].Path, "/l.so");
  auto R = readRawProfile(sample().build(5));
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Segments[1].Path, "");
  // A later dump without paths keeps the first's; one with them fills in
  // what the first lacked.
  auto S = readRawProfile(sample().build(5) + withPaths().build(5));
  ASSERT_TRUE(bool(S)) << errorText(S.takeError());
  EXPECT_EQ(S->Segments[0].Path, "/usr/bin/prog");
  // Bytes after the stacks that are not the extension are skipped, as
  // LLVM's reader skips them.
  std::string Plain = sample().build(5);
  std::string Extra = Plain + std::string("OTHERXXX") + std::string(8, '\1');
  RawBuilder::put(Extra, 0); // keep TotalSize consistent below
  uint64_t Total = Extra.size();
  for (int I = 0; I < 8; ++I)
    Extra[16 + I] = char(Total >> (8 * I));
  auto T = readRawProfile(Extra);
  ASSERT_TRUE(bool(T)) << errorText(T.takeError());
  EXPECT_EQ(T->Segments[0].Path, "");
}

TEST(RawReader, HostileModulePaths) {
  const std::string Good = withPaths().build(5);
  const size_t At = Good.find("MPMODPTH");
  ASSERT_NE(At, std::string::npos);
  auto Put = [](std::string &S, size_t Off, uint64_t V) {
    for (int I = 0; I < 8; ++I)
      S[Off + I] = char(V >> (8 * I));
  };
  auto Error = [](const std::string &Bytes) {
    auto P = readRawProfile(Bytes);
    if (P)
      return std::string("accepted");
    return errorText(P.takeError());
  };
  // Entries start at At + 16: index, size, bytes.
  std::string S = Good;
  Put(S, At + 16, 2);
  EXPECT_NE(Error(S).find("is for segment 2, but the dump has 2 segments"),
            std::string::npos)
      << Error(S);
  S = Good;
  Put(S, At + 16 + 16 + 16, 0); // the second entry names segment 0 again
  EXPECT_NE(Error(S).find("segment 0 has two module paths"), std::string::npos)
      << Error(S);
  S = Good;
  Put(S, At + 24, 0);
  EXPECT_NE(Error(S).find("has size 0"), std::string::npos) << Error(S);
  S = Good;
  Put(S, At + 24, 4097);
  EXPECT_NE(Error(S).find("has size 4097"), std::string::npos) << Error(S);
  S = Good;
  Put(S, At + 24, uint64_t(1) << 62); // no allocation sized by it
  EXPECT_NE(Error(S).find("has size"), std::string::npos) << Error(S);
  S = Good;
  S[At + 32 + 4] = '\0';
  EXPECT_NE(Error(S).find("holds a NUL byte"), std::string::npos) << Error(S);
  S = Good;
  Put(S, At + 8, uint64_t(1) << 60); // count far beyond the bytes left
  EXPECT_NE(Error(S).find("module path count"), std::string::npos) << Error(S);
  S = Good;
  Put(S, At + 8, 3); // one entry more than there are
  EXPECT_NE(Error(S), "accepted");
  // Every prefix of the extension, with TotalSize cut to match: too short
  // for the magic and count, it is not there (as for LLVM); from the count
  // on, a cut is an error.
  for (size_t L = At; L < Good.size(); ++L) {
    std::string Cut = Good.substr(0, L);
    Put(Cut, 16, L);
    auto P = readRawProfile(Cut);
    if (L < At + 16) {
      ASSERT_TRUE(bool(P)) << L << ": " << errorText(P.takeError());
      EXPECT_EQ(P->Segments[0].Path, "") << L;
    } else {
      EXPECT_FALSE(bool(P)) << L;
      if (!P)
        llvm::consumeError(P.takeError());
    }
  }
}

} // namespace
