//===- Prune.cpp - Prune allocation contexts offline -----------------------===//
//
// Three reductions over the merged contexts, applied in this order:
//   1. MaxDepth: cut each context after the last whole PC chain (inline
//      frames plus their out-of-line caller) that fits in MaxDepth frames;
//   2. thresholds: fold contexts below MinBytes or MinCount into one
//      remainder per allocation site, the site's own inline chain;
//   3. Trim: cut each context to the shortest leaf-side prefix, in whole PC
//      chains, that no context of the other class (cold / not cold, as LLVM's
//      default thresholds classify them) at the same site shares: the depth
//      at which the compiler's context trie separates them.
// Contexts that become identical merge with the cross-input rule, so the
// totals over all contexts never change. Cuts fall on chain boundaries so
// that every context still ends in an out-of-line frame.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Merge.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

using namespace llvm;

namespace memprof {

namespace {

/// End indexes (exclusive) of each PC chain of a context, leaf first.
SmallVector<size_t, 16> chainEnds(ArrayRef<Frame> Fs) {
  SmallVector<size_t, 16> Ends;
  for (size_t I = 0; I < Fs.size(); ++I)
    if (!Fs[I].IsInlineFrame || I + 1 == Fs.size())
      Ends.push_back(I + 1);
  return Ends;
}

bool isCold(const MemInfoBlock &M) {
  return classifyAllocation(M.TotalLifetimeAccessDensity, M.AllocCount,
                            M.TotalLifetime) == AllocClass::Cold;
}

struct Item {
  SmallVector<Frame, 8> Frames;
  MemInfoBlock Info;
  uint32_t Known;
  StringRef SiteModule; // pruning keeps the allocation site, so its module
  StringRef Type;       // the context's allocated type; empty: unknown
  HeapStats Heap;
  CallStackId OldId;
};

} // namespace

PruneStats ProfileMerger::prune(const PruneOptions &Opts) {
  PruneStats St;
  // Work in call-stack id order so the result depends only on the content.
  std::vector<std::pair<CallStackId, Context *>> Sorted;
  for (auto &KV : Contexts)
    Sorted.push_back({KV.first, &KV.second});
  llvm::sort(Sorted, [](const auto &A, const auto &B) {
    return A.first < B.first;
  });
  St.ContextsBefore = Sorted.size();
  RawEntries.clear(); // a pruned profile is written in the canonical order

  std::vector<Item> Items;
  for (auto &[Id, C] : Sorted) {
    St.FramesBefore += C->Frames.size();
    Item It{SmallVector<Frame, 8>(C->Frames), C->Info, C->Known,
            C->Frames.empty()
                ? StringRef()
                : Names.contextModule(Id, C->Frames.front().Function),
            Names.type(Id), C->Heap, Id};
    if (Opts.MaxDepth && It.Frames.size() > Opts.MaxDepth) {
      auto Ends = chainEnds(It.Frames);
      size_t Keep = Ends.front(); // the allocation site always stays
      for (size_t E : Ends)
        if (E <= Opts.MaxDepth)
          Keep = E;
      if (Keep < It.Frames.size()) {
        It.Frames.resize(Keep);
        ++St.DepthCut;
      }
    }
    Items.push_back(std::move(It));
  }

  // Folding below the thresholds: the remainder of a site is its first chain.
  if (Opts.MinBytes || Opts.MinCount) {
    for (Item &It : Items) {
      bool Small = (Opts.MinBytes && It.Info.TotalSize < Opts.MinBytes) ||
                   (Opts.MinCount && It.Info.AllocCount < Opts.MinCount);
      size_t Site = chainEnds(It.Frames).front();
      if (!Small || It.Frames.size() == Site)
        continue;
      ++St.Folded;
      St.FoldedAllocations += It.Info.AllocCount;
      St.FoldedBytes += It.Info.TotalSize;
      It.Frames.resize(Site);
    }
  }

  if (Opts.Trim) {
    // Group by allocation site (the first chain), classify, and cut each
    // context at the first chain depth no other-class context shares.
    std::map<std::vector<FrameId>, std::vector<size_t>> Sites;
    for (size_t I = 0; I < Items.size(); ++I) {
      size_t Site = chainEnds(Items[I].Frames).front();
      std::vector<FrameId> Key;
      for (size_t J = 0; J < Site; ++J)
        Key.push_back(hashFrame(Items[I].Frames[J]));
      Sites[Key].push_back(I);
    }
    // Truncations computed from the original contexts, applied afterwards.
    std::vector<size_t> NewLen(Items.size());
    for (auto &[Key, Members] : Sites) {
      for (size_t I : Members) {
        const Item &A = Items[I];
        bool ColdA = isCold(A.Info);
        auto Ends = chainEnds(A.Frames);
        size_t Len = A.Frames.size();
        for (size_t E : Ends) {
          bool Separates = true;
          for (size_t J : Members) {
            const Item &B = Items[J];
            if (J == I || isCold(B.Info) == ColdA)
              continue;
            // B's prefix of the same frame count, cut at B's own chains.
            size_t BL = std::min(E, B.Frames.size());
            if (BL == E && ArrayRef<Frame>(A.Frames).take_front(E) ==
                               ArrayRef<Frame>(B.Frames).take_front(BL)) {
              Separates = false;
              break;
            }
          }
          if (Separates) {
            Len = E;
            break;
          }
        }
        NewLen[I] = Len;
      }
    }
    for (size_t I = 0; I < Items.size(); ++I)
      if (NewLen[I] < Items[I].Frames.size()) {
        Items[I].Frames.resize(NewLen[I]);
        ++St.Trimmed;
      }
  }

  // Rebuild: contexts that became identical merge, heap values included,
  // and the timeline names the contexts that took the old ones. A context
  // keeps a type only when every context it now stands for had that type:
  // one of unknown type, or of another, makes it unknown (its bytes are not
  // all known to be of one type).
  Contexts.clear();
  clearKnown(); // their ids changed
  std::unordered_map<CallStackId, CallStackId> NewIds;
  std::map<CallStackId, std::optional<StringRef>> Types; // nullopt: none
  for (Item &It : Items) {
    CallStackId Id = addContext(It.Frames, It.Info, It.Known);
    Names.addSiteModule(Id, It.SiteModule);
    Contexts.find(Id)->second.Heap.add(It.Heap);
    NewIds.emplace(It.OldId, Id);
    auto [TI, New] = Types.try_emplace(Id, It.Type);
    if (!New && TI->second != std::optional<StringRef>(It.Type))
      TI->second = std::nullopt;
  }
  Names.clearTypes();
  for (const auto &[Id, T] : Types)
    if (T)
      Names.addType(Id, *T);
  if (Timeline)
    for (HeapSample &S : Timeline->Samples) {
      for (HeapTopEntry &E : S.Top) {
        auto It = NewIds.find(E.Context);
        if (It != NewIds.end())
          E.Context = It->second;
      }
      normalizeTop(S.Top);
    }
  St.ContextsAfter = Contexts.size();
  for (auto &KV : Contexts)
    St.FramesAfter += KV.second.Frames.size();
  return St;
}

} // namespace memprof
