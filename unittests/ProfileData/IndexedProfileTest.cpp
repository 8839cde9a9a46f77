//===- IndexedProfileTest.cpp - Indexed profile writer and reader ---------===//
//
// The golden file of spec 3.11, byte identity with llvm-profdata-22 on random
// profiles (V2/V3/V4 x hot-cold/full schema), write-read round trips, and
// hostile input: prefixes, seeded corruptions and specific structural lies.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cstdlib>
#include <iostream>
#include <random>

using namespace memprof;
using namespace llvm;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

uint64_t rd64(StringRef B, uint64_t Off) {
  return support::endian::read64le(B.data() + Off);
}
uint32_t rd32(StringRef B, uint64_t Off) {
  return support::endian::read32le(B.data() + Off);
}
uint16_t rd16(StringRef B, uint64_t Off) {
  return support::endian::read16le(B.data() + Off);
}
void wr64(std::string &B, uint64_t Off, uint64_t V) {
  support::endian::write64le(&B[Off], V);
}
void wr32(std::string &B, uint64_t Off, uint32_t V) {
  support::endian::write32le(&B[Off], V);
}

/// The error class of \p E (consumed), or std::nullopt on success. Also
/// checks the house style of the message.
std::optional<ErrorCode> errorCode(Error E) {
  if (!E)
    return std::nullopt;
  std::optional<ErrorCode> Code;
  handleAllErrors(std::move(E), [&](const MemProfError &M) {
    Code = M.code();
    const std::string &D = M.detail();
    EXPECT_FALSE(D.empty());
    if (!D.empty()) {
      EXPECT_FALSE(D[0] >= 'A' && D[0] <= 'Z') << D;
      EXPECT_NE(D.back(), '.') << D;
    }
  });
  return Code;
}

template <typename T> std::optional<ErrorCode> errorCode(Expected<T> &&V) {
  if (V)
    return std::nullopt;
  return errorCode(V.takeError());
}

std::string writeToString(const IndexedMemProf &P, unsigned Version, bool Full,
                          IndexedWriteStats *StatsOut = nullptr) {
  SmallVector<char, 0> Out;
  IndexedWriterOptions Opts;
  Opts.MemProfVersion = Version;
  Opts.FullSchema = Full;
  auto Stats = writeIndexedProfile(P, Opts, Out);
  EXPECT_TRUE(bool(Stats)) << toString(Stats.takeError());
  if (Stats && StatsOut)
    *StatsOut = *Stats;
  return std::string(Out.begin(), Out.end());
}

const GUID WrapGuid = 0x65186e62ed9360f0ULL;

/// The profile of spec 3.11 / the YAML example of spec 4, built in the order
/// LLVM's YAML reader builds it.
IndexedMemProf exampleProfile() {
  const GUID Main = functionGUID("main");
  const GUID AllocA = functionGUID("_Z7alloc_am");
  IndexedMemProf P;
  {
    IndexedRecord R;
    IndexedCallSite CS;
    CS.CSId = P.addCallStack({Frame{WrapGuid, 0, 57, false}});
    R.CallSites.push_back(CS);
    P.Records.insert({WrapGuid, R});
  }
  {
    IndexedRecord R;
    IndexedAllocSite A;
    A.CSId = P.addCallStack({Frame{AllocA, 0, 67, false},
                             Frame{WrapGuid, 0, 57, false},
                             Frame{Main, 2, 15, false}});
    A.Info.AllocCount = 3;
    A.Info.TotalSize = 300;
    A.Info.TotalLifetime = 0;
    A.Info.TotalLifetimeAccessDensity = 42000;
    R.AllocSites.push_back(A);
    P.Records.insert({AllocA, R});
  }
  {
    IndexedRecord R;
    IndexedAllocSite A;
    A.CSId = P.addCallStack({Frame{Main, 6, 13, false}});
    A.Info.AllocCount = 1;
    A.Info.TotalSize = 48;
    A.Info.TotalLifetime = 0;
    A.Info.TotalLifetimeAccessDensity = 100000;
    R.AllocSites.push_back(A);
    IndexedCallSite CS;
    CS.CSId = P.addCallStack({Frame{Main, 2, 15, false}});
    CS.CalleeGuids.push_back(WrapGuid);
    R.CallSites.push_back(CS);
    P.Records.insert({Main, R});
  }
  return P;
}

//===----------------------------------------------------------------------===//
// A random "YAML document" and its two renderings: LLVM MemProf YAML and the
// IndexedMemProf LLVM's YAML reader would build from it.
//===----------------------------------------------------------------------===//

struct DocAlloc {
  std::vector<Frame> Stack;
  MemInfoBlock Info;
};
struct DocCall {
  std::vector<Frame> Frames;
  std::vector<GUID> Callees;
};
struct DocRecord {
  GUID G = 0;
  std::vector<DocAlloc> Allocs;
  std::vector<DocCall> Calls;
};
using Doc = std::vector<DocRecord>;

class Rng {
public:
  explicit Rng(uint64_t Seed) : R(Seed) {}
  uint64_t next() { return R(); }
  /// Uniform in [Lo, Hi].
  uint64_t in(uint64_t Lo, uint64_t Hi) {
    return Lo + (Hi - Lo == ~0ULL ? R() : R() % (Hi - Lo + 1));
  }
  bool chance(unsigned Percent) { return R() % 100 < Percent; }

private:
  std::mt19937_64 R;
};

MemInfoBlock randomMIB(Rng &R) {
  MemInfoBlock M;
  for (unsigned T = 1; T <= NumMIBTags; ++T) {
    bool Small = R.chance(50);
    uint64_t V = mibFieldWidth(T) == 4
                     ? (Small ? R.in(0, 1000) : R.in(0, UINT32_MAX))
                     : (Small ? R.in(0, 100000) : R.next());
    M.set(T, V);
  }
  // Make a good share of the contexts cold, some with AllocCount 0.
  if (R.chance(35)) {
    M.AllocCount = R.in(1, 100);
    M.TotalLifetime = M.AllocCount * R.in(150000, 10000000);
    M.TotalLifetimeAccessDensity = R.in(0, M.AllocCount * 8);
  } else if (R.chance(5)) {
    M.AllocCount = 0;
  }
  return M;
}

Doc randomDoc(uint64_t Seed) {
  Rng R(Seed);
  // Function GUIDs; half of them share low bits so that buckets collide at
  // every table size and the resize reversal matters.
  static const uint64_t LowBits[] = {0x00, 0x08, 0x40, 0x48, 0x88, 0xc8, 0x01};
  std::vector<GUID> Funcs;
  unsigned NumFuncs = R.in(3, 40);
  for (unsigned I = 0; I < NumFuncs; ++I)
    Funcs.push_back(R.chance(50) ? (R.next() & ~0xffULL) | LowBits[R.in(0, 6)]
                                 : R.next());
  std::vector<Frame> Pool;
  for (GUID F : Funcs) {
    unsigned N = R.in(1, 3);
    for (unsigned I = 0; I < N; ++I) {
      Frame Fr;
      Fr.Function = F;
      Fr.LineOffset = R.chance(3) ? UINT32_MAX : R.in(0, 60);
      Fr.Column = R.chance(3) ? UINT32_MAX : R.in(0, 90);
      Fr.IsInlineFrame = R.chance(25);
      Pool.push_back(Fr);
    }
  }
  auto PoolFrame = [&] { return Pool[R.in(0, Pool.size() - 1)]; };
  // Root-side chains shared by many stacks.
  std::vector<std::vector<Frame>> Roots;
  unsigned NumRoots = R.in(1, 5);
  for (unsigned I = 0; I < NumRoots; ++I) {
    std::vector<Frame> Chain;
    unsigned Len = R.in(0, 6);
    for (unsigned J = 0; J < Len; ++J)
      Chain.push_back(PoolFrame());
    Roots.push_back(Chain);
  }

  Doc D;
  std::vector<std::vector<Frame>> PastStacks;
  unsigned NumRecords = R.chance(35) ? R.in(40, 160) : R.in(1, 20);
  for (unsigned I = 0; I < NumRecords; ++I) {
    DocRecord Rec;
    if (!D.empty() && R.chance(5))
      Rec.G = D[R.in(0, D.size() - 1)].G; // a duplicate: the first one wins
    else if (R.chance(20))
      Rec.G = Funcs[R.in(0, Funcs.size() - 1)];
    else
      Rec.G =
          R.chance(50) ? (R.next() & ~0xffULL) | LowBits[R.in(0, 6)] : R.next();
    unsigned NumAllocs = R.in(0, 3);
    for (unsigned A = 0; A < NumAllocs; ++A) {
      DocAlloc Al;
      if (!PastStacks.empty() && R.chance(15)) {
        Al.Stack = PastStacks[R.in(0, PastStacks.size() - 1)];
      } else {
        unsigned Leaves = R.in(1, 4);
        for (unsigned J = 0; J < Leaves; ++J)
          Al.Stack.push_back(PoolFrame());
        if (R.chance(50))
          Al.Stack[0].Function = Rec.G;
        const auto &Root = Roots[R.in(0, Roots.size() - 1)];
        Al.Stack.insert(Al.Stack.end(), Root.begin(), Root.end());
      }
      PastStacks.push_back(Al.Stack);
      Al.Info = randomMIB(R);
      Rec.Allocs.push_back(Al);
    }
    unsigned NumCalls = R.in(0, 3);
    for (unsigned C = 0; C < NumCalls; ++C) {
      DocCall Ca;
      unsigned Len = R.in(1, 3);
      for (unsigned J = 0; J < Len; ++J)
        Ca.Frames.push_back(PoolFrame());
      unsigned NumCallees = R.in(0, 3);
      for (unsigned J = 0; J < NumCallees; ++J)
        Ca.Callees.push_back(Funcs[R.in(0, Funcs.size() - 1)]);
      Rec.Calls.push_back(Ca);
    }
    D.push_back(Rec);
  }
  return D;
}

/// What LLVM's YAMLMemProfReader builds: per record in document order, each
/// alloc site's frames then its stack, then each call site's; try_emplace.
IndexedMemProf buildIndexed(const Doc &D) {
  IndexedMemProf P;
  for (const DocRecord &Rec : D) {
    IndexedRecord IR;
    for (const DocAlloc &A : Rec.Allocs)
      IR.AllocSites.push_back({P.addCallStack(A.Stack), A.Info});
    for (const DocCall &C : Rec.Calls) {
      IndexedCallSite CS;
      CS.CSId = P.addCallStack(C.Frames);
      CS.CalleeGuids.assign(C.Callees.begin(), C.Callees.end());
      IR.CallSites.push_back(CS);
    }
    P.Records.insert({Rec.G, std::move(IR)});
  }
  return P;
}

std::string hexGuid(uint64_t G) { return "0x" + utohexstr(G, /*Lower=*/true); }

void yamlFrame(raw_ostream &OS, const Frame &F) {
  OS << "{ Function: " << hexGuid(F.Function)
     << ", LineOffset: " << F.LineOffset << ", Column: " << F.Column
     << ", IsInlineFrame: " << (F.IsInlineFrame ? "true" : "false") << " }";
}

std::string toYAML(const Doc &D) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "---\nHeapProfileRecords:\n";
  for (const DocRecord &Rec : D) {
    OS << "  - GUID: " << hexGuid(Rec.G) << "\n";
    if (!Rec.Allocs.empty()) {
      OS << "    AllocSites:\n";
      for (const DocAlloc &A : Rec.Allocs) {
        OS << "      - Callstack:\n";
        for (const Frame &F : A.Stack) {
          OS << "          - ";
          yamlFrame(OS, F);
          OS << "\n";
        }
        OS << "        MemInfoBlock:\n";
        for (unsigned T = 1; T <= NumMIBTags; ++T)
          OS << "          " << mibFieldName(T) << ": " << A.Info.get(T)
             << "\n";
      }
    }
    if (!Rec.Calls.empty()) {
      OS << "    CallSites:\n";
      for (const DocCall &C : Rec.Calls) {
        OS << "      - Frames:\n";
        for (const Frame &F : C.Frames) {
          OS << "          - ";
          yamlFrame(OS, F);
          OS << "\n";
        }
        if (!C.Callees.empty()) {
          OS << "        CalleeGuids: [ ";
          for (size_t I = 0; I < C.Callees.size(); ++I)
            OS << (I ? ", " : "") << hexGuid(C.Callees[I]);
          OS << " ]\n";
        }
      }
    }
  }
  OS << "...\n";
  return S;
}

/// Checks that \p Got, read back from a file written from \p Want with
/// \p Schema and \p Version, holds the same records, stacks and MIB fields.
void expectSameProfile(const IndexedMemProf &Want, const IndexedMemProf &Got,
                       ArrayRef<uint8_t> Schema, unsigned Version) {
  ASSERT_EQ(Want.Records.size(), Got.Records.size());
  for (const auto &[G, WR] : Want.Records) {
    auto It = Got.Records.find(G);
    ASSERT_NE(It, Got.Records.end()) << "missing record " << hexGuid(G);
    const IndexedRecord &GR = It->second;
    ASSERT_EQ(WR.AllocSites.size(), GR.AllocSites.size());
    for (size_t I = 0; I < WR.AllocSites.size(); ++I) {
      const auto &WA = WR.AllocSites[I];
      const auto &GA = GR.AllocSites[I];
      EXPECT_EQ(WA.CSId, GA.CSId);
      EXPECT_EQ(Want.stackFrames(WA.CSId), Got.stackFrames(GA.CSId));
      for (unsigned T = 1; T <= NumMIBTags; ++T) {
        bool InSchema = is_contained(Schema, T);
        uint64_t W = WA.Info.get(T);
        if (mibFieldWidth(T) == 4)
          W = std::min<uint64_t>(W, UINT32_MAX);
        EXPECT_EQ(InSchema ? W : 0, GA.Info.get(T))
            << "field " << mibFieldName(T).str();
      }
    }
    ASSERT_EQ(WR.CallSites.size(), GR.CallSites.size());
    for (size_t I = 0; I < WR.CallSites.size(); ++I) {
      const auto &WC = WR.CallSites[I];
      const auto &GC = GR.CallSites[I];
      EXPECT_EQ(WC.CSId, GC.CSId);
      EXPECT_EQ(Want.stackFrames(WC.CSId), Got.stackFrames(GC.CSId));
      if (Version >= 4)
        EXPECT_EQ(WC.CalleeGuids, GC.CalleeGuids);
      else
        EXPECT_TRUE(GC.CalleeGuids.empty());
    }
  }
  // Every frame and stack the reader added is a referenced one.
  for (const auto &[Id, Stack] : Got.CallStacks) {
    EXPECT_TRUE(Want.CallStacks.count(Id));
    for (FrameId F : Stack)
      EXPECT_EQ(Want.Frames.lookup(F), Got.Frames.lookup(F));
  }
}

struct Config {
  unsigned Version;
  bool Full;
};
const Config AllConfigs[] = {{2, false}, {2, true},  {3, false},
                             {3, true},  {4, false}, {4, true}};

std::string configName(const Config &C) {
  return "V" + std::to_string(C.Version) + (C.Full ? " full" : " hot/cold");
}

//===----------------------------------------------------------------------===//
// 1. The golden file of spec 3.11
//===----------------------------------------------------------------------===//

TEST(IndexedWriter, GoldenExampleV3) {
  IndexedMemProf P = exampleProfile();
  IndexedWriteStats Stats;
  std::string B = writeToString(P, 3, false, &Stats);
  ASSERT_EQ(B.size(), 1040u);
  EXPECT_EQ(Stats.SaturatedFields, 0u);
  StringRef S = B;

  // Header.
  EXPECT_EQ(S.substr(0, 8), StringRef("\xff\x6c\x70\x72\x6f\x66\x69\x81", 8));
  EXPECT_EQ(rd64(S, 0x08), 0x400000000000000DULL);
  EXPECT_EQ(rd64(S, 0x10), 0u);
  EXPECT_EQ(rd64(S, 0x18), 0u);
  EXPECT_EQ(rd64(S, 0x20), 0x208u);
  EXPECT_EQ(rd64(S, 0x28), 0x220u);
  EXPECT_EQ(rd64(S, 0x30), 0x400u);
  EXPECT_EQ(rd64(S, 0x38), 0u);
  EXPECT_EQ(rd64(S, 0x40), 0x408u);

  // InstrProf summary.
  EXPECT_EQ(rd64(S, 0x48), 6u);
  EXPECT_EQ(rd64(S, 0x50), 16u);
  for (unsigned I = 0; I < 6; ++I)
    EXPECT_EQ(rd64(S, 0x58 + 8 * I), 0u);
  for (unsigned I = 0; I < 16; ++I) {
    EXPECT_EQ(rd64(S, 0x88 + 24 * I), indexed::DefaultCutoffs[I]);
    EXPECT_EQ(rd64(S, 0x88 + 24 * I + 8), 0u);
    EXPECT_EQ(rd64(S, 0x88 + 24 * I + 16), 0u);
  }

  // Empty function table.
  EXPECT_EQ(rd64(S, 0x208), 1u);
  EXPECT_EQ(rd64(S, 0x210), 0u);
  EXPECT_EQ(rd64(S, 0x218), 0u);

  // MemProf V3 header and schema.
  EXPECT_EQ(rd64(S, 0x220), 3u);
  EXPECT_EQ(rd64(S, 0x228), 0x2acu);
  EXPECT_EQ(rd64(S, 0x230), 0x2d4u);
  EXPECT_EQ(rd64(S, 0x238), 0x3b0u);
  EXPECT_EQ(rd64(S, 0x240), 4u);
  EXPECT_EQ(rd64(S, 0x248), 1u);
  EXPECT_EQ(rd64(S, 0x250), 5u);
  EXPECT_EQ(rd64(S, 0x258), 10u);
  EXPECT_EQ(rd64(S, 0x260), 23u);

  // Frame array: {wrap,0,57} {main,2,15} {main,6,13} {alloc_a,0,67}.
  const GUID Main = functionGUID("main"), AllocA = functionGUID("_Z7alloc_am");
  const Frame Frames[] = {{WrapGuid, 0, 57, false},
                          {Main, 2, 15, false},
                          {Main, 6, 13, false},
                          {AllocA, 0, 67, false}};
  for (unsigned I = 0; I < 4; ++I) {
    uint64_t Off = 0x268 + 17 * I;
    EXPECT_EQ(rd64(S, Off), Frames[I].Function) << I;
    EXPECT_EQ(rd32(S, Off + 8), Frames[I].LineOffset) << I;
    EXPECT_EQ(rd32(S, Off + 12), Frames[I].Column) << I;
    EXPECT_EQ(uint8_t(S[Off + 16]), 0) << I;
  }

  // Radix array.
  const uint32_t Radix[] = {1, 2, 1, 0xfffffffc, 3, 3, 0, 1, 1, 0};
  for (unsigned I = 0; I < 10; ++I)
    EXPECT_EQ(rd32(S, 0x2ac + 4 * I), Radix[I]) << I;

  // Bucket 0: wrap, then alloc_a.
  EXPECT_EQ(rd16(S, 0x2d4), 2u);
  uint64_t Off = 0x2d6;
  EXPECT_EQ(rd64(S, Off), WrapGuid);
  EXPECT_EQ(rd64(S, Off + 8), 8u);
  EXPECT_EQ(rd64(S, Off + 16), 20u);
  EXPECT_EQ(rd64(S, Off + 24), WrapGuid);
  EXPECT_EQ(rd64(S, Off + 32), 0u); // NumAllocSites
  EXPECT_EQ(rd64(S, Off + 40), 1u); // NumCallSites
  EXPECT_EQ(rd32(S, Off + 48), 8u);
  Off += 52;
  EXPECT_EQ(rd64(S, Off), AllocA);
  EXPECT_EQ(rd64(S, Off + 8), 8u);
  EXPECT_EQ(rd64(S, Off + 16), 48u);
  EXPECT_EQ(rd64(S, Off + 24), AllocA);
  EXPECT_EQ(rd64(S, Off + 32), 1u);
  EXPECT_EQ(rd32(S, Off + 40), 4u);
  EXPECT_EQ(rd32(S, Off + 44), 3u);
  EXPECT_EQ(rd64(S, Off + 48), 300u);
  EXPECT_EQ(rd64(S, Off + 56), 0u);
  EXPECT_EQ(rd64(S, Off + 64), 42000u);
  EXPECT_EQ(rd64(S, Off + 72), 0u);
  Off += 80;
  // Bucket 2: main.
  ASSERT_EQ(Off, 0x35au);
  EXPECT_EQ(rd16(S, 0x35a), 1u);
  Off = 0x35c;
  EXPECT_EQ(rd64(S, Off), Main);
  EXPECT_EQ(rd64(S, Off + 16), 52u);
  EXPECT_EQ(rd64(S, Off + 32), 1u);
  EXPECT_EQ(rd32(S, Off + 40), 0u);
  EXPECT_EQ(rd32(S, Off + 44), 1u);
  EXPECT_EQ(rd64(S, Off + 48), 48u);
  EXPECT_EQ(rd64(S, Off + 56), 0u);
  EXPECT_EQ(rd64(S, Off + 64), 100000u);
  EXPECT_EQ(rd64(S, Off + 72), 1u);
  EXPECT_EQ(rd32(S, Off + 80), 2u);

  // Record bucket header.
  EXPECT_EQ(rd64(S, 0x3b0), 8u);
  EXPECT_EQ(rd64(S, 0x3b8), 3u);
  const uint64_t Buckets[] = {0x2d4, 0, 0x35a, 0, 0, 0, 0, 0};
  for (unsigned I = 0; I < 8; ++I)
    EXPECT_EQ(rd64(S, 0x3c0 + 8 * I), Buckets[I]) << I;

  // Binary ids and vtable names.
  EXPECT_EQ(rd64(S, 0x400), 0u);
  EXPECT_EQ(rd64(S, 0x408), 0u);
}

TEST(IndexedWriter, Deterministic) {
  for (const Config &C : AllConfigs) {
    IndexedMemProf P = buildIndexed(randomDoc(7));
    EXPECT_EQ(writeToString(P, C.Version, C.Full),
              writeToString(P, C.Version, C.Full))
        << configName(C);
  }
}

TEST(IndexedWriter, SummaryAndClassification) {
  // Cold: density/AC/100 < 0.05 and lifetime/AC >= 200000 ms.
  EXPECT_EQ(classifyAllocation(0, 1, 200000), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(0, 1, 199999), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(4, 1, 200000), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(5, 1, 200000), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(9, 2, 400000), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(0, 0, 1000000), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(~0ULL, 1, ~0ULL), AllocClass::NotCold);

  IndexedMemProf P = exampleProfile();
  MemProfSummary S = computeSummary(P);
  EXPECT_EQ(S.NumContexts, 2u);
  EXPECT_EQ(S.NumColdContexts, 0u);
  EXPECT_EQ(S.NumHotContexts, 0u);
  EXPECT_EQ(S.MaxWarmTotalSize, 300u);

  // The same context attached to two records counts once.
  IndexedMemProf Q;
  CallStackId CS =
      Q.addCallStack({Frame{1, 2, 3, true}, Frame{4, 5, 6, false}});
  IndexedAllocSite A;
  A.CSId = CS;
  A.Info.AllocCount = 1;
  A.Info.TotalLifetime = 500000;
  A.Info.TotalSize = 77;
  Q.Records[1].AllocSites.push_back(A);
  Q.Records[4].AllocSites.push_back(A);
  S = computeSummary(Q);
  EXPECT_EQ(S.NumContexts, 1u);
  EXPECT_EQ(S.NumColdContexts, 1u);
  EXPECT_EQ(S.MaxColdTotalSize, 77u);
  EXPECT_EQ(S.MaxWarmTotalSize, 0u);

  // V4 stores it after the u32 field count.
  std::string B = writeToString(Q, 4, false);
  StringRef Buf = B;
  uint64_t Sec = rd64(Buf, 40);
  EXPECT_EQ(rd64(Buf, Sec), 4u);
  EXPECT_EQ(rd64(Buf, Sec + 32), 0u); // DataAccessProfOffset
  EXPECT_EQ(rd32(Buf, Sec + 40), 6u);
  EXPECT_EQ(rd64(Buf, Sec + 44), 1u);
  EXPECT_EQ(rd64(Buf, Sec + 52), 1u);
  EXPECT_EQ(rd64(Buf, Sec + 68), 77u);
  std::optional<MemProfSummary> Stored;
  auto R = readIndexedProfile(Buf, nullptr, &Stored);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_TRUE(Stored.has_value());
  EXPECT_EQ(Stored->NumContexts, 1u);
  EXPECT_EQ(Stored->NumColdContexts, 1u);
  EXPECT_EQ(Stored->MaxColdTotalSize, 77u);
}

TEST(IndexedWriter, SaturatesWideFieldsAndCountsThem) {
  IndexedMemProf P = exampleProfile();
  P.Records.begin()[1].second.AllocSites[0].Info.AllocCount = 1ULL << 40;
  P.Records.begin()[1].second.AllocSites[0].Info.MinSize = 1ULL << 33;
  IndexedWriteStats Stats;
  writeToString(P, 3, false, &Stats);
  EXPECT_EQ(Stats.SaturatedFields, 1u);
  writeToString(P, 2, true, &Stats);
  EXPECT_EQ(Stats.SaturatedFields, 2u);
}

TEST(IndexedWriter, RejectsDanglingReferencesAndBadVersion) {
  IndexedMemProf P = exampleProfile();
  SmallVector<char, 0> Out;
  IndexedWriterOptions Opts;
  Opts.MemProfVersion = 5;
  EXPECT_EQ(errorCode(writeIndexedProfile(P, Opts, Out)),
            ErrorCode::UnsupportedVersion);
  Opts.MemProfVersion = 3;
  P.Records.begin()->second.CallSites[0].CSId = 12345;
  EXPECT_EQ(errorCode(writeIndexedProfile(P, Opts, Out)), ErrorCode::Malformed);
}

TEST(IndexedWriter, RejectsBucketOverflowingItsCount) {
  // 65536 GUIDs that agree in their low 20 bits share one bucket, whose u16
  // item count cannot say so.
  IndexedMemProf P;
  for (uint64_t I = 1; I <= 65536; ++I)
    P.Records[(I << 20) | 5];
  SmallVector<char, 0> Out;
  IndexedWriterOptions Opts;
  EXPECT_EQ(errorCode(writeIndexedProfile(P, Opts, Out)), ErrorCode::TooLarge);
  P.Records.pop_back();
  std::string B = writeToString(P, 3, false);
  auto R = readIndexedProfile(B);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Records.size(), 65535u);
}

TEST(IndexedWriter, EmptyProfile) {
  IndexedMemProf P;
  for (const Config &C : AllConfigs) {
    std::string B = writeToString(P, C.Version, C.Full);
    IndexedProfileInfo Info;
    auto R = readIndexedProfile(B, &Info);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    EXPECT_TRUE(R->Records.empty());
    EXPECT_EQ(Info.MemProfVersion, C.Version);
  }
}

//===----------------------------------------------------------------------===//
// 2. Byte identity with llvm-profdata-22
//===----------------------------------------------------------------------===//

const char *const ProfdataPath = "/usr/bin/llvm-profdata-22";

unsigned oracleProfileCount() {
  if (const char *E = std::getenv("MEMPROF_ORACLE_PROFILES"))
    return std::max(1, std::atoi(E));
  return 40;
}

/// Runs llvm-profdata-22 on \p Yaml; returns the output bytes or an empty
/// string (and a failure) if it failed.
std::string runProfdata(StringRef Dir, StringRef Name, const std::string &Yaml,
                        const Config &C) {
  SmallString<256> In(Dir), Out(Dir), Err(Dir);
  sys::path::append(In, Name + ".yaml");
  sys::path::append(Out, Name + ".v" + std::to_string(C.Version) +
                             (C.Full ? "f" : "h") + ".profdata");
  sys::path::append(Err, Name + ".err");
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    EXPECT_FALSE(EC);
    OS << Yaml;
  }
  std::string Cmd = std::string(ProfdataPath) +
                    " merge --memprof-version=" + std::to_string(C.Version) +
                    (C.Full ? " --memprof-full-schema" : "") + " '" +
                    In.str().str() + "' -o '" + Out.str().str() + "' 2>'" +
                    Err.str().str() + "'";
  int RC = std::system(Cmd.c_str());
  if (RC != 0) {
    auto E = MemoryBuffer::getFile(Err);
    ADD_FAILURE() << "llvm-profdata failed (" << RC << "): " << Cmd << "\n"
                  << (E ? (*E)->getBuffer().str() : "");
    return "";
  }
  auto B = MemoryBuffer::getFile(Out);
  if (!B) {
    ADD_FAILURE() << "cannot read " << Out.str().str();
    return "";
  }
  return (*B)->getBuffer().str();
}

TEST(IndexedOracle, ExampleMatchesLLVM) {
  if (!sys::fs::can_execute(ProfdataPath))
    GTEST_SKIP() << "llvm-profdata-22 not installed";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-indexed-oracle", Dir));
  // The YAML of spec 4, with names for two GUIDs.
  const char *Yaml = R"(---
HeapProfileRecords:
  - GUID:            0x65186e62ed9360f0
    CallSites:
      - Frames:
          - { Function: 0x65186e62ed9360f0, LineOffset: 0, Column: 57, IsInlineFrame: false }
  - GUID:            _Z7alloc_am
    AllocSites:
      - Callstack:
          - { Function: 0x3d1833f9b5c4988, LineOffset: 0, Column: 67, IsInlineFrame: false }
          - { Function: 0x65186e62ed9360f0, LineOffset: 0, Column: 57, IsInlineFrame: false }
          - { Function: main, LineOffset: 2, Column: 15, IsInlineFrame: false }
        MemInfoBlock:
          AllocCount:      3
          TotalSize:       300
          TotalLifetime:   0
          TotalLifetimeAccessDensity: 42000
  - GUID:            0xdb956436e78dd5fa
    AllocSites:
      - Callstack:
          - { Function: 0xdb956436e78dd5fa, LineOffset: 6, Column: 13, IsInlineFrame: false }
        MemInfoBlock: { AllocCount: 1, TotalSize: 48, TotalLifetime: 0, TotalLifetimeAccessDensity: 100000 }
    CallSites:
      - Frames:
          - { Function: 0xdb956436e78dd5fa, LineOffset: 2, Column: 15, IsInlineFrame: false }
        CalleeGuids: [ 0x65186e62ed9360f0 ]
)";
  IndexedMemProf P = exampleProfile();
  for (const Config &C : AllConfigs) {
    std::string Theirs = runProfdata(Dir, "example", Yaml, C);
    EXPECT_EQ(writeToString(P, C.Version, C.Full), Theirs) << configName(C);
  }
  sys::fs::remove_directories(Dir);
}

TEST(IndexedOracle, RandomProfilesByteIdentical) {
  if (!sys::fs::can_execute(ProfdataPath))
    GTEST_SKIP() << "llvm-profdata-22 not installed";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-indexed-oracle", Dir));
  const unsigned N = oracleProfileCount();
  unsigned Identical[6] = {0, 0, 0, 0, 0, 0};
  unsigned Compared[6] = {0, 0, 0, 0, 0, 0};
  unsigned ReadBackOK = 0;
  bool KeepDir = false;
  uint64_t TotalRecords = 0, TotalStacks = 0, Colliding = 0, Large = 0,
           Duplicates = 0, Cold = 0, Contexts = 0, InlineFrames = 0;
  for (unsigned I = 0; I < N; ++I) {
    const uint64_t Seed = 0x5eed0000 + I;
    Doc D = randomDoc(Seed);
    IndexedMemProf P = buildIndexed(D);
    TotalRecords += P.Records.size();
    TotalStacks += P.CallStacks.size();
    Large += P.Records.size() >= 48; // the 64-bucket table had to grow
    Duplicates += D.size() - P.Records.size();
    MemProfSummary Sum = computeSummary(P);
    Cold += Sum.NumColdContexts;
    Contexts += Sum.NumContexts;
    for (const auto &KV : P.Frames)
      InlineFrames += KV.second.IsInlineFrame;
    for (const auto &KV : P.Records)
      for (const auto &KV2 : P.Records)
        if (KV.first < KV2.first && (KV.first & 7) == (KV2.first & 7))
          ++Colliding;
    std::string Yaml = toYAML(D);
    std::string Name = "p" + std::to_string(I);
    for (unsigned CI = 0; CI < 6; ++CI) {
      const Config &C = AllConfigs[CI];
      std::string Theirs = runProfdata(Dir, Name, Yaml, C);
      if (Theirs.empty())
        continue;
      ++Compared[CI];
      std::string Ours = writeToString(P, C.Version, C.Full);
      if (Ours == Theirs) {
        ++Identical[CI];
      } else {
        KeepDir = true;
        size_t Diff = 0;
        while (Diff < Ours.size() && Diff < Theirs.size() &&
               Ours[Diff] == Theirs[Diff])
          ++Diff;
        ADD_FAILURE() << "seed " << Seed << " " << configName(C) << ": ours "
                      << Ours.size() << " bytes, llvm " << Theirs.size()
                      << " bytes, first difference at " << Diff << " (files in "
                      << Dir.str().str() << ")";
      }
      // Our reader on LLVM's bytes.
      auto R = readIndexedProfile(Theirs);
      if (!R) {
        ADD_FAILURE() << "seed " << Seed << " " << configName(C) << ": "
                      << toString(R.takeError());
        continue;
      }
      expectSameProfile(P, *R, C.Full ? fullSchema() : hotColdSchema(),
                        C.Version);
      if (!::testing::Test::HasFailure())
        ++ReadBackOK;
    }
  }
  std::string Report;
  for (unsigned CI = 0; CI < 6; ++CI)
    Report += configName(AllConfigs[CI]) + ": " +
              std::to_string(Identical[CI]) + "/" +
              std::to_string(Compared[CI]) + " byte-identical\n";
  std::cout << "[oracle] " << N << " random profiles, " << TotalRecords
            << " records, " << TotalStacks << " call stacks, " << Colliding
            << " record pairs sharing the low 3 GUID bits, " << Large
            << " profiles with >= 48 records, " << Duplicates
            << " duplicate-GUID records, " << Cold << "/" << Contexts
            << " cold contexts, " << InlineFrames << " inline frames\n"
            << Report << "[oracle] our reader accepted " << ReadBackOK
            << " LLVM outputs with the expected content\n";
  RecordProperty("oracle", Report);
  for (unsigned CI = 0; CI < 6; ++CI)
    EXPECT_EQ(Identical[CI], N) << configName(AllConfigs[CI]);
  if (!KeepDir)
    sys::fs::remove_directories(Dir);
}

TEST(IndexedOracle, ReadsLLVMFilesWithFunctionRecords) {
  if (!sys::fs::can_execute(ProfdataPath))
    GTEST_SKIP() << "llvm-profdata-22 not installed";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-indexed-oracle", Dir));
  SmallString<128> Text(Dir), Yaml(Dir);
  sys::path::append(Text, "f.proftext");
  sys::path::append(Yaml, "m.yaml");
  {
    std::error_code EC;
    raw_fd_ostream OS(Text, EC);
    ASSERT_FALSE(EC);
    OS << "# IR level Instrumentation Flag\n:ir\nfoo\n# Func Hash:\n1234\n"
          "# Num Counters:\n2\n# Counter Values:\n10\n20\n\nbar\n"
          "# Func Hash:\n99\n# Num Counters:\n1\n# Counter Values:\n5\n\n";
  }
  Doc D = randomDoc(77);
  IndexedMemProf P = buildIndexed(D);
  {
    std::error_code EC;
    raw_fd_ostream OS(Yaml, EC);
    ASSERT_FALSE(EC);
    OS << toYAML(D);
  }
  // Version 13 with each MemProf version, and version 11 (64-byte header).
  const char *Flags[] = {"--memprof-version=2", "--memprof-version=3",
                         "--memprof-version=4", "--write-prev-version"};
  const unsigned MemProfVersion[] = {2, 3, 4, 3};
  for (unsigned I = 0; I < 4; ++I) {
    SmallString<128> Out(Dir);
    sys::path::append(Out, "mix" + std::to_string(I) + ".profdata");
    std::string Cmd = std::string(ProfdataPath) + " merge " + Flags[I] + " '" +
                      Text.str().str() + "' '" + Yaml.str().str() + "' -o '" +
                      Out.str().str() + "'";
    ASSERT_EQ(std::system(Cmd.c_str()), 0) << Cmd;
    auto B = MemoryBuffer::getFile(Out);
    ASSERT_TRUE(bool(B));
    IndexedProfileInfo Info;
    auto R = readIndexedProfile((*B)->getBuffer(), &Info);
    ASSERT_TRUE(bool(R)) << Flags[I] << ": " << toString(R.takeError());
    EXPECT_EQ(Info.Version, I == 3 ? 11u : 13u);
    EXPECT_EQ(Info.VariantFlags, indexed::VariantMemProf | (1ULL << 56));
    EXPECT_EQ(Info.MemProfVersion, MemProfVersion[I]);
    EXPECT_EQ(Info.NumFunctionRecords, 2u);
    expectSameProfile(P, *R, hotColdSchema(), MemProfVersion[I]);
  }
  sys::fs::remove_directories(Dir);
}

//===----------------------------------------------------------------------===//
// 3. Round trip
//===----------------------------------------------------------------------===//

TEST(IndexedRoundTrip, AllVersionsAndSchemas) {
  for (uint64_t Seed = 100; Seed < 130; ++Seed) {
    IndexedMemProf P = buildIndexed(randomDoc(Seed));
    for (const Config &C : AllConfigs) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " " + configName(C));
      std::string B = writeToString(P, C.Version, C.Full);
      IndexedProfileInfo Info;
      std::optional<MemProfSummary> Stored;
      auto R = readIndexedProfile(B, &Info, &Stored);
      ASSERT_TRUE(bool(R)) << toString(R.takeError());
      MIBSchema Schema = C.Full ? fullSchema() : hotColdSchema();
      EXPECT_EQ(Info.Version, 13u);
      EXPECT_EQ(Info.VariantFlags, indexed::VariantMemProf);
      EXPECT_EQ(Info.MemProfVersion, C.Version);
      EXPECT_EQ(Info.Schema, Schema);
      EXPECT_EQ(Info.NumFunctionRecords, 0u);
      expectSameProfile(P, *R, Schema, C.Version);
      EXPECT_EQ(Stored.has_value(), C.Version == 4);
      if (Stored) {
        MemProfSummary S = computeSummary(P);
        EXPECT_EQ(Stored->NumContexts, S.NumContexts);
        EXPECT_EQ(Stored->NumColdContexts, S.NumColdContexts);
        EXPECT_EQ(Stored->MaxColdTotalSize, S.MaxColdTotalSize);
        EXPECT_EQ(Stored->MaxWarmTotalSize, S.MaxWarmTotalSize);
      }
      // What was read writes and reads back to the same content. (Not the
      // same bytes: records come back in bucket order, which head insertion
      // does not reproduce, and stacks no record uses are not read.)
      std::string B2 = writeToString(*R, C.Version, C.Full);
      auto R2 = readIndexedProfile(B2);
      ASSERT_TRUE(bool(R2)) << toString(R2.takeError());
      expectSameProfile(*R, *R2, Schema, C.Version);
    }
  }
}

// One call-stack id cache passed to the reader across many profiles (as
// memprof-merge's reading threads do) gives each the ids and content it has
// when read alone, in every version: the cache only spares the hashing.
TEST(IndexedReader, SharedStackIdCacheReadsAlike) {
  CallStackIdCache Shared;
  for (uint64_t Seed = 200; Seed < 215; ++Seed)
    for (const Config &C : AllConfigs) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " " + configName(C));
      IndexedMemProf P = buildIndexed(randomDoc(Seed));
      std::string B = writeToString(P, C.Version, C.Full);
      auto Alone = readIndexedProfile(B);
      ASSERT_TRUE(bool(Alone)) << toString(Alone.takeError());
      IndexedProfileInfo Info;
      auto Cached = readIndexedProfile(B, &Info, nullptr, nullptr, &Shared);
      ASSERT_TRUE(bool(Cached)) << toString(Cached.takeError());
      expectSameProfile(*Alone, *Cached, C.Full ? fullSchema() : hotColdSchema(),
                        C.Version);
      std::vector<CallStackId> A, K;
      for (const auto &KV : Alone->CallStacks)
        A.push_back(KV.first);
      for (const auto &KV : Cached->CallStacks)
        K.push_back(KV.first);
      EXPECT_EQ(A, K);
    }
}

TEST(IndexedReader, NoMemProfBitGivesEmptyProfile) {
  std::string B = writeToString(exampleProfile(), 3, false);
  wr64(B, 8, 13); // drop the MEMPROF bit
  IndexedProfileInfo Info;
  auto R = readIndexedProfile(B, &Info);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_TRUE(R->Records.empty());
  EXPECT_EQ(Info.MemProfVersion, 0u);
  EXPECT_EQ(Info.VariantFlags, 0u);
  EXPECT_TRUE(isIndexedProfile(B));
  EXPECT_FALSE(isIndexedProfile("\xff\x6c\x70"));
  EXPECT_FALSE(isIndexedProfile(StringRef("\x81rfoprm\xff", 8)));
}

//===----------------------------------------------------------------------===//
// 4. Hostile input
//===----------------------------------------------------------------------===//

/// Parses \p B, returning the error class; must never crash.
std::optional<ErrorCode> parse(StringRef B) {
  // A copy of exactly the bytes, so ASan sees any read past the end.
  std::unique_ptr<char[]> Copy(new char[B.size() ? B.size() : 1]);
  memcpy(Copy.get(), B.data(), B.size());
  return errorCode(readIndexedProfile(StringRef(Copy.get(), B.size())));
}

TEST(IndexedHostile, EveryPrefixFails) {
  Doc Small = randomDoc(3);
  Small.resize(std::min<size_t>(Small.size(), 12));
  std::vector<IndexedMemProf> Profiles = {exampleProfile(),
                                          buildIndexed(Small)};
  for (const IndexedMemProf &P : Profiles)
    for (const Config &C : AllConfigs) {
      std::string B = writeToString(P, C.Version, C.Full);
      ASSERT_EQ(parse(B), std::nullopt);
      // A zero-filled tail (a partly written file) parses deeper than a
      // short file, whose trailing-section offsets fail first.
      for (size_t L = rd64(B, 40); L < B.size(); ++L) {
        std::string M = B.substr(0, L) + std::string(B.size() - L, '\0');
        parse(M);
      }
      for (size_t L = 0; L < B.size(); ++L) {
        auto Code = parse(StringRef(B).take_front(L));
        // The vtable-names section ends the file, so no prefix is complete.
        ASSERT_TRUE(Code.has_value()) << configName(C) << " prefix " << L;
        EXPECT_TRUE(*Code == ErrorCode::Truncated ||
                    *Code == ErrorCode::Malformed)
            << configName(C) << " prefix " << L;
      }
    }
}

TEST(IndexedHostile, ExhaustiveSingleByteMutations) {
  IndexedMemProf P = exampleProfile();
  unsigned Accepted = 0, Rejected = 0;
  for (const Config &C : AllConfigs) {
    std::string B = writeToString(P, C.Version, C.Full);
    for (size_t Off = 0; Off < B.size(); ++Off)
      for (uint8_t Delta : {1, 0x80, 0xff}) {
        std::string M = B;
        M[Off] = char(uint8_t(M[Off]) ^ Delta);
        (parse(M) ? Rejected : Accepted)++;
      }
  }
  std::cout << "[hostile] exhaustive single-byte mutations: " << Accepted
            << " accepted, " << Rejected << " rejected\n";
  EXPECT_GT(Rejected, 0u);
}

TEST(IndexedHostile, SeededRandomCorruptions) {
  std::mt19937_64 R(0xC0FFEE);
  unsigned Accepted = 0, Rejected = 0;
  static const uint64_t Interesting[] = {
      0,          1,          7,          8,
      0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
      1ULL << 62, ~0ULL,      ~0ULL - 7};
  for (uint64_t Seed : {11, 12, 13}) {
    IndexedMemProf P = buildIndexed(randomDoc(Seed));
    for (const Config &C : AllConfigs) {
      std::string B = writeToString(P, C.Version, C.Full);
      for (unsigned I = 0; I < 1500; ++I) {
        std::string M = B;
        uint64_t Off = R() % B.size();
        switch (R() % 3) {
        case 0:
          M[Off] = char(R());
          break;
        case 1:
          if (Off + 8 > M.size())
            Off = M.size() - 8;
          wr64(M, Off, R() % 2 ? R() : Interesting[R() % 11]);
          break;
        default:
          // An 8-byte field near a value the file holds: a plausible lie.
          Off &= ~uint64_t(3);
          if (Off + 8 > M.size())
            Off = M.size() - 8;
          wr64(M, Off, rd64(M, Off) + int64_t(R() % 64) - 32);
          break;
        }
        (parse(M) ? Rejected : Accepted)++;
      }
    }
  }
  std::cout << "[hostile] random corruptions: " << Accepted << " accepted, "
            << Rejected << " rejected\n";
  EXPECT_GT(Rejected, 0u);
}

/// The example as V3 (spec 3.11 offsets).
std::string exampleV3() { return writeToString(exampleProfile(), 3, false); }

TEST(IndexedHostile, StructuralLies) {
  const uint64_t Sec = 0x220, Schema = Sec + 32, Radix = 0x2ac;
  {
    std::string B = exampleV3();
    wr64(B, Schema, ~0ULL);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "schema count 2^64-1";
  }
  {
    std::string B = exampleV3();
    wr64(B, Schema, 29);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "schema count 29";
  }
  {
    std::string B = exampleV3();
    wr64(B, Schema + 8, 0);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "tag 0";
  }
  {
    std::string B = exampleV3();
    wr64(B, Schema + 16, 99);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "tag 99";
  }
  {
    std::string B = exampleV3();
    wr32(B, Radix + 4 * 3, 0xffffff00);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "radix jump out of range";
  }
  {
    // Element 7 (where the jump at 3 lands) becomes a jump itself. Stack 1
    // still decodes through it (7 -> 8), stack 4 then lands on it.
    std::string B = exampleV3();
    wr32(B, Radix + 4 * 7, 0xffffffff);
    auto R = readIndexedProfile(B);
    ASSERT_FALSE(bool(R));
    std::string Msg = toString(R.takeError());
    EXPECT_NE(Msg.find("lands on another jump"), std::string::npos) << Msg;
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    std::string B = exampleV3();
    wr32(B, Radix + 4 * 6, 4); // frame 4 of a 4-frame array
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "linear frame id";
  }
  {
    std::string B = exampleV3();
    wr32(B, Radix + 4 * 4, 7); // stack length that runs off the array
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "stack length";
  }
  {
    std::string B = exampleV3();
    wr32(B, 0x2d6 + 48, 10); // wrap's call site: linear id past the radix
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "linear call stack id";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x2d6 + 32, 1ULL << 62); // wrap's NumAllocSites
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "huge NumAllocSites";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x2d6 + 16, 1ULL << 40); // wrap's data length
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "huge data length";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x3c0, 0x10000); // bucket 0 past EOF
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "bucket offset past EOF";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x3c0 + 8, 0x35a); // bucket 1 claims main's group
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "bucket offset mismatch";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x3b0, 6); // NumBuckets not a power of two
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "bucket count 6";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x3b0, 1ULL << 60);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "bucket count 2^60";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x3b8, 4); // NumEntries larger than the items
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "entry count";
  }
  {
    std::string B = exampleV3();
    wr64(B, Sec + 24, 0x100); // record table offset before the section
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "record table offset";
  }
  {
    std::string B = exampleV3();
    wr64(B, Sec + 24, 0x3b4); // misaligned record table
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "misaligned table";
  }
  {
    std::string B = exampleV3();
    wr64(B, Sec + 8, 0x300); // radix after the record payload
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "offset order";
  }
  {
    std::string B = exampleV3();
    B[0x268 + 16] = 2; // inline flag
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "inline flag";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x2d6, WrapGuid ^ 1); // wrap's hash no longer its bucket's
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "hash in wrong bucket";
  }
  {
    std::string B = exampleV3();
    wr64(B, Sec, 5);
    EXPECT_EQ(parse(B), ErrorCode::UnsupportedVersion) << "memprof version 5";
    wr64(B, Sec, 1);
    EXPECT_EQ(parse(B), ErrorCode::UnsupportedVersion) << "memprof version 1";
  }
  {
    std::string B = exampleV3();
    wr64(B, 8, indexed::VariantMemProf | 14);
    EXPECT_EQ(parse(B), ErrorCode::UnsupportedVersion) << "version 14";
  }
  {
    std::string B = exampleV3();
    B[0] = 0;
    EXPECT_EQ(parse(B), ErrorCode::BadMagic);
    EXPECT_EQ(parse("\xff\x6c\x70"), ErrorCode::Truncated);
    EXPECT_EQ(parse("abc"), ErrorCode::BadMagic);
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x18, 1);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "hash type";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x48, 1ULL << 61); // InstrProf summary field count
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "summary count";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x28, 0x10000); // MemProfOffset past EOF
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "memprof offset";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x400, 8); // binary ids claim 8 bytes that are the vtable names
    wr64(B, 0x408, 100);
    EXPECT_TRUE(parse(B).has_value()) << "binary id section";
  }
  {
    std::string B = exampleV3();
    wr64(B, 0x400, 12);
    EXPECT_EQ(parse(B), ErrorCode::Malformed) << "binary id size % 8";
  }
}

TEST(IndexedHostile, StructuralLiesV2) {
  std::string Good = writeToString(exampleProfile(), 2, false);
  const uint64_t Sec = rd64(Good, 40);
  const uint64_t RecordTable = rd64(Good, Sec + 8);
  const uint64_t CSPayload = rd64(Good, Sec + 32);
  const uint64_t CSTable = rd64(Good, Sec + 40);
  const uint64_t RecordPayload = Sec + 48 + 8 + 4 * 8;
  {
    // The first record's first stack id (after u16, hash, keylen, datalen,
    // key and NumAllocSites or NumCallSites) is rewritten to a dangling id.
    std::string B = Good;
    uint64_t Item = RecordPayload + 2;
    uint64_t Data = Item + 32;
    uint64_t NumAlloc = rd64(B, Data);
    uint64_t IdAt = NumAlloc ? Data + 8 : Data + 16;
    wr64(B, IdAt, 0x123456789ULL);
    auto R = readIndexedProfile(B);
    ASSERT_FALSE(bool(R));
    std::string Msg = toString(R.takeError());
    EXPECT_NE(Msg.find("not in the call stack table"), std::string::npos)
        << Msg;
  }
  {
    // A stack references a frame id the frame table lacks.
    std::string B = Good;
    uint64_t FirstStack = CSPayload + 2;
    wr64(B, FirstStack + 24, 0xdeadbeef); // its first frame id
    auto R = readIndexedProfile(B);
    ASSERT_FALSE(bool(R));
    std::string Msg = toString(R.takeError());
    EXPECT_NE(Msg.find("not in the frame table"), std::string::npos) << Msg;
  }
  {
    std::string B = Good;
    wr64(B, Sec + 8, Sec - 8); // record table offset before the section
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    std::string B = Good;
    wr64(B, CSTable + 16, Good.size() + 64); // call-stack bucket past EOF
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    std::string B = Good;
    wr64(B, RecordTable + 8, ~0ULL); // record entry count
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
}

TEST(IndexedHostile, StructuralLiesV4) {
  std::string Good = writeToString(exampleProfile(), 4, false);
  const uint64_t Sec = rd64(Good, 40);
  {
    std::string B = Good;
    wr32(B, Sec + 40, 5); // summary field count below 6
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    std::string B = Good;
    wr32(B, Sec + 40, 0xffffffff);
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    std::string B = Good;
    wr64(B, Sec + 32, rd64(Good, Sec + 24)); // data access == record table
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
  {
    // main's call site: a huge callee count.
    std::string B = Good;
    uint64_t RecordTable = rd64(Good, Sec + 24);
    uint64_t Bucket2 = rd64(Good, RecordTable + 16 + 16);
    uint64_t Data = Bucket2 + 2 + 32;
    uint64_t CallSites = Data + 8 + 4 + 28;
    ASSERT_EQ(rd64(B, CallSites), 1u);
    ASSERT_EQ(rd64(B, CallSites + 12), 1u);
    wr64(B, CallSites + 12, 1ULL << 61);
    EXPECT_EQ(parse(B), ErrorCode::Malformed);
  }
}

TEST(IndexedHostile, ReservedMapKeys) {
  // One record, one frame, one stack: every table has a single bucket, so
  // any hash value belongs. DenseMap reserves ~0 and ~0-1 as keys.
  IndexedMemProf P;
  IndexedCallSite CS;
  CS.CSId = P.addCallStack({Frame{WrapGuid, 0, 57, false}});
  P.Records[WrapGuid].CallSites.push_back(CS);
  for (uint64_t K : {~0ULL, ~0ULL - 1}) {
    for (unsigned V : {2u, 3u, 4u}) {
      // The record's GUID: rejected, as IndexedMemProf cannot hold it.
      std::string B = writeToString(P, V, false);
      const uint64_t Sec = rd64(B, 40);
      const uint64_t RecordPayload = V == 2 ? Sec + 48 + 40 : rd64(B, Sec + 16);
      wr64(B, RecordPayload + 2, K);
      wr64(B, RecordPayload + 2 + 24, K);
      auto R = readIndexedProfile(B);
      ASSERT_FALSE(bool(R)) << V;
      std::string Msg = toString(R.takeError());
      EXPECT_NE(Msg.find("reserved"), std::string::npos) << Msg;
    }
    // V2 frame and call-stack ids are only lookup keys: accepted.
    std::string B = writeToString(P, 2, false);
    const uint64_t Sec = rd64(B, 40);
    const uint64_t FramePayload = rd64(B, Sec + 16);
    const uint64_t StackPayload = rd64(B, Sec + 32);
    wr64(B, FramePayload + 2, K);
    wr64(B, FramePayload + 2 + 24, K);
    wr64(B, StackPayload + 2, K - 5);
    wr64(B, StackPayload + 2 + 16, K - 5);
    wr64(B, StackPayload + 2 + 24, K);
    const uint64_t RecordPayload = Sec + 48 + 40;
    wr64(B, RecordPayload + 2 + 32 + 16, K - 5); // the call site's stack id
    auto R = readIndexedProfile(B);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    expectSameProfile(P, *R, hotColdSchema(), 2);
  }
}

TEST(IndexedHostile, OverlappingRadixStacksAreBounded) {
  // A hand-built V3 section whose radix array is all "frame 0 / length":
  // every position is a valid stack of nearly full length, so distinct
  // linear ids expand quadratically. The reader must stop at its budget
  // (or succeed) quickly, not exhaust memory.
  std::string B = exampleV3();
  B.resize(0x220);
  auto Put64 = [&](uint64_t V) {
    char Buf[8];
    support::endian::write64le(Buf, V);
    B.append(Buf, 8);
  };
  auto Put32 = [&](uint32_t V) {
    char Buf[4];
    support::endian::write32le(Buf, V);
    B.append(Buf, 4);
  };
  const uint64_t NumFrames = 3000, RadixN = 6000, NumRefs = 3000;
  Put64(3);
  const uint64_t OffsAt = B.size();
  Put64(0);
  Put64(0);
  Put64(0);
  Put64(0); // empty schema
  for (uint64_t I = 0; I < NumFrames; ++I) {
    Put64(I);
    Put32(0);
    Put32(0);
    B.push_back(0);
  }
  const uint64_t RadixAt = B.size();
  for (uint64_t I = 0; I < RadixN; ++I)
    Put32(NumFrames - 1);
  const uint64_t PayloadAt = B.size();
  // One bucket holding one record with NumRefs alloc sites at distinct ids.
  B.append("\x01\x00", 2);
  Put64(0); // hash
  Put64(8);
  Put64(8 + NumRefs * 4 + 8);
  Put64(0); // key
  Put64(NumRefs);
  for (uint64_t I = 0; I < NumRefs; ++I)
    Put32(I);
  Put64(0);
  while (B.size() % 8)
    B.push_back(0);
  const uint64_t TableAt = B.size();
  Put64(1);
  Put64(1);
  Put64(PayloadAt);
  const uint64_t BinIds = B.size();
  Put64(0);
  const uint64_t VT = B.size();
  Put64(0);
  wr64(B, OffsAt, RadixAt);
  wr64(B, OffsAt + 8, PayloadAt);
  wr64(B, OffsAt + 16, TableAt);
  wr64(B, 48, BinIds);
  wr64(B, 64, VT);
  EXPECT_EQ(parse(B), ErrorCode::TooLarge);
}

} // namespace
