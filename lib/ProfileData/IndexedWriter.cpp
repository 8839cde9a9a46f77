//===- IndexedWriter.cpp - LLVM indexed profile writer (MemProf V2-V4) ----===//
//
// Reproduces llvm-profdata 22's InstrProfWriter::writeImpl for a profile that
// holds only MemProf data: header, empty InstrProf summary, empty function
// table, MemProf section, binary ids, vtable names (spec 3.1-3.11). Every
// ordering decision follows LLVM's so the bytes are identical for the same
// IndexedMemProf.
//
//===----------------------------------------------------------------------===//
#include "InstrProfInternal.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/SequenceSort.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

using namespace llvm;

namespace memprof {

namespace {

using LinearFrameId = uint32_t;
using LinearCallStackId = uint32_t;

void patch64(SmallVectorImpl<char> &Out, uint64_t Pos, uint64_t V) {
  support::endian::write64le(Out.data() + Pos, V);
}

void writeFrame(SmallVectorImpl<char> &Out, const Frame &F) {
  write64(Out, F.Function);
  write32(Out, F.LineOffset);
  write32(Out, F.Column);
  write8(Out, F.IsInlineFrame ? 1 : 0);
}

std::string hex(uint64_t V) { return ("0x" + Twine::utohexstr(V)).str(); }

/// LLVM's OnDiskChainedHashTableGenerator (Support/OnDiskHashTable.h), which
/// decides the order of items inside a bucket: start with 64 buckets, insert
/// at the head, double when 4*N >= 3*Buckets, and shrink or grow once more in
/// emit(). Items are identified by their insertion index.
class ChainedTableBuilder {
public:
  ChainedTableBuilder() : Buckets(64) {}

  void insert(uint64_t Hash) {
    Items.push_back({Hash, NoItem});
    ++NumEntries;
    if (4 * NumEntries >= 3 * Buckets.size())
      resize(Buckets.size() * 2);
    link(Buckets, Items.size() - 1);
  }

  /// Writes the payload, the padding and the bucket header. \p EmitItem
  /// writes everything of item I after its hash. Returns the absolute offset
  /// of the bucket header.
  Expected<uint64_t> emit(SmallVectorImpl<char> &Out,
                          function_ref<void(size_t I)> EmitItem) {
    uint64_t Target =
        NumEntries <= 2 ? 1 : llvm::bit_ceil(NumEntries * 4 / 3 + 1);
    if (Target != Buckets.size())
      resize(Target);
    // Only keys that collide in their low bits en masse can overflow the
    // u16 item count, where LLVM would silently write a broken table.
    for (size_t B = 0; B < Buckets.size(); ++B)
      if (Buckets[B].Length > UINT16_MAX)
        return makeError(ErrorCode::TooLarge,
                         "hash table bucket " + Twine(B) + " would hold " +
                             Twine(Buckets[B].Length) +
                             " items, more than a u16 count allows");

    std::vector<uint64_t> Offsets(Buckets.size(), 0);
    for (size_t B = 0; B < Buckets.size(); ++B) {
      if (Buckets[B].Head == NoItem)
        continue;
      Offsets[B] = Out.size();
      write16(Out, uint16_t(Buckets[B].Length));
      for (size_t I = Buckets[B].Head; I != NoItem; I = Items[I].Next) {
        write64(Out, Items[I].Hash);
        EmitItem(I);
      }
    }
    while (Out.size() % 8 != 0)
      write8(Out, 0);
    uint64_t TableOffset = Out.size();
    write64(Out, Buckets.size());
    write64(Out, NumEntries);
    for (uint64_t Off : Offsets)
      write64(Out, Off);
    return TableOffset;
  }

private:
  static constexpr size_t NoItem = ~size_t(0);
  struct Item {
    uint64_t Hash;
    size_t Next;
  };
  struct Bucket {
    size_t Head = NoItem;
    uint64_t Length = 0;
  };

  void link(std::vector<Bucket> &Bs, size_t I) {
    Bucket &B = Bs[Items[I].Hash & (Bs.size() - 1)];
    Items[I].Next = B.Head;
    B.Head = I;
    ++B.Length;
  }

  void resize(size_t NewSize) {
    std::vector<Bucket> NewBuckets(NewSize);
    for (Bucket &B : Buckets)
      for (size_t I = B.Head; I != NoItem;) {
        size_t Next = Items[I].Next;
        link(NewBuckets, I);
        I = Next;
      }
    Buckets = std::move(NewBuckets);
  }

  std::vector<Item> Items;
  std::vector<Bucket> Buckets;
  uint64_t NumEntries = 0;
};

/// DenseMap (and so MapVector) reserves two key values; looking them up is
/// undefined, and no map of IndexedMemProf can hold them.
bool isReservedKey(uint64_t K) {
  return K == DenseMapInfo<uint64_t>::getEmptyKey() ||
         K == DenseMapInfo<uint64_t>::getTombstoneKey();
}

/// Checks the references the on-disk format cannot express dangling: every
/// call stack a record uses exists, and every frame of every stack exists.
Error checkReferences(const IndexedMemProf &P) {
  for (const auto &[Id, Stack] : P.CallStacks)
    for (FrameId F : Stack)
      if (isReservedKey(F) || !P.Frames.count(F))
        return makeError(ErrorCode::Malformed,
                         "call stack " + hex(Id) + " references frame " +
                             hex(F) + " that is not in the profile");
  for (const auto &[Guid, R] : P.Records) {
    for (const IndexedAllocSite &A : R.AllocSites)
      if (isReservedKey(A.CSId) || !P.CallStacks.count(A.CSId))
        return makeError(ErrorCode::Malformed,
                         "alloc site of function " + hex(Guid) +
                             " references call stack " + hex(A.CSId) +
                             " that is not in the profile");
    for (const IndexedCallSite &C : R.CallSites)
      if (isReservedKey(C.CSId) || !P.CallStacks.count(C.CSId))
        return makeError(ErrorCode::Malformed,
                         "call site of function " + hex(Guid) +
                             " references call stack " + hex(C.CSId) +
                             " that is not in the profile");
  }
  return Error::success();
}

void writeSchema(SmallVectorImpl<char> &Out, const MIBSchema &Schema) {
  write64(Out, Schema.size());
  for (uint8_t Tag : Schema)
    write64(Out, Tag);
}

/// The record table shared by all versions: identity hash on the GUID,
/// explicit key length 8, data as \p EmitData writes it.
Expected<uint64_t>
writeRecordTable(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                 function_ref<uint64_t(const IndexedRecord &)> DataSize,
                 function_ref<void(const IndexedRecord &)> EmitData) {
  ChainedTableBuilder Table;
  for (const auto &KV : P.Records)
    Table.insert(KV.first);
  return Table.emit(Out, [&](size_t I) {
    const auto &[Guid, R] = *(P.Records.begin() + I);
    write64(Out, 8);
    write64(Out, DataSize(R));
    write64(Out, Guid);
    uint64_t Start = Out.size();
    (void)Start;
    EmitData(R);
    assert(Out.size() - Start == DataSize(R) && "record size mismatch");
  });
}

struct FrameStat {
  uint64_t Count = 0;
  uint64_t PositionSum = 0;
};

/// LLVM's computeFrameHistogram over every stack in CallStacks.
DenseMap<FrameId, FrameStat> frameHistogram(const IndexedMemProf &P) {
  DenseMap<FrameId, FrameStat> H;
  for (const auto &KV : P.CallStacks)
    for (size_t I = 0; I < KV.second.size(); ++I) {
      FrameStat &S = H[KV.second[I]];
      ++S.Count;
      S.PositionSum += I;
    }
  return H;
}

/// writeMemProfFrameArray: frames by Count descending, PositionSum
/// ascending, FrameId ascending.
Expected<DenseMap<FrameId, LinearFrameId>>
writeFrameArray(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                const DenseMap<FrameId, FrameStat> &Histogram) {
  if (P.Frames.size() > uint64_t(std::numeric_limits<int32_t>::max()))
    return makeError(ErrorCode::TooLarge,
                     Twine(P.Frames.size()) +
                         " frames do not fit in a linear frame id");
  auto Stat = [&](FrameId Id) {
    auto It = Histogram.find(Id);
    return It == Histogram.end() ? FrameStat() : It->second;
  };
  std::vector<std::pair<FrameId, const Frame *>> Order;
  Order.reserve(P.Frames.size());
  for (const auto &KV : P.Frames)
    Order.emplace_back(KV.first, &KV.second);
  llvm::sort(Order, [&](const auto &L, const auto &R) {
    FrameStat SL = Stat(L.first), SR = Stat(R.first);
    if (SL.Count != SR.Count)
      return SL.Count > SR.Count;
    if (SL.PositionSum != SR.PositionSum)
      return SL.PositionSum < SR.PositionSum;
    return L.first < R.first;
  });
  DenseMap<FrameId, LinearFrameId> Index;
  Index.reserve(Order.size());
  for (size_t I = 0; I < Order.size(); ++I) {
    Index[Order[I].first] = LinearFrameId(I);
    writeFrame(Out, *Order[I].second);
  }
  return Index;
}

/// CallStackRadixTreeBuilder<FrameId>::build (MemProfRadixTree.cpp).
Expected<DenseMap<CallStackId, LinearCallStackId>>
writeRadixArray(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                const DenseMap<FrameId, LinearFrameId> &FrameIndex,
                const DenseMap<FrameId, FrameStat> &Histogram) {
  DenseMap<CallStackId, LinearCallStackId> Pos;
  if (P.CallStacks.empty())
    return Pos;

  using Stack = SmallVector<FrameId, 8>;
  std::vector<std::pair<CallStackId, const Stack *>> Stacks;
  Stacks.reserve(P.CallStacks.size());
  for (const auto &KV : P.CallStacks)
    Stacks.emplace_back(KV.first, &KV.second);

  // Lexicographic from the root end, frames compared by (count, id);
  // popular frames sort later because the encoding starts from the last
  // stack. Frames are replaced by their rank under that order first, so the
  // sort compares plain integers. The histogram holds exactly the frames of
  // the stacks; their ids are not DenseMap's reserved keys (checked above).
  std::vector<std::pair<uint64_t, FrameId>> FrameKeys;
  FrameKeys.reserve(Histogram.size());
  for (const auto &[F, S] : Histogram)
    FrameKeys.emplace_back(S.Count, F);
  llvm::sort(FrameKeys);
  DenseMap<FrameId, uint32_t> Rank;
  Rank.reserve(FrameKeys.size());
  for (size_t I = 0; I < FrameKeys.size(); ++I)
    Rank.try_emplace(FrameKeys[I].second, uint32_t(I));
  std::vector<uint32_t> Ranks; // every stack's ranks, root first
  std::vector<std::pair<size_t, size_t>> Span(Stacks.size());
  for (size_t I = 0; I < Stacks.size(); ++I) {
    const Stack &CS = *Stacks[I].second;
    Span[I] = {Ranks.size(), CS.size()};
    for (auto F = CS.rbegin(); F != CS.rend(); ++F)
      Ranks.push_back(Rank.find(*F)->second);
  }
  std::vector<size_t> SortedIdx(Stacks.size());
  std::vector<uint64_t> Ids(Stacks.size());
  for (size_t I = 0; I < SortedIdx.size(); ++I) {
    SortedIdx[I] = I;
    Ids[I] = Stacks[I].first;
  }
  // Lexicographic: the first rank that differs, else the shorter first,
  // else (equal frames) by stack id.
  sortSequences(SortedIdx, Ranks, Span, Ids);
  {
    std::vector<std::pair<CallStackId, const Stack *>> Sorted;
    Sorted.reserve(Stacks.size());
    for (size_t I : SortedIdx)
      Sorted.push_back(Stacks[I]);
    Stacks.swap(Sorted);
  }

  std::vector<uint32_t> Radix;
  std::vector<uint64_t> Indexes; // positions of Prev's frames, root first
  const Stack *Prev = nullptr;
  for (auto It = Stacks.rbegin(); It != Stacks.rend(); ++It) {
    const Stack &CS = *It->second;
    size_t Common = 0;
    if (Prev) {
      auto M =
          std::mismatch(Prev->rbegin(), Prev->rend(), CS.rbegin(), CS.rend());
      Common = std::distance(CS.rbegin(), M.second);
    }
    Indexes.resize(Common);
    if (Common) {
      uint64_t Current = Radix.size();
      uint64_t Parent = Indexes.back();
      Radix.push_back(uint32_t(Parent - Current));
    }
    for (auto F = CS.rbegin() + Common; F != CS.rend(); ++F) {
      Indexes.push_back(Radix.size());
      Radix.push_back(FrameIndex.find(*F)->second);
    }
    Radix.push_back(uint32_t(CS.size()));
    Pos[It->first] = LinearCallStackId(Radix.size() - 1);
    Prev = &CS;
    if (Radix.size() > uint64_t(std::numeric_limits<int32_t>::max()))
      return makeError(ErrorCode::TooLarge,
                       "the call-stack radix array exceeds 2^31 elements");
  }
  std::reverse(Radix.begin(), Radix.end());
  for (auto &KV : Pos)
    KV.second = LinearCallStackId(Radix.size() - 1 - KV.second);
  for (uint32_t E : Radix)
    write32(Out, E);
  return Pos;
}

Error writeMemProfV2(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                     const MIBSchema &Schema, IndexedWriteStats &Stats) {
  write64(Out, 2);
  uint64_t HeaderPos = Out.size();
  for (int I = 0; I < 5; ++I)
    write64(Out, 0);
  writeSchema(Out, Schema);

  uint64_t MIBSize = schemaBlockSize(Schema);
  auto RecordTableOffset = writeRecordTable(
      Out, P,
      [&](const IndexedRecord &R) {
        return 8 + R.AllocSites.size() * (8 + MIBSize) + 8 +
               R.CallSites.size() * 8;
      },
      [&](const IndexedRecord &R) {
        write64(Out, R.AllocSites.size());
        for (const IndexedAllocSite &A : R.AllocSites) {
          write64(Out, A.CSId);
          Stats.SaturatedFields += writeMIB(Out, A.Info, Schema);
        }
        write64(Out, R.CallSites.size());
        for (const IndexedCallSite &C : R.CallSites)
          write64(Out, C.CSId);
      });

  if (!RecordTableOffset)
    return RecordTableOffset.takeError();

  uint64_t FramePayloadOffset = Out.size();
  ChainedTableBuilder FrameTable;
  for (const auto &KV : P.Frames)
    FrameTable.insert(KV.first);
  auto FrameTableOffset = FrameTable.emit(Out, [&](size_t I) {
    const auto &[Id, F] = *(P.Frames.begin() + I);
    write64(Out, 8);
    write64(Out, FrameDiskSize);
    write64(Out, Id);
    writeFrame(Out, F);
  });

  if (!FrameTableOffset)
    return FrameTableOffset.takeError();

  uint64_t CallStackPayloadOffset = Out.size();
  ChainedTableBuilder StackTable;
  for (const auto &KV : P.CallStacks)
    StackTable.insert(KV.first);
  auto CallStackTableOffset = StackTable.emit(Out, [&](size_t I) {
    const auto &[Id, Stack] = *(P.CallStacks.begin() + I);
    // No key length: it is an implicit 8.
    write64(Out, 8 * Stack.size());
    write64(Out, Id);
    for (FrameId F : Stack)
      write64(Out, F);
  });

  if (!CallStackTableOffset)
    return CallStackTableOffset.takeError();

  patch64(Out, HeaderPos, *RecordTableOffset);
  patch64(Out, HeaderPos + 8, FramePayloadOffset);
  patch64(Out, HeaderPos + 16, *FrameTableOffset);
  patch64(Out, HeaderPos + 24, CallStackPayloadOffset);
  patch64(Out, HeaderPos + 32, *CallStackTableOffset);
  return Error::success();
}

void writeMemProfSummary(SmallVectorImpl<char> &Out, const MemProfSummary &S) {
  // LLVM writes the field count as a u32, which shifts what follows by 4.
  write32(Out, 6);
  write64(Out, S.NumContexts);
  write64(Out, S.NumColdContexts);
  write64(Out, S.NumHotContexts);
  write64(Out, S.MaxColdTotalSize);
  write64(Out, S.MaxWarmTotalSize);
  write64(Out, S.MaxHotTotalSize);
}

Error writeMemProfRadix(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                        unsigned Version, const MIBSchema &Schema,
                        IndexedWriteStats &Stats) {
  write64(Out, Version);
  uint64_t HeaderPos = Out.size();
  write64(Out, 0); // CallStackPayloadOffset
  write64(Out, 0); // RecordPayloadOffset
  write64(Out, 0); // RecordTableOffset
  if (Version >= 4) {
    write64(Out, 0); // DataAccessProfOffset: we never write one.
    writeMemProfSummary(Out, computeSummary(P));
  }
  writeSchema(Out, Schema);

  DenseMap<FrameId, FrameStat> Histogram = frameHistogram(P);
  auto FrameIndex = writeFrameArray(Out, P, Histogram);
  if (!FrameIndex)
    return FrameIndex.takeError();

  uint64_t CallStackPayloadOffset = Out.size();
  auto StackIndex = writeRadixArray(Out, P, *FrameIndex, Histogram);
  if (!StackIndex)
    return StackIndex.takeError();

  uint64_t RecordPayloadOffset = Out.size();
  uint64_t MIBSize = schemaBlockSize(Schema);
  auto Linear = [&](CallStackId Id) { return StackIndex->find(Id)->second; };
  auto RecordTableOffset = writeRecordTable(
      Out, P,
      [&](const IndexedRecord &R) {
        uint64_t N = 8 + R.AllocSites.size() * (4 + MIBSize) + 8;
        for (const IndexedCallSite &C : R.CallSites)
          N += 4 + (Version >= 4 ? 8 + 8 * C.CalleeGuids.size() : 0);
        return N;
      },
      [&](const IndexedRecord &R) {
        write64(Out, R.AllocSites.size());
        for (const IndexedAllocSite &A : R.AllocSites) {
          write32(Out, Linear(A.CSId));
          Stats.SaturatedFields += writeMIB(Out, A.Info, Schema);
        }
        write64(Out, R.CallSites.size());
        for (const IndexedCallSite &C : R.CallSites) {
          write32(Out, Linear(C.CSId));
          if (Version >= 4) {
            write64(Out, C.CalleeGuids.size());
            for (GUID G : C.CalleeGuids)
              write64(Out, G);
          }
        }
      });

  if (!RecordTableOffset)
    return RecordTableOffset.takeError();

  patch64(Out, HeaderPos, CallStackPayloadOffset);
  patch64(Out, HeaderPos + 8, RecordPayloadOffset);
  patch64(Out, HeaderPos + 16, *RecordTableOffset);
  return Error::success();
}

} // namespace

AllocClass classifyAllocation(uint64_t TotalLifetimeAccessDensity,
                              uint64_t AllocCount, uint64_t TotalLifetime,
                              const AllocThresholds &T) {
  // LLVM divides floats by AllocCount. With AllocCount 0 a quotient is inf
  // (numerator > 0) or NaN (0/0); spell that out rather than divide by zero.
  auto Quotient = [&](uint64_t Total) {
    if (AllocCount)
      return float(Total) / float(AllocCount);
    return Total ? std::numeric_limits<float>::infinity()
                 : std::numeric_limits<float>::quiet_NaN();
  };
  float Density = Quotient(TotalLifetimeAccessDensity) / float(100);
  float Lifetime = Quotient(TotalLifetime);
  // LLVM multiplies the unsigned option by 1000 in unsigned arithmetic.
  unsigned LifetimeThresholdMs = T.ColdLifetimeSec * 1000u;
  if (Density < T.ColdDensity && Lifetime >= float(LifetimeThresholdMs))
    return AllocClass::Cold;
  if (T.UseHotHints && Density > float(T.HotDensity))
    return AllocClass::Hot;
  return AllocClass::NotCold;
}

MemProfSummary computeSummary(const IndexedMemProf &P) {
  MemProfSummary S;
  DenseSet<CallStackId> Seen;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &A : KV.second.AllocSites) {
      if (!Seen.insert(A.CSId).second)
        continue;
      addToSummary(S, A.Info);
    }
  return S;
}

void addToSummary(MemProfSummary &S, const MemInfoBlock &M) {
  ++S.NumContexts;
  // LLVM holds AllocCount as a u32; use the value the file stores.
  uint64_t AllocCount = std::min<uint64_t>(M.AllocCount, UINT32_MAX);
  uint64_t Size = M.TotalSize;
  switch (classifyAllocation(M.TotalLifetimeAccessDensity, AllocCount,
                             M.TotalLifetime)) {
  case AllocClass::Cold:
    ++S.NumColdContexts;
    S.MaxColdTotalSize = std::max(S.MaxColdTotalSize, Size);
    break;
  case AllocClass::NotCold:
    S.MaxWarmTotalSize = std::max(S.MaxWarmTotalSize, Size);
    break;
  case AllocClass::Hot:
    ++S.NumHotContexts;
    S.MaxHotTotalSize = std::max(S.MaxHotTotalSize, Size);
    break;
  }
}

Expected<IndexedWriteStats>
writeIndexedProfile(const IndexedMemProf &P, const IndexedWriterOptions &Opts,
                    SmallVectorImpl<char> &Out) {
  return writeIndexedProfile(CounterProfile(), &P, Opts, Out);
}

namespace {

/// The variant bits LLVM 22's writer puts in the header for a profile kind.
constexpr uint64_t WrittenVariantBits =
    instrprof::VariantLoopEntries | instrprof::VariantIR |
    instrprof::VariantCSIR | instrprof::VariantEntryFirst |
    instrprof::VariantByteCoverage | instrprof::VariantFunctionEntryOnly |
    instrprof::VariantTemporal;

/// What the on-disk format cannot express, found before a byte is written.
Error checkCounters(const CounterProfile &C) {
  for (const FunctionCounters &R : C.Records) {
    if (R.Name.empty())
      return makeError(ErrorCode::Malformed,
                       "a function record (hash " + hex(R.Hash) +
                           ") has an empty name");
    if (R.Counts.empty())
      return makeError(ErrorCode::Malformed,
                       "function " + R.Name + " (hash " + hex(R.Hash) +
                           ") has no counters");
    for (unsigned K = 0; K < instrprof::NumValueKinds; ++K) {
      if (R.Sites[K].size() > UINT32_MAX)
        return makeError(ErrorCode::TooLarge,
                         "function " + R.Name + " has too many value sites");
      for (const InstrProfValueSite &S : R.Sites[K])
        if (S.size() > instrprof::MaxValuesPerSite)
          return makeError(ErrorCode::Malformed,
                           "function " + R.Name + " has a value site with " +
                               Twine(S.size()) + " values (at most 255)");
    }
    if (valueDataSize(R) > UINT32_MAX)
      return makeError(ErrorCode::TooLarge,
                       "the value data of function " + R.Name +
                           " exceeds 4 GiB");
  }
  return Error::success();
}

void writeSummaryBlock(SmallVectorImpl<char> &Out, const InstrProfSummary &S) {
  write64(Out, indexed::NumSummaryFields);
  write64(Out, indexed::NumCutoffs);
  write64(Out, S.TotalNumFunctions);
  write64(Out, S.TotalNumBlocks);
  write64(Out, S.MaxFunctionCount);
  write64(Out, S.MaxBlockCount);
  write64(Out, S.MaxInternalBlockCount);
  write64(Out, S.TotalBlockCount);
  for (unsigned I = 0; I < indexed::NumCutoffs; ++I) {
    write64(Out, indexed::DefaultCutoffs[I]);
    write64(Out, I < S.Detailed.size() ? S.Detailed[I].MinCount : 0);
    write64(Out, I < S.Detailed.size() ? S.Detailed[I].NumCounts : 0);
  }
}

uint64_t recordDataSize(const FunctionCounters &R) {
  return 24 + 8 * R.Counts.size() + 8 * R.Bitmap.size() + valueDataSize(R);
}

/// The function-record table (spec 3.3): names in byte order, the records
/// of one name in the order \p C lists them.
Expected<uint64_t> writeCounterTable(SmallVectorImpl<char> &Out,
                                     const CounterProfile &C) {
  // Group the records by name, keeping their order under each name.
  std::vector<size_t> Order(C.Records.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t A, size_t B) {
    int Cmp = StringRef(C.Records[A].Name).compare(C.Records[B].Name);
    return Cmp != 0 ? Cmp < 0 : A < B;
  });
  struct Group {
    size_t Begin, End; // into Order
  };
  std::vector<Group> Groups;
  ChainedTableBuilder Table;
  for (size_t I = 0; I < Order.size();) {
    size_t J = I + 1;
    while (J < Order.size() &&
           C.Records[Order[J]].Name == C.Records[Order[I]].Name)
      ++J;
    Groups.push_back({I, J});
    Table.insert(MD5Hash(C.Records[Order[I]].Name));
    I = J;
  }
  return Table.emit(Out, [&](size_t G) {
    const Group &Gr = Groups[G];
    const std::string &Name = C.Records[Order[Gr.Begin]].Name;
    uint64_t DataLen = 0;
    for (size_t I = Gr.Begin; I < Gr.End; ++I)
      DataLen += recordDataSize(C.Records[Order[I]]);
    write64(Out, Name.size());
    write64(Out, DataLen);
    Out.append(Name.begin(), Name.end());
    for (size_t I = Gr.Begin; I < Gr.End; ++I) {
      const FunctionCounters &R = C.Records[Order[I]];
      write64(Out, R.Hash);
      write64(Out, R.Counts.size());
      for (uint64_t V : R.Counts)
        write64(Out, V);
      write64(Out, R.Bitmap.size());
      for (uint8_t B : R.Bitmap)
        write64(Out, B);
      writeValueData(Out, R);
    }
  });
}

void writeBinaryIds(SmallVectorImpl<char> &Out,
                    std::vector<std::string> Ids) {
  llvm::sort(Ids, [](const std::string &A, const std::string &B) {
    return StringRef(A) < StringRef(B);
  });
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  uint64_t Size = 0;
  for (const std::string &Id : Ids)
    Size += 8 + alignTo(Id.size(), 8);
  write64(Out, Size);
  for (const std::string &Id : Ids) {
    write64(Out, Id.size());
    Out.append(Id.begin(), Id.end());
    for (size_t I = Id.size(); I % 8 != 0; ++I)
      write8(Out, 0);
  }
}

Error writeVTableNames(SmallVectorImpl<char> &Out,
                       const std::vector<std::string> &Names) {
  std::string Blob;
  if (!Names.empty()) {
    // LLVM's writer keeps them in a StringSet and writes its order.
    std::string Joined;
    bool First = true;
    for (size_t I : llvmStringSetOrder(Names)) {
      if (!First)
        Joined += '\x01';
      First = false;
      Joined += Names[I];
    }
    raw_string_ostream OS(Blob);
    encodeULEB128(Joined.size(), OS);
    if (compression::zlib::isAvailable()) {
      SmallVector<uint8_t, 0> Zipped;
      compression::zlib::compress(arrayRefFromStringRef(Joined), Zipped,
                                  compression::zlib::BestSizeCompression);
      encodeULEB128(Zipped.size(), OS);
      OS << toStringRef(Zipped);
    } else {
      encodeULEB128(0, OS);
      OS << Joined;
    }
  }
  write64(Out, Blob.size());
  Out.append(Blob.begin(), Blob.end());
  while (Out.size() % 8 != 0)
    write8(Out, 0);
  return Error::success();
}

} // namespace

Expected<IndexedWriteStats>
writeIndexedProfile(const CounterProfile &Counters,
                    const IndexedMemProf *MemProf,
                    const IndexedWriterOptions &Opts,
                    SmallVectorImpl<char> &Out) {
  if (MemProf && (Opts.MemProfVersion < indexed::MemProfVersionMin ||
                  Opts.MemProfVersion > indexed::MemProfVersionMax))
    return makeError(ErrorCode::UnsupportedVersion,
                     "memprof version " + Twine(Opts.MemProfVersion) +
                         " cannot be written (supported: 2, 3, 4)");
  if (MemProf)
    if (Error E = checkReferences(*MemProf))
      return std::move(E);
  if (Error E = checkCounters(Counters))
    return std::move(E);

  IndexedWriteStats Stats;
  MIBSchema Schema = Opts.FullSchema ? fullSchema() : hotColdSchema();
  Out.clear();
  const uint64_t Variant = Counters.Variant & WrittenVariantBits;
  const bool CS = Variant & instrprof::VariantCSIR;
  const bool Temporal = Variant & instrprof::VariantTemporal;

  // Header (72 bytes for version 13); offsets are patched at the end.
  write64(Out, indexed::Magic);
  write64(Out, indexed::VersionWritten | Variant |
                   (MemProf ? indexed::VariantMemProf : 0));
  write64(Out, 0); // Unused
  write64(Out, 0); // HashType: MD5
  const uint64_t HashOffsetPos = Out.size();
  write64(Out, 0);
  const uint64_t MemProfOffsetPos = Out.size();
  write64(Out, 0);
  const uint64_t BinaryIdOffsetPos = Out.size();
  write64(Out, 0);
  const uint64_t TemporalOffsetPos = Out.size();
  write64(Out, 0);
  const uint64_t VTableNamesOffsetPos = Out.size();
  write64(Out, 0);

  // The summaries: every record, CS records (hash bit 60) apart; the CS
  // block only in a CS profile.
  writeSummaryBlock(Out, computeInstrProfSummary(Counters.Records, false));
  if (CS)
    writeSummaryBlock(Out, computeInstrProfSummary(Counters.Records, true));

  auto HashOffset = writeCounterTable(Out, Counters);
  if (!HashOffset)
    return HashOffset.takeError();

  uint64_t MemProfOffset = 0;
  if (MemProf) {
    MemProfOffset = Out.size();
    if (Error E = Opts.MemProfVersion == 2
                      ? writeMemProfV2(Out, *MemProf, Schema, Stats)
                      : writeMemProfRadix(Out, *MemProf, Opts.MemProfVersion,
                                          Schema, Stats))
      return std::move(E);
  }

  uint64_t BinaryIdOffset = Out.size();
  writeBinaryIds(Out, Counters.BinaryIds);
  uint64_t VTableNamesOffset = Out.size();
  if (Error E = writeVTableNames(Out, Counters.VTableNames))
    return std::move(E);
  uint64_t TemporalOffset = 0;
  if (Temporal) {
    TemporalOffset = Out.size();
    write64(Out, Counters.Traces.size());
    write64(Out, Counters.TraceStreamSize);
    for (const TemporalTrace &T : Counters.Traces) {
      write64(Out, T.Weight);
      write64(Out, T.FunctionNameRefs.size());
      for (uint64_t Ref : T.FunctionNameRefs)
        write64(Out, Ref);
    }
  }

  patch64(Out, HashOffsetPos, *HashOffset);
  patch64(Out, MemProfOffsetPos, MemProfOffset);
  patch64(Out, BinaryIdOffsetPos, BinaryIdOffset);
  patch64(Out, TemporalOffsetPos, TemporalOffset);
  patch64(Out, VTableNamesOffsetPos, VTableNamesOffset);
  return Stats;
}

} // namespace memprof
