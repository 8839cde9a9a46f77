//===- InstrProfRawReaderTest.cpp - The raw InstrProf (.profraw) reader ---===//
//
// Raw profiles are built here from the spec's layout (llvm-instrprof-
// formats.md section 1) by a builder written independently of the reader:
// versions 8 to 10, 64- and 32-bit pointers, both byte orders, every section.
// What the reader must return is computed from the builder's inputs by rules
// of its own (remapping by linear search). Malformed inputs are patched
// bytes; every prefix of a valid file must fail cleanly. A real clang-22
// profile is compared with llvm-profdata-22's reading of it, and so are the
// builder's 32-bit and big-endian files.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <map>
#include <random>

using namespace memprof;
using namespace memprof::instrprof;
using namespace llvm;

namespace {

//===----------------------------------------------------------------------===//
// The builder
//===----------------------------------------------------------------------===//

uint64_t md5lo(StringRef S) {
  MD5 H;
  H.update(S);
  MD5::MD5Result R;
  H.final(R);
  uint64_t V = 0;
  for (int I = 7; I >= 0; --I)
    V = V << 8 | R[I];
  return V;
}

uint64_t pad8(uint64_t N) { return (8 - N % 8) % 8; }

struct TValue {
  uint64_t Value, Count;
};
using TSite = std::vector<TValue>;

struct TRecord {
  std::string Name;
  uint64_t Hash = 0;
  /// Counter values; with byte coverage, nonzero means "executed".
  std::vector<uint64_t> Counts;
  uint64_t Timestamp = 0; ///< temporal profiles only
  uint64_t FunctionPointer = 0;
  std::vector<uint8_t> Bitmap;
  std::array<std::vector<TSite>, 3> Sites; ///< raw values, per kind
};

/// A record with a name, counters and (temporal profiles) a timestamp.
TRecord rec(StringRef Name, std::vector<uint64_t> Counts,
            uint64_t Timestamp = 0) {
  TRecord R;
  R.Name = Name.str();
  R.Counts = std::move(Counts);
  R.Timestamp = Timestamp;
  return R;
}

struct TVTable {
  std::string Name;
  uint64_t Pointer;
  uint32_t Size;
};

/// Where the builder put things, for patching.
struct Built {
  std::string Bytes;
  size_t RecordBytes = 0;
  size_t DataAt = 0, CountersAt = 0, BitmapAt = 0, NamesAt = 0, ValuesAt = 0;
  std::vector<size_t> CounterAt; ///< per record: its first counter
  std::vector<size_t> BlobAt;    ///< per record with sites: its value blob
};

class ProfrawBuilder {
public:
  unsigned Version = 10;
  unsigned PtrBytes = 8;
  bool BigEndian = false;
  uint64_t Variant = VariantIR;
  std::vector<std::string> BinaryIds;
  std::vector<TRecord> Records;
  std::vector<TVTable> VTables;
  std::vector<std::string> ExtraNames; ///< names without a record
  bool Compress = false;
  /// Names in two blobs: the first compressed as Compress says, the second
  /// plain, with zero bytes between them.
  bool SplitNames = false;
  uint64_t PaddingBeforeCounters = 0;

  /// Offsets of header fields of this version, by name.
  std::vector<std::string> headerFields() const {
    if (Version == 8)
      return {"Magic",         "Version",     "BinaryIdsSize",    "NumData",
              "PadBefore",     "NumCounters", "PadAfterCounters", "NamesSize",
              "CountersDelta", "NamesDelta",  "ValueKindLast"};
    std::vector<std::string> F = {
        "Magic",          "Version",     "BinaryIdsSize",    "NumData",
        "PadBefore",      "NumCounters", "PadAfterCounters", "NumBitmapBytes",
        "PadAfterBitmap", "NamesSize",   "CountersDelta",    "BitmapDelta",
        "NamesDelta"};
    if (Version >= 10) {
      F.push_back("NumVTables");
      F.push_back("VNamesSize");
    }
    F.push_back("ValueKindLast");
    return F;
  }
  size_t fieldAt(StringRef Name) const {
    auto F = headerFields();
    for (size_t I = 0; I < F.size(); ++I)
      if (F[I] == Name)
        return 8 * I;
    ADD_FAILURE() << "no header field " << Name.str();
    return 0;
  }

  /// Data record size and field offsets, from the spec's tables.
  size_t recordBytes() const {
    if (PtrBytes == 8)
      return Version == 8 ? 48 : 64;
    return Version == 8 ? 40 : 48;
  }

  Built build() const {
    Built B;
    const bool Bytes = Variant & VariantByteCoverage;
    const bool Temporal = Variant & VariantTemporal;
    B.RecordBytes = recordBytes();
    // Addresses in the profiled process: counters and bitmap before data.
    const uint64_t DataVA = PtrBytes == 8 ? 0x7f0000100000 : 0x08100000;
    const uint64_t CountersVA = DataVA - 0x40000;
    const uint64_t BitmapVA = DataVA - 0x20000;
    const uint64_t PtrMask = PtrBytes == 8 ? ~uint64_t(0) : 0xffffffff;

    std::string Counters, Bitmap, Data, Values;
    for (size_t I = 0; I < Records.size(); ++I) {
      const TRecord &R = Records[I];
      const uint64_t RecordVA = DataVA + I * B.RecordBytes;
      const uint64_t CounterOff = Counters.size();
      if (Temporal)
        put(Counters, R.Timestamp, 8);
      for (uint64_t C : R.Counts) {
        if (Bytes)
          Counters.push_back(C ? '\0' : '\xff');
        else
          put(Counters, C, 8);
      }
      const uint64_t NumCounters =
          (Counters.size() - CounterOff) / (Bytes ? 1 : 8);
      const uint64_t BitmapOff = Bitmap.size();
      Bitmap.append(R.Bitmap.begin(), R.Bitmap.end());

      put(Data, md5lo(R.Name), 8);
      put(Data, R.Hash, 8);
      put(Data, (CountersVA + CounterOff - RecordVA) & PtrMask, PtrBytes);
      if (Version >= 9)
        put(Data,
            R.Bitmap.empty() ? 0 : (BitmapVA + BitmapOff - RecordVA) & PtrMask,
            PtrBytes);
      put(Data, R.FunctionPointer, PtrBytes);
      put(Data, 0x5151, PtrBytes); // Values: a runtime pointer
      put(Data, NumCounters, 4);
      const unsigned Kinds = Version >= 10 ? 3 : 2;
      for (unsigned K = 0; K < Kinds; ++K)
        put(Data, R.Sites[K].size(), 2);
      if (Version >= 9) {
        while (Data.size() % 4)
          Data.push_back('\0');
        put(Data, R.Bitmap.size(), 4);
      }
      while (Data.size() % 8)
        Data.push_back('\0');
      EXPECT_EQ(Data.size(), (I + 1) * B.RecordBytes);

      std::string Blob = valueBlob(R);
      if (!Blob.empty()) {
        B.BlobAt.push_back(Values.size());
        Values += Blob;
      }
      B.CounterAt.push_back(CounterOff);
    }

    std::vector<std::string> FuncNames;
    for (const TRecord &R : Records)
      FuncNames.push_back(R.Name);
    FuncNames.insert(FuncNames.end(), ExtraNames.begin(), ExtraNames.end());
    std::string Names;
    if (SplitNames && FuncNames.size() >= 2) {
      size_t Half = FuncNames.size() / 2;
      Names = nameBlob({FuncNames.begin(), FuncNames.begin() + Half}, Compress);
      Names.append(3, '\0');
      Names += nameBlob({FuncNames.begin() + Half, FuncNames.end()}, false);
    } else if (!FuncNames.empty()) {
      Names = nameBlob(FuncNames, Compress);
    }
    std::string VTableRecords, VNames;
    std::vector<std::string> VTableNames;
    for (const TVTable &V : VTables) {
      put(VTableRecords, md5lo(V.Name), 8);
      put(VTableRecords, V.Pointer, PtrBytes);
      put(VTableRecords, V.Size, 4);
      while (VTableRecords.size() % 8)
        VTableRecords.push_back('\0');
      VTableNames.push_back(V.Name);
    }
    if (!VTableNames.empty())
      VNames = nameBlob(VTableNames, Compress);

    std::string Ids;
    for (const std::string &Id : BinaryIds) {
      put(Ids, Id.size(), 8);
      Ids += Id;
      Ids.append(pad8(Id.size()), '\0');
    }

    const uint64_t CounterSize = Bytes ? 1 : 8;
    std::map<std::string, uint64_t> H = {
        {"Magic", PtrBytes == 8 ? RawMagic64 : RawMagic32},
        {"Version", Version | Variant},
        {"BinaryIdsSize", Ids.size()},
        {"NumData", Records.size()},
        {"PadBefore", PaddingBeforeCounters},
        {"NumCounters", Counters.size() / CounterSize},
        {"PadAfterCounters", pad8(Counters.size())},
        {"NumBitmapBytes", Bitmap.size()},
        {"PadAfterBitmap", pad8(Bitmap.size())},
        {"NamesSize", Names.size()},
        {"CountersDelta", (CountersVA - DataVA) & PtrMask},
        {"BitmapDelta", (BitmapVA - DataVA) & PtrMask},
        {"NamesDelta", 0x5555000},
        {"NumVTables", VTables.size()},
        {"VNamesSize", VNames.size()},
        {"ValueKindLast", Version >= 10 ? 2u : 1u}};
    for (const std::string &F : headerFields())
      put(B.Bytes, H[F], 8);
    B.Bytes += Ids;
    B.DataAt = B.Bytes.size();
    B.Bytes += Data;
    B.Bytes.append(PaddingBeforeCounters, '\0');
    B.CountersAt = B.Bytes.size();
    for (size_t &C : B.CounterAt)
      C += B.CountersAt;
    B.Bytes += Counters;
    B.Bytes.append(pad8(Counters.size()), '\0');
    B.BitmapAt = B.Bytes.size();
    if (Version >= 9) {
      B.Bytes += Bitmap;
      B.Bytes.append(pad8(Bitmap.size()), '\0');
    }
    B.NamesAt = B.Bytes.size();
    B.Bytes += Names;
    B.Bytes.append(pad8(Names.size()), '\0');
    if (Version >= 10) {
      B.Bytes += VTableRecords;
      B.Bytes.append(pad8(VTableRecords.size()), '\0');
      B.Bytes += VNames;
      B.Bytes.append(pad8(VNames.size()), '\0');
    }
    B.ValuesAt = B.Bytes.size();
    for (size_t &V : B.BlobAt)
      V += B.ValuesAt;
    B.Bytes += Values;
    return B;
  }

  std::string bytes() const { return build().Bytes; }

private:
  void put(std::string &S, uint64_t V, unsigned Width) const {
    for (unsigned I = 0; I < Width; ++I) {
      unsigned Shift = BigEndian ? 8 * (Width - 1 - I) : 8 * I;
      S.push_back(char((V >> Shift) & 0xff));
    }
  }

  static void uleb(std::string &S, uint64_t V) {
    do {
      uint8_t Byte = V & 0x7f;
      V >>= 7;
      S.push_back(char(V ? Byte | 0x80 : Byte));
    } while (V);
  }

  static std::string nameBlob(const std::vector<std::string> &Names,
                              bool Compress) {
    std::string Text = join(Names, "\x01");
    std::string S;
    uleb(S, Text.size());
    if (!Compress) {
      uleb(S, 0);
      return S + Text;
    }
    SmallVector<uint8_t, 0> Z;
    compression::zlib::compress(arrayRefFromStringRef(Text), Z, 9);
    uleb(S, Z.size());
    return S + toStringRef(ArrayRef<uint8_t>(Z)).str();
  }

  std::string valueBlob(const TRecord &R) const {
    std::string Body;
    uint32_t Kinds = 0;
    for (unsigned K = 0; K < 3; ++K) {
      const auto &Sites = R.Sites[K];
      if (Sites.empty())
        continue;
      ++Kinds;
      put(Body, K, 4);
      put(Body, Sites.size(), 4);
      for (const TSite &S : Sites)
        Body.push_back(char(S.size()));
      Body.append(pad8(8 + Sites.size()), '\0');
      for (const TSite &S : Sites)
        for (const TValue &V : S) {
          put(Body, V.Value, 8);
          put(Body, V.Count, 8);
        }
    }
    if (!Kinds)
      return "";
    std::string Blob;
    put(Blob, 8 + Body.size(), 4);
    put(Blob, Kinds, 4);
    return Blob + Body;
  }
};

//===----------------------------------------------------------------------===//
// What the reader must return, from the builder's inputs
//===----------------------------------------------------------------------===//

uint64_t memopRange(uint64_t V) {
  if (V <= 8)
    return V;
  if (V >= 513)
    return 513;
  uint64_t P = 1;
  while (P * 2 <= V)
    P *= 2;
  return P == V ? V : P + 1;
}

CounterProfile expected(const std::vector<ProfrawBuilder> &Profiles) {
  CounterProfile P;
  P.Present = true;
  P.Variant = Profiles.front().Variant;
  std::vector<std::pair<uint64_t, uint64_t>> Stamps;
  for (const ProfrawBuilder &B : Profiles) {
    P.BinaryIds.insert(P.BinaryIds.end(), B.BinaryIds.begin(),
                       B.BinaryIds.end());
    for (const TVTable &V : B.VTables)
      if (std::find(P.VTableNames.begin(), P.VTableNames.end(), V.Name) ==
          P.VTableNames.end())
        P.VTableNames.push_back(V.Name);
    for (const TRecord &R : B.Records) {
      FunctionCounters F;
      F.Name = R.Name;
      F.Hash = R.Hash;
      for (uint64_t C : R.Counts)
        F.Counts.push_back(B.Variant & VariantByteCoverage ? C != 0 : C);
      F.Bitmap = R.Bitmap;
      for (unsigned K = 0; K < 3; ++K)
        for (const TSite &S : R.Sites[K]) {
          InstrProfValueSite Site;
          for (const TValue &V : S) {
            uint64_t Mapped = 0;
            if (K == 0) {
              uint64_t Best = ~uint64_t(0);
              bool Found = false;
              for (const TRecord &T : B.Records)
                if (T.FunctionPointer && T.FunctionPointer == V.Value &&
                    (!Found || md5lo(T.Name) < Best)) {
                  Best = md5lo(T.Name);
                  Found = true;
                }
              Mapped = Found ? Best : 0;
            } else if (K == 2) {
              for (const TVTable &T : B.VTables)
                if (T.Pointer && V.Value >= T.Pointer &&
                    V.Value - T.Pointer < T.Size) {
                  Mapped = md5lo(T.Name);
                  break;
                }
            } else {
              Mapped = V.Value; // memop sizes as the file holds them
            }
            Site.push_back({Mapped, V.Count});
          }
          F.Sites[K].push_back(Site);
        }
      if ((B.Variant & VariantTemporal) && R.Timestamp != 0 &&
          R.Timestamp != ~uint64_t(0))
        Stamps.push_back({R.Timestamp, md5lo(R.Name)});
      P.Records.push_back(F);
    }
  }
  // One trace for the whole file, as llvm-profdata reads it.
  if (!Stamps.empty()) {
    std::sort(Stamps.begin(), Stamps.end());
    TemporalTrace T;
    for (auto &S : Stamps)
      T.FunctionNameRefs.push_back(S.second);
    P.Traces.push_back(T);
  }
  P.TraceStreamSize = P.Traces.size();
  return P;
}

std::string describe(const FunctionCounters &F) {
  std::string S;
  raw_string_ostream OS(S);
  OS << F.Name << " hash " << F.Hash << " counts [";
  for (uint64_t C : F.Counts)
    OS << C << " ";
  OS << "] bitmap " << F.Bitmap.size() << " sites";
  for (unsigned K = 0; K < 3; ++K) {
    OS << " {";
    for (const auto &Site : F.Sites[K]) {
      OS << "[";
      for (const auto &V : Site)
        OS << format_hex(V.Value, 2) << ":" << V.Count << " ";
      OS << "]";
    }
    OS << "}";
  }
  return S;
}

void expectSame(const CounterProfile &Want, const CounterProfile &Got) {
  EXPECT_EQ(Want.Present, Got.Present);
  EXPECT_EQ(describeVariant(Want.Variant), describeVariant(Got.Variant));
  EXPECT_EQ(Want.Variant, Got.Variant);
  ASSERT_EQ(Want.Records.size(), Got.Records.size());
  for (size_t I = 0; I < Want.Records.size(); ++I)
    EXPECT_EQ(describe(Want.Records[I]), describe(Got.Records[I]))
        << "record " << I;
  EXPECT_EQ(Want.BinaryIds, Got.BinaryIds);
  EXPECT_EQ(Want.Traces, Got.Traces);
  EXPECT_EQ(Want.TraceStreamSize, Got.TraceStreamSize);
  EXPECT_EQ(Want.VTableNames, Got.VTableNames);
}

std::string errorText(Error E) { return toString(std::move(E)); }

/// The reader's error for \p Bytes: its class, message and offset.
struct ReadError {
  ErrorCode Code = ErrorCode::Empty;
  std::string Text;
  uint64_t Offset = MemProfError::NoOffset;
};
ReadError readError(StringRef Bytes) {
  ReadError R;
  auto P = readRawInstrProf(Bytes);
  if (P) {
    ADD_FAILURE() << "read succeeded; expected an error";
    return R;
  }
  handleAllErrors(P.takeError(), [&](const MemProfError &E) {
    R.Code = E.code();
    R.Text = E.detail();
    R.Offset = E.offset();
  });
  return R;
}

void put64(std::string &S, size_t Off, uint64_t V) {
  support::endian::write64le(&S[Off], V);
}
void put32(std::string &S, size_t Off, uint32_t V) {
  support::endian::write32le(&S[Off], V);
}

// Three functions, every value kind, a binary id and two vtables; the
// addresses of a 32-bit program when PtrBytes is 4.
ProfrawBuilder richProfile(unsigned PtrBytes = 8) {
  ProfrawBuilder B;
  B.PtrBytes = PtrBytes;
  B.BinaryIds = {std::string("\x12\x34\x56\x78\x9a\xbc\xde\xf0\x11\x22\x33"
                             "\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc",
                             20)};
  TRecord Main;
  Main.Name = "main";
  Main.Hash = 0x068bb10f6ecc3389;
  Main.Counts = {13, 2, 2, 7, 11, 5};
  Main.FunctionPointer = 0x555500001000;
  // Two ICT sites: known targets, an unknown one, a vtable call site.
  Main.Sites[0] = {
      {{0x555500002000, 7}, {0x7fff00001234, 3}, {0x555500003000, 2}}, {}};
  Main.Sites[2] = {{{0x555500010010, 5},
                    {0x555500010028, 1},
                    {0x555500020000, 1},
                    {0x999, 4}}};
  TRecord Add;
  Add.Name = "t.c;add1";
  Add.Hash = 0x0a4d0ad3efffffff;
  Add.Counts = {7};
  Add.FunctionPointer = 0x555500002000;
  TRecord Copy;
  Copy.Name = "_Z4copyPcPKcm";
  Copy.Hash = 0x00ab83ccdfffffff;
  Copy.Counts = {4, 0, 1ULL << 56};
  Copy.FunctionPointer = 0x555500003000;
  Copy.Sites[1] = {{{1, 1}, {8, 2}, {15, 3}, {22, 4}, {600, 5}, {64, 6}},
                   {{0, 9}}};
  B.Records = {Main, Add, Copy};
  B.VTables = {{"_ZTV2Sq", 0x555500010000, 0x28},
               {"_ZTV3Tri", 0x555500020000, 0x28}};
  if (PtrBytes == 4) {
    // Keep the low 32 bits of every address.
    for (TRecord &R : B.Records) {
      R.FunctionPointer &= 0xffffffff;
      for (unsigned K : {0u, 2u})
        for (TSite &S : R.Sites[K])
          for (TValue &V : S)
            V.Value &= 0xffffffff;
    }
    for (TVTable &V : B.VTables)
      V.Pointer &= 0xffffffff;
  }
  return B;
}

//===----------------------------------------------------------------------===//
// Names and variants
//===----------------------------------------------------------------------===//

TEST(InstrProfRawReader, NameRefIsMD5Low) {
  // Values from the spec's worked example (5.2, 5.3).
  EXPECT_EQ(instrProfNameRef("_Z5applyPFiiEi"), 0x8745DFABD59E1A0BULL);
  EXPECT_EQ(instrProfNameRef("main"), 0xdb956436e78dd5faULL);
  EXPECT_EQ(instrProfNameRef("_ZN5ShapeD2Ev"), 0x4DD82DE1B3329730ULL);
  EXPECT_EQ(instrProfNameRef("t.c;add1"), md5lo("t.c;add1"));
}

TEST(InstrProfRawReader, DescribesVariants) {
  EXPECT_EQ(describeVariant(VariantIR), "IR");
  EXPECT_EQ(describeVariant(VariantIR | VariantCSIR), "IR, context-sensitive");
  EXPECT_EQ(describeVariant(0), "front-end");
  EXPECT_EQ(describeVariant(VariantIR | VariantEntryFirst), "IR, entry-first");
  EXPECT_EQ(describeVariant(VariantIR | VariantByteCoverage),
            "IR, block coverage");
  EXPECT_EQ(describeVariant(VariantIR | VariantByteCoverage |
                            VariantFunctionEntryOnly),
            "IR, function entry coverage");
  EXPECT_EQ(describeVariant(VariantIR | VariantTemporal), "IR, temporal");
  EXPECT_EQ(describeVariant(VariantIR | VariantLoopEntries),
            "IR, loop entries");
}

TEST(InstrProfRawReader, RecognizesEveryMagic) {
  auto Magic = [](uint64_t M) {
    std::string S(8, '\0');
    support::endian::write64le(&S[0], M);
    return S;
  };
  EXPECT_TRUE(isRawInstrProf(Magic(RawMagic64)));
  EXPECT_TRUE(isRawInstrProf(Magic(RawMagic32)));
  EXPECT_TRUE(isRawInstrProf(Magic(byteswap(RawMagic64))));
  EXPECT_TRUE(isRawInstrProf(Magic(byteswap(RawMagic32))));
  EXPECT_FALSE(isRawInstrProf(Magic(0x8169666F72706CFFULL))); // indexed
  EXPECT_FALSE(isRawInstrProf(Magic(RawMagic64).substr(0, 7)));
  EXPECT_FALSE(isRawInstrProf(""));
}

//===----------------------------------------------------------------------===//
// Valid files
//===----------------------------------------------------------------------===//

TEST(InstrProfRawReader, V10ThreeRecordsWithEveryValueKind) {
  ProfrawBuilder B = richProfile();
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  // The remapping, spelled out.
  ASSERT_EQ(P->Records.size(), 3u);
  const FunctionCounters &Main = P->Records[0];
  EXPECT_EQ(Main.Name, "main");
  EXPECT_EQ(Main.Hash, 0x068bb10f6ecc3389u);
  ASSERT_EQ(Main.Sites[0].size(), 2u);
  InstrProfValueSite ICT = {{md5lo("t.c;add1"), 7},
                            {0, 3}, // not an instrumented function
                            {md5lo("_Z4copyPcPKcm"), 2}};
  EXPECT_EQ(Main.Sites[0][0], ICT);
  EXPECT_TRUE(Main.Sites[0][1].empty());
  EXPECT_TRUE(Main.Sites[1].empty());
  // Inside a vtable, at its end (ranges are half-open), at a vtable's start,
  // and nowhere.
  InstrProfValueSite VT = {
      {md5lo("_ZTV2Sq"), 5}, {0, 1}, {md5lo("_ZTV3Tri"), 1}, {0, 4}};
  EXPECT_EQ(Main.Sites[2][0], VT);
  const FunctionCounters &Copy = P->Records[2];
  // As the file holds them (llvm-profdata does not remap), in file order.
  InstrProfValueSite Sizes = {{1, 1},  {8, 2},   {15, 3},
                              {22, 4}, {600, 5}, {64, 6}};
  EXPECT_EQ(Copy.Sites[1][0], Sizes);
  EXPECT_EQ(Copy.Counts[2], 1ULL << 56); // the largest accepted
  EXPECT_EQ(P->BinaryIds.size(), 1u);
  EXPECT_EQ(P->BinaryIds[0].size(), 20u);
  std::vector<std::string> VTNames = {"_ZTV2Sq", "_ZTV3Tri"};
  EXPECT_EQ(P->VTableNames, VTNames);
  EXPECT_TRUE(P->Present);
  EXPECT_TRUE(P->isIR());
  EXPECT_TRUE(P->Traces.empty());
}

TEST(InstrProfRawReader, FrontEndWithoutRecordsIsPresent) {
  ProfrawBuilder B;
  B.Variant = 0;
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_TRUE(P->Present);
  EXPECT_FALSE(P->isIR());
  EXPECT_TRUE(P->Records.empty());
}

TEST(InstrProfRawReader, ByteCoverage) {
  ProfrawBuilder B;
  B.Variant = VariantIR | VariantByteCoverage;
  TRecord A = rec("a", {1, 0, 1, 1, 0});
  TRecord C = rec("c", {0, 1});
  B.Records = {A, C};
  Built Bt = B.build();
  // 7 byte counters, 1 padding byte.
  EXPECT_EQ(support::endian::read64le(&Bt.Bytes[B.fieldAt("NumCounters")]), 7u);
  EXPECT_EQ(support::endian::read64le(&Bt.Bytes[B.fieldAt("PadAfterCounters")]),
            1u);
  auto P = readRawInstrProf(Bt.Bytes);
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  // Any byte but 0 means "not executed", 0xff or not.
  Bt.Bytes[Bt.CounterAt[0]] = 0x7f;
  auto Q = readRawInstrProf(Bt.Bytes);
  ASSERT_TRUE(bool(Q));
  std::vector<uint64_t> Want = {0, 0, 1, 1, 0};
  EXPECT_EQ(Q->Records[0].Counts, Want);
}

TEST(InstrProfRawReader, TemporalTraceSortsByTimestampThenNameRef) {
  ProfrawBuilder B;
  B.Variant = VariantIR | VariantTemporal;
  auto Rec = [](StringRef Name, uint64_t TS) {
    TRecord R;
    R.Name = Name.str();
    R.Counts = {TS + 1, 2};
    R.Timestamp = TS;
    return R;
  };
  // Two functions share a timestamp: NameRef breaks the tie.
  B.Records = {Rec("late", 9), Rec("never", 0), Rec("main", 1),
               Rec("x", 5),    Rec("y", 5),     Rec("reset", ~uint64_t(0))};
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  ASSERT_EQ(P->Traces.size(), 1u);
  uint64_t X = md5lo("x"), Y = md5lo("y");
  std::vector<uint64_t> Want = {md5lo("main"), std::min(X, Y), std::max(X, Y),
                                md5lo("late")};
  EXPECT_EQ(P->Traces[0].FunctionNameRefs, Want);
  EXPECT_EQ(P->Traces[0].Weight, 1u);
  EXPECT_EQ(P->TraceStreamSize, 1u);
  // The timestamp is not a counter.
  std::vector<uint64_t> Counts = {10, 2};
  EXPECT_EQ(P->Records[0].Counts, Counts);

  // No function ran: no trace.
  for (TRecord &R : B.Records)
    R.Timestamp = 0;
  auto Q = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(Q));
  EXPECT_TRUE(Q->Traces.empty());
  EXPECT_EQ(Q->TraceStreamSize, 0u);
  EXPECT_TRUE(Q->hasTemporal());
}

TEST(InstrProfRawReader, TemporalWithByteCoverage) {
  // The timestamp stays 8 bytes wide and takes 8 byte-counter slots.
  ProfrawBuilder B;
  B.Variant = VariantIR | VariantByteCoverage | VariantTemporal;
  TRecord A = rec("a", {1}, 2);
  TRecord C = rec("c", {0, 1, 1}, 1);
  B.Records = {A, C};
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  std::vector<uint64_t> Trace = {md5lo("c"), md5lo("a")};
  EXPECT_EQ(P->Traces[0].FunctionNameRefs, Trace);
}

TEST(InstrProfRawReader, Bitmaps) {
  ProfrawBuilder B;
  B.Variant = 0; // MC/DC comes from the front end
  TRecord A = rec("a", {3});
  A.Bitmap = {0x1f, 0x00, 0x80};
  TRecord N = rec("none", {1});
  TRecord C = rec("c", {1, 2});
  C.Bitmap = {0x05};
  B.Records = {A, N, C};
  Built Bt = B.build();
  EXPECT_EQ(support::endian::read64le(&Bt.Bytes[B.fieldAt("NumBitmapBytes")]),
            4u);
  EXPECT_EQ(support::endian::read64le(&Bt.Bytes[B.fieldAt("PadAfterBitmap")]),
            4u);
  auto P = readRawInstrProf(Bt.Bytes);
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  std::vector<uint8_t> Want = {0x05};
  EXPECT_EQ(P->Records[2].Bitmap, Want);
  EXPECT_TRUE(P->Records[1].Bitmap.empty());
}

TEST(InstrProfRawReader, CompressedAndPlainNames) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "no zlib";
  for (bool Compress : {false, true})
    for (bool Split : {false, true}) {
      SCOPED_TRACE(std::string(Compress ? "compressed" : "plain") +
                   (Split ? ", two blobs" : ""));
      ProfrawBuilder B = richProfile();
      B.Compress = Compress;
      B.SplitNames = Split;
      B.ExtraNames = {"unused;f", "_ZN1A1fEv"};
      std::string Bytes = B.bytes();
      auto P = readRawInstrProf(Bytes);
      ASSERT_TRUE(bool(P)) << errorText(P.takeError());
      expectSame(expected({B}), *P);
    }
}

TEST(InstrProfRawReader, ConcatenatedProfilesWithZeroPadding) {
  ProfrawBuilder A = richProfile();
  ProfrawBuilder B;
  B.BinaryIds = {"\x01\x02\x03\x04\x05\x06\x07\x08"};
  TRecord M;
  M.Name = "main";
  M.Hash = 0x068bb10f6ecc3389;
  M.Counts = {1, 0, 0, 0, 1, 0};
  TRecord L = rec("lib;f", {5});
  B.Records = {M, L};
  const std::string One = A.bytes(), Two = B.bytes();
  CounterProfile Want = expected({A, B});
  for (unsigned Zeros : {0u, 8u, 16u, 64u}) {
    SCOPED_TRACE(Zeros);
    auto P = readRawInstrProf(One + std::string(Zeros, '\0') + Two +
                              std::string(Zeros, '\0'));
    ASSERT_TRUE(bool(P)) << errorText(P.takeError());
    expectSame(Want, *P);
  }
  // A profile that does not start 8-aligned.
  ReadError E = readError(One + std::string(3, '\0') + Two);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("insufficient padding"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Offset, One.size() + 3);
  // Garbage after a profile.
  E = readError(One + std::string(16, '\x07'));
  EXPECT_EQ(E.Code, ErrorCode::BadMagic);
  EXPECT_EQ(E.Offset, One.size());
  // Not enough left for a header.
  E = readError(One + Two.substr(0, 40));
  EXPECT_EQ(E.Code, ErrorCode::Truncated);
  // Profiles of different kinds in one file.
  ProfrawBuilder C = B;
  C.Variant = VariantIR | VariantCSIR;
  E = readError(One + C.bytes());
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("IR, context-sensitive"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Offset, One.size() + 8);
}

TEST(InstrProfRawReader, OneTemporalTraceForConcatenatedProfiles) {
  ProfrawBuilder A;
  A.Variant = VariantIR | VariantTemporal;
  TRecord F = rec("f", {1}, 2);
  TRecord G = rec("g", {1}, 1);
  A.Records = {F, G};
  ProfrawBuilder B = A;
  B.Records[0].Timestamp = 0; // f did not run
  ProfrawBuilder C = A;
  C.Records[0].Timestamp = C.Records[1].Timestamp = 0; // nothing ran
  auto P = readRawInstrProf(A.bytes() + C.bytes() + B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({A, C, B}), *P);
  // llvm-profdata pools the timestamps of a file's profiles into one trace:
  // (1, g) twice, then (2, f).
  ASSERT_EQ(P->Traces.size(), 1u);
  EXPECT_EQ(P->TraceStreamSize, 1u);
  std::vector<uint64_t> T0 = {md5lo("g"), md5lo("g"), md5lo("f")};
  EXPECT_EQ(P->Traces[0].FunctionNameRefs, T0);
}

TEST(InstrProfRawReader, BinaryIds) {
  ProfrawBuilder B = richProfile();
  B.BinaryIds = {std::string(20, '\xab'), std::string(8, '\x01'),
                 std::string(1, '\x7f')};
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_EQ(P->BinaryIds, B.BinaryIds);

  // Length 0.
  std::string Bytes = B.bytes();
  const size_t Id0 = B.fieldAt("ValueKindLast") + 8;
  std::string Z = Bytes;
  put64(Z, Id0, 0);
  ReadError E = readError(Z);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("binary id length is 0"), std::string::npos);
  EXPECT_EQ(E.Offset, Id0);
  // A length past the section (and one that would wrap when padded).
  for (uint64_t Len :
       {uint64_t(25), uint64_t(64), ~uint64_t(0), ~uint64_t(0) - 6}) {
    SCOPED_TRACE(Len);
    std::string O = Bytes;
    put64(O, Id0 + 8 + 24, Len); // the second id
    E = readError(O);
    EXPECT_EQ(E.Code, ErrorCode::Malformed);
    EXPECT_EQ(E.Offset, Id0 + 32);
  }
  // The section size must be a multiple of 8 and inside the file.
  std::string S = Bytes;
  put64(S, B.fieldAt("BinaryIdsSize"), 52);
  EXPECT_EQ(readError(S).Code, ErrorCode::Malformed);
  put64(S, B.fieldAt("BinaryIdsSize"), uint64_t(1) << 60);
  EXPECT_EQ(readError(S).Code, ErrorCode::Truncated);
  // A section that ends inside an id's length.
  put64(S, B.fieldAt("BinaryIdsSize"), 32 + 16 + 8);
  EXPECT_NE(readError(S).Text, "");
}

TEST(InstrProfRawReader, OlderVersions) {
  // The same profile (without vtables and kind-2 values for v8 and v9, and
  // without bitmaps for v8) in each layout.
  for (unsigned Version : {8u, 9u, 10u}) {
    SCOPED_TRACE(Version);
    ProfrawBuilder B = richProfile();
    B.Version = Version;
    if (Version < 10) {
      B.VTables.clear();
      B.Records[0].Sites[2].clear();
    }
    if (Version >= 9)
      B.Records[1].Bitmap = {0x12, 0x34};
    Built Bt = B.build();
    EXPECT_EQ(Bt.DataAt, (Version == 8   ? 88u
                          : Version == 9 ? 112u
                                         : 128u) +
                             32u);
    auto P = readRawInstrProf(Bt.Bytes);
    ASSERT_TRUE(bool(P)) << errorText(P.takeError());
    expectSame(expected({B}), *P);
  }
  // v8 and v9 records have two value kinds: kind 2 is invalid there.
  ProfrawBuilder B = richProfile();
  B.Version = 9;
  B.VTables.clear();
  B.Records[0].Sites[2].clear();
  Built Bt = B.build();
  put32(Bt.Bytes, Bt.BlobAt[1] + 8, 2); // copy's kind 1 -> 2
  ReadError E = readError(Bt.Bytes);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("value kind 2 is invalid"), std::string::npos)
      << E.Text;
  // Unsupported versions.
  for (uint64_t V : {7u, 11u, 0u}) {
    std::string S = richProfile().bytes();
    put64(S, 8, V | VariantIR);
    E = readError(S);
    EXPECT_EQ(E.Code, ErrorCode::UnsupportedVersion);
    EXPECT_EQ(E.Offset, 8u);
  }
}

TEST(InstrProfRawReader, PointerWidthsAndByteOrders) {
  for (unsigned Version : {8u, 9u, 10u})
    for (unsigned Ptr : {4u, 8u})
      for (bool BE : {false, true}) {
        SCOPED_TRACE("v" + std::to_string(Version) + " " +
                     std::to_string(Ptr * 8) + "-bit " +
                     (BE ? "big-endian" : "little-endian"));
        ProfrawBuilder B = richProfile(Ptr);
        B.Version = Version;
        B.BigEndian = BE;
        if (Version < 10) {
          B.VTables.clear();
          B.Records[0].Sites[2].clear();
        }
        B.Records[2].Bitmap =
            Version >= 9 ? std::vector<uint8_t>{9} : std::vector<uint8_t>{};
        B.ExtraNames = {"z"};
        std::string Bytes = B.bytes();
        auto P = readRawInstrProf(Bytes);
        ASSERT_TRUE(bool(P)) << errorText(P.takeError());
        expectSame(expected({B}), *P);
        EXPECT_TRUE(isRawInstrProf(Bytes));
      }
}

TEST(InstrProfRawReader, PaddingBeforeCounters) {
  // Darwin's continuous mode page-aligns the counters.
  ProfrawBuilder B = richProfile();
  B.PaddingBeforeCounters = 4096 - 8;
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
}

TEST(InstrProfRawReader, FunctionPointerSharedByTwoRecords) {
  // LLVM's sorted address table answers with the smallest NameRef.
  ProfrawBuilder B = richProfile();
  B.Records[2].FunctionPointer = B.Records[1].FunctionPointer;
  auto P = readRawInstrProf(B.bytes());
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  expectSame(expected({B}), *P);
  EXPECT_EQ(P->Records[0].Sites[0][0][0].Value,
            std::min(md5lo("t.c;add1"), md5lo("_Z4copyPcPKcm")));
}

TEST(InstrProfRawReader, RandomProfilesReadAsBuilt) {
  std::mt19937_64 R(0x9a3f);
  unsigned Read = 0;
  for (unsigned N = 0; N < 300; ++N) {
    ProfrawBuilder B;
    B.Version = 8 + R() % 3;
    B.PtrBytes = R() % 2 ? 8 : 4;
    B.BigEndian = R() % 4 == 0;
    const uint64_t Kinds[] = {0,
                              VariantIR,
                              VariantIR | VariantCSIR,
                              VariantIR | VariantByteCoverage,
                              VariantIR | VariantTemporal,
                              VariantIR | VariantTemporal | VariantByteCoverage,
                              VariantIR | VariantEntryFirst};
    B.Variant = Kinds[R() % 7];
    B.Compress = R() % 2 && compression::zlib::isAvailable();
    B.SplitNames = R() % 2;
    B.PaddingBeforeCounters = R() % 4 ? 0 : 8 * (R() % 4);
    for (unsigned I = R() % 3; I > 0; --I)
      B.BinaryIds.push_back(std::string(1 + R() % 24, char('a' + I)));
    const uint64_t Base = B.PtrBytes == 8 ? 0x561200000000 : 0x08000000;
    if (B.Version >= 10)
      for (unsigned I = R() % 3; I > 0; --I)
        B.VTables.push_back(
            {"_ZTV" + std::to_string(I) + "V" + std::to_string(N),
             Base + 0x100000 + 0x1000 * I, uint32_t(8 + 8 * (R() % 6))});
    const unsigned NumRecords = R() % 6;
    for (unsigned I = 0; I < NumRecords; ++I) {
      TRecord T;
      T.Name = "f" + std::to_string(I) + (R() % 2 ? ";local" : "");
      T.Hash = R();
      for (unsigned C = 1 + R() % 5; C > 0; --C)
        T.Counts.push_back(R() % 3 ? R() % 100 : R() >> 8);
      if (B.Variant & VariantByteCoverage)
        for (uint64_t &C : T.Counts)
          C = C % 2;
      T.Timestamp = R() % 3 ? R() % 50 : 0;
      T.FunctionPointer = R() % 4 ? Base + 0x10 * I : 0;
      if (B.Version >= 9 && R() % 3 == 0)
        for (unsigned K = 1 + R() % 3; K > 0; --K)
          T.Bitmap.push_back(uint8_t(R()));
      for (unsigned K = 0; K < (B.Version >= 10 ? 3u : 2u); ++K) {
        if (R() % 2)
          continue;
        for (unsigned S = 1 + R() % 3; S > 0; --S) {
          TSite Site;
          for (unsigned V = R() % 4; V > 0; --V) {
            uint64_t Value;
            if (K == 0)
              Value = Base + 0x10 * (R() % (NumRecords + 2));
            else if (K == 1)
              Value = R() % 1000;
            else
              Value = Base + 0x100000 + (R() % 0x4000);
            Site.push_back({Value, 1 + R() % 1000});
          }
          T.Sites[K].push_back(Site);
        }
      }
      B.Records.push_back(T);
    }
    std::string Bytes = B.bytes();
    auto P = readRawInstrProf(Bytes);
    if (!P) {
      ADD_FAILURE() << "profile " << N << ": " << errorText(P.takeError());
      continue;
    }
    expectSame(expected({B}), *P);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "profile " << N;
      return;
    }
    ++Read;
  }
  EXPECT_EQ(Read, 300u);
}

//===----------------------------------------------------------------------===//
// Malformed files
//===----------------------------------------------------------------------===//

TEST(InstrProfRawReader, EveryTruncationFails) {
  // Every layout: each proper prefix must give an error, never a crash.
  for (unsigned Version : {8u, 10u})
    for (unsigned Ptr : {4u, 8u}) {
      ProfrawBuilder B = richProfile(Ptr);
      B.Version = Version;
      B.Compress = compression::zlib::isAvailable();
      B.SplitNames = true;
      if (Version < 10) {
        B.VTables.clear();
        B.Records[0].Sites[2].clear();
      }
      std::string Bytes = B.bytes();
      ASSERT_TRUE(bool(readRawInstrProf(Bytes)));
      for (size_t Len = 0; Len < Bytes.size(); ++Len) {
        auto P = readRawInstrProf(StringRef(Bytes.data(), Len));
        if (P) {
          ADD_FAILURE() << "v" << Version << " ptr " << Ptr << ": prefix of "
                        << Len << " of " << Bytes.size() << " bytes was read";
          break;
        }
        consumeError(P.takeError());
      }
    }
  // The temporal byte-coverage layout too.
  ProfrawBuilder T;
  T.Variant = VariantIR | VariantTemporal | VariantByteCoverage;
  TRecord A = rec("a", {1, 0, 1}, 3);
  A.Sites[1] = {{{3, 4}}};
  T.Records = {A};
  std::string Bytes = T.bytes();
  ASSERT_TRUE(bool(readRawInstrProf(Bytes)));
  for (size_t Len = 0; Len < Bytes.size(); ++Len) {
    auto P = readRawInstrProf(StringRef(Bytes.data(), Len));
    ASSERT_FALSE(bool(P)) << Len;
    consumeError(P.takeError());
  }
}

TEST(InstrProfRawReader, EmptyAndForeignFiles) {
  EXPECT_EQ(readError("").Code, ErrorCode::Empty);
  EXPECT_EQ(readError("\x81\x72").Code, ErrorCode::Truncated);
  std::string Indexed(16, '\0');
  support::endian::write64le(&Indexed[0], 0x8169666F72706CFFULL);
  ReadError E = readError(Indexed);
  EXPECT_EQ(E.Code, ErrorCode::BadMagic);
  EXPECT_NE(E.Text.find("indexed"), std::string::npos);
  EXPECT_EQ(readError("hello, world!!!!").Code, ErrorCode::BadMagic);
}

TEST(InstrProfRawReader, CorrelatedProfilesAreRefused) {
  ProfrawBuilder B;
  B.Variant = VariantIR | VariantDebugCorrelate;
  ReadError E = readError(B.bytes());
  EXPECT_EQ(E.Code, ErrorCode::UnsupportedVersion);
  EXPECT_EQ(E.Offset, 8u);
}

TEST(InstrProfRawReader, BadPadding) {
  ProfrawBuilder B = richProfile();
  B.Version = 10;
  B.Records[1].Bitmap = {1, 2, 3};
  const std::string Good = B.bytes();
  // Each padding field shifted by one misaligns what follows it.
  for (const char *Field :
       {"PadBefore", "PadAfterCounters", "PadAfterBitmap"}) {
    SCOPED_TRACE(Field);
    std::string S = Good;
    put64(S, B.fieldAt(Field),
          support::endian::read64le(&S[B.fieldAt(Field)]) + 1);
    ReadError E = readError(S);
    EXPECT_EQ(E.Code, ErrorCode::Malformed);
    EXPECT_NE(E.Text.find("not 8-aligned"), std::string::npos) << E.Text;
  }
  // Padding past the end of the file.
  for (const char *Field :
       {"PadBefore", "PadAfterCounters", "PadAfterBitmap"}) {
    SCOPED_TRACE(Field);
    std::string S = Good;
    put64(S, B.fieldAt(Field), ~uint64_t(0) - 7);
    EXPECT_EQ(readError(S).Code, ErrorCode::Truncated);
  }
}

TEST(InstrProfRawReader, SectionSizesPastTheEnd) {
  ProfrawBuilder B = richProfile();
  const std::string Good = B.bytes();
  for (const char *Field : {"NumData", "NumCounters", "NumBitmapBytes",
                            "NamesSize", "NumVTables", "VNamesSize"})
    for (uint64_t V : {uint64_t(1) << 20, uint64_t(1) << 61, ~uint64_t(0)}) {
      SCOPED_TRACE(std::string(Field) + " " + std::to_string(V));
      std::string S = Good;
      put64(S, B.fieldAt(Field), V);
      ReadError E = readError(S);
      EXPECT_EQ(E.Code, ErrorCode::Truncated) << E.Text;
    }
}

TEST(InstrProfRawReader, CounterPointerOutOfRange) {
  ProfrawBuilder B = richProfile();
  Built Bt = B.build();
  const size_t Rec1 = Bt.DataAt + Bt.RecordBytes;
  const uint64_t Ptr = support::endian::read64le(&Bt.Bytes[Rec1 + 16]);
  // Before the counters, past them, and on their last counter with two
  // counters asked for.
  std::string S = Bt.Bytes;
  put64(S, Rec1 + 16, Ptr - 8 * 7 - 8);
  ReadError E = readError(S);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("is negative"), std::string::npos) << E.Text;
  EXPECT_NE(E.Text.find("t.c;add1"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Offset, Rec1 + 16);
  put64(S, Rec1 + 16, Ptr + 8 * 9);
  E = readError(S);
  EXPECT_NE(E.Text.find("past the counters section"), std::string::npos)
      << E.Text;
  put64(S, Rec1 + 16, Ptr + 8 * 3); // counter 9 of 10
  put32(S, Rec1 + 48, 2);
  E = readError(S);
  EXPECT_NE(E.Text.find("number of counters 2"), std::string::npos) << E.Text;
  // Counters may overlap and come in any order, as long as they fit.
  put32(S, Rec1 + 48, 1);
  EXPECT_TRUE(bool(readRawInstrProf(S)));
  // Same checks for the bitmap.
  B.Records[1].Bitmap = {1, 2};
  Bt = B.build();
  const uint64_t BPtr = support::endian::read64le(&Bt.Bytes[Rec1 + 24]);
  S = Bt.Bytes;
  put64(S, Rec1 + 24, BPtr - 1);
  EXPECT_NE(readError(S).Text.find("bitmap offset -1 is negative"),
            std::string::npos);
  put64(S, Rec1 + 24, BPtr + 2);
  EXPECT_NE(readError(S).Text.find("past the bitmap section"),
            std::string::npos);
  put64(S, Rec1 + 24, BPtr + 1);
  EXPECT_NE(readError(S).Text.find("number of bitmap bytes 2"),
            std::string::npos);
}

TEST(InstrProfRawReader, NumCountersChecks) {
  ProfrawBuilder B = richProfile();
  Built Bt = B.build();
  const size_t Rec0 = Bt.DataAt;
  for (uint32_t N : {11u, 100u, 0xffffffffu}) {
    std::string S = Bt.Bytes;
    put32(S, Rec0 + 48, N);
    ReadError E = readError(S);
    EXPECT_EQ(E.Code, ErrorCode::Malformed);
    EXPECT_EQ(E.Offset, Rec0 + 48);
  }
  std::string S = Bt.Bytes;
  put32(S, Rec0 + 48, 0);
  ReadError E = readError(S);
  EXPECT_NE(E.Text.find("number of counters is zero"), std::string::npos);
  // A temporal record needs a counter besides its timestamp.
  ProfrawBuilder T;
  T.Variant = VariantIR | VariantTemporal;
  TRecord A = rec("a", {1}, 1);
  T.Records = {A};
  Bt = T.build();
  put32(Bt.Bytes, Bt.DataAt + 48, 1);
  E = readError(Bt.Bytes);
  EXPECT_NE(E.Text.find("no counter after the timestamp"), std::string::npos)
      << E.Text;
}

TEST(InstrProfRawReader, HugeNumData) {
  // Counts that would wrap the layout sums or size allocations.
  ProfrawBuilder B = richProfile();
  for (uint64_t N : {uint64_t(1) << 58, (uint64_t(1) << 58) + 1,
                     ~uint64_t(0) / 64 + 1, ~uint64_t(0)}) {
    std::string S = B.bytes();
    put64(S, B.fieldAt("NumData"), N);
    ReadError E = readError(S);
    EXPECT_EQ(E.Code, ErrorCode::Truncated);
    EXPECT_EQ(E.Offset, 128u + 32u);
  }
}

TEST(InstrProfRawReader, ValueDataChecks) {
  ProfrawBuilder B = richProfile();
  Built Bt = B.build();
  const size_t Blob = Bt.BlobAt[1]; // copy's: the last one
  auto Patch32 = [&](size_t Off, uint32_t V) {
    std::string S = Bt.Bytes;
    put32(S, Off, V);
    return S;
  };
  // TotalSize beyond the end of the file, not a multiple of 8, too small.
  ReadError E = readError(Patch32(Blob, 0x100000));
  EXPECT_EQ(E.Code, ErrorCode::Truncated);
  EXPECT_NE(E.Text.find("_Z4copyPcPKcm"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Offset, Blob);
  EXPECT_EQ(readError(Patch32(Blob, 0xffffffff)).Code, ErrorCode::Malformed);
  EXPECT_EQ(readError(Patch32(Blob, 12)).Code, ErrorCode::Malformed);
  EXPECT_EQ(readError(Patch32(Blob, 0)).Code, ErrorCode::Malformed);
  // TotalSize smaller than its records.
  E = readError(Patch32(Blob, 16));
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("overrun TotalSize"), std::string::npos) << E.Text;
  // Kind counts and kinds that disagree with the data record.
  E = readError(Patch32(Blob + 4, 3));
  EXPECT_NE(E.Text.find("holds 3 value kinds"), std::string::npos) << E.Text;
  E = readError(Patch32(Blob + 8, 0));
  EXPECT_NE(E.Text.find("has 2 sites but the data record says 0"),
            std::string::npos)
      << E.Text;
  E = readError(Patch32(Blob + 8, 7));
  EXPECT_NE(E.Text.find("value kind 7 is invalid"), std::string::npos);
  E = readError(Patch32(Blob + 12, 3));
  EXPECT_NE(E.Text.find("has 3 sites"), std::string::npos);
  // A site count that overruns the blob.
  std::string S = Bt.Bytes;
  S[Blob + 16] = char(200);
  E = readError(S);
  EXPECT_NE(E.Text.find("overrun TotalSize"), std::string::npos) << E.Text;
  // Two kinds out of order (main's blob holds kinds 0 and 2; the second
  // kind record follows 8 + 8 + 8 bytes of headers and 3 values).
  E = readError(Patch32(Bt.BlobAt[0] + 72, 0));
  EXPECT_NE(E.Text.find("out of order"), std::string::npos) << E.Text;
  // A blob cut off by the end of the file.
  E = readError(StringRef(Bt.Bytes).drop_back(8));
  EXPECT_EQ(E.Code, ErrorCode::Truncated);
}

TEST(InstrProfRawReader, UnknownNameRef) {
  ProfrawBuilder B = richProfile();
  Built Bt = B.build();
  put64(Bt.Bytes, Bt.DataAt + Bt.RecordBytes, 0x1234abcd);
  ReadError E = readError(Bt.Bytes);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("NameRef 0x1234abcd has no name"), std::string::npos)
      << E.Text;
  EXPECT_EQ(E.Offset, Bt.DataAt + Bt.RecordBytes);
  // The two keys DenseMap reserves are ordinary NameRefs here.
  for (uint64_t Ref : {~uint64_t(0), ~uint64_t(0) - 1}) {
    put64(Bt.Bytes, Bt.DataAt + Bt.RecordBytes, Ref);
    EXPECT_EQ(readError(Bt.Bytes).Code, ErrorCode::Malformed);
  }
}

TEST(InstrProfRawReader, ExcessivelyLargeCounter) {
  ProfrawBuilder B = richProfile();
  B.Records[2].Counts[1] = (1ULL << 56) + 1;
  Built Bt = B.build();
  ReadError E = readError(Bt.Bytes);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_EQ(E.Text, "excessively large counter value 72057594037927937 in "
                    "function _Z4copyPcPKcm suggests corrupted profile data");
  EXPECT_EQ(E.Offset, Bt.CounterAt[2] + 8);
  // Byte counters and timestamps are not counts.
  ProfrawBuilder T;
  T.Variant = VariantIR | VariantTemporal;
  TRecord A = rec("a", {3}, ~uint64_t(0) - 5);
  T.Records = {A};
  EXPECT_TRUE(bool(readRawInstrProf(T.bytes())));
}

TEST(InstrProfRawReader, BadNames) {
  ProfrawBuilder B = richProfile();
  Built Bt = B.build();
  // An empty name (two separators in a row).
  ProfrawBuilder E1 = B;
  E1.ExtraNames = {""};
  EXPECT_NE(readError(E1.bytes()).Text.find("empty name"), std::string::npos);
  // A length past the section, a ULEB past the section.
  std::string S = Bt.Bytes;
  S[Bt.NamesAt] = char(0x7f);
  EXPECT_EQ(readError(S).Code, ErrorCode::Truncated);
  put64(S, B.fieldAt("NamesSize"), 1);
  S[Bt.NamesAt] = char(0x80);
  ReadError E = readError(S);
  EXPECT_NE(E.Text.find("uleb128"), std::string::npos) << E.Text;
  // Eleven ULEB bytes: too long for 64 bits, however many are zero.
  S = Bt.Bytes;
  for (size_t I = 0; I < 11; ++I)
    S[Bt.NamesAt + I] = char(0x80);
  E = readError(S);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("uleb128 too big"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Offset, Bt.NamesAt);
  if (!compression::zlib::isAvailable())
    return;
  // A corrupt zlib stream; a claimed size zlib cannot reach.
  B.Compress = true;
  Bt = B.build();
  S = Bt.Bytes;
  S[Bt.NamesAt + 2] ^= 0x55; // the zlib header
  E = readError(S);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("decompress"), std::string::npos) << E.Text;
  // 20,000 names bytes deflate to some 60: a 3-byte length, made 2^21 - 1.
  B.ExtraNames = {std::string(20000, 'a')};
  Bt = B.build();
  S = Bt.Bytes;
  ASSERT_EQ(uint8_t(S[Bt.NamesAt + 2]) & 0x80, 0);
  S[Bt.NamesAt] = S[Bt.NamesAt + 1] = char(0xff);
  S[Bt.NamesAt + 2] = char(0x7f);
  E = readError(S);
  EXPECT_EQ(E.Code, ErrorCode::Malformed);
  EXPECT_NE(E.Text.find("more than zlib can expand to"), std::string::npos)
      << E.Text;
}

TEST(InstrProfRawReader, MutationsNeverCrash) {
  // Random byte changes to valid files: an error or a profile, nothing else
  // (the fuzz target does this at scale under sanitizers).
  std::mt19937_64 R(77);
  ProfrawBuilder Rich = richProfile();
  Rich.Compress = compression::zlib::isAvailable();
  ProfrawBuilder T;
  T.Variant = VariantIR | VariantTemporal | VariantByteCoverage;
  TRecord A = rec("a", {1, 0}, 3);
  A.Sites[0] = {{{1, 1}}};
  T.Records = {A};
  const std::string Seeds[] = {Rich.bytes(), T.bytes(),
                               Rich.bytes() + T.bytes()};
  unsigned Ok = 0;
  for (unsigned N = 0; N < 4000; ++N) {
    std::string S = Seeds[N % 3];
    for (unsigned K = 1 + R() % 4; K > 0; --K) {
      size_t At = R() % S.size();
      switch (R() % 4) {
      case 0:
        S[At] = char(R());
        break;
      case 1:
        S[At] ^= char(1 << (R() % 8));
        break;
      case 2:
        if (At + 8 <= S.size())
          put64(S, At & ~size_t(7),
                R() % 2 ? ~uint64_t(0) - R() % 300 : R() % 300);
        break;
      default:
        S.resize(At);
        break;
      }
      if (S.empty())
        break;
    }
    auto P = readRawInstrProf(S);
    if (P)
      ++Ok;
    else
      consumeError(P.takeError());
  }
  EXPECT_GT(Ok, 0u);
}

//===----------------------------------------------------------------------===//
// llvm-profdata-22 as the oracle
//===----------------------------------------------------------------------===//

/// The records of `llvm-profdata merge --text` output, from the first
/// record's name line to the end (the header and temporal traces, which
/// come before, are compared elsewhere).
std::string textRecords(StringRef Text) {
  size_t Hash = Text.find("\n# Func Hash:\n");
  if (Hash == StringRef::npos)
    return "";
  size_t Line = Text.rfind('\n', Hash - 1);
  return Text.substr(Line == StringRef::npos ? 0 : Line + 1).str();
}

/// Our records in that text: sorted by name, then hash; the values of a
/// site by count, descending and stable (llvm-profdata's writer sorts them
/// so); indirect-call and vtable targets by name.
std::string ourText(const CounterProfile &P) {
  std::map<uint64_t, std::string> Names;
  for (const FunctionCounters &F : P.Records)
    Names[md5lo(F.Name)] = F.Name;
  for (const std::string &V : P.VTableNames)
    Names[md5lo(V)] = V;
  std::vector<const FunctionCounters *> Order;
  for (const FunctionCounters &F : P.Records)
    Order.push_back(&F);
  // Stable: records are in a vector, so their addresses keep file order.
  std::sort(Order.begin(), Order.end(), [](auto *A, auto *B) {
    return std::tie(A->Name, A->Hash, A) < std::tie(B->Name, B->Hash, B);
  });
  const char *KindNames[] = {"IPVK_IndirectCallTarget", "IPVK_MemOPSize",
                             "IPVK_VTableTarget"};
  std::string S;
  raw_string_ostream OS(S);
  for (const FunctionCounters *F : Order) {
    OS << F->Name << "\n# Func Hash:\n"
       << F->Hash << "\n# Num Counters:\n"
       << F->Counts.size() << "\n# Counter Values:\n";
    for (uint64_t C : F->Counts)
      OS << C << "\n";
    if (!F->Bitmap.empty()) {
      OS << "# Num Bitmap Bytes:\n$" << F->Bitmap.size()
         << "\n# Bitmap Byte Values:\n";
      for (uint8_t B : F->Bitmap)
        OS << "0x" << utohexstr(B, /*LowerCase=*/true) << "\n";
      OS << "\n";
    }
    unsigned Kinds = 0;
    for (const auto &Sites : F->Sites)
      Kinds += !Sites.empty();
    if (Kinds)
      OS << "# Num Value Kinds:\n" << Kinds << "\n";
    for (unsigned K = 0; K < 3; ++K) {
      if (F->Sites[K].empty())
        continue;
      OS << "# ValueKind = " << KindNames[K] << ":\n"
         << K << "\n# NumValueSites:\n"
         << F->Sites[K].size() << "\n";
      for (const InstrProfValueSite &Site : F->Sites[K]) {
        std::vector<const InstrProfValue *> ByCount;
        for (const InstrProfValue &V : Site)
          ByCount.push_back(&V);
        std::sort(ByCount.begin(), ByCount.end(), [](auto *A, auto *B) {
          return A->Count != B->Count ? A->Count > B->Count : A < B;
        });
        OS << Site.size() << "\n";
        for (const InstrProfValue *VP : ByCount) {
          const InstrProfValue &V = *VP;
          if (K == ValueKindMemOPSize)
            OS << V.Value;
          else if (V.Value && Names.count(V.Value))
            OS << Names[V.Value];
          else
            OS << "** External Symbol **";
          OS << ":" << V.Count << "\n";
        }
      }
    }
    OS << "\n";
  }
  return S;
}

/// Runs \p Cmd through the shell.
bool run(const std::string &Cmd) {
  int RC = std::system(Cmd.c_str());
  EXPECT_EQ(RC, 0) << Cmd;
  return RC == 0;
}

std::string readFile(StringRef Path) {
  auto B = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                 /*RequiresNullTerminator=*/false);
  if (!B) {
    ADD_FAILURE() << "cannot read " << Path.str();
    return "";
  }
  return (*B)->getBuffer().str();
}

std::string quote(StringRef S) { return "'" + S.str() + "'"; }

TEST(InstrProfRawOracle, RealClang22ProfileMatchesLLVMProfdata) {
  auto Clang = sys::findProgramByName("clang-22");
  auto Profdata = sys::findProgramByName("llvm-profdata-22");
  if (!Clang || !Profdata)
    GTEST_SKIP() << "clang-22 or llvm-profdata-22 not on PATH";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-profraw", Dir));
  auto In = [&](StringRef Name) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P.str());
  };
  {
    std::error_code EC;
    raw_fd_ostream OS(In("t.c"), EC);
    ASSERT_FALSE(EC);
    OS << R"(#include <stdlib.h>
#include <string.h>
static int add1(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }
typedef int (*fn_t)(int);
__attribute__((noinline)) int apply(fn_t f, int v) { return f(v); }
__attribute__((noinline)) void copy(char *d, const char *s, size_t n) {
  memcpy(d, s, n);
}
__attribute__((noinline)) int never(int x) { return x ? x * 3 : 7; }
int main(int argc, char **argv) {
  fn_t fns[2] = {add1, dbl};
  char src[256], dst[256];
  memset(src, 'a', sizeof src);
  long sum = 0;
  for (int i = 0; i < 7; ++i) {
    sum += apply(fns[i % 2], i);
    copy(dst, src, (size_t)(i * 7 % 200) + 1);
    if (sum > 1000 && argc > 5)
      sum += never(i);
  }
  return sum == 42;
}
)";
  }
  // Compiled as "t.c": local functions are named "t.c;add1".
  ASSERT_TRUE(run("cd " + quote(Dir) + " && " + quote(*Clang) +
                  " -O1 -fprofile-generate t.c -o t"));
  ASSERT_TRUE(run("cd " + quote(Dir) + " && LLVM_PROFILE_FILE=" +
                  quote(In("t.profraw")) + " ./t; test -f t.profraw"));
  ASSERT_TRUE(run(quote(*Profdata) + " merge --text " + quote(In("t.profraw")) +
                  " -o " + quote(In("t.txt"))));
  std::string Raw = readFile(In("t.profraw"));
  auto P = readRawInstrProf(Raw);
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  // Names, hashes, counters and value data alike.
  std::string Theirs = textRecords(readFile(In("t.txt")));
  EXPECT_EQ(StringRef(Theirs).count("# Func Hash:"), 6u); // 6 functions
  EXPECT_EQ(Theirs, ourText(*P));
  EXPECT_TRUE(P->isIR());
  EXPECT_EQ(P->BinaryIds.size(), 1u);
  // The value sites the program must have produced.
  for (const FunctionCounters &F : P->Records) {
    if (F.Name == "apply") {
      ASSERT_EQ(F.Sites[0].size(), 1u);
      std::vector<uint64_t> Targets;
      for (const InstrProfValue &V : F.Sites[0][0])
        Targets.push_back(V.Value);
      std::sort(Targets.begin(), Targets.end());
      std::vector<uint64_t> Want = {md5lo("t.c;add1"), md5lo("t.c;dbl")};
      std::sort(Want.begin(), Want.end());
      EXPECT_EQ(Targets, Want);
    }
    if (F.Name == "copy") {
      // Sizes 1 8 15 22 29 36 43 fall in the ranges 1 8 9 17 17 33 33.
      ASSERT_EQ(F.Sites[1].size(), 1u);
      std::vector<uint64_t> Sizes;
      for (const InstrProfValue &V : F.Sites[1][0])
        Sizes.push_back(V.Value);
      std::sort(Sizes.begin(), Sizes.end());
      std::vector<uint64_t> Want = {1, 8, 9, 17, 33};
      EXPECT_EQ(Sizes, Want);
    }
  }
  sys::fs::remove_directories(Dir);
}

TEST(InstrProfRawOracle, BuiltFilesOfEveryLayoutMatchLLVMProfdata) {
  // llvm-profdata-22 reads raw version 10 only, in both pointer widths and
  // byte orders: the builder's files of each are read alike, value
  // remapping included.
  auto Profdata = sys::findProgramByName("llvm-profdata-22");
  if (!Profdata)
    GTEST_SKIP() << "llvm-profdata-22 not on PATH";
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-profraw", Dir));
  unsigned N = 0;
  for (unsigned Ptr : {4u, 8u})
    for (bool BE : {false, true})
      for (uint64_t Variant :
           {VariantIR, uint64_t(0), VariantIR | VariantByteCoverage,
            VariantIR | VariantTemporal}) {
        SCOPED_TRACE(std::to_string(Ptr * 8) + "-bit " + (BE ? "BE " : "LE ") +
                     describeVariant(Variant));
        ProfrawBuilder B = richProfile(Ptr);
        B.BigEndian = BE;
        B.Variant = Variant;
        B.Compress = compression::zlib::isAvailable();
        B.Records[1].Bitmap = {7, 8, 9};
        B.Records[2].Timestamp = 4;
        B.Records[0].Timestamp = 2;
        // Memop sizes as a runtime writes them: range values
        // (InstrProfGetRangeRepValue); both readers keep them as they are.
        for (TSite &S : B.Records[2].Sites[1])
          for (TValue &V : S)
            V.Value = memopRange(V.Value);
        if (Variant & VariantByteCoverage)
          for (TRecord &R : B.Records)
            for (uint64_t &C : R.Counts)
              C = C % 2;
        std::string File = (Twine(Dir) + "/p" + Twine(N++) + ".profraw").str();
        {
          std::error_code EC;
          raw_fd_ostream OS(File, EC);
          ASSERT_FALSE(EC);
          OS << B.bytes();
        }
        ASSERT_TRUE(run(quote(*Profdata) + " merge --text " +
                        "--keep-vtable-symbols " + quote(File) + " -o " +
                        quote(File + ".txt")));
        auto P = readRawInstrProf(readFile(File));
        ASSERT_TRUE(bool(P)) << errorText(P.takeError());
        std::string Theirs = textRecords(readFile(File + ".txt"));
        EXPECT_EQ(StringRef(Theirs).count("# Func Hash:"), 3u);
        EXPECT_EQ(Theirs, ourText(*P));
      }
  sys::fs::remove_directories(Dir);
}

} // namespace
