//===- Merge.cpp - Merge raw and indexed MemProf inputs exactly ------------===//
#include "memprof/ProfileData/Merge.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include <algorithm>

using namespace llvm;

namespace memprof {

void ProfileMerger::addContext(ArrayRef<Frame> Frames,
                               const MemInfoBlock &Info, uint32_t Known) {
  SmallVector<FrameId, 8> Ids;
  for (const Frame &F : Frames)
    Ids.push_back(hashFrame(F));
  CallStackId Id = hashCallStack(Ids);
  auto [It, Inserted] = Contexts.try_emplace(Id);
  if (Inserted) {
    It->second.Frames.assign(Frames.begin(), Frames.end());
    It->second.Info = Info;
    It->second.Known = Known;
  } else {
    It->second.Info.mergeCrossKnown(Info, It->second.Known, Known);
    It->second.Known |= Known;
  }
}

const PCSymbols *ProfileMerger::symbolizePC(const RawProfile &P,
                                            ArrayRef<size_t> SortedSegs,
                                            uint64_t PC) {
  // The segment with Start < PC <= End (LLVM's bounds: PCs are return
  // addresses minus one).
  auto It = std::upper_bound(SortedSegs.begin(), SortedSegs.end(), PC,
                             [&](uint64_t V, size_t I) {
                               return V <= P.Segments[I].Start;
                             });
  const SegmentInfo *Seg = nullptr;
  // Segments may nest in hostile files; scan back over starts below PC.
  for (auto I = It; I != SortedSegs.begin();) {
    --I;
    const SegmentInfo &S = P.Segments[*I];
    if (S.Start < PC && PC <= S.End) {
      Seg = &S;
      break;
    }
    if (It - I > 64)
      break;
  }
  if (!Seg) {
    ++Stats.Unsymbolized[""].PCs;
    Stats.Unsymbolized[""].Reason = "outside every executable segment";
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
  }
  if (!M) {
    auto &U = Stats.Unsymbolized[buildIdToHex(Seg->BuildId)];
    ++U.PCs;
    U.Reason = "no binary with this build id";
    return nullptr;
  }
  uint64_t Addr = M->toBinaryAddress(*Seg, PC);
  auto [CI, Inserted] = Cache.try_emplace({M, Addr});
  if (Inserted) {
    CI->second = M->symbolize(Addr);
    ++Stats.DistinctPCsSymbolized;
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

Error ProfileMerger::addRaw(const RawProfile &P) {
  ++Stats.RawInputs;
  SmallVector<size_t, 16> Sorted;
  for (size_t I = 0; I < P.Segments.size(); ++I)
    Sorted.push_back(I);
  llvm::sort(Sorted, [&](size_t A, size_t B) {
    return P.Segments[A].Start < P.Segments[B].Start;
  });

  // Per input, each distinct PC is resolved once.
  std::unordered_map<uint64_t, const PCSymbols *> Local;
  size_t Kept = 0;
  SmallVector<Frame, 32> Frames;
  for (const auto &[StackId, MIB] : P.MIBs) {
    auto SI = P.Stacks.find(StackId);
    if (SI == P.Stacks.end())
      continue; // the reader rejects this; keep the merger total anyway
    Frames.clear();
    for (uint64_t PC : SI->second) {
      auto [LI, New] = Local.try_emplace(PC, nullptr);
      if (New)
        LI->second = symbolizePC(P, Sorted, PC);
      const PCSymbols *S = LI->second;
      if (!S)
        continue;
      if (S->Status == PCSymbols::Runtime) {
        ++Stats.RuntimeFramesDropped;
        continue;
      }
      if (S->Status != PCSymbols::Ok)
        continue;
      for (const SymbolizedFrame &SF : S->Frames)
        Frames.push_back(SF.F);
    }
    if (Frames.empty()) {
      ++Stats.DroppedContexts;
      Stats.DroppedAllocations += MIB.Info.AllocCount;
      Stats.DroppedBytes += MIB.Info.TotalSize;
      continue;
    }
    addContext(Frames, MIB.Info, AllMIBFields);
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
      if (!MI->second)
        Append(Missing, Hex);
      else if (Stats.Unsymbolized.count(Hex))
        Append(NoDebug, MI->second->path());
    }
    std::string Msg = "no allocation context could be symbolized";
    if (!NoDebug.empty())
      Msg += "; no debug info for the profiled addresses in " + NoDebug +
             " (compile with -gmlt -fdebug-info-for-profiling, or -g)";
    if (!Missing.empty())
      Msg += "; no binary was found for build ids " + Missing +
             " (give --profiled-binary or --debug-dir)";
    return makeError(ErrorCode::Symbolization, Msg);
  }
  return Error::success();
}

void ProfileMerger::addIndexed(const IndexedMemProf &P,
                               ArrayRef<uint8_t> Schema) {
  ++Stats.IndexedInputs;
  // An alloc site is attached to its leaf function's record and, when that
  // code was inlined, to each enclosing function's record too. Count each
  // context once: from the leaf function's record (summing the duplicate
  // entries an llvm-profdata merge may have appended), or else from the first
  // record holding it.
  struct Found {
    bool FromLeaf = false;
    GUID Record = 0;
    MemInfoBlock Info;
  };
  U64MapVector<Found> Blocks;
  for (const auto &[Guid, Rec] : P.Records) {
    for (const IndexedAllocSite &AS : Rec.AllocSites) {
      auto Frames = P.stackFrames(AS.CSId);
      if (Frames.empty())
        continue;
      bool IsLeaf = Frames.front().Function == Guid;
      auto [It, New] = Blocks.try_emplace(AS.CSId);
      Found &F = It->second;
      if (New) {
        F = {IsLeaf, Guid, AS.Info};
      } else if (IsLeaf && !F.FromLeaf) {
        F = {true, Guid, AS.Info};
      } else if (F.Record == Guid) {
        F.Info.mergeCross(AS.Info);
      }
    }
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
  for (const auto &[CSId, F] : Blocks)
    addContext(P.stackFrames(CSId), F.Info, schemaMask(Schema));
}

IndexedMemProf ProfileMerger::build(RecordOrder Order) const {
  std::vector<const Context *> Ctx;
  for (const auto &KV : Contexts)
    Ctx.push_back(&KV.second);
  if (Order == RecordOrder::Canonical) {
    std::vector<std::pair<CallStackId, const Context *>> Keyed;
    for (const auto &KV : Contexts)
      Keyed.push_back({KV.first, &KV.second});
    llvm::sort(Keyed, [](const auto &A, const auto &B) {
      return A.first < B.first;
    });
    Ctx.clear();
    for (const auto &KV : Keyed)
      Ctx.push_back(KV.second);
  }

  IndexedMemProf Out;
  // Call sites per function in first-insertion order; a call site is the
  // inline chain of one PC of a context (spec 2.5).
  U64MapVector<SetVector<CallStackId>> PerFunctionCallSites;
  DenseMap<CallStackId, SmallVector<Frame, 4>> ChainFrames;
  for (const Context *C : Ctx) {
    ArrayRef<Frame> Fs = C->Frames;
    size_t ChainStart = 0;
    for (size_t I = 0; I < Fs.size(); ++I) {
      if (Fs[I].IsInlineFrame && I + 1 != Fs.size())
        continue;
      ArrayRef<Frame> Chain = Fs.slice(ChainStart, I + 1 - ChainStart);
      SmallVector<FrameId, 4> Ids;
      for (const Frame &F : Chain)
        Ids.push_back(hashFrame(F));
      CallStackId ChainId = hashCallStack(Ids);
      ChainFrames.try_emplace(ChainId, Chain.begin(), Chain.end());
      for (size_t J = 0; J < Chain.size(); ++J)
        if (ChainStart != 0 || J != 0)
          PerFunctionCallSites[Chain[J].Function].insert(ChainId);
      ChainStart = I + 1;
    }
    CallStackId CSId = Out.addCallStack(Fs);
    for (const Frame &F : Fs) {
      Out.Records[F.Function].AllocSites.push_back({CSId, C->Info});
      if (!F.IsInlineFrame)
        break;
    }
  }
  for (const auto &[Guid, Chains] : PerFunctionCallSites) {
    IndexedRecord &R = Out.Records[Guid];
    for (CallStackId Id : Chains) {
      Out.addCallStack(ChainFrames[Id]);
      R.CallSites.push_back({Id, {}});
    }
  }
  // Call sites that came from indexed inputs: union their callee GUIDs.
  for (const auto &[Guid, Sites] : ExtraCallSites) {
    IndexedRecord &R = Out.Records[Guid];
    for (const auto &[Id, CS] : Sites) {
      auto It = llvm::find_if(R.CallSites, [&, Id = Id](const IndexedCallSite &X) {
        return X.CSId == Id;
      });
      if (It == R.CallSites.end()) {
        Out.addCallStack(CS.Frames);
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
    std::vector<std::pair<GUID, IndexedRecord>> Recs(Out.Records.begin(),
                                                     Out.Records.end());
    llvm::sort(Recs, [](const auto &A, const auto &B) {
      return A.first < B.first;
    });
    IndexedMemProf Sorted;
    for (auto &[Guid, R] : Recs) {
      llvm::stable_sort(R.AllocSites, [](const auto &A, const auto &B) {
        return A.CSId < B.CSId;
      });
      llvm::stable_sort(R.CallSites, [](const auto &A, const auto &B) {
        return A.CSId < B.CSId;
      });
      for (const auto &AS : R.AllocSites)
        Sorted.addCallStack(Out.stackFrames(AS.CSId));
      for (const auto &CS : R.CallSites)
        Sorted.addCallStack(Out.stackFrames(CS.CSId));
      Sorted.Records.insert({Guid, std::move(R)});
    }
    return Sorted;
  }
  return Out;
}

} // namespace memprof
