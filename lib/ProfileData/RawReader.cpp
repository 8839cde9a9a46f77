//===- RawReader.cpp - LLVM raw MemProf profiles (v3, v4, v5) --------------===//
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/format/IndexedFormat.h"
#include "memprof/format/RawProfileFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <cstring>
#include <optional>

using namespace llvm;

namespace memprof {

bool isRawProfile(StringRef Buffer) {
  return Buffer.size() >= 8 &&
         support::endian::read64le(Buffer.data()) == raw::RawMagic;
}

namespace {

#define TRY(Var, Expr)                                                         \
  auto Var##OrErr = (Expr);                                                    \
  if (!Var##OrErr)                                                             \
    return Var##OrErr.takeError();                                             \
  auto Var = *Var##OrErr;

/// The most entries reserved up front for a count read from the file.
constexpr uint64_t MaxReserve = uint64_t(1) << 16;

struct DumpHeader {
  uint64_t Version, TotalSize, SegmentOffset, MIBOffset, StackOffset;
};

class RawParser {
public:
  RawParser(StringRef Buffer, bool PCsInPlace) : Buffer(Buffer) {
    // In place: 8-byte words of the buffer read as they are.
    if (PCsInPlace && endianness::native == endianness::little &&
        reinterpret_cast<uintptr_t>(Buffer.data()) % 8 == 0)
      P.Stacks.Words = reinterpret_cast<const uint64_t *>(Buffer.data());
  }
  Expected<RawProfile> parse();

private:
  Error parseDump(uint64_t Start, DumpHeader &H);
  Error parseSegments(DataCursor &C, std::vector<SegmentInfo> &Out);
  Error parseMIBs(DataCursor &C, uint64_t Version);
  Error parseModulePaths(DataCursor &C, uint64_t SectionStart,
                         std::vector<SegmentInfo> &Segs);
  Error parseHeap(DataCursor &C, uint64_t SectionStart);
  /// Adds one dump's stacks to P.Stacks, each id once, in file order: a
  /// repeat must have the PCs of the id's first record in this dump (else
  /// an error at the first such record), and a dump's stack an earlier
  /// dump gave other PCs is an error once the dump is read (the smallest
  /// such id), as other errors of the dump come first.
  Error parseStacks(DataCursor &C, uint64_t SectionAt,
                    std::optional<Error> &Deferred);
  /// Per entry of P.Stacks.Entries: the last dump that gave the id.
  std::vector<unsigned> EntryDump;
  /// While true, P.Stacks.Index is not built: the first dump's stacks came
  /// in the order of its MIBs, one for one (as both runtimes write them),
  /// so entry I is MIB I's stack and each id is new. Cleared, and the index
  /// built, as soon as anything else is met.
  bool StacksFollowMIBs = false;
  /// Builds P.Stacks.Index if it is not, with room for \p More ids.
  void indexStacks(uint64_t More);
  /// The current dump's first record of each id an earlier dump gave other
  /// PCs (the dump is bad, but its own errors come first): later records of
  /// the id in this dump are compared with it. Id -> begin and size in
  /// P.Stacks; an index, as a hostile dump may hold many such ids.
  U64MapVector<RawStacks::Entry> DumpFirst;
  Error checkMIB(const MemInfoBlock &M, uint64_t StackId, uint64_t Offset);

  StringRef Buffer;
  RawProfile P;
  /// The current dump's MIBs: (stack id, AllocCount), in file order; the
  /// heap section sorts them and sums repeats (sortedAllocCounts).
  std::vector<std::pair<uint64_t, uint64_t>> DumpAllocCounts;
  void sortAllocCounts();
};

/// The magic of the section at the next 8-byte boundary of the dump (\p
/// SectionStart is the offset of \p C's data in the dump), without moving
/// \p C; none when fewer than \p MinBytes remain there.
std::optional<uint64_t> peekSection(const DataCursor &C, uint64_t SectionStart,
                                    uint64_t MinBytes) {
  uint64_t Pad = (8 - (SectionStart + C.tell()) % 8) % 8;
  if (C.remaining() < Pad + std::max<uint64_t>(MinBytes, 8))
    return std::nullopt;
  return support::endian::read64le(C.current() + Pad);
}

Error RawParser::checkMIB(const MemInfoBlock &M, uint64_t StackId,
                          uint64_t Offset) {
  auto Bad = [&](const Twine &What) {
    return makeError(ErrorCode::Malformed,
                     "MIB of stack id " + Twine(StackId) + ": " + What, Offset);
  };
  if (M.AllocCount == 0)
    return Bad("AllocCount is 0");
  if (M.MinSize > M.MaxSize)
    return Bad("MinSize " + Twine(M.MinSize) + " > MaxSize " +
               Twine(M.MaxSize));
  if (M.MinLifetime > M.MaxLifetime)
    return Bad("MinLifetime " + Twine(M.MinLifetime) + " > MaxLifetime " +
               Twine(M.MaxLifetime));
  if (M.MinAccessCount > M.MaxAccessCount)
    return Bad("MinAccessCount " + Twine(M.MinAccessCount) +
               " > MaxAccessCount " + Twine(M.MaxAccessCount));
  return Error::success();
}

Error RawParser::parseSegments(DataCursor &C, std::vector<SegmentInfo> &Out) {
  TRY(N, C.read<uint64_t>("segment count"));
  if (Error E = C.needItems(N, raw::SegmentEntrySize, "segment"))
    return E;
  Out.reserve(N);
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t At = C.absoluteOffset();
    SegmentInfo S;
    TRY(Start, C.read<uint64_t>("segment start"));
    TRY(End, C.read<uint64_t>("segment end"));
    TRY(Off, C.read<uint64_t>("segment offset"));
    TRY(IdSize, C.read<uint64_t>("build id size"));
    TRY(Id, C.readBytes(raw::BuildIdMaxSize, "build id"));
    if (IdSize > raw::BuildIdMaxSize)
      return makeError(ErrorCode::Malformed,
                       "segment " + Twine(I) + " build id size " +
                           Twine(IdSize) + " exceeds " +
                           Twine(raw::BuildIdMaxSize),
                       At + 24);
    if (Start > End)
      return makeError(ErrorCode::Malformed,
                       "segment " + Twine(I) + " starts after its end", At);
    S.Start = Start;
    S.End = End;
    S.Offset = Off;
    S.BuildId = Id.substr(0, IdSize).str();
    Out.push_back(std::move(S));
  }
  return Error::success();
}

void RawParser::sortAllocCounts() {
  llvm::sort(DumpAllocCounts);
  size_t Out = 0;
  for (size_t I = 0; I < DumpAllocCounts.size(); ++I) {
    if (Out && DumpAllocCounts[Out - 1].first == DumpAllocCounts[I].first)
      DumpAllocCounts[Out - 1].second =
          satAdd(DumpAllocCounts[Out - 1].second, DumpAllocCounts[I].second);
    else
      DumpAllocCounts[Out++] = DumpAllocCounts[I];
  }
  DumpAllocCounts.resize(Out);
}

Error RawParser::parseMIBs(DataCursor &C, uint64_t Version) {
  TRY(N, C.read<uint64_t>("MIB count"));
  const unsigned LastTag = Version == 3 ? 25 : raw::NumMIBFields;
  const uint64_t EntrySize =
      8 + (Version == 3 ? raw::MIBSizeV3 : raw::MIBSizeV4);
  if (Error E = C.needItems(N, EntrySize, "MIB"))
    return E;
  // N is bounded by the bytes left, but a lying count in a large file (10
  // GiB of zeros) would still reserve gigabytes before its first bad entry:
  // reserve at most 64Ki entries, and let real entries grow the table.
  P.MIBs.reserve(P.MIBs.size() + std::min<uint64_t>(N, MaxReserve));
  DumpAllocCounts.reserve(std::min<uint64_t>(N, MaxReserve));
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t At = C.absoluteOffset();
    // The entry's size was checked above (needItems), so the fields are read
    // straight from the bytes.
    TRY(StackId, C.read<uint64_t>("MIB stack id"));
    RawMIB R;
    const char *Fields = C.current();
    if (Error E = C.skip(EntrySize - 8, "MIB"))
      return E;
    unsigned Off = 0;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  if (Tag <= LastTag) {                                                        \
    R.Info.Name = support::endian::read<Type, endianness::little>(Fields + Off); \
    Off += sizeof(Type);                                                       \
  }
#include "memprof/format/MIBFields.def"
    // The histogram pointer is an address in the profiled process.
    R.Info.AccessHistogram = 0;
    if (Version >= 4 && R.Info.AccessHistogramSize) {
      uint64_t Count = R.Info.AccessHistogramSize;
      unsigned Width = Version == 4 ? 8 : 2;
      if (Error E = C.needItems(Count, Width, "histogram entry"))
        return E;
      // v5 entries are 2 bytes on disk, 8 in memory: reserve with a cap.
      R.Histogram.reserve(std::min<uint64_t>(Count, MaxReserve));
      for (uint64_t J = 0; J < Count; ++J) {
        if (Version == 4) {
          TRY(V, C.read<uint64_t>("histogram entry"));
          R.Histogram.push_back(V);
        } else {
          TRY(V, C.read<uint16_t>("histogram entry"));
          R.Histogram.push_back(raw::decodeHistogramCount(V));
        }
      }
    }
    if (Error E = checkMIB(R.Info, StackId, At))
      return E;
    DumpAllocCounts.push_back({StackId, R.Info.AllocCount});
    auto [It, Inserted] = P.MIBs.try_emplace(StackId, std::move(R));
    if (!Inserted) {
      // The same stack id in another dump of this file (or repeated in this
      // one): LLVM merges with the runtime's rule; the longer histogram wins
      // and the shorter is added into it.
      RawMIB &Old = It->second;
      Old.Info.mergeDump(R.Info);
      Old.Info.AccessHistogram = 0;
      if (R.Histogram.size() > Old.Histogram.size())
        std::swap(Old.Histogram, R.Histogram);
      for (size_t J = 0; J < R.Histogram.size(); ++J)
        Old.Histogram[J] = satAdd(Old.Histogram[J], R.Histogram[J]);
    }
  }
  return Error::success();
}

void RawParser::indexStacks(uint64_t More) {
  RawStacks &St = P.Stacks;
  St.Index.reserve(St.Entries.size() + std::min<uint64_t>(More, MaxReserve));
  // Entries that followed the MIBs are not indexed yet; each has an id of
  // its own.
  if (St.Index.size() != St.Entries.size())
    for (size_t I = 0; I < St.Entries.size(); ++I)
      St.Index.try_emplace(St.Entries[I].Id).first->second = unsigned(I);
  StacksFollowMIBs = false;
}

Error RawParser::parseStacks(DataCursor &C, uint64_t SectionAt,
                             std::optional<Error> &Deferred) {
  RawStacks &St = P.Stacks;
  const unsigned Dump = P.NumDumps;
  DumpFirst.clear();
  uint64_t DeferredId = 0;
  auto NOrErr = C.read<uint64_t>("stack count");
  if (!NOrErr)
    return NOrErr.takeError();
  const uint64_t N = *NOrErr;
  if (Error E = C.needItems(N, 16, "stack"))
    return E;
  // Bounded by the bytes present, not by a count read from the file; grown
  // by doubling over many dumps. (PCs read in place need none.)
  const uint64_t Need = St.PCs.size() + C.remaining() / 8;
  if (!St.Words && Need > St.PCs.capacity())
    St.PCs.reserve(std::max<uint64_t>(Need, 2 * St.PCs.capacity()));
  St.Entries.reserve(St.Entries.size() + std::min<uint64_t>(N, MaxReserve));
  // The first dump's stacks, if they follow its MIBs (each MIB id new, as
  // P.MIBs holds one entry per MIB), need no index to find repeats: stack I
  // has MIB I's id, and the MIBs' ids are distinct.
  StacksFollowMIBs = Dump == 0 && St.Entries.empty() &&
                     DumpAllocCounts.size() == N && P.MIBs.size() == N;
  if (!StacksFollowMIBs)
    indexStacks(N);
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t At = C.absoluteOffset();
    TRY(Id, C.read<uint64_t>("stack id"));
    TRY(NumPCs, C.read<uint64_t>("stack PC count"));
    if (Error E = C.needItems(NumPCs, 8, "stack PC"))
      return E;
    // needItems bounded NumPCs by the bytes left: NumPCs * 8 cannot wrap.
    TRY(Bytes, C.readBytes(NumPCs * 8, "stack PC"));
    // The runtime ends a trace at its first zero PC.
    const char *PCBytes = Bytes.data();
    uint64_t Len = 0;
    while (Len < NumPCs && support::endian::read64le(PCBytes + 8 * Len) != 0)
      ++Len;
    auto SamePCs = [&](const RawStacks::Entry &E) {
      if (E.Size != Len)
        return false;
      ArrayRef<uint64_t> Old = St.pcs(E);
      for (uint64_t J = 0; J < Len; ++J)
        if (Old[J] != support::endian::read64le(PCBytes + 8 * J))
          return false;
      return true;
    };
    // The stack's entry: its PCs where they lie in the buffer when read in
    // place (and aligned), else appended to St.PCs (which has room when
    // not read in place: reserved for every byte left).
    auto Keep = [&]() -> RawStacks::Entry {
      const uint64_t Byte = uint64_t(PCBytes - Buffer.data());
      if (St.Words && Byte % 8 == 0)
        return {Id, Byte / 8, Len, true};
      const uint64_t Begin = St.PCs.size();
      St.PCs.resize_for_overwrite(Begin + Len);
      if constexpr (endianness::native == endianness::little)
        std::memcpy(St.PCs.data() + Begin, PCBytes, Len * 8);
      else
        for (uint64_t J = 0; J < Len; ++J)
          St.PCs[Begin + J] = support::endian::read64le(PCBytes + 8 * J);
      return {Id, Begin, Len, false};
    };
    if (StacksFollowMIBs) {
      if (Id == DumpAllocCounts[I].first) {
        St.Entries.push_back(Keep());
        EntryDump.push_back(Dump);
        continue;
      }
      indexStacks(N - I); // (clears StacksFollowMIBs)
    }
    auto [It, New] = St.Index.try_emplace(Id);
    if (New) {
      if (St.Entries.size() > U64IndexMap::MaxIndex) {
        St.Index.erase(It);
        return makeError(ErrorCode::TooLarge,
                         "more than " + Twine(U64IndexMap::MaxIndex) +
                             " stacks",
                         At);
      }
      It->second = unsigned(St.Entries.size());
      St.Entries.push_back(Keep());
      EntryDump.push_back(Dump);
      continue;
    }
    const unsigned Index = It->second;
    const RawStacks::Entry Old = St.Entries[Index];
    if (EntryDump[Index] == Dump) {
      // Met before in this dump: compared with that first record, which
      // is the entry unless the entry is an earlier dump's other PCs.
      auto F = DumpFirst.find(Id);
      if (!SamePCs(F != DumpFirst.end() ? F->second : Old))
        return makeError(ErrorCode::Malformed,
                         "stack id " + Twine(Id) +
                             " appears twice with different PCs",
                         At);
      continue;
    }
    // First met in this dump, given by an earlier one.
    EntryDump[Index] = Dump;
    if (SamePCs(Old))
      continue;
    DumpFirst.insert({Id, Keep()});
    if (!Deferred || Id < DeferredId) {
      if (Deferred) // (assigning over an Error would leak it)
        consumeError(std::move(*Deferred));
      DeferredId = Id;
      Deferred.emplace(makeError(ErrorCode::Malformed,
                           "dump " + Twine(Dump) +
                               " has a different call stack for stack id " +
                               Twine(Id),
                           SectionAt));
    }
  }
  return Error::success();
}

Error RawParser::parseModulePaths(DataCursor &C, uint64_t SectionStart,
                                  std::vector<SegmentInfo> &Segs) {
  // At the next 8-byte boundary of the dump after the stacks, if there: the
  // module paths of memprof's runtime. Other bytes here (zero padding, or
  // anything a writer put after its sections) are skipped, as LLVM does.
  std::optional<uint64_t> Magic = peekSection(C, SectionStart, 16);
  if (Magic != raw::ModulePathsMagic)
    return Error::success();
  uint64_t Pad = (8 - (SectionStart + C.tell()) % 8) % 8;
  if (Error E = C.skip(Pad + 8, "module paths magic"))
    return E;
  TRY(N, C.read<uint64_t>("module path count"));
  if (Error E = C.needItems(N, 16, "module path"))
    return E;
  std::vector<bool> Seen(Segs.size());
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t At = C.absoluteOffset();
    TRY(Index, C.read<uint64_t>("module path segment index"));
    TRY(Size, C.read<uint64_t>("module path size"));
    if (Index >= Segs.size())
      return makeError(ErrorCode::Malformed,
                       "module path " + Twine(I) + " is for segment " +
                           Twine(Index) + ", but the dump has " +
                           Twine(Segs.size()) + " segments",
                       At);
    if (Seen[Index])
      return makeError(ErrorCode::Malformed,
                       "segment " + Twine(Index) + " has two module paths",
                       At);
    if (Size == 0 || Size > raw::ModulePathMaxSize)
      return makeError(ErrorCode::Malformed,
                       "module path " + Twine(I) + " has size " + Twine(Size) +
                           " (1 to " + Twine(raw::ModulePathMaxSize) +
                           " bytes)",
                       At + 8);
    TRY(Bytes, C.readBytes(Size, "module path"));
    if (Bytes.contains('\0'))
      return makeError(ErrorCode::Malformed,
                       "module path " + Twine(I) + " holds a NUL byte", At + 16);
    if (Error E = C.skip(raw::alignTo8(Size) - Size, "module path padding"))
      return E;
    Seen[Index] = true;
    Segs[Index].Path = Bytes.str();
  }
  return Error::success();
}

Error RawParser::parseHeap(DataCursor &C, uint64_t SectionStart) {
  // At the next 8-byte boundary after the module paths (or the stacks), if
  // there: memprof's heap section. Other bytes are skipped, as after the
  // stacks; a section with the heap magic is checked in full.
  std::optional<uint64_t> Magic = peekSection(C, SectionStart, 8);
  if (Magic != raw::HeapMagic)
    return Error::success();
  uint64_t Pad = (8 - (SectionStart + C.tell()) % 8) % 8;
  if (Error E = C.skip(Pad + 8, "heap magic"))
    return E;
  const uint64_t At = C.absoluteOffset() - 8;
  auto Bad = [](const Twine &What, uint64_t Offset) {
    return makeError(ErrorCode::Malformed, "heap section: " + What, Offset);
  };
  RawHeapDump D;
  uint64_t Flags, NumContexts, NumSamples;
  for (auto [Field, What] :
       {std::pair(&Flags, "heap flags"),
        std::pair(&D.DumpTimeMs, "heap dump time"),
        std::pair(&D.PeakTimeMs, "heap peak time"),
        std::pair(&D.PeakBytes, "heap peak bytes"),
        std::pair(&D.PeakBlocks, "heap peak blocks"),
        std::pair(&NumContexts, "heap context count"),
        std::pair(&NumSamples, "heap sample count")})
    if (Error E = C.readInto(*Field, What))
      return E;
  if (Flags & ~raw::HeapFlagExitDump)
    return Bad("flags 0x" + Twine::utohexstr(Flags) + " set unknown bits",
               At + 8);
  D.ExitDump = Flags & raw::HeapFlagExitDump;
  if (D.PeakTimeMs > D.DumpTimeMs)
    return Bad("peak time " + Twine(D.PeakTimeMs) + " ms is after the dump (" +
                   Twine(D.DumpTimeMs) + " ms)",
               At + 24);
  if (D.PeakBlocks == 0 && D.PeakBytes != 0)
    return Bad("peak of " + Twine(D.PeakBytes) + " bytes in 0 blocks",
               At + 40);
  if (Error E = C.needItems(NumContexts, 8 * raw::HeapContextWords,
                            "heap context"))
    return E;
  if (NumSamples > raw::HeapMaxSamples)
    return Bad("sample count " + Twine(NumSamples) + " is above the " +
                   Twine(raw::HeapMaxSamples) + " a timeline keeps",
               At + 56);
  // A sample takes at least its time, total and top count.
  if (Error E = C.needItems(NumSamples, 24, "heap sample"))
    return E;
  // The stack id's AllocCount in this dump; none when it is not a MIB.
  sortAllocCounts();
  auto MIBOf = [&](uint64_t StackId) -> std::optional<uint64_t> {
    auto It = llvm::lower_bound(DumpAllocCounts, StackId,
                                [](const auto &E, uint64_t V) {
                                  return E.first < V;
                                });
    if (It == DumpAllocCounts.end() || It->first != StackId)
      return std::nullopt;
    return It->second;
  };
  D.Contexts.reserve(NumContexts);
  for (uint64_t I = 0; I < NumContexts; ++I) {
    const uint64_t CAt = C.absoluteOffset();
    uint64_t StackId;
    HeapStats S;
    for (auto [Field, What] :
         {std::pair(&StackId, "heap context stack id"),
          std::pair(&S.LiveBytes, "heap context live bytes"),
          std::pair(&S.LiveBlocks, "heap context live blocks"),
          std::pair(&S.PeakBytes, "heap context peak bytes"),
          std::pair(&S.PeakBlocks, "heap context peak blocks")})
      if (Error E = C.readInto(*Field, What))
        return E;
    auto Which = [&] {
      return ("context " + Twine(I) + " (stack id " + Twine(StackId) + ")")
          .str();
    };
    if (!D.Contexts.empty() && StackId <= D.Contexts.back().first)
      return Bad(Which() + " is not above the previous context's stack id", CAt);
    std::optional<uint64_t> Count = MIBOf(StackId);
    if (!Count)
      return Bad(Which() + " is no MIB of this dump", CAt);
    if (S.LiveBlocks > *Count)
      return Bad(Which() + " has " + Twine(S.LiveBlocks) +
                     " live blocks, more than its AllocCount " + Twine(*Count),
                 CAt + 16);
    if (S.PeakBlocks > *Count)
      return Bad(Which() + " has " + Twine(S.PeakBlocks) +
                     " blocks at the peak, more than its AllocCount " +
                     Twine(*Count),
                 CAt + 32);
    if (S.LiveBlocks == 0 && S.LiveBytes != 0)
      return Bad(Which() + " has " + Twine(S.LiveBytes) +
                     " live bytes in 0 blocks",
                 CAt + 8);
    if (S.PeakBlocks == 0 && S.PeakBytes != 0)
      return Bad(Which() + " has " + Twine(S.PeakBytes) +
                     " bytes at the peak in 0 blocks",
                 CAt + 24);
    if (S.LiveBlocks == 0 && S.PeakBlocks == 0)
      return Bad(Which() + " has nothing live at the dump or at the peak", CAt);
    D.Contexts.push_back({StackId, S});
  }
  D.Samples.reserve(NumSamples);
  for (uint64_t I = 0; I < NumSamples; ++I) {
    const uint64_t SAt = C.absoluteOffset();
    HeapSample Sample;
    uint64_t NumTop;
    for (auto [Field, What] :
         {std::pair(&Sample.TimeMs, "heap sample time"),
          std::pair(&Sample.TotalBytes, "heap sample total"),
          std::pair(&NumTop, "heap sample top count")})
      if (Error E = C.readInto(*Field, What))
        return E;
    if (!D.Samples.empty() && Sample.TimeMs < D.Samples.back().TimeMs)
      return Bad("sample " + Twine(I) + " at " + Twine(Sample.TimeMs) +
                     " ms comes before the previous one's " +
                     Twine(D.Samples.back().TimeMs) + " ms",
                 SAt);
    if (Sample.TimeMs > D.DumpTimeMs)
      return Bad("sample " + Twine(I) + " at " + Twine(Sample.TimeMs) +
                     " ms is after the dump (" + Twine(D.DumpTimeMs) + " ms)",
                 SAt);
    if (Sample.TotalBytes > D.PeakBytes)
      return Bad("sample " + Twine(I) + " total of " +
                     Twine(Sample.TotalBytes) + " bytes is above the peak of " +
                     Twine(D.PeakBytes),
                 SAt + 8);
    if (NumTop > raw::HeapMaxTop)
      return Bad("sample " + Twine(I) + " names " + Twine(NumTop) +
                     " contexts; at most " + Twine(raw::HeapMaxTop),
                 SAt + 16);
    if (Error E = C.needItems(NumTop, 16, "heap sample top entry"))
      return E;
    for (uint64_t J = 0; J < NumTop; ++J) {
      const uint64_t TAt = C.absoluteOffset();
      HeapTopEntry T;
      if (Error E = C.readInto(T.Context, "heap sample top stack id"))
        return E;
      if (Error E = C.readInto(T.Bytes, "heap sample top bytes"))
        return E;
      auto Which = [&] {
        return ("sample " + Twine(I) + " entry " + Twine(J) + " (stack id " +
                Twine(T.Context) + ")")
            .str();
      };
      if (!MIBOf(T.Context))
        return Bad(Which() + " is no MIB of this dump", TAt);
      if (llvm::any_of(Sample.Top, [&](const HeapTopEntry &O) {
            return O.Context == T.Context;
          }))
        return Bad(Which() + " names a context twice", TAt);
      if (!Sample.Top.empty() && T.Bytes > Sample.Top.back().Bytes)
        return Bad(Which() + " has " + Twine(T.Bytes) +
                       " bytes, more than the entry before it (largest "
                       "first)",
                   TAt + 8);
      Sample.Top.push_back(T);
    }
    D.Samples.push_back(std::move(Sample));
  }
  P.HeapDumps.push_back(std::move(D));
  return Error::success();
}

Error RawParser::parseDump(uint64_t Start, DumpHeader &H) {
  StringRef Rest = Buffer.substr(Start);
  DataCursor HC(Rest, Start);
  if (Rest.size() < raw::HeaderSize)
    return makeError(ErrorCode::Truncated,
                     "not enough space for another header: " +
                         Twine(Rest.size()) + " bytes remain, a header needs " +
                         Twine(raw::HeaderSize),
                     Start);
  TRY(Magic, HC.read<uint64_t>("magic"));
  if (Magic != raw::RawMagic)
    return makeError(ErrorCode::BadMagic,
                     "dump " + Twine(P.NumDumps) + " does not start with the "
                     "raw MemProf magic",
                     Start);
  for (auto [Field, What] :
       {std::pair(&H.Version, "version"), std::pair(&H.TotalSize, "total size"),
        std::pair(&H.SegmentOffset, "segment offset"),
        std::pair(&H.MIBOffset, "MIB offset"),
        std::pair(&H.StackOffset, "stack offset")})
    if (Error E = HC.readInto(*Field, What))
      return E;

  if (H.Version < raw::RawVersionMin || H.Version > raw::RawVersionMax)
    return makeError(ErrorCode::UnsupportedVersion,
                     "raw profile version " + Twine(H.Version) +
                         "; this tool reads versions " +
                         Twine(raw::RawVersionMin) + " to " +
                         Twine(raw::RawVersionMax),
                     Start + 8);
  if (P.NumDumps && H.Version != P.Version)
    return makeError(ErrorCode::Malformed,
                     "dump " + Twine(P.NumDumps) + " has version " +
                         Twine(H.Version) + " but the first dump has " +
                         Twine(P.Version),
                     Start + 8);
  if (H.TotalSize < raw::HeaderSize)
    return makeError(ErrorCode::Malformed,
                     "total size " + Twine(H.TotalSize) +
                         " is smaller than the header",
                     Start + 16);
  if (H.TotalSize > Rest.size())
    return makeError(ErrorCode::Truncated,
                     "total size " + Twine(H.TotalSize) + " but only " +
                         Twine(Rest.size()) + " bytes remain",
                     Start + 16);
  // Sections lie in the order the runtime writes them, each bounded by the
  // next, so no section can be read through another.
  if (H.SegmentOffset < raw::HeaderSize || H.SegmentOffset > H.MIBOffset ||
      H.MIBOffset > H.StackOffset || H.StackOffset > H.TotalSize)
    return makeError(ErrorCode::Malformed,
                     "section offsets out of order or out of range (segments " +
                         Twine(H.SegmentOffset) + ", MIBs " +
                         Twine(H.MIBOffset) + ", stacks " +
                         Twine(H.StackOffset) + ", total size " +
                         Twine(H.TotalSize) + ")",
                     Start + 24);

  std::vector<SegmentInfo> Segs;
  DataCursor SC(Rest.substr(H.SegmentOffset, H.MIBOffset - H.SegmentOffset),
                Start + H.SegmentOffset);
  if (Error E = parseSegments(SC, Segs))
    return E;
  if (P.NumDumps == 0) {
    P.Version = H.Version;
    P.Segments = Segs;
  } else {
    bool Same = Segs.size() == P.Segments.size();
    for (size_t I = 0; Same && I < Segs.size(); ++I)
      Same = Segs[I].Start == P.Segments[I].Start &&
             Segs[I].End == P.Segments[I].End &&
             Segs[I].Offset == P.Segments[I].Offset &&
             Segs[I].BuildId == P.Segments[I].BuildId;
    if (!Same)
      return makeError(ErrorCode::Malformed,
                       "dump " + Twine(P.NumDumps) +
                           " has different segment information than the first "
                           "(a library was loaded or unloaded between dumps)",
                       Start + H.SegmentOffset);
  }

  DataCursor MC(Rest.substr(H.MIBOffset, H.StackOffset - H.MIBOffset),
                Start + H.MIBOffset);
  DumpAllocCounts.clear();
  if (Error E = parseMIBs(MC, H.Version))
    return E;

  DataCursor KC(Rest.substr(H.StackOffset, H.TotalSize - H.StackOffset),
                Start + H.StackOffset);
  std::optional<Error> Deferred;
  // (Consumed on every path: an error of the dump's other sections comes
  // first, as it did when the stacks were compared after them.)
  auto Report = [&](Error E) -> Error {
    if (Deferred)
      consumeError(std::move(*Deferred));
    return E;
  };
  if (Error E = parseStacks(KC, Start + H.StackOffset, Deferred))
    return Report(std::move(E));
  if (Error E = parseModulePaths(KC, H.StackOffset, Segs))
    return Report(std::move(E));
  if (Error E = parseHeap(KC, H.StackOffset))
    return Report(std::move(E));
  if (Deferred)
    return std::move(*Deferred);
  // Segments are the same in every dump; the first path given is kept.
  for (size_t I = 0; I < Segs.size(); ++I)
    if (P.Segments[I].Path.empty())
      P.Segments[I].Path = std::move(Segs[I].Path);
  ++P.NumDumps;
  return Error::success();
}

Expected<RawProfile> RawParser::parse() {
  if (Buffer.empty())
    return makeError(ErrorCode::Empty, "the file is empty", 0);
  if (Buffer.size() < 8)
    return makeError(ErrorCode::Truncated,
                     "file of " + Twine(Buffer.size()) +
                         " bytes is too short for a raw profile header",
                     0);
  if (!isRawProfile(Buffer)) {
    uint64_t M = support::endian::read64le(Buffer.data());
    std::string Hint;
    if (M == indexed::Magic)
      Hint = " (this is an indexed profile)";
    else if (M == support::endian::byte_swap<uint64_t>(raw::RawMagic,
                                                       endianness::big))
      Hint = " (byte-swapped raw magic: a big-endian file?)";
    return makeError(ErrorCode::BadMagic,
                     "expected a raw MemProf profile" + Twine(Hint), 0);
  }
  uint64_t Off = 0;
  while (Off < Buffer.size()) {
    DumpHeader H;
    if (Error E = parseDump(Off, H))
      return std::move(E);
    Off += H.TotalSize;
    // Zero padding between or after dumps is skipped; anything else must be
    // another dump.
    uint64_t Z = Off;
    while (Z < Buffer.size() && Buffer[Z] == 0)
      ++Z;
    if (Z == Buffer.size())
      break;
    Off += (Z - Off) & ~uint64_t(7);
  }
  if (StacksFollowMIBs) {
    // One dump, its stacks in the order of its MIBs: MIB I's is entry I.
    // The index is left unbuilt (RawStacks::indexOf scans then).
    uint64_t I = 0;
    for (auto &KV : P.MIBs)
      KV.second.StackIndex = I++;
    return std::move(P);
  }
  for (auto &KV : P.MIBs) {
    std::optional<size_t> Stack = P.Stacks.indexOf(KV.first);
    if (!Stack)
      return makeError(ErrorCode::Malformed,
                       "MIB references stack id " + Twine(KV.first) +
                           " which no stack section contains");
    KV.second.StackIndex = *Stack;
  }
  return std::move(P);
}

} // namespace

std::optional<size_t> RawStacks::indexOf(uint64_t Id) const {
  if (Index.size() != Entries.size()) { // not built: a scan
    for (size_t I = 0; I < Entries.size(); ++I)
      if (Entries[I].Id == Id)
        return I;
    return std::nullopt;
  }
  auto It = Index.find(Id);
  if (It == Index.end())
    return std::nullopt;
  return size_t(It->second);
}

std::optional<ArrayRef<uint64_t>> RawStacks::find(uint64_t Id) const {
  std::optional<size_t> I = indexOf(Id);
  if (!I)
    return std::nullopt;
  return pcs(Entries[*I]);
}

Expected<RawProfile> readRawProfile(StringRef Buffer, bool PCsInPlace) {
  return RawParser(Buffer, PCsInPlace).parse();
}

} // namespace memprof
