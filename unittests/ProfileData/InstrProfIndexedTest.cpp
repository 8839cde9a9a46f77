//===- InstrProfIndexedTest.cpp - Counters in the indexed writer and reader ===//
//
// The oracle is llvm-profdata-22 itself: random counter profiles are written
// in LLVM's text format, which llvm-profdata turns into an indexed file; our
// writer, given the same content, must produce the same bytes, and our reader
// must read their file back to the same content. Then hostile variants of a
// real file must give errors, never crashes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cstdlib>
#include <map>
#include <random>
#include <set>

using namespace llvm;
using namespace memprof;

namespace {

const char *const ProfdataPath = "/usr/bin/llvm-profdata-22";

std::string writeToString(const CounterProfile &C,
                          const IndexedMemProf *M = nullptr) {
  SmallVector<char, 0> Out;
  auto W = writeIndexedProfile(C, M, IndexedWriterOptions(), Out);
  if (!W) {
    ADD_FAILURE() << toString(W.takeError());
    return "";
  }
  return std::string(Out.data(), Out.size());
}

struct TextProfile {
  CounterProfile Model;               // what the text says, in text order
  std::vector<std::string> Symbols;   // names kind-0/2 values refer to
  std::string Text;
};

/// A random profile and its text form (spec 4.1). Sites are sorted by count
/// descending with distinct counts, as LLVM's reader leaves them.
TextProfile randomProfile(std::mt19937_64 &Rng, uint64_t Variant,
                          bool Temporal) {
  TextProfile T;
  T.Model.Present = true;
  T.Model.Variant = Variant | (Temporal ? instrprof::VariantTemporal : 0);
  auto Pick = [&](uint64_t N) { return uint64_t(Rng() % N); };
  const bool CS = Variant & instrprof::VariantCSIR;
  unsigned NumNames = 1 + Pick(12);
  std::vector<std::string> Names;
  std::set<std::string> Seen;
  while (Names.size() < NumNames) {
    std::string N = Pick(3) == 0 ? "file.c;local" + std::to_string(Pick(50))
                                 : "_Z3fn" + std::to_string(Pick(1000));
    if (Seen.insert(N).second)
      Names.push_back(N);
  }
  T.Symbols = Names;
  T.Symbols.push_back("extern_target");
  raw_string_ostream OS(T.Text);
  if (CS)
    OS << "# CSIR level Instrumentation Flag\n:csir\n";
  else if (Variant & instrprof::VariantIR)
    OS << "# IR level Instrumentation Flag\n:ir\n";
  if (Variant & instrprof::VariantEntryFirst)
    OS << ":entry_first\n";
  if (Temporal) {
    unsigned NumTraces = Pick(4);
    OS << ":temporal_prof_traces\n# Num Temporal Profile Traces:\n"
       << NumTraces << "\n# Temporal Profile Trace Stream Size:\n"
       << NumTraces << "\n";
    T.Model.TraceStreamSize = NumTraces;
    for (unsigned I = 0; I < NumTraces; ++I) {
      TemporalTrace Tr;
      Tr.Weight = 1 + Pick(3);
      OS << "# Weight:\n" << Tr.Weight << "\n";
      unsigned Len = 1 + Pick(4);
      for (unsigned J = 0; J < Len; ++J) {
        const std::string &N = Names[Pick(Names.size())];
        Tr.FunctionNameRefs.push_back(MD5Hash(N));
        OS << N << ",";
      }
      OS << "\n";
      T.Model.Traces.push_back(Tr);
    }
  }
  for (const std::string &Name : Names) {
    unsigned NumRecords = 1 + (Pick(4) == 0 ? Pick(3) : 0);
    std::set<uint64_t> Hashes;
    for (unsigned R = 0; R < NumRecords; ++R) {
      FunctionCounters F;
      F.Name = Name;
      do {
        F.Hash = Rng() & ~instrprof::CSHashBit;
        if (CS && Pick(2))
          F.Hash |= instrprof::CSHashBit;
      } while (!Hashes.insert(F.Hash).second);
      unsigned NumCounts = 1 + Pick(6);
      for (unsigned I = 0; I < NumCounts; ++I) {
        uint64_t C = Pick(4) == 0 ? 0 : Pick(3) == 0 ? Rng() >> 3 : Pick(200);
        F.Counts.push_back(C);
      }
      if (Pick(3) == 0)
        for (unsigned I = 0, N = Pick(5); I < N; ++I)
          F.Bitmap.push_back(uint8_t(Rng()));
      for (unsigned K = 0; K < instrprof::NumValueKinds; ++K) {
        if (Pick(3) != 0)
          continue;
        unsigned NumSites = 1 + Pick(3);
        for (unsigned S = 0; S < NumSites; ++S) {
          InstrProfValueSite Site;
          std::set<uint64_t> Values;
          unsigned NumValues = Pick(4);
          uint64_t Count = 1000 + Pick(1000);
          for (unsigned V = 0; V < NumValues; ++V) {
            InstrProfValue IV;
            if (K == instrprof::ValueKindMemOPSize)
              IV.Value = Pick(600);
            else
              IV.Value = MD5Hash(T.Symbols[Pick(T.Symbols.size())]);
            if (!Values.insert(IV.Value).second)
              continue;
            Count -= 1 + Pick(100);
            IV.Count = Count;
            Site.push_back(IV);
          }
          F.Sites[K].push_back(Site);
        }
      }
      OS << Name << "\n# Func Hash:\n" << F.Hash << "\n# Num Counters:\n"
         << F.Counts.size() << "\n# Counter Values:\n";
      for (uint64_t C : F.Counts)
        OS << C << "\n";
      if (!F.Bitmap.empty()) {
        OS << "# Num Bitmap Bytes:\n$" << F.Bitmap.size()
           << "\n# Bitmap Byte Values:\n";
        for (uint8_t B : F.Bitmap)
          OS << "0x" << utohexstr(B) << "\n";
      }
      unsigned NumKinds = 0;
      for (auto &S : F.Sites)
        NumKinds += !S.empty();
      if (NumKinds) {
        OS << "# Num Value Kinds:\n" << NumKinds << "\n";
        for (unsigned K = 0; K < instrprof::NumValueKinds; ++K) {
          if (F.Sites[K].empty())
            continue;
          OS << "# ValueKind:\n" << K << "\n# NumValueSites:\n"
             << F.Sites[K].size() << "\n";
          for (const InstrProfValueSite &S : F.Sites[K]) {
            OS << S.size() << "\n";
            for (const InstrProfValue &V : S) {
              if (K == instrprof::ValueKindMemOPSize) {
                OS << V.Value;
              } else {
                for (const std::string &Sym : T.Symbols)
                  if (MD5Hash(Sym) == V.Value)
                    OS << Sym;
              }
              OS << ":" << V.Count << "\n";
            }
          }
        }
      }
      OS << "\n";
      T.Model.Records.push_back(std::move(F));
    }
  }
  return T;
}

/// The records of \p M reordered as LLVM's writer iterates them: names in
/// byte order, the records of a name in SmallDenseMap order.
std::vector<FunctionCounters> llvmOrder(const CounterProfile &M) {
  std::map<std::string, std::vector<const FunctionCounters *>> ByName;
  for (const FunctionCounters &F : M.Records)
    ByName[F.Name].push_back(&F);
  std::vector<FunctionCounters> Out;
  for (auto &[Name, Rs] : ByName) {
    std::vector<uint64_t> Hashes;
    for (const FunctionCounters *F : Rs)
      Hashes.push_back(F->Hash);
    for (size_t I : llvmRecordOrder(Hashes))
      Out.push_back(*Rs[I]);
  }
  return Out;
}

std::string runProfdata(StringRef Dir, StringRef Name, StringRef Text) {
  SmallString<256> In(Dir), Out(Dir), Err(Dir);
  sys::path::append(In, Name + ".txt");
  sys::path::append(Out, Name + ".profdata");
  sys::path::append(Err, Name + ".err");
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    EXPECT_FALSE(EC);
    OS << Text;
  }
  std::string Cmd = std::string(ProfdataPath) + " merge '" + In.str().str() +
                    "' -o '" + Out.str().str() + "' 2>'" + Err.str().str() +
                    "'";
  if (int RC = std::system(Cmd.c_str())) {
    auto E = MemoryBuffer::getFile(Err);
    ADD_FAILURE() << "llvm-profdata failed (" << RC << "): " << Cmd << "\n"
                  << (E ? (*E)->getBuffer().str() : "") << "\n"
                  << Text.str();
    return "";
  }
  auto B = MemoryBuffer::getFile(Out);
  if (!B) {
    ADD_FAILURE() << "cannot read " << Out.str().str();
    return "";
  }
  return (*B)->getBuffer().str();
}

/// First differing byte, for messages.
std::string firstDifference(StringRef A, StringRef B) {
  size_t I = 0;
  while (I < A.size() && I < B.size() && A[I] == B[I])
    ++I;
  return "sizes " + std::to_string(A.size()) + "/" + std::to_string(B.size()) +
         ", first difference at " + std::to_string(I);
}

TEST(InstrProfIndexedOracle, RandomTextProfilesByteIdentical) {
  if (!sys::fs::can_execute(ProfdataPath))
    GTEST_SKIP() << "llvm-profdata-22 not installed";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-instrprof-oracle", Dir));
  std::mt19937_64 Rng(20261126);
  const uint64_t Variants[] = {
      instrprof::VariantIR, instrprof::VariantIR | instrprof::VariantCSIR, 0,
      instrprof::VariantIR | instrprof::VariantEntryFirst};
  unsigned Compared = 0;
  for (unsigned I = 0; I < 48; ++I) {
    uint64_t Variant = Variants[I % 4];
    bool Temporal = I % 5 == 4 && (Variant & instrprof::VariantIR);
    TextProfile T = randomProfile(Rng, Variant, Temporal);
    std::string Theirs =
        runProfdata(Dir, "p" + std::to_string(I), T.Text);
    if (Theirs.empty())
      break;
    CounterProfile Ordered = T.Model;
    Ordered.Records = llvmOrder(T.Model);
    std::string Ours = writeToString(Ordered);
    EXPECT_TRUE(Ours == Theirs)
        << "profile " << I << ": " << firstDifference(Ours, Theirs) << "\n"
        << T.Text;
    ++Compared;

    // Our reader on their file gives back the content, in table order.
    IndexedProfileInfo Info;
    CounterProfile Read;
    auto P = readIndexedProfile(Theirs, &Info, nullptr, &Read);
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    EXPECT_TRUE(Read.Present);
    EXPECT_EQ(Read.Variant, Ordered.Variant);
    EXPECT_EQ(Info.MemProfVersion, 0u);
    std::multiset<std::pair<std::string, uint64_t>> Want, Got;
    ASSERT_EQ(Read.Records.size(), Ordered.Records.size());
    std::map<std::pair<std::string, uint64_t>, const FunctionCounters *> ByKey;
    for (const FunctionCounters &F : Ordered.Records)
      ByKey[{F.Name, F.Hash}] = &F;
    for (const FunctionCounters &F : Read.Records) {
      auto It = ByKey.find({F.Name, F.Hash});
      ASSERT_NE(It, ByKey.end()) << F.Name;
      EXPECT_TRUE(*It->second == F) << F.Name;
    }
    EXPECT_EQ(Read.Traces, Ordered.Traces);
    EXPECT_EQ(Read.TraceStreamSize, Ordered.TraceStreamSize);
    // And writing what we read gives their bytes again.
    std::string Again = writeToString(Read);
    EXPECT_TRUE(Again == Theirs) << firstDifference(Again, Theirs);
  }
  EXPECT_EQ(Compared, 48u);
  sys::fs::remove_directories(Dir);
}

TEST(InstrProfSummary, LLVMsRules) {
  // Spec 3.2: CS records apart, pseudo counts skipped, every counter counted,
  // cutoffs walked over counts in descending order.
  std::vector<FunctionCounters> Rs(4);
  Rs[0].Name = "a";
  Rs[0].Counts = {13, 2, 2, 7, 11, 5};
  Rs[1].Name = "b";
  Rs[1].Counts = {4};
  Rs[2].Name = "c";
  Rs[2].Hash = instrprof::CSHashBit;
  Rs[2].Counts = {100};
  Rs[3].Name = "d";
  Rs[3].Counts = {instrprof::PseudoHot, 5};
  InstrProfSummary S = computeInstrProfSummary(Rs, false);
  EXPECT_EQ(S.TotalNumFunctions, 2u);
  EXPECT_EQ(S.TotalNumBlocks, 7u);
  EXPECT_EQ(S.MaxFunctionCount, 13u);
  EXPECT_EQ(S.MaxBlockCount, 13u);
  EXPECT_EQ(S.MaxInternalBlockCount, 11u);
  EXPECT_EQ(S.TotalBlockCount, 44u);
  ASSERT_EQ(S.Detailed.size(), size_t(indexed::NumCutoffs));
  // 1% of 44 is 0 (truncated): nothing needed yet.
  EXPECT_EQ(S.Detailed[0].MinCount, 0u);
  EXPECT_EQ(S.Detailed[0].NumCounts, 0u);
  // 10% of 44 = 4: the count 13 reaches it.
  EXPECT_EQ(S.Detailed[1].MinCount, 13u);
  EXPECT_EQ(S.Detailed[1].NumCounts, 1u);
  // 99.9999%: every count but the smallest repeated one? 44*0.999999 = 43.
  EXPECT_EQ(S.Detailed[15].MinCount, 2u);
  EXPECT_EQ(S.Detailed[15].NumCounts, 7u);
  InstrProfSummary CS = computeInstrProfSummary(Rs, true);
  EXPECT_EQ(CS.TotalNumFunctions, 1u);
  EXPECT_EQ(CS.TotalBlockCount, 100u);
}

CounterProfile smallProfile() {
  CounterProfile C;
  C.Present = true;
  C.Variant = instrprof::VariantIR | instrprof::VariantTemporal;
  FunctionCounters F;
  F.Name = "main";
  F.Hash = 0x1234;
  F.Counts = {5, 6, 7};
  F.Bitmap = {0x12, 0x34};
  F.Sites[0] = {{{MD5Hash("g"), 3}, {0, 1}}};
  F.Sites[1] = {{{8, 2}}, {}};
  C.Records.push_back(F);
  F.Name = "g";
  F.Hash = 0x99;
  F.Counts = {3};
  F.Bitmap.clear();
  F.Sites = {};
  C.Records.push_back(F);
  C.BinaryIds = {std::string("\x01\x02\x03", 3), std::string(20, '\xab')};
  C.Traces = {{2, {MD5Hash("main"), MD5Hash("g")}}};
  C.TraceStreamSize = 1;
  C.VTableNames = {"_ZTV2Sq", "_ZTV3Tri"};
  return C;
}

TEST(InstrProfIndexed, RoundTripEverySection) {
  CounterProfile C = smallProfile();
  std::string Bytes = writeToString(C);
  ASSERT_FALSE(Bytes.empty());
  CounterProfile R;
  IndexedProfileInfo Info;
  auto P = readIndexedProfile(Bytes, &Info, nullptr, &R);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(Info.NumFunctionRecords, 2u);
  ASSERT_EQ(R.Records.size(), 2u);
  // Table order: "g" and "main" by their hashes' buckets; compare by name.
  for (const FunctionCounters &F : R.Records)
    EXPECT_TRUE(F == (F.Name == "main" ? C.Records[0] : C.Records[1]))
        << F.Name;
  std::vector<std::string> Ids = C.BinaryIds;
  llvm::sort(Ids);
  EXPECT_EQ(R.BinaryIds, Ids);
  EXPECT_EQ(R.Traces, C.Traces);
  EXPECT_EQ(R.TraceStreamSize, 1u);
  EXPECT_EQ(R.VTableNames, C.VTableNames);
  EXPECT_EQ(R.Variant, C.Variant);
  EXPECT_TRUE(R.Present);
}

TEST(InstrProfIndexed, MemProfOnlyFileHasNoCounters) {
  IndexedMemProf M;
  std::string Bytes = writeToString(CounterProfile(), &M);
  CounterProfile R;
  R.Present = true;
  auto P = readIndexedProfile(Bytes, nullptr, nullptr, &R);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_FALSE(R.Present);
  EXPECT_TRUE(R.Records.empty());
  // The version word: 13 | MemProf only.
  EXPECT_EQ(support::endian::read64le(Bytes.data() + 8),
            indexed::VersionWritten | indexed::VariantMemProf);
}

TEST(InstrProfIndexed, WriterRefusesWhatTheFormatCannotHold) {
  CounterProfile C = smallProfile();
  C.Records[0].Counts.clear();
  SmallVector<char, 0> Out;
  auto W = writeIndexedProfile(C, nullptr, IndexedWriterOptions(), Out);
  ASSERT_FALSE(bool(W));
  EXPECT_NE(toString(W.takeError()).find("no counters"), std::string::npos);
  C = smallProfile();
  C.Records[0].Sites[1][0].resize(256, {1, 1});
  W = writeIndexedProfile(C, nullptr, IndexedWriterOptions(), Out);
  ASSERT_FALSE(bool(W));
  EXPECT_NE(toString(W.takeError()).find("256 values"), std::string::npos);
}

Error readCounters(StringRef Bytes) {
  CounterProfile R;
  auto P = readIndexedProfile(Bytes, nullptr, nullptr, &R);
  return P ? Error::success() : P.takeError();
}

TEST(InstrProfIndexedHostile, EveryPrefixFails) {
  std::string Bytes = writeToString(smallProfile());
  ASSERT_FALSE(readCounters(Bytes));
  for (size_t N = 0; N < Bytes.size(); ++N) {
    Error E = readCounters(StringRef(Bytes).take_front(N));
    EXPECT_TRUE(bool(E)) << "prefix of " << N << " bytes was accepted";
    consumeError(std::move(E));
  }
}

TEST(InstrProfIndexedHostile, CorruptedFieldsGiveErrors) {
  const std::string Good = writeToString(smallProfile());
  // Every single-byte change in the function table payload either still
  // reads or fails with an error; none crashes (run under ASan in CI).
  const uint64_t Table = support::endian::read64le(Good.data() + 32);
  unsigned Errors = 0;
  for (size_t I = 72 + 448; I < Table + 16; ++I) {
    for (uint8_t X : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::string B = Good;
      B[I] ^= char(X);
      Error E = readCounters(B);
      Errors += bool(E);
      consumeError(std::move(E));
    }
  }
  EXPECT_GT(Errors, 0u);

  // Specific cases with their messages.
  auto ErrorOf = [](const std::string &B) {
    Error E = readCounters(B);
    return E ? toString(std::move(E)) : std::string("accepted");
  };
  // The first item of the table: its hash no longer matches its name.
  const uint64_t Bucket0 = [&] {
    uint64_t NumBuckets = support::endian::read64le(Good.data() + Table);
    for (uint64_t B = 0; B < NumBuckets; ++B)
      if (uint64_t Off = support::endian::read64le(Good.data() + Table + 16 +
                                                    8 * B))
        return Off;
    return uint64_t(0);
  }();
  ASSERT_NE(Bucket0, 0u);
  {
    // Item: u16 count, u64 hash, u64 key length, u64 data length, key, data.
    std::string B = Good;
    uint64_t KeyLenAt = Bucket0 + 2 + 8;
    support::endian::write64le(&B[KeyLenAt + 8],
                               support::endian::read64le(&B[KeyLenAt + 8]) + 3);
    EXPECT_NE(ErrorOf(B), "accepted");
  }
  {
    std::string B = Good;
    uint64_t DataLenAt = Bucket0 + 2 + 16;
    support::endian::write64le(&B[DataLenAt], 1ULL << 60);
    EXPECT_NE(ErrorOf(B).find("data length"), std::string::npos) << ErrorOf(B);
  }
  {
    // A record claiming 2^61 counters.
    std::string B = Good;
    uint64_t KeyLen = support::endian::read64le(&B[Bucket0 + 2 + 8]);
    uint64_t RecordAt = Bucket0 + 2 + 24 + KeyLen;
    support::endian::write64le(&B[RecordAt + 8], 1ULL << 61);
    EXPECT_NE(ErrorOf(B).find("counter count"), std::string::npos)
        << ErrorOf(B);
  }
  {
    // The temporal trace count.
    std::string B = Good;
    uint64_t Traces = support::endian::read64le(B.data() + 56);
    support::endian::write64le(&B[Traces], ~0ULL);
    EXPECT_NE(ErrorOf(B).find("temporal trace"), std::string::npos)
        << ErrorOf(B);
  }
}

} // namespace

namespace {

TEST(InstrProfIndexedHostile, RepeatedHashUnderOneNameAmongManyRecords) {
  // 100,000 records under one name, the last repeating the first's hash:
  // an error naming the hash, found without comparing every pair.
  CounterProfile C;
  C.Present = true;
  C.Variant = instrprof::VariantIR;
  for (uint64_t I = 0; I < 100000; ++I) {
    FunctionCounters F;
    F.Name = "f";
    F.Hash = I + 1;
    F.Counts = {I};
    C.Records.push_back(std::move(F));
  }
  C.Records.back().Hash = 1;
  std::string Bytes = writeToString(C);
  ASSERT_FALSE(Bytes.empty());
  Error E = readCounters(Bytes);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("'f' has two records with hash 0x1"),
            std::string::npos);
}

} // namespace
