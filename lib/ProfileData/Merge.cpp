//===- Merge.cpp - Merge raw and indexed MemProf inputs exactly ------------===//
#include "memprof/ProfileData/Merge.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Vdso.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

using namespace llvm;

namespace memprof {

CallStackId ProfileMerger::addContext(ArrayRef<Frame> Frames,
                                      const MemInfoBlock &Info,
                                      uint32_t Known) {
  SmallVector<FrameId, 8> Ids;
  for (const Frame &F : Frames)
    Ids.push_back(hashFrame(F));
  CallStackId Id = StackIds.get(Ids);
  addContext(Id, Frames, Ids, Info, Known);
  return Id;
}

void ProfileMerger::addContext(CallStackId Id, ArrayRef<Frame> Frames,
                               ArrayRef<FrameId> Ids, const MemInfoBlock &Info,
                               uint32_t Known) {
  auto [It, Inserted] = Contexts.try_emplace(Id);
  if (Inserted) {
    It->second.Frames = keep(Frames);
    It->second.Ids = keep(Ids);
    It->second.Info = Info;
    It->second.Known = Known;
  } else {
    mergeInto(It->second, Info, Known);
  }
}

void ProfileMerger::mergeInto(Context &C, const MemInfoBlock &Info,
                              uint32_t Known) {
  C.Info.mergeCrossKnown(Info, C.Known, Known);
  C.Known |= Known;
}

namespace {
const char *const NoBinaryReason = "no binary with this build id";

/// The --profiled-binary files whose build id is no module of \p Modules,
/// as "path (build id)", comma-separated; empty if none.
std::string unmatchedBinaries(const BinaryLocator *L,
                              const std::set<std::string> &Modules) {
  std::string Out;
  if (!L)
    return Out;
  for (const auto &[Path, Id] : L->profiledBinaries())
    if (!Modules.count(Id))
      Out += (Out.empty() ? "" : ", ") + Path + " (" + buildIdToHex(Id) + ")";
  return Out;
}
} // namespace

std::vector<std::string> ProfileMerger::symbolizationWarnings() const {
  std::vector<std::string> W;
  if (Stats.RawInputs && Locator) {
    std::string Missing;
    for (const auto &[Hex, U] : Stats.Unsymbolized)
      if (U.Reason == NoBinaryReason && !Hex.empty())
        Missing += (Missing.empty() ? "" : ", ") + Hex;
    for (const auto &[Path, Id] : Locator->profiledBinaries())
      if (!Stats.InputModules.count(Id))
        W.push_back(Path + ": matches no module of the raw inputs: its build "
                    "id is " + buildIdToHex(Id) +
                    (Missing.empty()
                         ? std::string()
                         : ", and the modules no binary was found for are " +
                               Missing) +
                    " (was it rebuilt after the profiled run? give the binary "
                    "that ran)");
  }
  if (Stats.ContextsCut)
    W.push_back((Twine(Stats.ContextsCut) +
                 " contexts cut at an address outside every executable "
                 "segment: their stack walk left the code there (a frame "
                 "pointer read in code built without them, or JIT code), so "
                 "that address and the frames after it are not kept")
                    .str());
  return W;
}

const char *gapReasonText(GapReason R) {
  switch (R) {
  case GapReason::NoBinary:
    return "no binary with this build id";
  case GapReason::NoBuildId:
    return "the module has no build id, so no binary can match it";
  case GapReason::NoDebugInfo:
    return "no debug info for this address";
  case GapReason::NotInBinary:
    return "no debug info or symbol covers this address";
  case GapReason::OutsideSegments:
    return "outside every executable segment: the stack walk left the code "
           "here, and the frames after it are not kept";
  }
  return "";
}

const char *gapReasonKey(GapReason R) {
  switch (R) {
  case GapReason::NoBinary:
    return "no-binary";
  case GapReason::NoBuildId:
    return "no-build-id";
  case GapReason::NoDebugInfo:
    return "no-debug-info";
  case GapReason::NotInBinary:
    return "not-in-binary";
  case GapReason::OutsideSegments:
    return "outside-segments";
  }
  return "";
}

Frame ProfileMerger::gapFrame(const SegmentInfo *Seg, const PCSymbols *S,
                              uint64_t PC) {
  FrameGap G;
  ModuleSymbolizer *M = nullptr;
  if (!Seg) {
    G.Reason = GapReason::OutsideSegments;
    G.Offset = PC;
  } else {
    G.BuildId = buildIdToHex(Seg->BuildId);
    auto MI = Modules.find(Seg->BuildId);
    M = MI == Modules.end() ? nullptr : MI->second;
    G.Path = M ? M->path().str() : Seg->Path;
    G.Offset = M ? M->toBinaryAddress(*Seg, PC) : PC - Seg->Offset;
    if (!M)
      G.Reason = Seg->BuildId.empty() ? GapReason::NoBuildId
                                      : GapReason::NoBinary;
    else
      G.Reason = S && S->Status == PCSymbols::NoDebugInfo
                     ? GapReason::NoDebugInfo
                     : GapReason::NotInBinary;
    if (S && !S->Frames.empty())
      G.Symbol = S->Frames.front().FunctionName;
  }
  // A GUID of its own per module and address (the same in every input and
  // run of one build), never an MD5 of a function name in practice.
  Frame F;
  F.Function = functionGUID("memprof gap " + G.BuildId + " " +
                       utohexstr(G.Offset) + " " + gapReasonKey(G.Reason));
  Gaps.try_emplace(F.Function, std::move(G));
  return F;
}

const SegmentInfo *ProfileMerger::findSegment(const RawProfile &P,
                                              ArrayRef<size_t> SortedSegs,
                                              uint64_t PC) {
  // The segment with Start < PC <= End (LLVM's bounds: PCs are return
  // addresses minus one).
  auto It = std::upper_bound(SortedSegs.begin(), SortedSegs.end(), PC,
                             [&](uint64_t V, size_t I) {
                               return V <= P.Segments[I].Start;
                             });
  // Segments may nest in hostile files; scan back over starts below PC.
  for (auto I = It; I != SortedSegs.begin();) {
    --I;
    const SegmentInfo &S = P.Segments[*I];
    if (S.Start < PC && PC <= S.End)
      return &S;
    if (It - I > 64)
      break;
  }
  return nullptr;
}

const PCSymbols *ProfileMerger::symbolizePC(bool &Outside,
                                            const SegmentInfo *&Seg,
                                            const RawProfile &P,
                                            ArrayRef<size_t> SortedSegs,
                                            uint64_t PC) {
  Seg = findSegment(P, SortedSegs, PC);
  Outside = !Seg;
  if (!Seg) {
    ++Stats.OutsideSegmentPCs;
    return nullptr;
  }
  ModuleSymbolizer *M = nullptr;
  auto MI = Modules.find(Seg->BuildId);
  if (MI != Modules.end()) {
    M = MI->second;
  } else {
    if (Locator) {
      auto Found = Locator->find(Seg->BuildId);
      if (Found)
        M = *Found;
      else
        consumeError(Found.takeError());
    }
    Modules.emplace(Seg->BuildId, M);
    std::string &Where = Stats.Modules[buildIdToHex(Seg->BuildId)];
    if (M) // found now, perhaps after an input that named no file for it
      Where = M->path().str();
  }
  if (!M) {
    auto &U = Stats.Unsymbolized[buildIdToHex(Seg->BuildId)];
    ++U.PCs;
    U.Vdso = isVdsoSegment(*Seg, P.Segments);
    U.Reason = Seg->BuildId.empty()
                   ? "the module has no build id, so no binary can match it"
               : U.Vdso ? "the vDSO, which the kernel maps without a file"
                        : NoBinaryReason;
    return nullptr;
  }
  uint64_t Addr = M->toBinaryAddress(*Seg, PC);
  auto [CI, Inserted] = Cache.try_emplace({M, Addr});
  if (Inserted) {
    CI->second = M->symbolize(Addr);
    ++Stats.DistinctPCsSymbolized;
    if (CI->second.Status == PCSymbols::Ok)
      for (const SymbolizedFrame &SF : CI->second.Frames)
        observeFrame(SF, Seg->BuildId);
    if (CI->second.Status == PCSymbols::NoDebugInfo ||
        CI->second.Status == PCSymbols::Failed) {
      auto &U = Stats.Unsymbolized[buildIdToHex(Seg->BuildId)];
      ++U.PCs;
      U.Reason = CI->second.Status == PCSymbols::NoDebugInfo
                     ? "no debug info for some addresses"
                     : "addresses not found in the binary";
    }
  }
  return &CI->second;
}

const ProfileMerger::KnownContext *
ProfileMerger::findKnown(uint64_t Hash, ArrayRef<PCKey> Keys) const {
  uint32_t I = KnownIndex.find(Hash, [&](uint32_t I) {
    const KnownContext &K = KnownContexts[I];
    // PCKey is two words without padding: compared as bytes.
    return K.Keys.size() == Keys.size() &&
           std::memcmp(K.Keys.data(), Keys.data(),
                       Keys.size() * sizeof(PCKey)) == 0;
  });
  return I == BoundedHashIndex::None ? nullptr : &KnownContexts[I];
}

void ProfileMerger::addKnown(uint64_t Hash, ArrayRef<PCKey> Keys,
                             CallStackId Id, uint64_t RuntimeFrames) {
  if (findKnown(Hash, Keys))
    return;
  // Not kept when it finds no slot (lookups would not reach it).
  if (!KnownIndex.insert(Hash, uint32_t(KnownContexts.size()),
                         [&](uint32_t I) { return KnownContexts[I].Hash; }))
    return;
  KnownContexts.push_back({keep(Keys), Hash, Id,
                           size_t(Contexts.find(Id) - Contexts.begin()),
                           RuntimeFrames});
}

void ProfileMerger::clearKnown() {
  KnownContexts.clear();
  KnownIndex.clear();
}

Error ProfileMerger::addRaw(const RawProfile &P, uint64_t Weight) {
  ++Stats.RawInputs;
  SmallVector<size_t, 16> Sorted;
  for (size_t I = 0; I < P.Segments.size(); ++I)
    Sorted.push_back(I);
  llvm::sort(Sorted, [&](size_t A, size_t B) {
    return P.Segments[A].Start < P.Segments[B].Start;
  });

  // A context met in an earlier input costs its PCKeys: each PC's segment
  // (the last one found, when segments do not overlap), the segment's
  // module (looked up once per input) and its binary address.
  bool Disjoint = true;
  for (size_t I = 1; I < Sorted.size(); ++I)
    Disjoint &= P.Segments[Sorted[I - 1]].End <= P.Segments[Sorted[I]].Start;
  // Per segment (by index): its bounds, and once its module is found, the
  // module's build id and the segment's bias (PC - toBinaryAddress(PC), the
  // same for every PC).
  struct SegKey {
    uint64_t Start, End, Bias = 0;
    const std::string *BuildId = nullptr;
  };
  std::vector<SegKey> SegKeys;
  SegKeys.reserve(P.Segments.size());
  for (const SegmentInfo &S : P.Segments)
    SegKeys.push_back({S.Start, S.End});
  // The segments of the last PCs met (indexes; out of range: none).
  size_t LastSeg = SegKeys.size(), PrevSeg = SegKeys.size();
  // The keys of \p PCs, into \p Keys, and their hash; false when a PC lies
  // outside the segments or in a module not (yet) found.
  auto KeysOf = [&](ArrayRef<uint64_t> PCs, uint64_t &HashOut,
                    SmallVectorImpl<PCKey> &Keys) {
    Keys.resize_for_overwrite(PCs.size());
    PCKey *Out = Keys.data();
    SegKey *SK = SegKeys.data();
    const size_t NumSegs = SegKeys.size();
    size_t Last = LastSeg, Prev = PrevSeg;
    uint64_t Hash = PCs.size();
    // The last segment's bounds and key, in locals, once its module is
    // known (segments disjoint): most PCs lie in it and take only the
    // first test below. An empty range otherwise: every PC the full way.
    uint64_t CurStart = 1, CurEnd = 0, CurBias = 0;
    const std::string *CurId = nullptr;
    auto SetCurrent = [&] {
      if (Disjoint && Last < NumSegs && SK[Last].BuildId) {
        CurStart = SK[Last].Start;
        CurEnd = SK[Last].End;
        CurBias = SK[Last].Bias;
        CurId = SK[Last].BuildId;
      } else {
        CurStart = 1;
        CurEnd = 0;
      }
    };
    SetCurrent();
    for (uint64_t PC : PCs) {
      if (!(CurStart < PC && PC <= CurEnd)) {
        if (!Disjoint || Last >= NumSegs ||
            !(SK[Last].Start < PC && PC <= SK[Last].End)) {
          // Contexts go back and forth between a few modules: the one
          // before the last is the next best guess.
          if (Disjoint && Prev < NumSegs && SK[Prev].Start < PC &&
              PC <= SK[Prev].End) {
            std::swap(Last, Prev);
          } else {
            const SegmentInfo *Seg = findSegment(P, Sorted, PC);
            if (!Seg)
              return false;
            Prev = Last;
            Last = Seg - P.Segments.data();
          }
        }
        SegKey &S = SK[Last];
        if (!S.BuildId) {
          const SegmentInfo &Seg = P.Segments[Last];
          auto MI = Modules.find(Seg.BuildId);
          if (MI == Modules.end() || !MI->second)
            return false;
          S.BuildId = &MI->first;
          S.Bias = PC - MI->second->toBinaryAddress(Seg, PC);
        }
        SetCurrent();
        if (!Disjoint) { // (SetCurrent left the range empty)
          CurBias = S.Bias;
          CurId = S.BuildId;
        }
      }
      *Out++ = {CurId, PC - CurBias};
      // Cheap per PC (the table compares the keys); mixed at the end.
      Hash = ((Hash << 7) | (Hash >> 57)) ^
             (PC - CurBias + reinterpret_cast<uintptr_t>(CurId));
    }
    LastSeg = Last;
    PrevSeg = Prev;
    Hash *= 0x9E3779B97F4A7C15ull;
    HashOut = Hash ^ (Hash >> 29);
    return true;
  };

  // Per input, each distinct PC is resolved once; frame ids are hashed once
  // per symbolized address, so a context costs one hash of its frame ids.
  struct LocalPC {
    const PCSymbols *S = nullptr;
    const SmallVector<FrameId, 2> *Ids = nullptr;
    bool Outside = false;
    const SegmentInfo *Seg = nullptr;
    std::optional<std::pair<Frame, FrameId>> Gap; // keepGaps: made once
    const std::string *LeafType = nullptr; // when met as a context's leaf
  };
  for (const SegmentInfo &S : P.Segments) {
    Stats.InputModules.insert(S.BuildId);
    // Where the process loaded the module from: a candidate file for it,
    // looked at again if no binary was found for an earlier input.
    if (!S.Path.empty() && !S.BuildId.empty()) {
      Stats.RecordedPaths.try_emplace(buildIdToHex(S.BuildId), S.Path);
      Names.addModulePath(S.BuildId, S.Path);
    }
    if (Locator && !S.Path.empty()) {
      Locator->addModulePath(S.BuildId, S.Path);
      auto MI = Modules.find(S.BuildId);
      if (MI != Modules.end() && !MI->second)
        Modules.erase(MI);
    }
  }
  // The program: its main executable is the first module with a build id
  // (the runtimes list the executable first), as readProfileHeader and the
  // fleet's grouping take it.
  for (const SegmentInfo &S : P.Segments)
    if (!S.BuildId.empty()) {
      Names.addProgram(S.BuildId);
      break;
    }
  U64MapVector<LocalPC> Local;
  const bool KeepRawEntries = Stats.RawInputs == 1 && Contexts.empty() &&
                              Stats.IndexedInputs == 0;
  if (!KeepRawEntries)
    RawEntries.clear(); // no longer a single raw input
  else
    RawEntries.reserve(P.MIBs.size());
  // Raw stack id -> merged context, for the heap sections' contexts.
  std::unordered_map<uint64_t, CallStackId> HeapIds;
  size_t Kept = 0;
  SmallVector<Frame, 32> Frames;
  SmallVector<FrameId, 32> Ids;
  SmallVector<std::pair<uint64_t, unsigned>, 16> Chains;
  MemInfoBlock Scaled; // a block scaled by Weight
  // Where the reader found a MIB's stack (checked: a RawProfile made another
  // way may not say); none if it has none, which the reader rejects.
  auto PCsOf = [&](uint64_t StackId,
                   const RawMIB &MIB) -> std::optional<ArrayRef<uint64_t>> {
    if (MIB.StackIndex < P.Stacks.size() &&
        P.Stacks.Entries[MIB.StackIndex].Id == StackId)
      return P.Stacks.pcs(P.Stacks.Entries[MIB.StackIndex]);
    return P.Stacks.find(StackId);
  };
  // A MIB's keys are computed Ahead MIBs before it is merged, and what a
  // lookup of them will read is asked for meanwhile: the index slot, then
  // the known context's entry, then its keys and merged block. Asked for at
  // once, each waits on memory (the tables outgrow the caches). Keys are
  // only a shortcut (a known context merges as the walk would), so keys
  // that find no module yet, though an earlier MIB's walk finds it, only
  // take the walk.
  constexpr size_t Ahead = 8, Ring = 16;
  struct Pending {
    SmallVector<PCKey, 32> Keys;
    uint64_t Hash = 0;
    bool Have = false;
    uint32_t Known = BoundedHashIndex::None; // a guess, for prefetching
  };
  std::array<Pending, Ring> Pend;
  const size_t NumMIBs = P.MIBs.size();
  auto Compute = [&](size_t J) {
    Pending &A = Pend[J % Ring];
    A.Known = BoundedHashIndex::None;
    const auto &[StackId, MIB] = *(P.MIBs.begin() + J);
    std::optional<ArrayRef<uint64_t>> PCs = PCsOf(StackId, MIB);
    A.Have = PCs && KeysOf(*PCs, A.Hash, A.Keys);
    if (A.Have)
      KnownIndex.prefetch(A.Hash);
  };
  if (!KeepRawEntries)
    for (size_t J = 0; J < Ahead && J < NumMIBs; ++J)
      Compute(J);
  SmallVector<PCKey, 32> Keys; // keys found after the walk
  size_t MIBIndex = 0;
  for (const auto &[StackId, MIB] : P.MIBs) {
    const size_t I = MIBIndex++;
    if (!KeepRawEntries) {
      if (I + Ahead < NumMIBs)
        Compute(I + Ahead);
      if (I + Ahead / 2 < NumMIBs) {
        Pending &A = Pend[(I + Ahead / 2) % Ring];
        if (A.Have) {
          A.Known = KnownIndex.first(A.Hash);
          if (A.Known < KnownContexts.size())
            __builtin_prefetch(&KnownContexts[A.Known]);
        }
      }
      if (I + 2 < NumMIBs) {
        const Pending &A = Pend[(I + 2) % Ring];
        if (A.Known < KnownContexts.size()) {
          const KnownContext &K = KnownContexts[A.Known];
          const char *KeyBytes = reinterpret_cast<const char *>(K.Keys.data());
          for (size_t B = 0; B < K.Keys.size() * sizeof(PCKey) && B < 1024;
               B += 64)
            __builtin_prefetch(KeyBytes + B);
          if (K.Index < Contexts.size()) {
            const char *C = reinterpret_cast<const char *>(
                &(Contexts.begin() + K.Index)->second.Info);
            for (size_t B = 0; B < sizeof(MemInfoBlock); B += 64)
              __builtin_prefetch(C + B);
          }
        }
      }
    }
    std::optional<ArrayRef<uint64_t>> PCs = PCsOf(StackId, MIB);
    if (!PCs)
      continue; // the reader rejects this; keep the merger total anyway
    // A copy only to scale it.
    if (Weight != 1) {
      Scaled = MIB.Info;
      Scaled.scale(Weight);
    }
    const MemInfoBlock &Info = Weight != 1 ? Scaled : MIB.Info;
    const Pending &Cur = Pend[I % Ring]; // (not computed when KeepRawEntries)
    bool HaveKeys = !KeepRawEntries && Cur.Have;
    uint64_t Hash = HaveKeys ? Cur.Hash : 0;
    ArrayRef<PCKey> MIBKeys = HaveKeys ? ArrayRef(Cur.Keys) : ArrayRef<PCKey>();
    if (HaveKeys)
      if (const KnownContext *K = findKnown(Hash, MIBKeys)) {
        // What the walk below would do for it: the same frames, so the same
        // id, site module and type (recorded the first time).
        Stats.RuntimeFramesDropped += K->RuntimeFrames;
        mergeInto((Contexts.begin() + K->Index)->second, Info, AllMIBFields);
        if (!P.HeapDumps.empty())
          HeapIds.emplace(StackId, K->Id);
        ++Kept;
        continue;
      }
    // Whether the result depends on the PCs' keys alone (every PC in a
    // found module, symbolized or a runtime frame), and so can be known.
    bool Clean = true;
    uint64_t RuntimeFrames = 0;
    Frames.clear();
    Ids.clear();
    Chains.clear();
    // The module of the first address that gives a frame: the allocation
    // site's, which names alone cannot tell where programs share functions.
    StringRef SiteModule;
    // The allocated type: the DWARF call site of the first address that
    // gives a frame (the allocation call), else what the standard
    // library's frames from there up say (TypeWalk, until WalkDone).
    const std::string *LeafType = nullptr;
    TypeWalk.clear();
    bool WalkDone = false, AtLeaf = true;
    for (uint64_t PC : *PCs) {
      auto [LI, New] = Local.try_emplace(PC);
      if (New) {
        LI->second.S =
            symbolizePC(LI->second.Outside, LI->second.Seg, P, Sorted, PC);
        if (LI->second.S && LI->second.S->Status == PCSymbols::Ok) {
          auto [FI, NewIds] = FrameIds.try_emplace(LI->second.S);
          if (NewIds)
            for (const SymbolizedFrame &SF : LI->second.S->Frames)
              FI->second.push_back(hashFrame(SF.F));
          LI->second.Ids = &FI->second;
        }
      }
      LocalPC &L = LI->second;
      const PCSymbols *S = L.S;
      if (Frames.empty() && L.Seg)
        SiteModule = L.Seg->BuildId;
      // A frame that cannot be symbolized: dropped, or kept as a gap.
      auto Gap = [&] {
        if (!KeepGaps)
          return;
        if (!L.Gap) {
          Frame F = gapFrame(L.Seg, S, PC);
          L.Gap.emplace(F, hashFrame(F));
        }
        Frames.push_back(L.Gap->first);
        Ids.push_back(L.Gap->second);
        Chains.push_back({PC, 1u});
      };
      if (L.Outside) {
        // No return address lies outside the code: the walk went wrong here
        // (a frame pointer through code built without them), so this and
        // everything after it is not the context.
        ++Stats.ContextsCut;
        Clean = false;
        Gap();
        break;
      }
      if (S && S->Status == PCSymbols::Runtime) {
        ++Stats.RuntimeFramesDropped;
        ++RuntimeFrames;
        continue;
      }
      if (!S || S->Status != PCSymbols::Ok || S->Frames.empty()) {
        // A frame nobody knows (kept as a gap or not, alike): it may be
        // the allocation call, and the walk cannot pass it.
        WalkDone = true;
        AtLeaf = false;
        Clean = false;
        Gap();
        continue;
      }
      if (AtLeaf && L.Seg) {
        if (!L.LeafType)
          L.LeafType = &allocatedType(*L.Seg, PC);
        LeafType = L.LeafType;
      }
      AtLeaf = false;
      for (const SymbolizedFrame &SF : S->Frames) {
        Frames.push_back(SF.F);
        if (!WalkDone) {
          const FrameTypeRole &R = frameRole(SF);
          TypeWalk.push_back(&R);
          WalkDone = R.K == FrameTypeRole::Program;
        }
      }
      Ids.append(LI->second.Ids->begin(), LI->second.Ids->end());
      Chains.push_back({PC, unsigned(S->Frames.size())});
    }
    if (Frames.empty()) {
      ++Stats.DroppedContexts;
      Stats.DroppedAllocations = satAdd(Stats.DroppedAllocations, Info.AllocCount);
      Stats.DroppedBytes = satAdd(Stats.DroppedBytes, Info.TotalSize);
      continue;
    }
    CallStackId Id = StackIds.get(Ids);
    addContext(Id, Frames, Ids, Info, AllMIBFields);
    // Its modules are found now if they were not before.
    if (Clean && !HaveKeys && KeysOf(*PCs, Hash, Keys)) {
      HaveKeys = true;
      MIBKeys = Keys;
    }
    if (Clean && HaveKeys)
      addKnown(Hash, MIBKeys, Id, RuntimeFrames);
    Names.addSiteModule(Id, SiteModule);
    if (LeafType && !LeafType->empty())
      Names.addType(Id, *LeafType);
    else if (!TypeWalk.empty())
      Names.addType(Id, typeFromFrames(TypeWalk));
    if (!P.HeapDumps.empty())
      HeapIds.emplace(StackId, Id);
    if (KeepRawEntries)
      RawEntries.push_back({Id, std::vector<Frame>(Frames.begin(), Frames.end()),
                            std::vector<FrameId>(Ids.begin(), Ids.end()), Info,
                            std::vector<std::pair<uint64_t, unsigned>>(
                                Chains.begin(), Chains.end())});
    ++Kept;
  }
  if (Kept == 0 && !P.MIBs.empty()) {
    // Say why: binaries that were found but lack debug info, and build ids
    // no binary was found for.
    std::string NoDebug, Missing;
    auto Append = [](std::string &L, StringRef Item) {
      if (Item.empty() || StringRef(L).contains(Item))
        return;
      L += (L.empty() ? "" : ", ") + Item.str();
    };
    for (const SegmentInfo &S : P.Segments) {
      auto MI = Modules.find(S.BuildId);
      if (MI == Modules.end())
        continue; // no PC of this input fell into it
      std::string Hex = buildIdToHex(S.BuildId);
      if (!MI->second && !isVdsoSegment(S, P.Segments))
        Append(Missing, Hex);
      else if (Stats.Unsymbolized.count(Hex))
        Append(NoDebug, MI->second->path());
    }
    std::string Msg = "no allocation context could be symbolized";
    if (!NoDebug.empty())
      Msg += "; no debug info for the profiled addresses in " + NoDebug +
             " (compile with -gmlt -fdebug-info-for-profiling, or -g)";
    if (!Missing.empty()) {
      Msg += "; no binary was found for build ids " + Missing;
      std::set<std::string> Mine;
      for (const SegmentInfo &S : P.Segments)
        Mine.insert(S.BuildId);
      std::string Other = unmatchedBinaries(Locator, Mine);
      Msg += Other.empty()
                 ? " (give --profiled-binary or --debug-dir, serve them "
                   "from a debuginfod server named in DEBUGINFOD_URLS, or "
                   "make a memprof-bundle where the program ran)"
                 : " (the --profiled-binary files given have other build ids: " +
                       Other +
                       "; was the program rebuilt after it ran? give the "
                       "binary that ran)";
    }
    return makeError(ErrorCode::Symbolization, Msg);
  }
  // Each dump's heap section is a run. A context dropped by symbolization
  // drops its heap values with its MIB.
  auto Map = [&](uint64_t StackId) -> std::optional<CallStackId> {
    auto It = HeapIds.find(StackId);
    if (It == HeapIds.end())
      return std::nullopt;
    return It->second;
  };
  for (const RawHeapDump &D : P.HeapDumps) {
    for (const auto &[StackId, S] : D.Contexts)
      if (std::optional<CallStackId> Id = Map(StackId)) {
        HeapStats Scaled = S;
        Scaled.scale(Weight);
        Contexts.find(*Id)->second.Heap.add(Scaled);
      }
    HeapSummary Run{1, D.ExitDump ? 1u : 0u, D.PeakBytes, D.PeakBlocks};
    Run.scale(Weight);
    addHeapRun(Run, HeapTimeline{D.PeakTimeMs, D.PeakBytes, D.Samples}, Map);
  }
  return Error::success();
}

const std::string &ProfileMerger::allocatedType(const SegmentInfo &Seg,
                                                uint64_t PC) {
  static const std::string None;
  auto MI = Modules.find(Seg.BuildId);
  if (MI == Modules.end() || !MI->second)
    return None;
  ModuleSymbolizer *M = MI->second;
  const uint64_t Addr = M->toBinaryAddress(Seg, PC);
  auto [It, New] = TypeCache.try_emplace({M, Addr});
  if (New)
    It->second = M->allocatedType(Addr);
  return It->second;
}

const FrameTypeRole &ProfileMerger::frameRole(const SymbolizedFrame &SF) {
  auto [It, New] = FrameRoles.try_emplace(SF.F.Function);
  if (New)
    It->second = classifyFrameFunction(SF.FunctionName);
  return It->second;
}

void ProfileMerger::addHeapRun(
    const HeapSummary &S, const HeapTimeline &T,
    function_ref<std::optional<CallStackId>(uint64_t)> Map) {
  HeapSum.add(S);
  HeapTimeline Mapped{T.PeakTimeMs, T.PeakBytes, {}};
  Mapped.Samples.reserve(T.Samples.size());
  for (const HeapSample &Sample : T.Samples) {
    HeapSample M{Sample.TimeMs, Sample.TotalBytes, {}};
    for (const HeapTopEntry &E : Sample.Top)
      if (std::optional<CallStackId> Id = Map(E.Context))
        M.Top.push_back({*Id, E.Bytes});
    // Raw stacks that became one context add up.
    normalizeTop(M.Top);
    Mapped.Samples.push_back(std::move(M));
  }
  if (!Timeline || preferTimeline(Mapped, *Timeline))
    Timeline = std::move(Mapped);
}

HeapStats ProfileMerger::heapStats(CallStackId Id) const {
  auto It = Contexts.find(Id);
  return It == Contexts.end() ? HeapStats() : It->second.Heap;
}

HeapProfile ProfileMerger::heap() const {
  HeapProfile H;
  if (!hasHeap())
    return H;
  H.Summary = HeapSum;
  for (const auto &[Id, C] : Contexts)
    if (!C.Heap.empty())
      H.Contexts.emplace(Id, C.Heap);
  if (Timeline) {
    H.Timeline = *Timeline;
    for (const HeapSample &S : H.Timeline.Samples)
      for (const HeapTopEntry &E : S.Top)
        H.Contexts.emplace(E.Context, heapStats(E.Context));
  }
  return H;
}

void ProfileMerger::observeFrame(const SymbolizedFrame &SF, StringRef BuildId) {
  // Symbolizers name every frame they return; only a name that hashes to
  // the frame's GUID is kept (fakes in tests may not).
  const GUID G = SF.F.Function;
  if (SF.FunctionName.empty() || functionGUID(SF.FunctionName) != G)
    return;
  FunctionNameInfo N;
  N.LinkageName = SF.FunctionName;
  N.DeclFile = SF.DeclFileName;
  // LLVM's LineOffset is Line - DeclLine (mod 2^32).
  N.DeclLine = SF.Line - SF.F.LineOffset;
  N.BuildId = BuildId;
  const FunctionNameInfo *Old = Names.function(G);
  if (!Old || Old->LinkageName != N.LinkageName || Old->DeclFile != N.DeclFile ||
      Old->DeclLine != N.DeclLine || Old->BuildId != N.BuildId) {
    std::string Demangled = demangleName(N.LinkageName);
    N.DemangledName = Demangled;
    Names.addFunction(G, N);
  }
  if (!SF.FileName.empty())
    Names.addLocation(G, SF.F.LineOffset, {SF.FileName, SF.Line});
}

void ProfileMerger::forEachContext(
    function_ref<void(CallStackId, ArrayRef<Frame>, const MemInfoBlock &,
                      uint32_t)>
        Fn) const {
  for (const auto &[Id, C] : Contexts)
    Fn(Id, C.Frames, C.Info, C.Known);
}

void ProfileMerger::addIndexed(const IndexedMemProf &P,
                               ArrayRef<uint8_t> Schema,
                               const ProfileNames *InputNames,
                               uint64_t Weight, const HeapProfile *Heap) {
  ++Stats.IndexedInputs;
  RawEntries.clear();
  if (InputNames)
    observeNames(P, *InputNames, Names);
  for (const auto &[Guid, Rec] : P.Records) {
    for (const IndexedCallSite &CS : Rec.CallSites) {
      auto Frames = P.stackFrames(CS.CSId);
      if (Frames.empty())
        continue;
      auto [It, New] = ExtraCallSites[Guid].try_emplace(CS.CSId);
      if (New)
        It->second.Frames.assign(Frames.begin(), Frames.end());
      It->second.Callees.append(CS.CalleeGuids.begin(), CS.CalleeGuids.end());
    }
  }
  // Each context once, however many copies of it the records hold. Frame
  // ids are computed again from the frames (not taken from P), but once
  // per frame of P, not once per frame of every context through it; a
  // context's id through StackIds (hashed once per new sequence).
  const bool WithHeap = Heap && Heap->present();
  std::unordered_map<CallStackId, CallStackId> HeapIds;
  U64MapVector<FrameId> IdOf; // P's frame id -> hashFrame of its frame
  IdOf.reserve(P.Frames.size());
  SmallVector<Frame, 32> Frames;
  SmallVector<FrameId, 32> Ids;
  for (IndexedContext &C : indexedContexts(P)) {
    if (Weight != 1)
      C.Info.scale(Weight);
    Frames.clear();
    Ids.clear();
    P.forEachStackFrame(C.Id, [&](FrameId F, const Frame &Fr) {
      auto [It, New] = IdOf.try_emplace(F);
      if (New)
        It->second = hashFrame(Fr);
      Frames.push_back(Fr);
      Ids.push_back(It->second);
      return true;
    });
    CallStackId Id = StackIds.get(Ids);
    addContext(Id, Frames, Ids, C.Info, schemaMask(Schema));
    if (WithHeap)
      HeapIds.emplace(C.Id, Id);
  }
  if (!WithHeap)
    return;
  // Heap values per context, once each, as the table lists them.
  auto Map = [&](uint64_t Id) -> std::optional<CallStackId> {
    auto It = HeapIds.find(Id);
    if (It == HeapIds.end())
      return std::nullopt;
    return It->second;
  };
  for (const auto &[Id, S] : Heap->Contexts)
    if (std::optional<CallStackId> To = Map(Id)) {
      HeapStats Scaled = S;
      Scaled.scale(Weight);
      Contexts.find(*To)->second.Heap.add(Scaled);
    }
  HeapSummary Runs = Heap->Summary;
  Runs.scale(Weight);
  addHeapRun(Runs, Heap->Timeline, Map);
}

std::vector<SaturatedSite> findSaturatedSites(const IndexedMemProf &P,
                                              ArrayRef<uint8_t> Schema) {
  std::map<CallStackId, uint32_t> Masks;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &AS : KV.second.AllocSites)
      if (uint32_t M = saturatedFields(AS.Info, Schema))
        Masks[AS.CSId] |= M;
  std::vector<SaturatedSite> Out;
  for (const auto &[Id, Mask] : Masks)
    Out.push_back({Id, P.stackFrames(Id), Mask});
  return Out;
}

// llvm-profdata's records for one raw profile (spec 2.5), entry by entry:
// stack ids that symbolize alike stay separate alloc sites, and call sites
// are told apart by PC, as LLVM's per-address frame lists are.
IndexedMemProf ProfileMerger::buildLLVMExact() const {
  IndexedMemProf Out;
  U64MapVector<std::vector<uint64_t>> PerFunctionCallSites;
  // (function, PC) pairs already listed as call sites. Keys come from the
  // file, so no DenseMap (whose reserved keys a file could hold).
  struct PairHash {
    size_t operator()(const std::pair<GUID, uint64_t> &P) const {
      return std::hash<uint64_t>()(P.first * 0x9E3779B97F4A7C15ULL ^ P.second);
    }
  };
  std::unordered_set<std::pair<GUID, uint64_t>, PairHash> Seen;
  // PC -> its inline chain's frames and frame ids (ids are reused, never
  // re-hashed).
  std::unordered_map<uint64_t, std::pair<ArrayRef<Frame>, ArrayRef<FrameId>>>
      PCFrames;
  for (const RawEntry &E : RawEntries) {
    ArrayRef<Frame> Fs = E.Frames;
    ArrayRef<FrameId> FIds = E.Ids;
    size_t Pos = 0;
    for (size_t I = 0; I < E.Chains.size(); ++I) {
      auto [PC, N] = E.Chains[I];
      ArrayRef<Frame> Chain = Fs.slice(Pos, N);
      PCFrames.try_emplace(PC, Chain, FIds.slice(Pos, N));
      for (size_t J = 0; J < Chain.size(); ++J) {
        if (I == 0 && J == 0)
          continue;
        GUID G = Chain[J].Function;
        if (Seen.insert({G, PC}).second)
          PerFunctionCallSites[G].push_back(PC);
      }
      Pos += N;
    }
    Out.addKnownCallStack(Fs, FIds, E.Id);
    for (const Frame &F : Fs) {
      Out.Records[F.Function].AllocSites.push_back({E.Id, E.Info});
      if (!F.IsInlineFrame)
        break;
    }
  }
  CallStackIdCache ChainIdCache; // a chain is listed under each of its frames
  for (const auto &[Guid, PCs] : PerFunctionCallSites) {
    IndexedRecord &R = Out.Records[Guid];
    for (uint64_t PC : PCs) {
      const auto &[Chain, ChainIds] = PCFrames[PC];
      CallStackId Id = ChainIdCache.get(ChainIds);
      Out.addKnownCallStack(Chain, ChainIds, Id);
      R.CallSites.push_back({Id, {}});
    }
  }
  return Out;
}

IndexedMemProf ProfileMerger::build(RecordOrder Order) const {
  if (Order == RecordOrder::FirstAppearance && !RawEntries.empty())
    return buildLLVMExact();
  // Each context with its id, hashCallStack of its frame ids (addContext
  // keys every context so).
  std::vector<std::pair<CallStackId, const Context *>> Ctx;
  Ctx.reserve(Contexts.size());
  for (const auto &KV : Contexts)
    Ctx.push_back({KV.first, &KV.second});
  if (Order == RecordOrder::Canonical)
    llvm::sort(Ctx, [](const auto &A, const auto &B) {
      return A.first < B.first;
    });

  IndexedMemProf Out;
  // Canonical: the frame and stack tables are filled in the order of the
  // sorted records below, so until then each stack is only noted.
  const bool Canonical = Order == RecordOrder::Canonical;
  DenseMap<CallStackId, std::pair<ArrayRef<Frame>, ArrayRef<FrameId>>> Noted;
  auto AddStack = [&](ArrayRef<Frame> Fs, ArrayRef<FrameId> Ids,
                      CallStackId Id) {
    if (Canonical)
      Noted.try_emplace(Id, Fs, Ids);
    else
      Out.addKnownCallStack(Fs, Ids, Id);
  };
  // Call sites per function in first-insertion order; a call site is the
  // inline chain of one PC of a context (spec 2.5).
  U64MapVector<SetVector<CallStackId>> PerFunctionCallSites;
  // Chain id -> (frames, frame ids); ids are reused, never re-hashed.
  DenseMap<CallStackId, std::pair<ArrayRef<Frame>, ArrayRef<FrameId>>>
      ChainFrames;
  CallStackIdCache ChainIdCache; // chains recur across many contexts
  // Chains whose call sites are listed already, as a context's leaf chain
  // (whose first frame, the allocation call, is no call site) or as
  // another: listing one again would change nothing. Chain ids are BLAKE3
  // hashes the merger computed, as ChainFrames' keys.
  DenseSet<CallStackId> ListedLeaf, ListedInner;
  for (const auto &[CSId, C] : Ctx) {
    ArrayRef<Frame> Fs = C->Frames;
    ArrayRef<FrameId> FIds = C->Ids;
    size_t ChainStart = 0;
    for (size_t I = 0; I < Fs.size(); ++I) {
      if (Fs[I].IsInlineFrame && I + 1 != Fs.size())
        continue;
      ArrayRef<Frame> Chain = Fs.slice(ChainStart, I + 1 - ChainStart);
      ArrayRef<FrameId> ChainIds = FIds.slice(ChainStart, I + 1 - ChainStart);
      CallStackId ChainId = ChainIdCache.get(ChainIds);
      const bool Leaf = ChainStart == 0;
      if ((Leaf ? ListedLeaf : ListedInner).insert(ChainId).second) {
        // (A chain's first occurrence is new in its role: the frames kept
        // are the first occurrence's, as when every occurrence offered its
        // own.)
        ChainFrames.try_emplace(ChainId, Chain, ChainIds);
        for (size_t J = Leaf ? 1 : 0; J < Chain.size(); ++J)
          PerFunctionCallSites[Chain[J].Function].insert(ChainId);
      }
      ChainStart = I + 1;
    }
    AddStack(Fs, FIds, CSId);
    for (const Frame &F : Fs) {
      Out.Records[F.Function].AllocSites.push_back({CSId, C->Info});
      if (!F.IsInlineFrame)
        break;
    }
  }
  for (const auto &[Guid, Chains] : PerFunctionCallSites) {
    IndexedRecord &R = Out.Records[Guid];
    for (CallStackId Id : Chains) {
      auto &CF = ChainFrames[Id];
      AddStack(CF.first, CF.second, Id);
      R.CallSites.push_back({Id, {}});
    }
  }
  // Call sites that came from indexed inputs: union their callee GUIDs.
  std::deque<SmallVector<FrameId, 8>> ExtraIds; // what Noted points into
  for (const auto &[Guid, Sites] : ExtraCallSites) {
    IndexedRecord &R = Out.Records[Guid];
    for (const auto &[Id, CS] : Sites) {
      auto It = llvm::find_if(R.CallSites, [&, Id = Id](const IndexedCallSite &X) {
        return X.CSId == Id;
      });
      if (It == R.CallSites.end()) {
        SmallVector<FrameId, 8> &Ids = ExtraIds.emplace_back();
        for (const Frame &F : CS.Frames)
          Ids.push_back(hashFrame(F));
        AddStack(CS.Frames, Ids, hashCallStack(Ids));
        R.CallSites.push_back({Id, {}});
        It = std::prev(R.CallSites.end());
      }
      It->CalleeGuids.append(CS.Callees.begin(), CS.Callees.end());
    }
  }
  for (auto &KV : Out.Records)
    for (IndexedCallSite &CS : KV.second.CallSites) {
      llvm::sort(CS.CalleeGuids);
      CS.CalleeGuids.erase(llvm::unique(CS.CalleeGuids), CS.CalleeGuids.end());
    }

  if (Order == RecordOrder::Canonical) {
    // Records by GUID, sites by call-stack id, and the frame and stack tables
    // in the order a walk of that sorted content first meets them.
    auto Recs = Out.Records.takeVector(); // moved, not copied
    llvm::sort(Recs, [](const auto &A, const auto &B) {
      return A.first < B.first;
    });
    IndexedMemProf Sorted;
    for (auto &[Guid, R] : Recs) {
      // Sorted already (contexts were walked by id), unless a record met
      // the same context twice: checked, not sorted again (a site holds a
      // whole MemInfoBlock to move).
      auto ById = [](const auto &A, const auto &B) { return A.CSId < B.CSId; };
      if (!llvm::is_sorted(R.AllocSites, ById))
        llvm::stable_sort(R.AllocSites, ById);
      llvm::stable_sort(R.CallSites, [](const auto &A, const auto &B) {
        return A.CSId < B.CSId;
      });
      auto Copy = [&](CallStackId Id) {
        auto It = Noted.find(Id);
        if (It != Noted.end())
          Sorted.addKnownCallStack(It->second.first, It->second.second, Id);
      };
      for (const auto &AS : R.AllocSites)
        Copy(AS.CSId);
      for (const auto &CS : R.CallSites)
        Copy(CS.CSId);
      Sorted.Records.insert({Guid, std::move(R)});
    }
    return Sorted;
  }
  return Out;
}

} // namespace memprof
