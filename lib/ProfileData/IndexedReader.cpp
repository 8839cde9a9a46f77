//===- IndexedReader.cpp - LLVM indexed profile reader (MemProf V2-V4) ----===//
//
// Reads the MemProf section of an indexed profile (spec 3.2-3.12) into an
// IndexedMemProf. The file is untrusted: every offset is checked against the
// buffer, every count against the bytes that remain before anything is sized
// by it, hash tables must be consistent with their bucket arrays, and radix
// decoding only ever moves forward inside the array.
//
//===----------------------------------------------------------------------===//
#include "InstrProfInternal.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace llvm;

namespace memprof {

namespace {

std::string hex(uint64_t V) { return ("0x" + Twine::utohexstr(V)).str(); }

Error malformed(const Twine &Msg, uint64_t Offset) {
  return makeError(ErrorCode::Malformed, Msg, Offset);
}

/// How a table's items store their keys.
enum class TableKeys {
  U64,    ///< u64 data length, u64 key (MemProf call stacks)
  LenU64, ///< u64 key length (8), u64 data length, u64 key
  String, ///< u64 key length, u64 data length, key bytes (function names)
};

/// One item of an on-disk chained hash table.
struct TableItem {
  uint64_t Hash = 0;
  uint64_t Key = 0;     ///< u64 keys
  StringRef KeyBytes;   ///< string keys
  StringRef Data;
  uint64_t DataOffset = 0; // absolute
};

/// Walks an OnDiskChainedHashTable whose payload starts at \p PayloadStart
/// and whose bucket header is at \p TableOffset (both absolute). Besides the
/// bounds, it checks what LLVM's writer guarantees and its reader relies on:
/// a power-of-two bucket count, bucket offsets that point, in increasing
/// bucket order, at consecutive item groups of the payload, every item
/// hashing to its bucket, and the item count matching NumEntries. Calls
/// \p Fn for each item in file order. \p FieldAt is where the file stores
/// \p TableOffset, for messages.
Error walkTable(StringRef Buf, StringRef Name, uint64_t PayloadStart,
                uint64_t TableOffset, uint64_t FieldAt, TableKeys Keys,
                function_ref<Error(const TableItem &)> Fn) {
  if (TableOffset < PayloadStart)
    return malformed(Name + " table offset " + Twine(TableOffset) +
                         " lies before its payload at " + Twine(PayloadStart),
                     FieldAt);
  if (TableOffset > Buf.size())
    return malformed(Name + " table offset " + Twine(TableOffset) +
                         " is past the end of the file (" + Twine(Buf.size()) +
                         ")",
                     FieldAt);
  // LLVM's reader requires a 4-byte aligned bucket array.
  if (TableOffset % 4 != 0)
    return malformed(Name + " table offset " + Twine(TableOffset) +
                         " is not 4-byte aligned",
                     FieldAt);

  DataCursor Header(Buf.substr(TableOffset), TableOffset);
  auto NumBuckets = Header.read<uint64_t>(Name + " table bucket count");
  if (!NumBuckets)
    return NumBuckets.takeError();
  auto NumEntries = Header.read<uint64_t>(Name + " table entry count");
  if (!NumEntries)
    return NumEntries.takeError();
  if (*NumBuckets == 0 || !isPowerOf2_64(*NumBuckets))
    return malformed(Name + " table bucket count " + Twine(*NumBuckets) +
                         " is not a power of two",
                     TableOffset);
  if (Error E = Header.needItems(*NumBuckets, 8, Name + " table bucket"))
    return E;

  DataCursor Payload(Buf.substr(PayloadStart, TableOffset - PayloadStart),
                     PayloadStart);
  // Hash, lengths and key: a string key takes at least a byte.
  const uint64_t MinItemSize = Keys == TableKeys::LenU64   ? 32
                               : Keys == TableKeys::String ? 25
                                                           : 24;
  if (Error E =
          Payload.needItems(*NumEntries, MinItemSize, Name + " table entry"))
    return E;

  const uint64_t Mask = *NumBuckets - 1;
  uint64_t Seen = 0;
  for (uint64_t B = 0; B < *NumBuckets; ++B) {
    const uint64_t SlotOffset = Header.absoluteOffset();
    auto Off = Header.read<uint64_t>(Name + " table bucket offset");
    if (!Off)
      return Off.takeError();
    if (*Off == 0)
      continue;
    if (*Off < PayloadStart || *Off >= TableOffset)
      return malformed(Name + " table bucket " + Twine(B) + " offset " +
                           Twine(*Off) + " lies outside the payload [" +
                           Twine(PayloadStart) + ", " + Twine(TableOffset) +
                           ")",
                       SlotOffset);
    // Buckets are written in increasing order with no gaps, so a bucket's
    // items start exactly where the previous bucket's items end.
    if (*Off != Payload.absoluteOffset())
      return malformed(Name + " table bucket " + Twine(B) + " offset " +
                           Twine(*Off) +
                           " does not match the payload position " +
                           Twine(Payload.absoluteOffset()),
                       SlotOffset);
    const uint64_t GroupOffset = Payload.absoluteOffset();
    auto NumItems = Payload.read<uint16_t>(Name + " table bucket item count");
    if (!NumItems)
      return NumItems.takeError();
    if (*NumItems == 0)
      return malformed(Name + " table bucket " + Twine(B) + " has no items",
                       GroupOffset);
    for (unsigned I = 0; I < *NumItems; ++I) {
      const uint64_t ItemOffset = Payload.absoluteOffset();
      if (Seen == *NumEntries)
        return malformed(Name +
                             " table holds more items than its entry count " +
                             Twine(*NumEntries),
                         ItemOffset);
      ++Seen;
      TableItem Item;
      auto Hash = Payload.read<uint64_t>(Name + " item hash");
      if (!Hash)
        return Hash.takeError();
      Item.Hash = *Hash;
      if ((Item.Hash & Mask) != B)
        return malformed(Name + " item hash " + hex(Item.Hash) +
                             " does not belong in bucket " + Twine(B),
                         ItemOffset);
      uint64_t KeyLen = 8;
      if (Keys != TableKeys::U64) {
        const uint64_t KeyLenOffset = Payload.absoluteOffset();
        auto Len = Payload.read<uint64_t>(Name + " item key length");
        if (!Len)
          return Len.takeError();
        KeyLen = *Len;
        if (Keys == TableKeys::LenU64 && KeyLen != 8)
          return malformed(Name + " item key length " + Twine(KeyLen) +
                               " is not 8",
                           KeyLenOffset);
        if (Keys == TableKeys::String && KeyLen == 0)
          return malformed(Name + " item has an empty key", KeyLenOffset);
      }
      const uint64_t DataLenOffset = Payload.absoluteOffset();
      auto DataLen = Payload.read<uint64_t>(Name + " item data length");
      if (!DataLen)
        return DataLen.takeError();
      if (Keys == TableKeys::String) {
        auto Key = Payload.readBytes(KeyLen, Name + " item key");
        if (!Key)
          return Key.takeError();
        Item.KeyBytes = *Key;
      } else {
        auto Key = Payload.read<uint64_t>(Name + " item key");
        if (!Key)
          return Key.takeError();
        Item.Key = *Key;
      }
      if (*DataLen > Payload.remaining())
        return malformed(Name + " item data length " + Twine(*DataLen) +
                             " extends past the table payload (" +
                             Twine(Payload.remaining()) + " bytes remain)",
                         DataLenOffset);
      Item.DataOffset = Payload.absoluteOffset();
      auto Data = Payload.readBytes(*DataLen, Name + " item data");
      if (!Data)
        return Data.takeError();
      Item.Data = *Data;
      if (Error E = Fn(Item))
        return E;
    }
  }
  if (Seen != *NumEntries)
    return malformed(Name + " table entry count " + Twine(*NumEntries) +
                         " does not match the " + Twine(Seen) +
                         " items in its buckets",
                     TableOffset + 8);
  // Only the alignment padding may sit between the payload and the buckets.
  if (Payload.remaining() >= 8)
    return malformed(Name + " table has " + Twine(Payload.remaining()) +
                         " unused bytes before its bucket array",
                     Payload.absoluteOffset());
  return Error::success();
}

Expected<Frame> readFrame(DataCursor &C) {
  Frame F;
  auto Function = C.read<uint64_t>("frame function");
  if (!Function)
    return Function.takeError();
  auto Line = C.read<uint32_t>("frame line offset");
  if (!Line)
    return Line.takeError();
  auto Column = C.read<uint32_t>("frame column");
  if (!Column)
    return Column.takeError();
  const uint64_t FlagOffset = C.absoluteOffset();
  auto Inline = C.read<uint8_t>("frame inline flag");
  if (!Inline)
    return Inline.takeError();
  if (*Inline > 1)
    return malformed("frame inline flag " + Twine(unsigned(*Inline)) +
                         " is not 0 or 1",
                     FlagOffset);
  F.Function = *Function;
  F.LineOffset = *Line;
  F.Column = *Column;
  F.IsInlineFrame = *Inline != 0;
  return F;
}

Expected<MIBSchema> readSchema(DataCursor &C) {
  const uint64_t CountOffset = C.absoluteOffset();
  auto N = C.read<uint64_t>("memprof schema size");
  if (!N)
    return N.takeError();
  if (*N > NumMIBTags + 1)
    return malformed("memprof schema size " + Twine(*N) +
                         " exceeds the maximum of " + Twine(NumMIBTags + 1),
                     CountOffset);
  if (Error E = C.needItems(*N, 8, "memprof schema tag"))
    return std::move(E);
  MIBSchema S;
  for (uint64_t I = 0; I < *N; ++I) {
    const uint64_t TagOffset = C.absoluteOffset();
    auto Tag = C.read<uint64_t>("memprof schema tag");
    if (!Tag)
      return Tag.takeError();
    if (*Tag < 1 || *Tag > NumMIBTags)
      return malformed("memprof schema tag " + Twine(*Tag) +
                           " is not a field tag (1-" + Twine(NumMIBTags) + ")",
                       TagOffset);
    S.push_back(uint8_t(*Tag));
  }
  return S;
}

/// A budget on the frames expanded from call stacks. Radix-tree stacks may
/// overlap arbitrarily in a hostile file, so their total expanded length can
/// grow with the square of the file size; legitimate files expand by far
/// less than this per byte.
uint64_t frameBudget(uint64_t FileSize) { return (1ULL << 22) + 32 * FileSize; }

class SectionReader {
public:
  SectionReader(StringRef Buf, uint64_t SectionStart, IndexedMemProf &P,
                IndexedProfileInfo &Info,
                std::optional<MemProfSummary> &Summary,
                CallStackIdCache *StackIds)
      : Buf(Buf), SectionStart(SectionStart), P(P), Info(Info),
        Summary(Summary), StackIds(StackIds),
        FramesLeft(frameBudget(Buf.size())) {}

  Error read();

private:
  Error readV2(DataCursor &C);
  Error readRadixBased(DataCursor &C, unsigned Version);
  Error checkOffset(uint64_t Off, const Twine &Name, uint64_t FieldOffset);
  Error readRecordTable(uint64_t PayloadStart, uint64_t TableOffset,
                        uint64_t FieldAt, unsigned Version);
  Expected<MemInfoBlock> readMIB(DataCursor &C);
  Expected<CallStackId> resolveStack(uint64_t Id, uint64_t At);
  Expected<CallStackId> resolveV2(uint64_t Id, uint64_t At);
  Expected<CallStackId> resolveRadix(uint64_t Pos, uint64_t At);
  Expected<FrameId> linearFrame(uint64_t Id, uint64_t At);
  Error spend(uint64_t Frames, uint64_t At);

  StringRef Buf;
  uint64_t SectionStart;
  IndexedMemProf &P;
  IndexedProfileInfo &Info;
  std::optional<MemProfSummary> &Summary;
  CallStackIdCache *StackIds; // may be null
  unsigned Version = 0;
  uint64_t FramesLeft;

  // V2: the frame and call-stack tables, keyed by the ids on disk. These are
  // arbitrary u64 values, so no DenseMap: it reserves ~0 and ~0-1 as keys.
  std::unordered_map<uint64_t, Frame> V2Frames;
  std::unordered_map<uint64_t, SmallVector<uint64_t, 8>> V2Stacks;
  // V3/V4: the frame array and the radix array.
  uint64_t FrameBase = 0, NumFrames = 0;
  uint64_t RadixBase = 0, RadixSize = 0;
  DenseMap<uint64_t, FrameId> LinearFrames;
  // On-disk stack id (V2) or LinearCallStackId (V3/V4) to our CallStackId.
  std::unordered_map<uint64_t, CallStackId> Resolved;
};

Error SectionReader::checkOffset(uint64_t Off, const Twine &Name,
                                 uint64_t FieldOffset) {
  if (Off < SectionStart)
    return malformed(Name + " " + Twine(Off) +
                         " lies before the memprof section at " +
                         Twine(SectionStart),
                     FieldOffset);
  if (Off > Buf.size())
    return malformed(Name + " " + Twine(Off) +
                         " is past the end of the file (" + Twine(Buf.size()) +
                         ")",
                     FieldOffset);
  return Error::success();
}

Error SectionReader::spend(uint64_t Frames, uint64_t At) {
  if (Frames > FramesLeft)
    return makeError(ErrorCode::TooLarge,
                     "call stacks expand to more than " +
                         Twine(frameBudget(Buf.size())) + " frames",
                     At);
  FramesLeft -= Frames;
  return Error::success();
}

Error SectionReader::read() {
  DataCursor C(Buf, 0);
  if (Error E = C.seek(SectionStart, "memprof section"))
    return E;
  auto V = C.read<uint64_t>("memprof version");
  if (!V)
    return V.takeError();
  if (*V < indexed::MemProfVersionMin || *V > indexed::MemProfVersionMax)
    return makeError(ErrorCode::UnsupportedVersion,
                     "memprof version " + Twine(*V) +
                         " is not supported (supported: 2, 3, 4)",
                     SectionStart);
  Version = unsigned(*V);
  Info.MemProfVersion = Version;
  if (Version == 2)
    return readV2(C);
  return readRadixBased(C, Version);
}

Error SectionReader::readV2(DataCursor &C) {
  const char *Names[] = {"record table offset", "frame payload offset",
                         "frame table offset", "call stack payload offset",
                         "call stack table offset"};
  uint64_t Offs[5], At[5];
  for (int I = 0; I < 5; ++I) {
    At[I] = C.absoluteOffset();
    auto Off = C.read<uint64_t>(Names[I]);
    if (!Off)
      return Off.takeError();
    if (Error E = checkOffset(*Off, Names[I], At[I]))
      return E;
    Offs[I] = *Off;
  }
  auto Schema = readSchema(C);
  if (!Schema)
    return Schema.takeError();
  Info.Schema = *Schema;
  const uint64_t RecordPayload = C.absoluteOffset();

  // The frame and call-stack tables first, so records can be resolved.
  if (Error E = walkTable(
          Buf, "frame", Offs[1], Offs[2], At[2], TableKeys::LenU64,
          [&](const TableItem &It) -> Error {
            if (It.Key != It.Hash)
              return malformed("frame key " + hex(It.Key) +
                                   " does not match its hash " + hex(It.Hash),
                               It.DataOffset - 8);
            if (It.Data.size() != FrameDiskSize)
              return malformed("frame data length " + Twine(It.Data.size()) +
                                   " is not " + Twine(FrameDiskSize),
                               It.DataOffset);
            DataCursor D(It.Data, It.DataOffset);
            auto F = readFrame(D);
            if (!F)
              return F.takeError();
            if (!V2Frames.emplace(It.Key, *F).second)
              return malformed("duplicate frame id " + hex(It.Key),
                               It.DataOffset - 8);
            return Error::success();
          }))
    return E;
  if (Error E = walkTable(
          Buf, "call stack", Offs[3], Offs[4], At[4],
          TableKeys::U64, [&](const TableItem &It) -> Error {
            if (It.Key != It.Hash)
              return malformed("call stack key " + hex(It.Key) +
                                   " does not match its hash " + hex(It.Hash),
                               It.DataOffset - 8);
            if (It.Data.size() % 8 != 0)
              return malformed("call stack data length " +
                                   Twine(It.Data.size()) +
                                   " is not a multiple of 8",
                               It.DataOffset);
            DataCursor D(It.Data, It.DataOffset);
            SmallVector<uint64_t, 8> Ids;
            Ids.reserve(It.Data.size() / 8);
            while (!D.atEnd()) {
              auto Id = D.read<uint64_t>("call stack frame id");
              if (!Id)
                return Id.takeError();
              Ids.push_back(*Id);
            }
            if (!V2Stacks.emplace(It.Key, std::move(Ids)).second)
              return malformed("duplicate call stack id " + hex(It.Key),
                               It.DataOffset - 8);
            return Error::success();
          }))
    return E;
  return readRecordTable(RecordPayload, Offs[0], At[0], 2);
}

Error SectionReader::readRadixBased(DataCursor &C, unsigned Version) {
  const char *Names[] = {"call stack payload offset", "record payload offset",
                         "record table offset", "data access profile offset"};
  const int NumOffsets = Version >= 4 ? 4 : 3;
  uint64_t Offs[4] = {0, 0, 0, 0};
  uint64_t At[4] = {0, 0, 0, 0};
  for (int I = 0; I < NumOffsets; ++I) {
    At[I] = C.absoluteOffset();
    auto Off = C.read<uint64_t>(Names[I]);
    if (!Off)
      return Off.takeError();
    Offs[I] = *Off;
    if (I == 3 && *Off == 0)
      continue; // no data access profile
    if (Error E = checkOffset(*Off, Names[I], At[I]))
      return E;
  }
  if (Version >= 4) {
    const uint64_t CountOffset = C.absoluteOffset();
    auto NumFields = C.read<uint32_t>("memprof summary field count");
    if (!NumFields)
      return NumFields.takeError();
    if (*NumFields < 6)
      return malformed("memprof summary field count " + Twine(*NumFields) +
                           " is less than 6",
                       CountOffset);
    if (Error E = C.needItems(*NumFields, 8, "memprof summary field"))
      return E;
    uint64_t Fields[6];
    for (uint64_t &F : Fields) {
      auto V = C.read<uint64_t>("memprof summary field");
      if (!V)
        return V.takeError();
      F = *V;
    }
    if (Error E = C.skip((uint64_t(*NumFields) - 6) * 8,
                         "memprof summary extra fields"))
      return E;
    MemProfSummary S;
    S.NumContexts = Fields[0];
    S.NumColdContexts = Fields[1];
    S.NumHotContexts = Fields[2];
    S.MaxColdTotalSize = Fields[3];
    S.MaxWarmTotalSize = Fields[4];
    S.MaxHotTotalSize = Fields[5];
    Summary = S;
  }
  auto Schema = readSchema(C);
  if (!Schema)
    return Schema.takeError();
  Info.Schema = *Schema;

  FrameBase = C.absoluteOffset();
  RadixBase = Offs[0];
  const uint64_t RecordPayload = Offs[1], RecordTable = Offs[2];
  if (RadixBase < FrameBase)
    return malformed("call stack payload offset " + Twine(RadixBase) +
                         " lies before the end of the schema at " +
                         Twine(FrameBase),
                     At[0]);
  if (RecordPayload < RadixBase)
    return malformed("record payload offset " + Twine(RecordPayload) +
                         " lies before the call stack payload at " +
                         Twine(RadixBase),
                     At[1]);
  if (RecordTable < RecordPayload)
    return malformed("record table offset " + Twine(RecordTable) +
                         " lies before the record payload at " +
                         Twine(RecordPayload),
                     At[2]);
  // The data access profile, which this toolchain does not model, follows
  // the record table; it is only located, not read.
  Info.DataAccessProfileOffset = Version >= 4 ? Offs[3] : 0;
  if (Version >= 4 && Offs[3] != 0 && Offs[3] <= RecordTable)
    return malformed("data access profile offset " + Twine(Offs[3]) +
                         " does not follow the record table at " +
                         Twine(RecordTable),
                     At[3]);
  NumFrames = (RadixBase - FrameBase) / FrameDiskSize;
  RadixSize = (RecordPayload - RadixBase) / 4;
  return readRecordTable(RecordPayload, RecordTable, At[2], Version);
}

Expected<MemInfoBlock> SectionReader::readMIB(DataCursor &C) {
  MemInfoBlock M;
  for (uint8_t Tag : Info.Schema) {
    auto V = C.readWidth(mibFieldWidth(Tag), mibFieldName(Tag));
    if (!V)
      return V.takeError();
    M.set(Tag, *V);
  }
  return M;
}

Error SectionReader::readRecordTable(uint64_t PayloadStart,
                                     uint64_t TableOffset, uint64_t FieldAt,
                                     unsigned Version) {
  const uint64_t MIBSize = schemaBlockSize(Info.Schema);
  const uint64_t IdSize = Version == 2 ? 8 : 4;
  return walkTable(
      Buf, "record", PayloadStart, TableOffset, FieldAt,
      TableKeys::LenU64, [&](const TableItem &It) -> Error {
        if (It.Key != It.Hash)
          return malformed("record key " + hex(It.Key) +
                               " does not match its hash " + hex(It.Hash),
                           It.DataOffset - 8);
        // IndexedMemProf::Records is a MapVector, whose DenseMap index
        // cannot hold its two reserved keys.
        if (It.Key == DenseMapInfo<GUID>::getEmptyKey() ||
            It.Key == DenseMapInfo<GUID>::getTombstoneKey())
          return malformed("record function guid " + hex(It.Key) +
                               " is a reserved value",
                           It.DataOffset - 8);
        if (P.Records.count(It.Key))
          return malformed("duplicate record for function " + hex(It.Key),
                           It.DataOffset - 8);
        IndexedRecord R;
        DataCursor D(It.Data, It.DataOffset);
        auto NumAlloc = D.read<uint64_t>("alloc site count");
        if (!NumAlloc)
          return NumAlloc.takeError();
        if (Error E = D.needItems(*NumAlloc, IdSize + MIBSize, "alloc site"))
          return E;
        R.AllocSites.reserve(*NumAlloc);
        for (uint64_t I = 0; I < *NumAlloc; ++I) {
          const uint64_t IdAt = D.absoluteOffset();
          auto Id = D.readWidth(IdSize, "alloc site call stack id");
          if (!Id)
            return Id.takeError();
          auto MIB = readMIB(D);
          if (!MIB)
            return MIB.takeError();
          auto CSId = resolveStack(*Id, IdAt);
          if (!CSId)
            return CSId.takeError();
          R.AllocSites.push_back({*CSId, *MIB});
        }
        auto NumCalls = D.read<uint64_t>("call site count");
        if (!NumCalls)
          return NumCalls.takeError();
        if (Error E =
                D.needItems(*NumCalls, Version >= 4 ? 12 : IdSize, "call site"))
          return E;
        R.CallSites.reserve(*NumCalls);
        for (uint64_t I = 0; I < *NumCalls; ++I) {
          const uint64_t IdAt = D.absoluteOffset();
          auto Id = D.readWidth(IdSize, "call site call stack id");
          if (!Id)
            return Id.takeError();
          IndexedCallSite CS;
          if (Version >= 4) {
            auto NumGuids = D.read<uint64_t>("callee guid count");
            if (!NumGuids)
              return NumGuids.takeError();
            if (Error E = D.needItems(*NumGuids, 8, "callee guid"))
              return E;
            CS.CalleeGuids.reserve(*NumGuids);
            for (uint64_t G = 0; G < *NumGuids; ++G) {
              auto Guid = D.read<uint64_t>("callee guid");
              if (!Guid)
                return Guid.takeError();
              CS.CalleeGuids.push_back(*Guid);
            }
          }
          auto CSId = resolveStack(*Id, IdAt);
          if (!CSId)
            return CSId.takeError();
          CS.CSId = *CSId;
          R.CallSites.push_back(std::move(CS));
        }
        if (!D.atEnd())
          return malformed("record data of function " + hex(It.Key) + " has " +
                               Twine(D.remaining()) +
                               " bytes beyond its call sites",
                           D.absoluteOffset());
        P.Records.insert({It.Key, std::move(R)});
        return Error::success();
      });
}

Expected<CallStackId> SectionReader::resolveStack(uint64_t Id, uint64_t At) {
  auto It = Resolved.find(Id);
  if (It != Resolved.end())
    return It->second;
  auto CSId = Version == 2 ? resolveV2(Id, At) : resolveRadix(Id, At);
  if (CSId)
    Resolved[Id] = *CSId;
  return CSId;
}

Expected<CallStackId> SectionReader::resolveV2(uint64_t Id, uint64_t At) {
  auto It = V2Stacks.find(Id);
  if (It == V2Stacks.end())
    return malformed(
        "call stack id " + hex(Id) + " is not in the call stack table", At);
  if (Error E = spend(It->second.size(), At))
    return std::move(E);
  SmallVector<FrameId, 8> Ids;
  Ids.reserve(It->second.size());
  for (uint64_t F : It->second) {
    auto FI = V2Frames.find(F);
    if (FI == V2Frames.end())
      return malformed("call stack " + hex(Id) + " references frame id " +
                           hex(F) + " that is not in the frame table",
                       At);
    Ids.push_back(P.addFrame(FI->second));
  }
  return P.addCallStackIds(Ids, StackIds);
}

Expected<FrameId> SectionReader::linearFrame(uint64_t Id, uint64_t At) {
  auto It = LinearFrames.find(Id);
  if (It != LinearFrames.end())
    return It->second;
  if (Id >= NumFrames)
    return malformed("linear frame id " + Twine(Id) +
                         " is outside the frame array of " + Twine(NumFrames) +
                         " frames",
                     At);
  const uint64_t Off = FrameBase + Id * FrameDiskSize;
  DataCursor C(Buf.substr(Off, FrameDiskSize), Off);
  auto F = readFrame(C);
  if (!F)
    return F.takeError();
  FrameId FId = P.addFrame(*F);
  LinearFrames[Id] = FId;
  return FId;
}

Expected<CallStackId> SectionReader::resolveRadix(uint64_t Pos, uint64_t At) {
  if (Pos >= RadixSize)
    return malformed("linear call stack id " + Twine(Pos) +
                         " is outside the radix array of " + Twine(RadixSize) +
                         " elements",
                     At);
  DataCursor Radix(Buf.substr(RadixBase, RadixSize * 4), RadixBase);
  auto Element = [&](uint64_t I) -> Expected<uint32_t> {
    if (Error E = Radix.seek(I * 4, "radix element"))
      return std::move(E);
    return Radix.read<uint32_t>("radix element");
  };
  auto Length = Element(Pos);
  if (!Length)
    return Length.takeError();
  // Decoding moves strictly forward, so each frame needs its own element.
  if (*Length > RadixSize - Pos - 1)
    return malformed("call stack length " + Twine(*Length) +
                         " at radix index " + Twine(Pos) +
                         " does not fit in the radix array of " +
                         Twine(RadixSize) + " elements",
                     RadixBase + Pos * 4);
  if (Error E = spend(*Length, RadixBase + Pos * 4))
    return std::move(E);
  SmallVector<FrameId, 8> Ids;
  Ids.reserve(*Length);
  uint64_t Q = Pos + 1;
  for (uint32_t N = 0; N < *Length; ++N) {
    if (Q >= RadixSize)
      return malformed("call stack at radix index " + Twine(Pos) +
                           " runs past the end of the radix array",
                       RadixBase + Pos * 4);
    auto E = Element(Q);
    if (!E)
      return E.takeError();
    if (int32_t(*E) < 0) {
      const uint64_t JumpAt = RadixBase + Q * 4;
      const uint64_t Dist = uint64_t(-int64_t(int32_t(*E)));
      if (Dist >= RadixSize - Q)
        return malformed("radix jump of " + Twine(Dist) + " at index " +
                             Twine(Q) + " leaves the radix array of " +
                             Twine(RadixSize) + " elements",
                         JumpAt);
      Q += Dist;
      E = Element(Q);
      if (!E)
        return E.takeError();
      if (int32_t(*E) < 0)
        return malformed("radix jump at index " +
                             Twine((JumpAt - RadixBase) / 4) +
                             " lands on another jump at index " + Twine(Q),
                         JumpAt);
    }
    auto F = linearFrame(*E, RadixBase + Q * 4);
    if (!F)
      return F.takeError();
    Ids.push_back(*F);
    ++Q;
  }
  return P.addCallStackIds(Ids, StackIds);
}

/// The InstrProf summary: two counts, then the fields and the cutoff entries.
Error skipSummary(DataCursor &C, StringRef Name) {
  auto NumFields = C.read<uint64_t>(Name + " field count");
  if (!NumFields)
    return NumFields.takeError();
  auto NumCutoffs = C.read<uint64_t>(Name + " cutoff count");
  if (!NumCutoffs)
    return NumCutoffs.takeError();
  if (Error E = C.needItems(*NumFields, 8, Name + " field"))
    return E;
  if (Error E = C.skip(*NumFields * 8, Name + " fields"))
    return E;
  if (Error E = C.needItems(*NumCutoffs, 24, Name + " cutoff entry"))
    return E;
  return C.skip(*NumCutoffs * 24, Name + " cutoff entries");
}

/// The records of one function-table item (spec 3.3).
Error readFunctionRecords(const TableItem &It, uint64_t Version,
                          std::vector<FunctionCounters> &Out) {
  if (It.Data.size() % 8 != 0)
    return malformed("function '" + It.KeyBytes + "' data length " +
                         Twine(It.Data.size()) + " is not a multiple of 8",
                     It.DataOffset);
  DataCursor D(It.Data, It.DataOffset);
  // The hashes seen under this name: a hostile item may hold millions of
  // records, so no pairwise comparison.
  std::unordered_set<uint64_t> Hashes;
  while (!D.atEnd()) {
    const uint64_t At = D.absoluteOffset();
    FunctionCounters R;
    R.Name = It.KeyBytes.str();
    auto Hash = D.read<uint64_t>("function hash");
    if (!Hash)
      return Hash.takeError();
    R.Hash = *Hash;
    if (!Hashes.insert(R.Hash).second)
      return malformed("function '" + It.KeyBytes + "' has two records "
                           "with hash " + hex(R.Hash),
                       At);
    auto NumCounts = D.read<uint64_t>("counter count");
    if (!NumCounts)
      return NumCounts.takeError();
    if (*NumCounts == 0)
      return malformed("function '" + It.KeyBytes + "' has a record with no "
                           "counters",
                       At + 8);
    if (Error E = D.needItems(*NumCounts, 8, "counter"))
      return E;
    R.Counts.resize(*NumCounts);
    for (uint64_t &C : R.Counts)
      if (Error E = D.readInto(C, "counter"))
        return E;
    if (Version > 10) {
      auto NumBitmap = D.read<uint64_t>("bitmap byte count");
      if (!NumBitmap)
        return NumBitmap.takeError();
      if (Error E = D.needItems(*NumBitmap, 8, "bitmap byte"))
        return E;
      R.Bitmap.resize(*NumBitmap);
      for (uint8_t &B : R.Bitmap) {
        const uint64_t ByteAt = D.absoluteOffset();
        uint64_t V;
        if (Error E = D.readInto(V, "bitmap byte"))
          return E;
        if (V > 0xFF)
          return malformed("bitmap byte " + Twine(V) + " of function '" +
                               It.KeyBytes + "' does not fit in a byte",
                           ByteAt);
        B = uint8_t(V);
      }
    }
    if (Error E = readValueData(D, R))
      return E;
    Out.push_back(std::move(R));
  }
  return Error::success();
}

Error readTraces(StringRef Buffer, uint64_t Offset, CounterProfile &Out) {
  DataCursor T(Buffer.substr(Offset), Offset);
  auto Num = T.read<uint64_t>("temporal trace count");
  if (!Num)
    return Num.takeError();
  auto Stream = T.read<uint64_t>("temporal trace stream size");
  if (!Stream)
    return Stream.takeError();
  if (Error E = T.needItems(*Num, 16, "temporal trace"))
    return E;
  Out.TraceStreamSize = *Stream;
  Out.Traces.reserve(*Num);
  for (uint64_t I = 0; I < *Num; ++I) {
    TemporalTrace Tr;
    if (Error E = T.readInto(Tr.Weight, "temporal trace weight"))
      return E;
    auto Len = T.read<uint64_t>("temporal trace length");
    if (!Len)
      return Len.takeError();
    if (Error E = T.needItems(*Len, 8, "temporal trace function"))
      return E;
    Tr.FunctionNameRefs.resize(*Len);
    for (uint64_t &Ref : Tr.FunctionNameRefs)
      if (Error E = T.readInto(Ref, "temporal trace function"))
        return E;
    Out.Traces.push_back(std::move(Tr));
  }
  return Error::success();
}

} // namespace

bool isIndexedProfile(StringRef Buffer) {
  return Buffer.size() >= 8 &&
         support::endian::read64le(Buffer.data()) == indexed::Magic;
}

Expected<IndexedMemProf>
readIndexedProfile(StringRef Buffer, IndexedProfileInfo *InfoOut,
                   std::optional<MemProfSummary> *SummaryOut) {
  return readIndexedProfile(Buffer, InfoOut, SummaryOut, nullptr);
}

Expected<IndexedMemProf>
readIndexedProfile(StringRef Buffer, IndexedProfileInfo *InfoOut,
                   std::optional<MemProfSummary> *SummaryOut,
                   CounterProfile *Counters, CallStackIdCache *StackIds) {
  if (Buffer.size() < 8) {
    char MagicBytes[8];
    support::endian::write64le(MagicBytes, indexed::Magic);
    if (StringRef(MagicBytes, 8).starts_with(Buffer))
      return makeError(ErrorCode::Truncated,
                       "file of " + Twine(Buffer.size()) +
                           " bytes is too short for the indexed profile magic",
                       0);
    return makeError(ErrorCode::BadMagic, "not an indexed profile", 0);
  }
  if (!isIndexedProfile(Buffer))
    return makeError(ErrorCode::BadMagic, "not an indexed profile", 0);

  IndexedProfileInfo Info;
  std::optional<MemProfSummary> Summary;
  DataCursor C(Buffer, 0);
  if (Error E = C.skip(8, "magic"))
    return std::move(E);
  auto RawVersion = C.read<uint64_t>("header version");
  if (!RawVersion)
    return RawVersion.takeError();
  Info.Version = *RawVersion & ~indexed::VariantMask;
  Info.VariantFlags = *RawVersion & indexed::VariantMask;
  if (Info.Version == 0 || Info.Version > indexed::VersionMax)
    return makeError(ErrorCode::UnsupportedVersion,
                     "indexed profile version " + Twine(Info.Version) +
                         " is not supported (1-" + Twine(indexed::VersionMax) +
                         ")",
                     8);
  if (Error E = C.need(indexed::headerSize(Info.Version) - 16,
                       "indexed profile header"))
    return std::move(E);

  auto Field = [&](const char *Name) { return C.read<uint64_t>(Name); };
  if (auto Unused = Field("header unused field"); !Unused)
    return Unused.takeError();
  auto HashType = Field("hash type");
  if (!HashType)
    return HashType.takeError();
  if (*HashType != 0)
    return malformed("hash type " + Twine(*HashType) + " is not MD5 (0)", 24);
  auto HashOffset = Field("hash table offset");
  if (!HashOffset)
    return HashOffset.takeError();
  uint64_t MemProfOffset = 0, BinaryIdOffset = 0, TemporalOffset = 0,
           VTableOffset = 0;
  if (Info.Version >= 8) {
    auto V = Field("memprof offset");
    if (!V)
      return V.takeError();
    MemProfOffset = *V;
  }
  if (Info.Version >= 9) {
    auto V = Field("binary id offset");
    if (!V)
      return V.takeError();
    BinaryIdOffset = *V;
  }
  if (Info.Version >= 10) {
    auto V = Field("temporal profile traces offset");
    if (!V)
      return V.takeError();
    TemporalOffset = *V;
  }
  if (Info.Version >= 12) {
    auto V = Field("vtable names offset");
    if (!V)
      return V.takeError();
    VTableOffset = *V;
  }

  if (Info.Version >= 4) {
    if (Error E = skipSummary(C, "instrprof summary"))
      return std::move(E);
    if (Info.VariantFlags & indexed::VariantCSIR)
      if (Error E = skipSummary(C, "context-sensitive instrprof summary"))
        return std::move(E);
  }
  const uint64_t DataStart = C.absoluteOffset();

  auto CheckOffset = [&](uint64_t Off, uint64_t Need, const Twine &Name,
                         uint64_t FieldAt) -> Error {
    if (Off < DataStart)
      return malformed(
          Name + " " + Twine(Off) +
              " lies inside the header or summary (data starts at " +
              Twine(DataStart) + ")",
          FieldAt);
    if (Off > Buffer.size() || Need > Buffer.size() - Off)
      return malformed(Name + " " + Twine(Off) +
                           " is past the end of the file (" +
                           Twine(Buffer.size()) + ")",
                       FieldAt);
    return Error::success();
  };

  // The function-record table: always walked and checked, decoded when the
  // caller wants the counters.
  if (Error E = CheckOffset(*HashOffset, 16, "hash table offset", 32))
    return std::move(E);
  if (Counters && Info.Version < 3)
    return makeError(ErrorCode::UnsupportedVersion,
                     "the counter records of indexed version " +
                         Twine(Info.Version) + " are not supported (3-13)",
                     8);
  {
    CounterProfile Decoded;
    uint64_t Entries = 0;
    if (Error E = walkTable(
            Buffer, "function", DataStart, *HashOffset, 32, TableKeys::String,
            [&](const TableItem &It) -> Error {
              ++Entries;
              if (!Counters)
                return Error::success();
              if (It.Hash != MD5Hash(It.KeyBytes))
                return malformed("function table hash " + hex(It.Hash) +
                                     " is not the MD5 of its name '" +
                                     It.KeyBytes + "'",
                                 It.DataOffset - It.KeyBytes.size() - 24);
              return readFunctionRecords(It, Info.Version, Decoded.Records);
            }))
      return std::move(E);
    Info.NumFunctionRecords = Entries;
    if (Counters) {
      *Counters = std::move(Decoded);
      Counters->Variant = Info.VariantFlags & ~indexed::VariantMemProf;
    }
  }

  if (Info.Version >= 9) {
    if (Error E = CheckOffset(BinaryIdOffset, 8, "binary id offset", 48))
      return std::move(E);
    DataCursor B(Buffer.substr(BinaryIdOffset), BinaryIdOffset);
    auto Size = B.read<uint64_t>("binary id section size");
    if (!Size)
      return Size.takeError();
    if (*Size % 8 != 0)
      return malformed("binary id section size " + Twine(*Size) +
                           " is not a multiple of 8",
                       BinaryIdOffset);
    if (Error E = B.need(*Size, "binary id section"))
      return std::move(E);
    DataCursor Ids(Buffer.substr(BinaryIdOffset + 8, *Size),
                   BinaryIdOffset + 8);
    while (!Ids.atEnd()) {
      auto Len = Ids.read<uint64_t>("binary id length");
      if (!Len)
        return Len.takeError();
      if (*Len > Ids.remaining())
        return malformed("binary id length " + Twine(*Len) +
                             " exceeds the section",
                         Ids.absoluteOffset() - 8);
      if (*Len == 0)
        return malformed("binary id of length 0", Ids.absoluteOffset() - 8);
      if (Counters)
        Counters->BinaryIds.emplace_back(Ids.current(), *Len);
      // The section size is a multiple of 8, so the padded id fits too.
      if (Error E = Ids.skip(alignTo(*Len, 8), "binary id"))
        return std::move(E);
    }
  }
  if (Info.Version >= 12) {
    if (Error E = CheckOffset(VTableOffset, 8, "vtable names offset", 64))
      return std::move(E);
    DataCursor V(Buffer.substr(VTableOffset), VTableOffset);
    auto Len = V.read<uint64_t>("vtable names length");
    if (!Len)
      return Len.takeError();
    if (Error E = V.need(*Len, "vtable names"))
      return std::move(E);
    if (Counters && *Len) {
      std::deque<SmallVector<uint8_t, 0>> Inflated;
      if (Error E = forEachNameInBlobs(
              StringRef(V.current(), *Len), VTableOffset + 8, "vtable names",
              Inflated, [&](StringRef Name, uint64_t) {
                Counters->VTableNames.push_back(Name.str());
                return Error::success();
              }))
        return std::move(E);
    }
  }
  if (Info.Version >= 10 && (Info.VariantFlags & indexed::VariantTemporal)) {
    if (Error E = CheckOffset(TemporalOffset, 16,
                              "temporal profile traces offset", 56))
      return std::move(E);
    if (Counters)
      if (Error E = readTraces(Buffer, TemporalOffset, *Counters))
        return std::move(E);
  }
  if (Counters)
    // A file holds counters when it has records or ids, any counter kind
    // bit, or no MemProf section (an empty front-end profile has no bits).
    Counters->Present = Info.NumFunctionRecords != 0 ||
                        !Counters->BinaryIds.empty() ||
                        Counters->Variant != 0 ||
                        !(Info.VariantFlags & indexed::VariantMemProf);

  IndexedMemProf P;
  if (Info.Version >= 8 && (Info.VariantFlags & indexed::VariantMemProf)) {
    if (Error E = CheckOffset(MemProfOffset, 8, "memprof offset", 40))
      return std::move(E);
    SectionReader R(Buffer, MemProfOffset, P, Info, Summary, StackIds);
    if (Error E = R.read())
      return std::move(E);
  }

  if (InfoOut)
    *InfoOut = std::move(Info);
  if (SummaryOut)
    *SummaryOut = Summary;
  return std::move(P);
}

Expected<IndexedMemProf> readIndexedProfile(StringRef Buffer,
                                            IndexedProfileInfo *Info) {
  return readIndexedProfile(Buffer, Info, nullptr);
}

} // namespace memprof
