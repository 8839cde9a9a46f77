//===- InstrProfRawReader.cpp - LLVM raw InstrProf profiles (v8 to v10) ---===//
//
// Reads the .profraw files of the compiler-rt profile runtime (spec
// llvm-instrprof-formats.md section 1): one or more profiles back to back,
// each a header, binary ids, data records, counters, bitmap bytes, names,
// vtable records and names, then one value-profile blob per record with value
// sites. 64- and 32-bit pointers, either byte order. Every size, count and
// offset is checked against the bytes that remain before it is used, and
// every error names the absolute file offset.
//
//===----------------------------------------------------------------------===//
#include "InstrProfInternal.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <deque>
#include <optional>

using namespace llvm;

namespace memprof {

using namespace instrprof;

static uint64_t swapped(uint64_t V) { return llvm::byteswap(V); }

bool isRawInstrProf(StringRef Buffer) {
  if (Buffer.size() < 8)
    return false;
  uint64_t M = support::endian::read64le(Buffer.data());
  return M == RawMagic64 || M == RawMagic32 || M == swapped(RawMagic64) ||
         M == swapped(RawMagic32);
}

namespace {

/// The most entries reserved up front for a count read from the file.
constexpr uint64_t MaxReserve = uint64_t(1) << 16;


/// The variant bits a raw profile may carry (the MemProf bit is indexed-only).
constexpr uint64_t RawVariantBits =
    VariantLoopEntries | VariantIR | VariantCSIR | VariantEntryFirst |
    VariantDebugCorrelate | VariantByteCoverage | VariantFunctionEntryOnly |
    VariantTemporal;

uint64_t pad8(uint64_t N) { return 7 & (8 - N % 8); }

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

/// A u64-keyed DenseMap that also takes the two keys DenseMap reserves
/// (~0 and ~0 - 1), which file data can hold.
template <typename V> class U64Map {
public:
  void reserve(size_t N) { Map.reserve(N); }
  /// Keeps the first value inserted under a key unless \p Keep says otherwise.
  template <typename KeepFn> void insert(uint64_t K, V Val, KeepFn Keep) {
    if (V *Old = lookup(K)) {
      if (!Keep(*Old, Val))
        *Old = Val;
      return;
    }
    if (K >= ReservedKey)
      Special[K - ReservedKey] = Val;
    else
      Map.try_emplace(K, Val);
  }
  V *lookup(uint64_t K) {
    if (K >= ReservedKey) {
      std::optional<V> &S = Special[K - ReservedKey];
      return S ? &*S : nullptr;
    }
    auto It = Map.find(K);
    return It == Map.end() ? nullptr : &It->second;
  }
  void clear() {
    Map.clear();
    Special[0].reset();
    Special[1].reset();
  }

private:
  static constexpr uint64_t ReservedKey = ~uint64_t(0) - 1;
  DenseMap<uint64_t, V> Map;
  std::optional<V> Special[2];
};

/// One raw version's layout for one pointer width (spec 1.2, 1.5, 1.11).
struct Layout {
  unsigned HeaderBytes = 0;
  unsigned RecordBytes = 0;
  unsigned NumKinds = 0; // value kinds in a data record
  bool HasBitmap = false, HasVTables = false;
  unsigned OffCounterPtr = 0, OffBitmapPtr = 0, OffFunctionPointer = 0,
           OffNumCounters = 0, OffNumValueSites = 0, OffNumBitmapBytes = 0;
  unsigned VTableRecordBytes = 0;

  Layout(unsigned Version, unsigned PtrBytes) {
    HasBitmap = Version >= 9;
    HasVTables = Version >= 10;
    NumKinds = Version >= 10 ? 3 : 2;
    HeaderBytes = Version == 8 ? 88 : Version == 9 ? 112 : 128;
    // NameRef and FuncHash, then pointer-sized fields, then the counts.
    unsigned Off = 16;
    OffCounterPtr = Off;
    Off += PtrBytes;
    if (HasBitmap) {
      OffBitmapPtr = Off;
      Off += PtrBytes;
    }
    OffFunctionPointer = Off;
    Off += 2 * PtrBytes; // FunctionPointer, Values
    OffNumCounters = Off;
    Off += 4;
    OffNumValueSites = Off;
    Off += 2 * NumKinds;
    if (HasBitmap) {
      Off = alignTo(Off, 4);
      OffNumBitmapBytes = Off;
      Off += 4;
    }
    RecordBytes = alignTo(Off, 8);
    VTableRecordBytes = alignTo(8 + PtrBytes + 4, 8);
  }
};

/// A vtable's address range [Start, End), as LLVM's half-open IntervalMap.
struct VTableRange {
  uint64_t Start, End, NameHash, Index;
};

/// The raw header fields, in whatever order the version stores them.
struct RawHeader {
  uint64_t Version = 0, BinaryIdsSize = 0, NumData = 0,
           PaddingBytesBeforeCounters = 0, NumCounters = 0,
           PaddingBytesAfterCounters = 0, NumBitmapBytes = 0,
           PaddingBytesAfterBitmapBytes = 0, NamesSize = 0, CountersDelta = 0,
           BitmapDelta = 0, NamesDelta = 0, NumVTables = 0, VNamesSize = 0,
           ValueKindLast = 0;
};

template <endianness E> class RawInstrProfParser {
public:
  RawInstrProfParser(StringRef Buffer, uint64_t Magic, unsigned PtrBytes)
      : Buffer(Buffer), Magic(Magic), PtrBytes(PtrBytes) {}
  Expected<CounterProfile> parse();

private:
  uint64_t rd64(const char *P) const {
    return support::endian::read<uint64_t, E>(P);
  }
  uint32_t rd32(const char *P) const {
    return support::endian::read<uint32_t, E>(P);
  }
  uint16_t rd16(const char *P) const {
    return support::endian::read<uint16_t, E>(P);
  }
  /// Checked reads in the profile's byte order.
  Error read64(DataCursor &C, uint64_t &Out, const Twine &What) const {
    if (Error Err = C.need(8, What))
      return Err;
    Out = rd64(C.current());
    return C.skip(8, What);
  }
  Error read32(DataCursor &C, uint32_t &Out, const Twine &What) const {
    if (Error Err = C.need(4, What))
      return Err;
    Out = rd32(C.current());
    return C.skip(4, What);
  }
  uint64_t rdPtr(const char *P) const {
    return PtrBytes == 8 ? rd64(P) : uint64_t(rd32(P));
  }
  /// \p Ptr - \p Delta as a signed offset in the pointer width of the
  /// profiled program (a 32-bit program's deltas wrap at 2^32).
  int64_t ptrDiff(uint64_t Ptr, uint64_t Delta) const {
    uint64_t D = Ptr - Delta;
    return PtrBytes == 8 ? int64_t(D) : int64_t(int32_t(uint32_t(D)));
  }

  Error parseProfile(uint64_t Start, uint64_t &End);
  Error readHeader(DataCursor &C, unsigned Version, RawHeader &H);
  Error parseBinaryIds(StringRef Sec, uint64_t Base);
  Error decodeNames(StringRef Sec, uint64_t Base, bool VTables);
  Error addName(StringRef Name, uint64_t At, bool VTables);
  Error parseRecord(const Layout &L, const RawHeader &H, uint64_t Index,
                    uint64_t RecordAt, StringRef Counters, uint64_t CountersAt,
                    StringRef Bitmap, DataCursor &VC);
  Error parseValueData(DataCursor &VC, const Layout &L,
                       const uint16_t *NumValueSites, FunctionCounters &Rec,
                       uint64_t RecordAt);
  uint64_t remap(unsigned Kind, uint64_t Value);

  StringRef Buffer;
  uint64_t Magic;
  unsigned PtrBytes;
  CounterProfile P;
  unsigned NumProfiles = 0;
  StringSet<> SeenVTableNames;

  // Per profile.
  std::deque<SmallVector<uint8_t, 0>> Inflated; // decompressed names
  U64Map<StringRef> Names;                      // NameRef -> PGO name
  U64Map<uint64_t> FunctionAddrs;               // address -> NameRef
  std::vector<VTableRange> VTables;             // sorted by Start
  std::vector<std::pair<uint64_t, uint64_t>> Timestamps;
};

template <endianness E>
Error RawInstrProfParser<E>::readHeader(DataCursor &C, unsigned Version,
                                        RawHeader &H) {
  uint64_t Magic;
  SmallVector<uint64_t *, 20> Fields = {&Magic, &H.Version, &H.BinaryIdsSize,
                                        &H.NumData,
                                        &H.PaddingBytesBeforeCounters,
                                        &H.NumCounters,
                                        &H.PaddingBytesAfterCounters};
  if (Version >= 9)
    Fields.append({&H.NumBitmapBytes, &H.PaddingBytesAfterBitmapBytes});
  Fields.append({&H.NamesSize, &H.CountersDelta});
  if (Version >= 9)
    Fields.push_back(&H.BitmapDelta);
  Fields.push_back(&H.NamesDelta);
  if (Version >= 10)
    Fields.append({&H.NumVTables, &H.VNamesSize});
  Fields.push_back(&H.ValueKindLast);
  for (uint64_t *F : Fields)
    if (Error Err = read64(C, *F, "header field"))
      return Err;
  return Error::success();
}

template <endianness E>
Error RawInstrProfParser<E>::parseBinaryIds(StringRef Sec, uint64_t Base) {
  DataCursor C(Sec, Base);
  while (!C.atEnd()) {
    uint64_t At = C.absoluteOffset();
    uint64_t Len;
    if (Error Err = read64(C, Len, "binary id length"))
      return Err;
    if (Len == 0)
      return makeError(ErrorCode::Malformed, "binary id length is 0", At);
    // Len + pad8(Len) cannot wrap once Len fits in what remains.
    if (Len > C.remaining() || Len + pad8(Len) > C.remaining())
      return makeError(ErrorCode::Malformed,
                       "binary id of " + Twine(Len) +
                           " bytes overruns the binary id section (" +
                           Twine(C.remaining()) + " bytes remain)",
                       At);
    auto Id = C.readBytes(Len, "binary id");
    if (!Id)
      return Id.takeError();
    P.BinaryIds.push_back(Id->str());
    if (Error Err = C.skip(pad8(Len), "binary id padding"))
      return Err;
  }
  return Error::success();
}

template <endianness E>
Error RawInstrProfParser<E>::addName(StringRef Name, uint64_t At,
                                     bool VTables) {
  if (Name.empty())
    return makeError(ErrorCode::Malformed,
                     Twine(VTables ? "vtable" : "function") +
                         " names blob holds an empty name",
                     At);
  if (VTables) {
    if (SeenVTableNames.insert(Name).second)
      P.VTableNames.push_back(Name.str());
    return Error::success();
  }
  Names.insert(instrProfNameRef(Name), Name,
               [](StringRef, StringRef) { return true; });
  return Error::success();
}

template <endianness E>
Error RawInstrProfParser<E>::decodeNames(StringRef Sec, uint64_t Base,
                                         bool VTables) {
  return forEachNameInBlobs(
      Sec, Base, VTables ? "vtable names" : "names", Inflated,
      [&](StringRef Name, uint64_t BlobAt) {
        return addName(Name, BlobAt, VTables);
      });
}

template <endianness E>
uint64_t RawInstrProfParser<E>::remap(unsigned Kind, uint64_t Value) {
  if (Kind == ValueKindIndirectCallTarget) {
    uint64_t *Ref = FunctionAddrs.lookup(Value);
    return Ref ? *Ref : 0;
  }
  if (Kind == ValueKindVTableTarget) {
    // The last range starting at or below Value (the first such in section
    // order among equal starts).
    auto It = std::upper_bound(
        VTables.begin(), VTables.end(), Value,
        [](uint64_t V, const VTableRange &R) { return V < R.Start; });
    if (It == VTables.begin())
      return 0;
    uint64_t Start = std::prev(It)->Start;
    while (It != VTables.begin() && std::prev(It)->Start == Start)
      --It;
    return Value < It->End ? It->NameHash : 0;
  }
  // Memop sizes: the runtime already wrote each size's range value
  // (InstrProfGetRangeRepValue); llvm-profdata keeps what the file holds.
  return Value;
}

template <endianness E>
Error RawInstrProfParser<E>::parseValueData(DataCursor &VC, const Layout &L,
                                            const uint16_t *NumValueSites,
                                            FunctionCounters &Rec,
                                            uint64_t RecordAt) {
  const uint64_t BlobAt = VC.absoluteOffset();
  auto Bad = [&](ErrorCode Code, const Twine &Msg, uint64_t At) {
    return makeError(
        Code, "value profile data of function " + Rec.Name + ": " + Msg, At);
  };
  if (VC.remaining() < 8)
    return Bad(ErrorCode::Truncated,
               "needs an 8-byte header but " + Twine(VC.remaining()) +
                   " bytes remain",
               BlobAt);
  DataCursor Head = VC; // TotalSize counts these 8 bytes: VC skips it whole
  uint32_t TotalSize, NumKinds;
  if (Error Err = read32(Head, TotalSize, "value data size"))
    return Err;
  if (Error Err = read32(Head, NumKinds, "value kind count"))
    return Err;
  if (TotalSize < 8 || TotalSize % 8)
    return Bad(ErrorCode::Malformed,
               "TotalSize " + Twine(TotalSize) +
                   " is not a multiple of 8 of at least 8",
               BlobAt);
  if (TotalSize > VC.remaining())
    return Bad(ErrorCode::Truncated,
               "TotalSize " + Twine(TotalSize) + " exceeds the " +
                   Twine(VC.remaining()) + " bytes that remain",
               BlobAt);
  unsigned WantKinds = 0;
  for (unsigned K = 0; K < L.NumKinds; ++K)
    WantKinds += NumValueSites[K] != 0;
  if (NumKinds != WantKinds)
    return Bad(ErrorCode::Malformed,
               "holds " + Twine(NumKinds) +
                   " value kinds but the data record " + "at offset " +
                   Twine(RecordAt) + " has sites of " + Twine(WantKinds),
               BlobAt + 4);
  DataCursor B(StringRef(VC.current() + 8, TotalSize - 8), BlobAt + 8);
  int LastKind = -1;
  for (uint32_t I = 0; I < NumKinds; ++I) {
    const uint64_t At = B.absoluteOffset();
    if (B.remaining() < 8)
      return Bad(ErrorCode::Malformed,
                 "value kind record " + Twine(I) + " overruns TotalSize " +
                     Twine(TotalSize),
                 At);
    uint32_t Kind, NumSites;
    if (Error Err = read32(B, Kind, "value kind"))
      return Err;
    if (Error Err = read32(B, NumSites, "value site count"))
      return Err;
    if (Kind >= L.NumKinds)
      return Bad(ErrorCode::Malformed,
                 "value kind " + Twine(Kind) + " is invalid", At);
    if (int(Kind) <= LastKind)
      return Bad(ErrorCode::Malformed,
                 "value kind " + Twine(Kind) + " is out of order or repeated",
                 At);
    LastKind = Kind;
    if (NumSites != NumValueSites[Kind])
      return Bad(ErrorCode::Malformed,
                 "kind " + Twine(Kind) + " has " + Twine(NumSites) +
                     " sites but the data record says " +
                     Twine(NumValueSites[Kind]),
                 At + 4);
    // Site counts, padded so that the kind header is a multiple of 8.
    const uint64_t CountsBytes = alignTo(8 + uint64_t(NumSites), 8) - 8;
    if (CountsBytes > B.remaining())
      return Bad(ErrorCode::Malformed,
                 "site counts of kind " + Twine(Kind) + " overrun TotalSize " +
                     Twine(TotalSize),
                 B.absoluteOffset());
    const uint8_t *SiteCounts = reinterpret_cast<const uint8_t *>(B.current());
    if (Error Err = B.skip(CountsBytes, "site counts"))
      return Err;
    uint64_t NumValues = 0;
    for (uint32_t S = 0; S < NumSites; ++S)
      NumValues += SiteCounts[S];
    if (NumValues > B.remaining() / 16)
      return Bad(ErrorCode::Malformed,
                 Twine(NumValues) + " values of kind " + Twine(Kind) +
                     " overrun TotalSize " + Twine(TotalSize),
                 B.absoluteOffset());
    auto &Sites = Rec.Sites[Kind];
    Sites.resize(NumSites);
    for (uint32_t S = 0; S < NumSites; ++S) {
      InstrProfValueSite &Site = Sites[S];
      Site.resize(SiteCounts[S]);
      for (InstrProfValue &V : Site) {
        if (Error Err = read64(B, V.Value, "value"))
          return Err;
        V.Value = remap(Kind, V.Value);
        if (Error Err = read64(B, V.Count, "value count"))
          return Err;
      }
    }
  }
  if (Error Err = VC.skip(TotalSize, "value profile data"))
    return Err;
  return Error::success();
}

template <endianness E>
Error RawInstrProfParser<E>::parseRecord(const Layout &L, const RawHeader &H,
                                         uint64_t Index, uint64_t RecordAt,
                                         StringRef Counters,
                                         uint64_t CountersAt, StringRef Bitmap,
                                         DataCursor &VC) {
  const char *R = Buffer.data() + RecordAt;
  const uint64_t NameRef = rd64(R);
  StringRef *Name = Names.lookup(NameRef);
  if (!Name)
    return makeError(ErrorCode::Malformed,
                     "data record " + Twine(Index) + ": NameRef " +
                         hex(NameRef) + " has no name in the names section",
                     RecordAt);
  P.Records.emplace_back();
  FunctionCounters &Rec = P.Records.back();
  Rec.Name = Name->str();
  Rec.Hash = rd64(R + 8);
  auto Bad = [&](const Twine &Msg, uint64_t At) {
    return makeError(ErrorCode::Malformed, "function " + Rec.Name + ": " + Msg,
                     At);
  };

  // Counters (spec 1.6): the running delta makes CounterPtr an offset into
  // the counters section.
  const uint32_t NumCounters = rd32(R + L.OffNumCounters);
  if (NumCounters == 0)
    return Bad("number of counters is zero", RecordAt + L.OffNumCounters);
  const bool Bytes = P.Variant & VariantByteCoverage;
  const bool Temporal = P.Variant & VariantTemporal;
  const uint64_t CounterSize = Bytes ? 1 : 8;
  const uint64_t Step = Index * L.RecordBytes;
  const int64_t CounterOff =
      ptrDiff(rdPtr(R + L.OffCounterPtr), H.CountersDelta - Step);
  if (CounterOff < 0)
    return Bad("counter offset " + Twine(CounterOff) + " is negative",
               RecordAt + L.OffCounterPtr);
  if (uint64_t(CounterOff) % CounterSize != 0)
    return Bad("counter offset " + Twine(CounterOff) +
                   " is not a multiple of the counter size " +
                   Twine(CounterSize),
               RecordAt + L.OffCounterPtr);
  if (uint64_t(CounterOff) >= Counters.size())
    return Bad("counter offset " + Twine(CounterOff) +
                   " is past the counters section (" + Twine(Counters.size()) +
                   " bytes)",
               RecordAt + L.OffCounterPtr);
  const uint64_t MaxCounters = (Counters.size() - CounterOff) / CounterSize;
  if (NumCounters > MaxCounters)
    return Bad("number of counters " + Twine(NumCounters) +
                   " is greater than the " + Twine(MaxCounters) +
                   " counters after offset " + Twine(CounterOff),
               RecordAt + L.OffNumCounters);
  const char *C = Counters.data() + CounterOff;
  uint64_t First = 0;
  if (Temporal) {
    // Counter 0 is a u64 timestamp, also with byte counters (then it takes
    // 8 counter slots). Some counter must remain after it.
    const uint64_t Slots = Bytes ? 8 : 1;
    if (NumCounters <= Slots)
      return Bad("number of counters " + Twine(NumCounters) +
                     " leaves no counter after the timestamp",
                 RecordAt + L.OffNumCounters);
    uint64_t Timestamp = rd64(C);
    if (Timestamp != 0 && Timestamp != ~uint64_t(0))
      Timestamps.emplace_back(Timestamp, NameRef);
    First = Slots;
  }
  Rec.Counts.resize(NumCounters - First);
  uint64_t *Out = Rec.Counts.data();
  if (Bytes) {
    // Executed blocks clear their byte.
    for (uint64_t I = First; I < NumCounters; ++I)
      *Out++ = C[I] == 0 ? 1 : 0;
  } else {
    for (uint64_t I = First; I < NumCounters; ++I) {
      uint64_t V = rd64(C + 8 * I);
      if (LLVM_UNLIKELY(V > SuspiciousCount))
        return makeError(ErrorCode::Malformed,
                         "excessively large counter value " + Twine(V) +
                             " in function " + Rec.Name +
                             " suggests corrupted profile data",
                         CountersAt + CounterOff + 8 * I);
      *Out++ = V;
    }
  }

  // MC/DC bitmap bytes, located like the counters.
  const uint32_t NumBitmapBytes =
      L.HasBitmap ? rd32(R + L.OffNumBitmapBytes) : 0;
  if (NumBitmapBytes) {
    const int64_t BitmapOff =
        ptrDiff(rdPtr(R + L.OffBitmapPtr), H.BitmapDelta - Step);
    if (BitmapOff < 0)
      return Bad("bitmap offset " + Twine(BitmapOff) + " is negative",
                 RecordAt + L.OffBitmapPtr);
    if (uint64_t(BitmapOff) >= Bitmap.size())
      return Bad("bitmap offset " + Twine(BitmapOff) +
                     " is past the bitmap section (" + Twine(Bitmap.size()) +
                     " bytes)",
                 RecordAt + L.OffBitmapPtr);
    if (NumBitmapBytes > Bitmap.size() - BitmapOff)
      return Bad("number of bitmap bytes " + Twine(NumBitmapBytes) +
                     " is greater than the " +
                     Twine(Bitmap.size() - BitmapOff) + " bytes after offset " +
                     Twine(BitmapOff),
                 RecordAt + L.OffNumBitmapBytes);
    const uint8_t *BB =
        reinterpret_cast<const uint8_t *>(Bitmap.data() + BitmapOff);
    Rec.Bitmap.assign(BB, BB + NumBitmapBytes);
  }

  // Value profile data: one blob per record with any value site.
  uint16_t NumValueSites[NumValueKinds] = {0, 0, 0};
  bool AnySites = false;
  for (unsigned K = 0; K < L.NumKinds; ++K) {
    NumValueSites[K] = rd16(R + L.OffNumValueSites + 2 * K);
    AnySites |= NumValueSites[K] != 0;
  }
  if (AnySites)
    return parseValueData(VC, L, NumValueSites, Rec, RecordAt);
  return Error::success();
}

template <endianness E>
Error RawInstrProfParser<E>::parseProfile(uint64_t Start, uint64_t &End) {
  StringRef Rest = Buffer.substr(Start);
  const std::string Which =
      NumProfiles ? "profile " + std::to_string(NumProfiles) + ": " : "";
  if (Rest.size() < 16)
    return makeError(ErrorCode::Truncated,
                     Which + "raw profile header needs at least 16 bytes but " +
                         Twine(Rest.size()) + " remain",
                     Start);
  if (support::endian::read64le(Rest.data()) != Magic)
    return makeError(ErrorCode::BadMagic,
                     Which + "does not start with the magic of the first "
                             "profile",
                     Start);
  const uint64_t VersionWord = rd64(Rest.data() + 8);
  const uint64_t Version = VersionWord & ~VariantMask;
  if (Version < RawVersionMin || Version > RawVersionMax)
    return makeError(ErrorCode::UnsupportedVersion,
                     Which + "raw profile version " + Twine(Version) +
                         "; this tool reads versions " + Twine(RawVersionMin) +
                         " to " + Twine(RawVersionMax),
                     Start + 8);
  const Layout L(Version, PtrBytes);
  if (Rest.size() < L.HeaderBytes)
    return makeError(ErrorCode::Truncated,
                     Which + "raw profile version " + Twine(Version) +
                         " header needs " + Twine(L.HeaderBytes) +
                         " bytes but " + Twine(Rest.size()) + " remain",
                     Start);
  RawHeader H;
  DataCursor HC(Rest.substr(0, L.HeaderBytes), Start);
  if (Error Err = readHeader(HC, Version, H))
    return Err;

  const uint64_t Variant = VersionWord & RawVariantBits;
  if (Variant & VariantDebugCorrelate)
    return makeError(ErrorCode::UnsupportedVersion,
                     Which + "the profile's data and names are in the binary "
                             "(debug-info or binary correlation), which this "
                             "tool does not read",
                     Start + 8);
  if (NumProfiles == 0)
    P.Variant = Variant;
  else if (Variant != P.Variant)
    return makeError(ErrorCode::Malformed,
                     Which + "its kind (" + describeVariant(Variant) +
                         ") differs from the first profile's (" +
                         describeVariant(P.Variant) + ")",
                     Start + 8);

  // Sections (spec 1.3), each checked against the bytes that remain before
  // the next offset is computed, so no sum can wrap.
  uint64_t Off = L.HeaderBytes;
  auto Section = [&](uint64_t Count, uint64_t ItemBytes, const Twine &What,
                     uint64_t &At) -> Error {
    uint64_t Room = Rest.size() - Off;
    if (Count > Room / ItemBytes)
      return makeError(
          ErrorCode::Truncated,
          Which + What + " (" + Twine(Count) +
              (ItemBytes == 1 ? Twine(" bytes")
                              : " x " + Twine(ItemBytes) + " bytes") +
              ") overruns the file: " + Twine(Room) + " bytes remain",
          Start + Off);
    At = Off;
    Off += Count * ItemBytes;
    return Error::success();
  };
  auto Aligned = [&](const Twine &What) -> Error {
    if (Off % 8 == 0)
      return Error::success();
    return makeError(ErrorCode::Malformed,
                     Which + What + " would start at offset " +
                         Twine(Start + Off) + ", which is not 8-aligned",
                     Start + Off);
  };
  const uint64_t CounterSize = (Variant & VariantByteCoverage) ? 1 : 8;
  uint64_t IdsAt, DataAt, PadAt, CountersAt, BitmapAt, NamesAt, VTablesAt,
      VNamesAt;
  if (H.BinaryIdsSize % 8)
    return makeError(ErrorCode::Malformed,
                     Which + "binary id section size " +
                         Twine(H.BinaryIdsSize) + " is not a multiple of 8",
                     Start + 16);
  if (Error Err = Section(H.BinaryIdsSize, 1, "binary id section", IdsAt))
    return Err;
  if (Error Err = Section(H.NumData, L.RecordBytes, "data records", DataAt))
    return Err;
  if (Error Err = Section(H.PaddingBytesBeforeCounters, 1,
                          "padding before the counters", PadAt))
    return Err;
  if (Error Err = Aligned("the counters"))
    return Err;
  if (Error Err = Section(H.NumCounters, CounterSize, "counters", CountersAt))
    return Err;
  if (Error Err = Section(H.PaddingBytesAfterCounters, 1,
                          "padding after the counters", PadAt))
    return Err;
  if (Error Err = Aligned("the bitmap bytes"))
    return Err;
  if (Error Err = Section(H.NumBitmapBytes, 1, "bitmap bytes", BitmapAt))
    return Err;
  if (Error Err = Section(H.PaddingBytesAfterBitmapBytes, 1,
                          "padding after the bitmap bytes", PadAt))
    return Err;
  if (Error Err = Aligned("the names"))
    return Err;
  if (Error Err = Section(H.NamesSize, 1, "names", NamesAt))
    return Err;
  if (Error Err =
          Section(pad8(H.NamesSize), 1, "padding after the names", PadAt))
    return Err;
  if (Error Err = Section(H.NumVTables, L.VTableRecordBytes, "vtable records",
                          VTablesAt))
    return Err;
  if (Error Err = Section(H.VNamesSize, 1, "vtable names", VNamesAt))
    return Err;
  if (Error Err = Section(pad8(H.VNamesSize), 1,
                          "padding after the vtable names", PadAt))
    return Err;
  const uint64_t ValuesAt = Off;
  (void)PadAt;

  // Binary ids, names, vtable names.
  if (Error Err =
          parseBinaryIds(Rest.substr(IdsAt, H.BinaryIdsSize), Start + IdsAt))
    return Err;
  Inflated.clear();
  Names.clear();
  if (Error Err = decodeNames(Rest.substr(NamesAt, H.NamesSize),
                              Start + NamesAt, /*VTables=*/false))
    return Err;
  if (Error Err = decodeNames(Rest.substr(VNamesAt, H.VNamesSize),
                              Start + VNamesAt, /*VTables=*/true))
    return Err;

  // Value remapping tables: function addresses (exact; LLVM keeps the
  // smallest NameRef of one address) and vtable ranges.
  FunctionAddrs.clear();
  FunctionAddrs.reserve(std::min<uint64_t>(H.NumData, MaxReserve));
  for (uint64_t I = 0; I < H.NumData; ++I) {
    const char *R = Rest.data() + DataAt + I * L.RecordBytes;
    uint64_t Addr = rdPtr(R + L.OffFunctionPointer);
    if (Addr)
      FunctionAddrs.insert(
          Addr, rd64(R), [](uint64_t Old, uint64_t New) { return Old <= New; });
  }
  VTables.clear();
  VTables.reserve(std::min<uint64_t>(H.NumVTables, MaxReserve));
  for (uint64_t I = 0; I < H.NumVTables; ++I) {
    const char *R = Rest.data() + VTablesAt + I * L.VTableRecordBytes;
    uint64_t Ptr = rdPtr(R + 8);
    if (!Ptr)
      continue;
    uint64_t End = SaturatingAdd(Ptr, uint64_t(rd32(R + 8 + PtrBytes)));
    if (End != Ptr)
      VTables.push_back({Ptr, End, rd64(R), I});
  }
  // By start, then section order (the lookup takes the first of equals).
  llvm::sort(VTables, [](const VTableRange &A, const VTableRange &B) {
    return A.Start != B.Start ? A.Start < B.Start : A.Index < B.Index;
  });

  // Records.
  DataCursor VC(Rest.substr(ValuesAt), Start + ValuesAt);
  // The first profile sizes the table; later ones (rare) let it grow.
  if (NumProfiles == 0)
    P.Records.reserve(std::min<uint64_t>(H.NumData, MaxReserve));
  StringRef Counters = Rest.substr(CountersAt, H.NumCounters * CounterSize);
  StringRef Bitmap = Rest.substr(BitmapAt, H.NumBitmapBytes);
  for (uint64_t I = 0; I < H.NumData; ++I)
    if (Error Err = parseRecord(L, H, I, Start + DataAt + I * L.RecordBytes,
                                Counters, Start + CountersAt, Bitmap, VC))
      return Err;

  End = Start + ValuesAt + VC.tell();
  return Error::success();
}

template <endianness E>
Expected<CounterProfile> RawInstrProfParser<E>::parse() {
  P.Present = true;
  uint64_t Start = 0;
  while (true) {
    uint64_t End = 0;
    if (Error Err = parseProfile(Start, End))
      return std::move(Err);
    ++NumProfiles;
    // Zero bytes after a profile are skipped; anything else must be another
    // profile, 8-aligned as the runtime writes them.
    uint64_t Z = End;
    while (Z < Buffer.size() && Buffer[Z] == 0)
      ++Z;
    if (Z == Buffer.size())
      break;
    if (Z % 8)
      return makeError(ErrorCode::Malformed,
                       "insufficient padding: data after profile " +
                           Twine(NumProfiles - 1) + " resumes at offset " +
                           Twine(Z) + ", which is not 8-aligned",
                       Z);
    Start = Z;
  }
  // One temporal trace per file, as llvm-profdata reads it: the NameRefs of
  // every profile in the file by ascending timestamp.
  if (!Timestamps.empty()) {
    llvm::sort(Timestamps);
    TemporalTrace T;
    T.Weight = 1;
    T.FunctionNameRefs.reserve(Timestamps.size());
    for (const auto &TS : Timestamps)
      T.FunctionNameRefs.push_back(TS.second);
    P.Traces.push_back(std::move(T));
    P.TraceStreamSize = 1;
  }
  return std::move(P);
}

} // namespace

Expected<CounterProfile> readRawInstrProf(StringRef Buffer) {
  if (Buffer.empty())
    return makeError(ErrorCode::Empty, "the file is empty", 0);
  if (Buffer.size() < 8)
    return makeError(ErrorCode::Truncated,
                     "file of " + Twine(Buffer.size()) +
                         " bytes is too short for a raw profile header",
                     0);
  const uint64_t M = support::endian::read64le(Buffer.data());
  if (M == RawMagic64)
    return RawInstrProfParser<endianness::little>(Buffer, M, 8).parse();
  if (M == RawMagic32)
    return RawInstrProfParser<endianness::little>(Buffer, M, 4).parse();
  if (M == swapped(RawMagic64))
    return RawInstrProfParser<endianness::big>(Buffer, M, 8).parse();
  if (M == swapped(RawMagic32))
    return RawInstrProfParser<endianness::big>(Buffer, M, 4).parse();
  return makeError(ErrorCode::BadMagic,
                   M == indexed::Magic
                       ? "expected a raw InstrProf profile (this is an "
                         "indexed profile)"
                       : "expected a raw InstrProf profile",
                   0);
}

} // namespace memprof
