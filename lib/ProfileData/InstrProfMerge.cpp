//===- InstrProfMerge.cpp - Merge counter profiles as llvm-profdata 22 does ===//
//
// CounterMerger follows LLVM 22.1.8's InstrProfWriter::addRecord,
// InstrProfRecord::merge/scale, InstrProfValueSiteRecord::merge/sortByCount
// and addTemporalProfileTraces step by step (spec llvm-instrprof-formats.md
// sections 2 and 3.3), so that one input after another gives what a
// single-threaded `llvm-profdata-22 merge` gives. Where LLVM mixes profile
// kinds silently (spec section 7), the merger refuses instead.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <random>

using namespace llvm;

namespace memprof {

StringRef counterIssueText(CounterIssue I) {
  switch (I) {
  case CounterIssue::CountMismatch:
    return "function basic block count change detected (counter mismatch)";
  case CounterIssue::CounterOverflow:
    return "counter overflow";
  case CounterIssue::BitmapMismatch:
    return "function bitmap size change detected (bitmap size mismatch)";
  case CounterIssue::ValueSiteCountMismatch:
    return "function value site count change detected (counter mismatch)";
  }
  return "unknown counter issue";
}

namespace {

using instrprof::MaxValuesPerSite;
using instrprof::NumValueKinds;

/// X * W, saturating at UINT64_MAX (LLVM's SaturatingMultiply).
uint64_t satMul(uint64_t X, uint64_t W, bool &Overflowed) {
  uint64_t R;
  if (__builtin_mul_overflow(X, W, &R)) {
    Overflowed = true;
    return UINT64_MAX;
  }
  return R;
}

/// X * W + A, saturating at UINT64_MAX (LLVM's SaturatingMultiplyAdd).
uint64_t satMulAdd(uint64_t X, uint64_t W, uint64_t A, bool &Overflowed) {
  bool Mul = false;
  uint64_t P = satMul(X, W, Mul);
  uint64_t R;
  if (Mul || __builtin_add_overflow(P, A, &R)) {
    Overflowed = true;
    return UINT64_MAX;
  }
  return R;
}

/// Clamps a counter to getInstrMaxCountValue() (2^64-3).
uint64_t clampCount(uint64_t C, bool &Overflowed) {
  if (C > instrprof::MaxCount) {
    Overflowed = true;
    return instrprof::MaxCount;
  }
  return C;
}

enum class Pseudo { No, Hot, Warm };

Pseudo pseudoKind(const std::vector<uint64_t> &Counts) {
  if (Counts.empty())
    return Pseudo::No;
  if (Counts[0] == instrprof::PseudoHot)
    return Pseudo::Hot;
  if (Counts[0] == instrprof::PseudoWarm)
    return Pseudo::Warm;
  return Pseudo::No;
}

/// LLVM's sortByTargetValues: llvm::sort, i.e. std::sort (not stable) on the
/// value alone. Sites may hold one value twice (several targets unknown to the
/// raw reader become 0), so the very same algorithm is needed for the same
/// order of equal values; both sides use libstdc++.
void sortByValue(InstrProfValueSite &S) {
  std::sort(S.begin(), S.end(),
            [](const InstrProfValue &L, const InstrProfValue &R) {
              return L.Value < R.Value;
            });
}

/// LLVM's sortByCount: stable by count, descending; at most 255 values.
/// A stable order is unique, so any stable sort gives LLVM's; this one is a
/// bottom-up merge sort through \p Tmp (libstdc++'s std::stable_sort uses
/// the deprecated get_temporary_buffer).
void sortByCount(InstrProfValueSite &S, InstrProfValueSite &Tmp) {
  auto Cmp = [](const InstrProfValue &L, const InstrProfValue &R) {
    return L.Count > R.Count;
  };
  const size_t N = S.size();
  if (!std::is_sorted(S.begin(), S.end(), Cmp)) {
    constexpr size_t Run = 16;
    for (size_t Lo = 0; Lo < N; Lo += Run) {
      auto B = S.begin() + Lo, E = S.begin() + std::min(Lo + Run, N);
      for (auto I = B; I != E; ++I)
        std::rotate(std::upper_bound(B, I, *I, Cmp), I, I + 1);
    }
    Tmp.resize(N);
    for (size_t W = Run; W < N; W *= 2) {
      for (size_t Lo = 0; Lo < N; Lo += 2 * W) {
        size_t Mid = std::min(Lo + W, N), Hi = std::min(Lo + 2 * W, N);
        std::merge(S.begin() + Lo, S.begin() + Mid, S.begin() + Mid,
                   S.begin() + Hi, Tmp.begin() + Lo, Cmp);
      }
      S.swap(Tmp);
    }
  }
  if (S.size() > MaxValuesPerSite)
    S.resize(MaxValuesPerSite);
}

void sortValueData(FunctionCounters &R, InstrProfValueSite &Tmp) {
  for (auto &Sites : R.Sites)
    for (InstrProfValueSite &S : Sites)
      sortByCount(S, Tmp);
}

/// InstrProfValueSiteRecord::merge: both lists sorted by value, then one
/// pass that pairs equal values in order (a value present twice on one side
/// pairs with one on the other at most once per occurrence).
void mergeSite(InstrProfValueSite &Dst, InstrProfValueSite &Src,
               uint64_t Weight, InstrProfValueSite &Scratch,
               bool &Overflowed) {
  sortByValue(Dst);
  sortByValue(Src);
  Scratch.clear();
  Scratch.reserve(std::max(Dst.size(), Src.size()));
  auto I = Dst.begin(), IE = Dst.end();
  for (const InstrProfValue &J : Src) {
    while (I != IE && I->Value < J.Value)
      Scratch.push_back(*I++);
    if (I != IE && I->Value == J.Value) {
      I->Count = satMulAdd(J.Count, Weight, I->Count, Overflowed);
      Scratch.push_back(*I++);
      continue;
    }
    Scratch.push_back(J);
  }
  Scratch.insert(Scratch.end(), I, IE);
  Dst.swap(Scratch);
}

/// SmallDenseMap<uint64_t, ...>'s hash: DenseMapInfo<uint64_t>::getHashValue
/// (LLVM 22 mixes 64-bit keys before truncating them to 32 bits).
unsigned denseMapHash(uint64_t X) {
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 31;
  return static_cast<unsigned>(X);
}

/// The writer's llvm::shuffle (its own loop over g() % size, not
/// std::shuffle).
template <class It> void llvmShuffle(It First, It Last, std::mt19937 &G) {
  using Diff = typename std::iterator_traits<It>::difference_type;
  for (Diff Size = Last - First; Size > 1; ++First, --Size) {
    Diff Offset = G() % Size;
    if (Offset != 0)
      std::iter_swap(First, First + Offset);
  }
}

const char *const FrontEndText =
    "a front-end (-fprofile-instr-generate) profile";
const char *const IRText = "an IR (-fprofile-generate) profile";

} // namespace

std::vector<size_t> llvmStringSetOrder(ArrayRef<std::string> Names) {
  // StringMapImpl: 16 buckets on the first insertion, a 32-bit hash (the
  // low half of xxh3_64bits), quadratic probing, and after each insertion a
  // doubling once more than 3/4 of the buckets are used, which re-places
  // the entries in bucket order. No erasures, so no tombstones.
  constexpr size_t Empty = ~size_t(0);
  std::vector<size_t> Buckets(16, Empty);
  std::vector<uint32_t> Hash(16, 0);
  size_t NumItems = 0;
  for (size_t Idx = 0; Idx < Names.size(); ++Idx) {
    const uint32_t H = static_cast<uint32_t>(xxh3_64bits(Names[Idx]));
    size_t Mask = Buckets.size() - 1, No = H & Mask, Probe = 1;
    bool Found = false;
    while (Buckets[No] != Empty) {
      if (Hash[No] == H && Names[Buckets[No]] == Names[Idx]) {
        Found = true;
        break;
      }
      No = (No + Probe++) & Mask;
    }
    if (Found)
      continue;
    Buckets[No] = Idx;
    Hash[No] = H;
    if (++NumItems * 4 > Buckets.size() * 3) {
      std::vector<size_t> NewBuckets(Buckets.size() * 2, Empty);
      std::vector<uint32_t> NewHash(NewBuckets.size(), 0);
      size_t NewMask = NewBuckets.size() - 1;
      for (size_t B = 0; B < Buckets.size(); ++B) {
        if (Buckets[B] == Empty)
          continue;
        size_t N = Hash[B] & NewMask, P = 1;
        while (NewBuckets[N] != Empty)
          N = (N + P++) & NewMask;
        NewBuckets[N] = Buckets[B];
        NewHash[N] = Hash[B];
      }
      Buckets = std::move(NewBuckets);
      Hash = std::move(NewHash);
    }
  }
  std::vector<size_t> Order;
  for (size_t B : Buckets)
    if (B != Empty)
      Order.push_back(B);
  return Order;
}

std::vector<size_t> llvmRecordOrder(ArrayRef<uint64_t> Hashes) {
  // Buckets hold an index into Hashes, or Empty. Occupancy is kept apart
  // from the key so that every hash works here, even DenseMapInfo's empty
  // and tombstone keys (2^64-1, 2^64-2): llvm-profdata 22 loses records
  // with those hashes (a count_mismatch warning), we keep them.
  constexpr size_t Empty = ~size_t(0);
  constexpr unsigned InlineBuckets = 4;
  std::vector<size_t> Buckets(InlineBuckets, Empty);
  size_t NumEntries = 0;

  auto Place = [&](std::vector<size_t> &B, size_t Idx) {
    unsigned Mask = static_cast<unsigned>(B.size()) - 1;
    unsigned No = denseMapHash(Hashes[Idx]) & Mask;
    unsigned Probe = 1;
    while (B[No] != Empty)
      No = (No + Probe++) & Mask;
    B[No] = Idx;
  };
  auto Find = [&](uint64_t H) {
    unsigned Mask = static_cast<unsigned>(Buckets.size()) - 1;
    unsigned No = denseMapHash(H) & Mask;
    unsigned Probe = 1;
    while (Buckets[No] != Empty) {
      if (Hashes[Buckets[No]] == H)
        return true;
      No = (No + Probe++) & Mask;
    }
    return false;
  };

  for (size_t Idx = 0; Idx < Hashes.size(); ++Idx) {
    if (Find(Hashes[Idx]))
      continue; // a repeated key is the same map entry
    // DenseMapBase::findBucketForInsertion: grow to twice the buckets when
    // the new entry would reach 3/4 load; SmallDenseMap::grow rounds a large
    // table up to at least 64 buckets. The tombstone rule never fires
    // without erasures.
    size_t NewNumEntries = NumEntries + 1;
    if (NewNumEntries * 4 >= Buckets.size() * 3) {
      size_t Min = Buckets.size() * 2;
      size_t NumBuckets =
          Min <= InlineBuckets ? Min
                               : std::max<size_t>(64, PowerOf2Ceil(Min));
      std::vector<size_t> Grown(NumBuckets, Empty);
      for (size_t Old : Buckets)
        if (Old != Empty)
          Place(Grown, Old);
      Buckets.swap(Grown);
    }
    Place(Buckets, Idx);
    NumEntries = NewNumEntries;
  }

  std::vector<size_t> Order;
  Order.reserve(NumEntries);
  for (size_t B : Buckets)
    if (B != Empty)
      Order.push_back(B);
  return Order;
}

Error CounterMerger::checkKind(uint64_t Other) const {
  using namespace instrprof;
  if (!Present)
    return Error::success();
  if ((Variant & VariantIR) != (Other & VariantIR))
    return makeError(ErrorCode::Incompatible,
                     Twine("cannot merge ") + FrontEndText + " with " + IRText);
  // LLVM's own rule (mergeProfileKind) refuses function-entry-only with
  // entry-first or loop entries, under a misleading message; it merges the
  // other mixes below silently, although their counters sit on different
  // edges or mean different things. Each is refused, naming the two kinds.
  struct KindBit {
    uint64_t Bit;
    const char *With;    // the profile that has the bit
    const char *Without; // the profile that has not
  };
  static const KindBit Kinds[] = {
      {VariantFunctionEntryOnly,
       "a function-entry coverage (-pgo-function-entry-coverage) profile",
       "a profile of another kind"},
      {VariantByteCoverage, "a block-coverage (-pgo-block-coverage) profile",
       "a profile of counters"},
      {VariantEntryFirst,
       "an entry-first (-pgo-instrument-entry) profile",
       "a profile without entry-first instrumentation"},
      {VariantLoopEntries,
       "a loop-entries (-pgo-instrument-loop-entries) profile",
       "a profile without loop-entry instrumentation"},
  };
  for (const KindBit &K : Kinds)
    if ((Variant & K.Bit) != (Other & K.Bit))
      return makeError(ErrorCode::Incompatible,
                       Twine("cannot merge ") + K.With + " with " + K.Without +
                           ": their counters are placed differently");
  return Error::success();
}

void CounterMerger::warn(NameEntry &E, StringRef Name, CounterIssue I,
                         std::vector<CounterWarning> &Warnings) {
  if (E.WarnedInAdd != AddSerial) {
    E.WarnedInAdd = AddSerial;
    E.WarnedIssues = 0;
  }
  unsigned Bit = 1u << static_cast<unsigned>(I);
  if (E.WarnedIssues & Bit)
    return;
  E.WarnedIssues |= Bit;
  Warnings.push_back({I, Name.str()});
}

FunctionCounters *CounterMerger::findRecord(NameEntry &E, uint64_t Hash) {
  if (!E.HashIndex.empty()) {
    auto It = E.HashIndex.find(Hash);
    return It == E.HashIndex.end() ? nullptr : &E.Records[It->second];
  }
  for (FunctionCounters &R : E.Records)
    if (R.Hash == Hash)
      return &R;
  return nullptr;
}

void CounterMerger::addRecord(const FunctionCounters &In, uint64_t Weight,
                              std::vector<CounterWarning> &Warnings) {
  auto [It, NewName] = Names.try_emplace(In.Name);
  (void)NewName;
  NameEntry &E = It->second;
  StringRef Name = It->first();

  FunctionCounters *Dst = findRecord(E, In.Hash);
  if (!Dst) {
    // InstrProfWriter::addRecord, new (name, hash): the record as read,
    // scaled by InstrProfRecord::scale(Weight, 1) when Weight > 1. scale
    // knows nothing of pseudo counts: a pseudo-hot first counter becomes
    // 2^64-3 with a counter_overflow warning, as llvm-profdata does.
    E.Records.push_back(In);
    ++NumRecords;
    FunctionCounters &R = E.Records.back();
    if (E.Records.size() > IndexThreshold) {
      if (E.HashIndex.empty())
        for (size_t I = 0; I + 1 < E.Records.size(); ++I)
          E.HashIndex.emplace(E.Records[I].Hash, I);
      E.HashIndex.emplace(R.Hash, E.Records.size() - 1);
    }
    if (Weight > 1) {
      bool Overflowed = false;
      for (uint64_t &C : R.Counts) {
        bool O = false;
        C = satMul(C, Weight, O);
        C = clampCount(C, O);
        Overflowed |= O;
      }
      for (auto &Sites : R.Sites)
        for (InstrProfValueSite &S : Sites)
          for (InstrProfValue &V : S)
            V.Count = satMul(V.Count, Weight, Overflowed);
      if (Overflowed)
        warn(E, Name, CounterIssue::CounterOverflow, Warnings);
    }
    sortValueData(R, MergeScratch);
    return;
  }

  // InstrProfRecord::merge, in its order.
  if (Dst->Counts.size() != In.Counts.size()) {
    warn(E, Name, CounterIssue::CountMismatch, Warnings);
    return; // sortValueData would not change a list it sorted before
  }
  Pseudo ThisKind = pseudoKind(Dst->Counts), OtherKind = pseudoKind(In.Counts);
  if (ThisKind != Pseudo::No || OtherKind != Pseudo::No) {
    if (ThisKind == Pseudo::No || OtherKind == Pseudo::No) {
      warn(E, Name, CounterIssue::CountMismatch, Warnings);
      return;
    }
    Dst->Counts[0] = (ThisKind == Pseudo::Hot || OtherKind == Pseudo::Hot)
                         ? instrprof::PseudoHot
                         : instrprof::PseudoWarm;
    return;
  }

  bool Overflowed = false;
  for (size_t I = 0, N = In.Counts.size(); I < N; ++I) {
    bool O = false;
    uint64_t V = satMulAdd(In.Counts[I], Weight, Dst->Counts[I], O);
    Dst->Counts[I] = clampCount(V, O);
    Overflowed |= O;
  }
  if (Overflowed)
    warn(E, Name, CounterIssue::CounterOverflow, Warnings);

  if (Dst->Bitmap.size() != In.Bitmap.size()) {
    warn(E, Name, CounterIssue::BitmapMismatch, Warnings);
    return; // value data is left as it was (and stays sorted)
  }
  for (size_t I = 0, N = In.Bitmap.size(); I < N; ++I)
    Dst->Bitmap[I] |= In.Bitmap[I];

  bool ValueOverflow = false;
  for (unsigned K = 0; K < NumValueKinds; ++K) {
    std::vector<InstrProfValueSite> &DstSites = Dst->Sites[K];
    const std::vector<InstrProfValueSite> &SrcSites = In.Sites[K];
    if (DstSites.size() != SrcSites.size()) {
      warn(E, Name, CounterIssue::ValueSiteCountMismatch, Warnings);
      continue;
    }
    for (size_t S = 0, N = DstSites.size(); S < N; ++S) {
      // LLVM sorts the input's list in place; ours is const.
      SrcScratch.assign(SrcSites[S].begin(), SrcSites[S].end());
      mergeSite(DstSites[S], SrcScratch, Weight, MergeScratch, ValueOverflow);
    }
  }
  if (ValueOverflow)
    warn(E, Name, CounterIssue::CounterOverflow, Warnings);
  sortValueData(*Dst, MergeScratch);
}

void CounterMerger::addTraces(const CounterProfile &P, uint64_t Weight) {
  // llvm-profdata calls addTemporalProfileTraces only for a non-empty list.
  if (P.Traces.empty())
    return;
  // A raw profile's trace has weight 1 in our model and takes the input's
  // weight in LLVM's raw reader; the weight multiplies stored weights too
  // (LLVM ignores the input weight for indexed and text inputs).
  std::vector<TemporalTrace> Src;
  Src.reserve(P.Traces.size());
  for (const TemporalTrace &T : P.Traces) {
    if (T.FunctionNameRefs.empty())
      continue;
    TemporalTrace &C = Src.emplace_back();
    bool Ignored = false;
    C.Weight = satMul(T.Weight, Weight, Ignored);
    size_t Len = std::min<size_t>(T.FunctionNameRefs.size(),
                                  instrprof::MaxTraceLength);
    C.FunctionNameRefs.assign(T.FunctionNameRefs.begin(),
                              T.FunctionNameRefs.begin() + Len);
  }
  // No trace left: the stream size is not counted either.
  if (Src.empty())
    return;
  auto SrcIt = Src.begin();
  while (Traces.size() < instrprof::TraceReservoirSize && SrcIt != Src.end())
    Traces.push_back(std::move(*SrcIt++));
  // The reservoir is full: sample the rest of the source. As in LLVM 22,
  // the index starts at the reservoir size, not at the stream size seen so
  // far, and a source trace is consumed only when it replaces one.
  llvmShuffle(SrcIt, Src.end(), RNG);
  for (uint64_t I = Traces.size(); I < P.TraceStreamSize && SrcIt != Src.end();
       ++I) {
    std::uniform_int_distribution<uint64_t> Distribution(0, I);
    uint64_t RandomIndex = Distribution(RNG);
    if (RandomIndex < Traces.size())
      Traces[RandomIndex] = std::move(*SrcIt++);
  }
  TraceStreamSize += P.TraceStreamSize;
}

Error CounterMerger::add(const CounterProfile &P, uint64_t Weight,
                         std::vector<CounterWarning> &Warnings) {
  if (!P.Present)
    return Error::success();
  uint64_t Kind = P.Variant & ~instrprof::VariantMemProf;
  if (Error E = checkKind(Kind))
    return E;
  Variant = Present ? (Variant | Kind) : Kind;
  Present = true;
  if (Weight == 0)
    Weight = 1;
  ++AddSerial;

  for (const FunctionCounters &R : P.Records)
    addRecord(R, Weight, Warnings);

  for (const std::string &Id : P.BinaryIds) {
    auto It = std::lower_bound(BinaryIds.begin(), BinaryIds.end(), Id);
    if (It == BinaryIds.end() || *It != Id)
      BinaryIds.insert(It, Id);
  }
  for (const std::string &N : P.VTableNames)
    if (VTableNameSet.insert(N).second)
      VTableNames.push_back(N);
  addTraces(P, Weight);
  return Error::success();
}

size_t CounterMerger::numRecords() const { return NumRecords; }

CounterProfile CounterMerger::build() const {
  CounterProfile Out;
  Out.Present = Present;
  Out.Variant = Variant;

  std::vector<const StringMapEntry<NameEntry> *> Sorted;
  Sorted.reserve(Names.size());
  for (const auto &E : Names)
    Sorted.push_back(&E);
  llvm::sort(Sorted, [](const StringMapEntry<NameEntry> *A,
                        const StringMapEntry<NameEntry> *B) {
    return A->first() < B->first();
  });

  Out.Records.reserve(NumRecords);
  std::vector<uint64_t> Hashes;
  for (const StringMapEntry<NameEntry> *E : Sorted) {
    const std::vector<FunctionCounters> &Rs = E->second.Records;
    if (Rs.size() == 1) {
      Out.Records.push_back(Rs.front());
      continue;
    }
    Hashes.clear();
    for (const FunctionCounters &R : Rs)
      Hashes.push_back(R.Hash);
    for (size_t I : llvmRecordOrder(Hashes))
      Out.Records.push_back(Rs[I]);
  }

  Out.BinaryIds = BinaryIds; // kept sorted and unique
  Out.Traces = Traces;
  Out.TraceStreamSize = TraceStreamSize;
  Out.VTableNames = VTableNames;
  return Out;
}

} // namespace memprof
