//===- Report.cpp - Ranked allocation contexts, summary and printers ------===//
//
// Only the listed contexts are materialized with names and locations; the
// ranking works on the merged blocks alone, so the time grows with the
// number of contexts, not with their depth times the names.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Report.h"
#include "memprof/ProfileData/HeapView.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Export.h"
#include "memprof/ProfileData/RawReader.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

using namespace llvm;

namespace memprof {

// One table names the keys both ways (the option parser and the report headers).
static constexpr std::pair<SortKey, StringLiteral> SortKeyNames[] = {
    {SortKey::Bytes, "bytes"},       {SortKey::Count, "count"},
    {SortKey::Accesses, "accesses"}, {SortKey::Lifetime, "lifetime"},
    {SortKey::Density, "density"},
};

std::optional<SortKey> parseSortKey(StringRef Name) {
  for (const auto &[Key, KeyName] : SortKeyNames)
    if (Name == KeyName)
      return Key;
  return std::nullopt;
}

StringRef sortKeyName(SortKey K) {
  for (const auto &[Key, KeyName] : SortKeyNames)
    if (Key == K)
      return KeyName;
  return "bytes";
}

/// What ranked a report's rows: a key's name, or "id".
static StringRef rankedByName(std::optional<SortKey> K) {
  return K ? sortKeyName(*K) : StringRef("id");
}

static constexpr std::pair<GroupBy, StringLiteral> GroupByNames[] = {
    {GroupBy::Context, "context"},
    {GroupBy::Site, "site"},
    {GroupBy::Function, "function"},
    {GroupBy::Type, "type"},
};

std::optional<GroupBy> parseGroupBy(StringRef Name) {
  for (const auto &[G, N] : GroupByNames)
    if (Name == N)
      return G;
  return std::nullopt;
}

StringRef groupByName(GroupBy G) {
  for (const auto &[K, N] : GroupByNames)
    if (K == G)
      return N;
  return "context";
}

static bool knows(uint32_t Known, MIBTag T) {
  return Known & (1u << (unsigned(T) - 1));
}

Maybe<uint64_t> ReportContext::field(MIBTag T) const {
  if (!knows(Known, T))
    return std::nullopt;
  return Info.get(unsigned(T));
}

Maybe<double> ReportContext::average(MIBTag Total) const {
  auto N = field(MIBTag::AllocCount);
  auto V = field(Total);
  if (!N || !V || *N == 0)
    return std::nullopt;
  return double(*V) / double(*N);
}

StringRef allocClassName(AllocClass C) {
  switch (C) {
  case AllocClass::Cold:
    return "cold";
  case AllocClass::NotCold:
    return "notcold";
  case AllocClass::Hot:
    return "hot";
  }
  return "notcold";
}

namespace {

struct Candidate {
  CallStackId Id;
  ArrayRef<Frame> Frames;
  const MemInfoBlock *Info;
  uint32_t Known;
  std::optional<AllocClass> Class;
  double Key;
  const struct Group *G = nullptr; // the group a row of groups stands for
};

/// The sum of the contexts of one site or function.
struct Group {
  Frame Key;   // the site's frame, or the function (line offset 0)
  StringRef Type; // GroupBy::Type: the type; empty for the unknown row
  MemInfoBlock Info;
  uint32_t Known = 0;
  uint64_t Contexts = 0;
  ClassTotals Cold;
  ClassTotals Through; // GroupBy::Function: contexts with a frame in it
  HeapStats Heap;      // the heap values of the contexts summed
};

std::optional<AllocClass> classify(const MemInfoBlock &I, uint32_t Known) {
  if (!knows(Known, MIBTag::AllocCount) ||
      !knows(Known, MIBTag::TotalLifetime) ||
      !knows(Known, MIBTag::TotalLifetimeAccessDensity))
    return std::nullopt;
  // LLVM holds AllocCount as a u32; classify the value a file would store.
  return classifyAllocation(I.TotalLifetimeAccessDensity,
                            std::min<uint64_t>(I.AllocCount, UINT32_MAX),
                            I.TotalLifetime);
}

double sortValue(const MemInfoBlock &I, SortKey K) {
  auto Avg = [&](uint64_t V) {
    return I.AllocCount ? double(V) / double(I.AllocCount) : 0.0;
  };
  switch (K) {
  case SortKey::Bytes:
    return double(I.TotalSize);
  case SortKey::Count:
    return double(I.AllocCount);
  case SortKey::Accesses:
    return double(I.TotalAccessCount);
  case SortKey::Lifetime:
    return Avg(I.TotalLifetime);
  case SortKey::Density:
    return Avg(I.TotalLifetimeAccessDensity);
  }
  return 0;
}

} // namespace

MIBTag sortKeyField(SortKey K) {
  switch (K) {
  case SortKey::Bytes:
    return MIBTag::TotalSize;
  case SortKey::Count:
    return MIBTag::AllocCount;
  case SortKey::Accesses:
    return MIBTag::TotalAccessCount;
  case SortKey::Lifetime:
    return MIBTag::TotalLifetime;
  case SortKey::Density:
    return MIBTag::TotalLifetimeAccessDensity;
  }
  return MIBTag::TotalSize;
}

namespace {

void addTo(ClassTotals &T, const MemInfoBlock &I) {
  ++T.Contexts;
  T.Allocations = satAdd(T.Allocations, I.AllocCount);
  T.Bytes = satAdd(T.Bytes, I.TotalSize);
}

std::string guidName(GUID G) { return hexValue(G); }

/// Names and paths come from files: keep the report valid UTF-8.
std::string clean(StringRef S) { return validUTF8(S); }

CounterFunctionReport counterFunction(const FunctionCounters &F) {
  CounterFunctionReport C;
  C.Name = clean(F.Name);
  C.Demangled = clean(demangledPGOName(F.Name));
  C.Hash = F.Hash;
  C.CS = F.isCS();
  C.NumCounters = F.Counts.size();
  C.EntryCount = F.Counts.empty() ? 0 : F.Counts[0];
  for (uint64_t N : F.Counts) {
    C.MaxCount = std::max(C.MaxCount, N);
    C.TotalCount = satAdd(C.TotalCount, N);
  }
  return C;
}

/// The counter half: llvm-profdata show's summaries and --topn ranking, and
/// the functions that match the filters in detail.
CounterReport buildCounterReport(const CounterProfile &P,
                                 const ReportOptions &Opts,
                                 std::vector<Regex> &Filters) {
  CounterReport R;
  R.Present = P.Present;
  if (!P.Present)
    return R;
  R.Variant = P.Variant;
  R.Records = P.Records.size();
  R.BinaryIds = P.BinaryIds.size();
  R.Traces = P.Traces.size();
  const bool IR = P.isIR();
  R.Summary = computeInstrProfSummary(P.Records, /*CS=*/false);
  if (IR && (llvm::any_of(P.Records, [](const FunctionCounters &F) {
               return F.isCS();
             }) || P.isCSIR()))
    R.CSSummary = computeInstrProfSummary(P.Records, /*CS=*/true);

  // Names of records and vtables name call targets and vtable values.
  DenseMap<uint64_t, StringRef> Known = counterNameTable(P);

  std::vector<CounterFunctionReport> Ranked;
  for (const FunctionCounters &F : P.Records) {
    // As llvm-profdata show: only the records of the summary are ranked.
    if ((!IR || !F.isCS()) && !F.isPseudo())
      Ranked.push_back(counterFunction(F));
    if (Filters.empty())
      continue;
    CounterFunctionReport C = counterFunction(F);
    bool Match = llvm::any_of(Filters, [&](Regex &Re) {
      return Re.match(C.Demangled) || Re.match(C.Name);
    });
    if (!Match)
      continue;
    C.Counts = F.Counts;
    C.Bitmap = F.Bitmap;
    for (unsigned K = 0; K < instrprof::NumValueKinds; ++K)
      for (const InstrProfValueSite &Site : F.Sites[K]) {
        auto &Out = C.Sites[K].emplace_back();
        for (const InstrProfValue &V : Site) {
          CounterValueReport VR;
          VR.Value = V.Value;
          VR.Count = V.Count;
          if (K != instrprof::ValueKindMemOPSize) {
            auto It = Known.find(V.Value);
            if (It != Known.end()) {
              VR.Name = clean(It->second);
              VR.Demangled = clean(demangledPGOName(It->second));
            }
          }
          Out.push_back(std::move(VR));
        }
      }
    R.Selected.push_back(std::move(C));
  }
  R.Ranked = Ranked.size();
  auto Hotter = [](const CounterFunctionReport &A,
                   const CounterFunctionReport &B) {
    if (A.MaxCount != B.MaxCount)
      return A.MaxCount > B.MaxCount;
    if (A.Name != B.Name)
      return A.Name < B.Name;
    return A.Hash < B.Hash;
  };
  const size_t N = std::min(Opts.TopFunctions, Ranked.size());
  std::partial_sort(Ranked.begin(), Ranked.begin() + N, Ranked.end(), Hotter);
  Ranked.resize(N);
  R.Top = std::move(Ranked);
  llvm::sort(R.Selected, [](const CounterFunctionReport &A,
                            const CounterFunctionReport &B) {
    if (A.Name != B.Name)
      return A.Name < B.Name;
    return A.Hash < B.Hash;
  });
  return R;
}

} // namespace

Expected<Report> buildReport(const ProfileMerger &M, const ProfileNames &Names,
                             std::vector<ReportInput> Inputs,
                             const ReportOptions &Opts) {
  Report R;
  R.Inputs = std::move(Inputs);
  R.Options = Opts;

  std::vector<Regex> Filters;
  for (const std::string &F : Opts.FunctionFilters) {
    Regex Re(F);
    std::string Why;
    if (!Re.isValid(Why))
      return makeError(ErrorCode::Usage,
                       "invalid --function expression '" + F + "': " + Why);
    Filters.push_back(std::move(Re));
  }
  // Whether a function's names match, decided once per GUID.
  std::unordered_map<GUID, bool> Matches;
  auto FunctionMatches = [&](GUID G) {
    auto [It, New] = Matches.try_emplace(G, false);
    if (New) {
      const FunctionNameInfo *N = Names.function(G);
      std::string Hex = guidName(G);
      for (Regex &Re : Filters)
        if ((N && (Re.match(N->DemangledName) || Re.match(N->LinkageName))) ||
            (!N && Re.match(Hex))) {
          It->second = true;
          break;
        }
    }
    return It->second;
  };

  ReportSummary &S = R.Summary;
  std::vector<Candidate> Selected;
  std::set<GUID> Functions;
  DenseSet<FrameKey> Frames; // counted only: no order needed
  std::map<std::string, ModuleTotals> Modules;
  std::set<GUID> GapFrames;
  uint32_t KnownUnion = 0;
  M.forEachContext([&](CallStackId Id, ArrayRef<Frame> Fs,
                       const MemInfoBlock &I, uint32_t Known) {
    KnownUnion |= Known;
    auto Class = classify(I, Known);
    addTo(S.All, I);
    S.Heap.add(M.heapStats(Id));
    if (!Class)
      addTo(S.Unclassified, I);
    else if (*Class == AllocClass::Cold)
      addTo(S.Cold, I);
    else if (*Class == AllocClass::Hot)
      addTo(S.Hot, I);
    else
      addTo(S.NotCold, I);
    bool HasGap = false;
    for (const Frame &F : Fs) {
      if (M.gap(F.Function)) {
        HasGap = true;
        GapFrames.insert(F.Function);
        continue;
      }
      Functions.insert(F.Function);
      Frames.insert(FrameKey{F});
    }
    if (HasGap)
      addTo(S.WithGaps, I);
    std::string Module;
    if (!Fs.empty()) {
      if (const FrameGap *G = M.gap(Fs.front().Function))
        Module = G->BuildId;
      else
        Module = buildIdToHex(Names.contextModule(Id, Fs.front().Function));
    }
    addTo(Modules[Module].Sites, I);

    bool Keep = Filters.empty();
    for (size_t K = 0; !Keep && K < Fs.size(); ++K)
      Keep = FunctionMatches(Fs[K].Function);
    if (!Keep)
      return;
    addTo(R.Selected, I);
    Selected.push_back({Id, Fs, &I, Known, Class, sortValue(I, Opts.Sort)});
  });

  // Rows of groups: contexts summed by the cross-input merge rule (a field
  // known to some contexts only takes theirs), ranked like contexts.
  std::map<CallStackId, Group> Groups;
  if (Opts.Group != GroupBy::Context) {
    auto GroupOf = [&](const Frame &F) -> std::pair<CallStackId, Frame> {
      if (Opts.Group == GroupBy::Function)
        return {F.Function, Frame{F.Function, 0, 0, false}};
      CallStackId Id = functionGUID(
          ("memprof site " + Twine(F.Function) + ":" + Twine(F.LineOffset) +
           ":" + Twine(F.Column))
              .str());
      return {Id, Frame{F.Function, F.LineOffset, F.Column, false}};
    };
    for (const Candidate &C : Selected) {
      if (C.Frames.empty())
        continue;
      std::pair<CallStackId, Frame> IdKey;
      StringRef Type;
      if (Opts.Group == GroupBy::Type) {
        // By the type's name: the same row id in every profile.
        Type = Names.type(C.Id);
        IdKey.first = functionGUID(
            (Type.empty() ? Twine("memprof unknown type")
                          : "memprof type " + Type)
                .str());
      } else {
        IdKey = GroupOf(C.Frames.front());
      }
      auto &[Id, Key] = IdKey;
      auto [It, New] = Groups.try_emplace(Id);
      Group &G = It->second;
      if (New) {
        G.Key = Key;
        G.Type = Type;
        G.Info = *C.Info;
        G.Known = C.Known;
      } else {
        G.Info.mergeCrossKnown(*C.Info, G.Known, C.Known);
        G.Known |= C.Known;
      }
      ++G.Contexts;
      G.Heap.add(M.heapStats(C.Id));
      if (C.Class == AllocClass::Cold)
        addTo(G.Cold, *C.Info);
    }
    // By function: every function of a selected context is a row, with
    // the contexts through it; one that allocates nothing itself has an
    // empty flat part (zero in every field its contexts store).
    if (Opts.Group == GroupBy::Function)
      for (const Candidate &C : Selected) {
        std::set<GUID> Seen;
        for (const Frame &F : C.Frames)
          if (Seen.insert(F.Function).second) {
            auto [It, New] = Groups.try_emplace(F.Function);
            Group &G = It->second;
            if (New)
              G.Key = Frame{F.Function, 0, 0, false};
            // Nothing allocated here: zero allocations and bytes, and no
            // minima or maxima to speak of.
            if (!G.Contexts)
              G.Known |= C.Known & ((1u << (unsigned(MIBTag::AllocCount) - 1)) |
                                    (1u << (unsigned(MIBTag::TotalSize) - 1)));
            addTo(G.Through, *C.Info);
          }
      }
    std::vector<Candidate> Rows;
    for (auto &[Id, G] : Groups)
      Rows.push_back({Id,
                      Opts.Group == GroupBy::Type ? ArrayRef<Frame>()
                                                  : ArrayRef<Frame>(G.Key),
                      &G.Info, G.Known,
                      G.Contexts ? classify(G.Info, G.Known) : std::nullopt,
                      sortValue(G.Info, Opts.Sort), &G});
    Selected = std::move(Rows);
  }
  R.Rows = Selected.size();

  S.Functions = Functions.size();
  for (GUID G : Functions)
    S.NamedFunctions += Names.function(G) != nullptr;
  S.Frames = Frames.size();
  S.GapFrames = GapFrames.size();
  S.GapsShown = M.keepsGaps();
  for (const FrameKey &K : Frames) {
    SourceLocation L = Names.location(K.F.Function, K.F.LineOffset);
    S.FramesWithLocation += L.known() && L.Line != 0; // line 0: unknown
  }

  const MergeStats &St = M.stats();
  S.AnyRaw = St.RawInputs > 0;
  S.DroppedContexts = St.DroppedContexts;
  S.DroppedAllocations = St.DroppedAllocations;
  S.DroppedBytes = St.DroppedBytes;
  S.RuntimeFramesDropped = St.RuntimeFramesDropped;
  for (const auto &[Hex, Path] : St.Modules)
    Modules[Hex].Path = Path;
  for (const auto &[Hex, U] : St.Unsymbolized) {
    ModuleTotals &T = Modules[Hex];
    T.UnsymbolizedPCs = U.PCs;
    T.Reason = U.Reason;
    S.UnsymbolizedPCs += U.PCs;
  }
  S.UnsymbolizedPCs += St.OutsideSegmentPCs;
  for (auto &[Hex, T] : Modules) {
    T.BuildId = Hex;
    // Indexed inputs: the path their names extension gives.
    if (T.Path.empty() && !Hex.empty())
      T.Path = clean(Names.modulePath(fromHex(Hex)));
    S.Modules.push_back(std::move(T));
  }
  // Modules with the most bytes first; the one without a build id last.
  llvm::sort(S.Modules, [](const ModuleTotals &A, const ModuleTotals &B) {
    if (A.BuildId.empty() != B.BuildId.empty())
      return B.BuildId.empty();
    if (A.Sites.Bytes != B.Sites.Bytes)
      return A.Sites.Bytes > B.Sites.Bytes;
    return A.BuildId < B.BuildId;
  });

  // A key no input stores ranks by bytes (every value would be 0), and the
  // headers say so; every schema LLVM writes stores sizes, a hand-made one
  // may not, and then only the ids order the rows.
  R.KnownFields = KnownUnion;
  R.RankedBy = Opts.Sort;
  if (!Selected.empty() && !knows(KnownUnion, sortKeyField(Opts.Sort))) {
    const bool Sizes = knows(KnownUnion, MIBTag::TotalSize);
    R.RankedBy = Sizes ? std::optional<SortKey>(SortKey::Bytes) : std::nullopt;
    const StringRef Rows = Opts.Group == GroupBy::Context ? "contexts"
                           : Opts.Group == GroupBy::Site  ? "allocation sites"
                           : Opts.Group == GroupBy::Type  ? "types"
                                                          : "functions";
    std::string Note = ("--sort=" + sortKeyName(Opts.Sort) +
                        ": no input stores " +
                        mibFieldName(unsigned(sortKeyField(Opts.Sort))))
                           .str();
    if (!Sizes && Opts.Sort != SortKey::Bytes)
      Note += " nor TotalSize";
    Note += " (write profiles with --memprof-full-schema); " + Rows.str() +
            (Sizes ? " are ranked by bytes instead" : " are in id order");
    R.Notes.push_back(std::move(Note));
  }
  const bool ByKey = R.RankedBy == Opts.Sort;
  auto Better = [&](const Candidate &A, const Candidate &B) {
    if (ByKey && A.Key != B.Key)
      return Opts.Reverse ? A.Key < B.Key : A.Key > B.Key;
    if (A.Info->TotalSize != B.Info->TotalSize)
      return Opts.Reverse ? A.Info->TotalSize < B.Info->TotalSize
                          : A.Info->TotalSize > B.Info->TotalSize;
    // Functions that allocate alike (nothing, for callers): by the bytes
    // through them.
    if (A.G && B.G && A.G->Through.Bytes != B.G->Through.Bytes)
      return Opts.Reverse ? A.G->Through.Bytes < B.G->Through.Bytes
                          : A.G->Through.Bytes > B.G->Through.Bytes;
    return A.Id < B.Id;
  };
  const size_t N = std::min(Opts.TopContexts, Selected.size());
  std::partial_sort(Selected.begin(), Selected.begin() + N, Selected.end(),
                    Better);

  auto MakeFrame = [&](const Frame &F) {
    ReportFrame RF;
    RF.Function = F.Function;
    RF.LineOffset = F.LineOffset;
    RF.Column = F.Column;
    RF.IsInlineFrame = F.IsInlineFrame;
    if (const FrameGap *G = M.gap(F.Function)) {
      RF.Gap = *G;
      return RF;
    }
    if (const FunctionNameInfo *Fn = Names.function(F.Function)) {
      RF.Name = clean(Fn->DemangledName.empty() ? Fn->LinkageName
                                                : Fn->DemangledName);
      RF.LinkageName = clean(Fn->LinkageName);
    }
    SourceLocation L = Names.location(F.Function, F.LineOffset);
    if (L.known()) {
      RF.File = clean(L.File);
      RF.Line = L.Line;
    }
    return RF;
  };
  // InternFrames: each distinct frame once (what it shows depends on the
  // frame alone), in the order the ranked contexts first hold them.
  DenseMap<FrameKey, uint32_t> Interned;
  auto InternFrame = [&](const Frame &F) {
    auto [It, New] =
        Interned.try_emplace(FrameKey{F}, uint32_t(R.FrameTable.size()));
    if (New)
      R.FrameTable.push_back(MakeFrame(F));
    return It->second;
  };

  R.Contexts.reserve(N);
  for (size_t I = 0; I < N; ++I) {
    const Candidate &C = Selected[I];
    ReportContext RC;
    RC.Id = C.Id;
    RC.Info = *C.Info;
    RC.Known = C.Known;
    RC.Class = C.Class;
    RC.Heap = C.G ? C.G->Heap : M.heapStats(C.Id);
    if (C.G) {
      RC.Contexts = C.G->Contexts;
      RC.Cold = C.G->Cold;
      RC.Type = clean(C.G->Type);
      if (Opts.Group == GroupBy::Function)
        RC.Through = C.G->Through;
    } else {
      if (C.Class == AllocClass::Cold)
        addTo(RC.Cold, *C.Info);
      RC.Type = clean(Names.type(C.Id));
    }
    if (Opts.InternFrames) {
      RC.FrameIds.reserve(C.Frames.size());
      for (const Frame &F : C.Frames)
        RC.FrameIds.push_back(InternFrame(F));
    } else {
      RC.Frames.reserve(C.Frames.size());
      for (const Frame &F : C.Frames)
        RC.Frames.push_back(MakeFrame(F));
    }
    if (!C.Frames.empty()) {
      if (const FrameGap *G = M.gap(C.Frames.front().Function))
        RC.ModuleBuildId = G->BuildId;
      else
        RC.ModuleBuildId =
            buildIdToHex(Names.contextModule(C.Id, C.Frames.front().Function));
    }
    R.Contexts.push_back(std::move(RC));
  }
  R.HasMemProf = llvm::any_of(R.Inputs, [](const ReportInput &I) {
    return I.HasMemProf;
  });
  if (M.hasHeap()) {
    HeapProfile H = M.heap();
    R.Heap = H.Summary;
    R.Timeline = std::move(H.Timeline);
  }
  R.Counters = buildCounterReport(M.counters().build(), Opts, Filters);
  return R;
}

StringRef DiffRow::status() const {
  if (!Before)
    return "new";
  if (!After)
    return "vanished";
  if (Change > 0)
    return "grown";
  if (Change < 0)
    return "shrunk";
  return "unchanged";
}

static double rowValue(const std::optional<ReportContext> &C, SortKey K) {
  return C ? sortValue(C->Info, K) : 0.0;
}

ReportDiff diffReports(Report Before, Report After, const ReportOptions &Opts) {
  ReportDiff D;
  D.Options = Opts;
  D.BeforeInputs = std::move(Before.Inputs);
  D.AfterInputs = std::move(After.Inputs);
  D.BeforeTotals = Before.Selected;
  D.AfterTotals = After.Selected;
  // A key is compared when both sides store it (a side without rows has
  // nothing to lack): against a side without it every row would change by
  // all of its value. Otherwise bytes are, with one note for the two sides
  // instead of theirs.
  const MIBTag Field = sortKeyField(Opts.Sort);
  auto Stores = [&](const Report &R) {
    return R.Rows == 0 || knows(R.KnownFields, Field);
  };
  const bool InBefore = Stores(Before), InAfter = Stores(After);
  D.ComparedBy = InBefore && InAfter ? Opts.Sort : SortKey::Bytes;
  if (D.ComparedBy != Opts.Sort)
    D.Notes.push_back(("--sort=" + sortKeyName(Opts.Sort) + ": " +
                       (!InBefore && !InAfter ? "neither side stores "
                        : !InBefore           ? "the base stores no "
                                              : "the new side stores no ") +
                       mibFieldName(unsigned(Field)) +
                       " (write profiles with --memprof-full-schema); rows "
                       "are compared by bytes instead")
                          .str());
  for (std::string &N : Before.Notes)
    if (!StringRef(N).starts_with("--sort="))
      D.Notes.push_back("base: " + N);
  for (std::string &N : After.Notes)
    if (!StringRef(N).starts_with("--sort="))
      D.Notes.push_back(std::move(N));

  std::map<CallStackId, DiffRow> Rows;
  for (ReportContext &C : Before.Contexts) {
    D.BeforeAccesses = satAdd(D.BeforeAccesses, C.Info.TotalAccessCount);
    Rows[C.Id].Before = std::move(C);
  }
  for (ReportContext &C : After.Contexts) {
    D.AfterAccesses = satAdd(D.AfterAccesses, C.Info.TotalAccessCount);
    Rows[C.Id].After = std::move(C);
  }
  std::vector<DiffRow> All;
  All.reserve(Rows.size());
  for (auto &[Id, Row] : Rows) {
    Row.Change = rowValue(Row.After, D.ComparedBy) -
                 rowValue(Row.Before, D.ComparedBy);
    StringRef St = Row.status();
    D.New += St == "new";
    D.Vanished += St == "vanished";
    D.Grown += St == "grown";
    D.Shrunk += St == "shrunk";
    D.Unchanged += St == "unchanged";
    // Rows that did not change are counted, not listed.
    if (St != "unchanged")
      All.push_back(std::move(Row));
  }
  // Largest change first; with --reverse, the largest fall first.
  auto Better = [&](const DiffRow &A, const DiffRow &B) {
    if (Opts.Reverse) {
      if (A.Change != B.Change)
        return A.Change < B.Change;
    } else {
      if (std::fabs(A.Change) != std::fabs(B.Change))
        return std::fabs(A.Change) > std::fabs(B.Change);
      if (A.Change != B.Change)
        return A.Change > B.Change;
    }
    return A.row().Id < B.row().Id;
  };
  const size_t N = std::min(Opts.TopContexts, All.size());
  std::partial_sort(All.begin(), All.begin() + N, All.end(), Better);
  All.resize(N);
  D.Rows = std::move(All);
  return D;
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

namespace {

std::string percent(uint64_t Part, uint64_t Whole) {
  if (!Whole)
    return "0.0%";
  return formatv("{0:f1}%", 100.0 * double(Part) / double(Whole)).str();
}

std::string num(double V) {
  if (V != 0 && (std::fabs(V) < 0.01 || std::fabs(V) >= 1e9))
    return formatv("{0:e2}", V).str();
  return formatv("{0:f2}", V).str();
}

std::string opt(const Maybe<uint64_t> &V, double Scale = 1) {
  if (!V)
    return "n/a";
  if (Scale == 1)
    return std::to_string(*V);
  return num(double(*V) * Scale);
}

std::string opt(const Maybe<double> &V, double Scale = 1) {
  return V ? num(*V * Scale) : std::string("n/a");
}

/// "1 context", "2 contexts".
std::string n(uint64_t N, StringRef One, StringRef Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many).str();
}
std::string contexts(uint64_t N) { return n(N, "context", "contexts"); }
std::string allocations(uint64_t N) {
  return n(N, "allocation", "allocations");
}
std::string bytes(uint64_t N) { return n(N, "byte", "bytes"); }
std::string addresses(uint64_t N) { return n(N, "address", "addresses"); }

std::string schemaText(const MIBSchema &S) {
  if (S == hotColdSchema())
    return "hot/cold schema";
  if (S.size() == NumMIBTags)
    return "full schema";
  return std::to_string(S.size()) + "-field schema";
}

/// "avg A, min B, max C" (and "total T" first, with \p WithTotal) of the
/// values the row knows; "" when it knows none.
std::string stats(const ReportContext &C, MIBTag Total, MIBTag Min, MIBTag Max,
                  double Scale, bool WithTotal) {
  std::vector<std::string> Parts;
  if (WithTotal && C.field(Total))
    Parts.push_back("total " + opt(C.field(Total), Scale));
  if (C.average(Total))
    Parts.push_back("avg " + opt(C.average(Total), Scale));
  if (C.field(Min))
    Parts.push_back("min " + opt(C.field(Min), Scale));
  if (C.field(Max))
    Parts.push_back("max " + opt(C.field(Max), Scale));
  return join(Parts, ", ");
}

/// "7000 bytes (48.4%) in 2 allocations", leaving out what is not stored.
std::string rowTotals(const ReportContext &C, uint64_t AllBytes) {
  std::string T;
  if (auto B = C.field(MIBTag::TotalSize))
    T = bytes(*B) + " (" + percent(*B, AllBytes) + ")";
  if (auto N = C.field(MIBTag::AllocCount))
    T += (T.empty() ? "" : " in ") + allocations(*N);
  return T.empty() ? std::string("no size or count stored") : T;
}

void printTotals(raw_ostream &OS, StringRef Label, const ClassTotals &T,
                 uint64_t AllBytes) {
  OS << "  " << left_justify(Label, 13) << contexts(T.Contexts) << ", "
     << allocations(T.Allocations) << ", " << bytes(T.Bytes) << " ("
     << percent(T.Bytes, AllBytes) << ")\n";
}

} // namespace

/// What the header says of one input: "raw, symbolized" or "indexed, ...".
static std::string inputKind(const ReportInput &I) {
  if (I.CountersRaw)
    return "raw PGO counters (" + I.Counters + ")";
  if (I.Raw)
    return "raw, symbolized";
  std::string K = "indexed";
  if (!I.Counters.empty())
    K += ", PGO counters (" + I.Counters + ")";
  if (I.HasMemProf)
    K += ((I.Counters.empty() ? ", " : "; ") + Twine("MemProf V") +
          Twine(I.MemProfVersion) + ", " +
          schemaText(I.Schema) + ", names: " + I.Names)
             .str();
  return K;
}

static void printSiteValue(raw_ostream &OS, unsigned Kind,
                           const CounterValueReport &V, uint64_t Total,
                           int Width) {
  OS << "      " << right_justify(Twine(V.Count).str(), Width) << "  "
     << right_justify(percent(V.Count, Total), 7) << "  ";
  if (Kind == instrprof::ValueKindMemOPSize)
    OS << "size " << V.Value;
  else if (V.Name.empty())
    OS << (V.Value ? "<not in the profile> " + guidName(V.Value)
                   : std::string("<unknown target>"));
  else if (V.Demangled != V.Name)
    OS << V.Demangled << "  [" << V.Name << "]";
  else
    OS << V.Name;
  OS << "\n";
}

static void printCounterSummary(raw_ostream &OS, const InstrProfSummary &S,
                                StringRef Indent) {
  OS << Indent << "Total functions: " << S.TotalNumFunctions << "\n";
  OS << Indent << "Maximum function count: " << S.MaxFunctionCount << "\n";
  OS << Indent << "Maximum internal block count: " << S.MaxInternalBlockCount
     << "\n";
  OS << Indent << "Total number of blocks: " << S.TotalNumBlocks << "\n";
  OS << Indent << "Total count: " << S.TotalBlockCount << "\n";
}

/// The PGO counter section: llvm-profdata show's summary lines (so they can
/// be compared), the hottest functions, the selected ones in detail.
static void printCountersText(const Report &R, raw_ostream &OS) {
  const CounterReport &C = R.Counters;
  using namespace instrprof;
  OS << "\nPGO counters: " << describeVariant(C.Variant & ~VariantMemProf)
     << "; " << n(C.Records, "function record", "function records") << ", "
     << n(C.BinaryIds, "binary id", "binary ids");
  if (C.Variant & VariantTemporal)
    OS << ", " << n(C.Traces, "temporal trace", "temporal traces");
  OS << "\n";
  OS << "  Instrumentation level: "
     << (C.Variant & VariantIR ? "IR" : "Front-end");
  if (C.Variant & VariantIR)
    OS << "  entry_first = " << bool(C.Variant & VariantEntryFirst)
       << "  instrument_loop_entries = " << bool(C.Variant & VariantLoopEntries);
  OS << "\n";
  printCounterSummary(OS, C.Summary, "  ");
  if (C.CSSummary) {
    OS << "  context-sensitive records (llvm-profdata show --showcs):\n";
    printCounterSummary(OS, *C.CSSummary, "    ");
  }

  OS << "\nTop " << C.Top.size() << " of " << C.Ranked
     << " functions by largest counter\n";
  size_t WMax = 9, WEntry = 11, WTotal = 11;
  for (const CounterFunctionReport &F : C.Top) {
    WMax = std::max(WMax, Twine(F.MaxCount).str().size());
    WEntry = std::max(WEntry, Twine(F.EntryCount).str().size());
    WTotal = std::max(WTotal, Twine(F.TotalCount).str().size());
  }
  if (!C.Top.empty())
    OS << "  " << right_justify("max count", WMax) << "  "
       << right_justify("entry count", WEntry) << "  "
       << right_justify("total count", WTotal) << "  function\n";
  for (const CounterFunctionReport &F : C.Top)
    OS << "  " << right_justify(Twine(F.MaxCount).str(), WMax) << "  "
       << right_justify(Twine(F.EntryCount).str(), WEntry) << "  "
       << right_justify(Twine(F.TotalCount).str(), WTotal) << "  "
       << F.Demangled << "\n";

  if (R.Options.FunctionFilters.empty())
    return;
  OS << "\n" << C.Selected.size()
     << (C.Selected.size() == 1 ? " function record matches"
                                : " function records match")
     << " --function\n";
  static constexpr const char *SiteNames[NumValueKinds] = {
      "indirect call site", "memop size site", "vtable site"};
  for (const CounterFunctionReport &F : C.Selected) {
    OS << "\n" << F.Demangled << (F.CS ? "  (context-sensitive)" : "") << "\n";
    OS << "    PGO name " << F.Name << ", hash "
       << format("0x%016" PRIx64, F.Hash) << "\n";
    OS << "    counters (" << F.NumCounters << "):";
    for (size_t I = 0; I < F.Counts.size(); ++I)
      OS << (I ? ", " : " ") << F.Counts[I];
    OS << "\n";
    if (!F.Bitmap.empty()) {
      OS << "    bitmap bytes (" << F.Bitmap.size() << "):";
      for (size_t I = 0; I < F.Bitmap.size(); ++I)
        OS << (I ? ", " : " ") << format("0x%02x", F.Bitmap[I]);
      OS << "\n";
    }
    for (unsigned K = 0; K < NumValueKinds; ++K)
      for (size_t S = 0; S < F.Sites[K].size(); ++S) {
        const auto &Site = F.Sites[K][S];
        uint64_t Total = 0;
        int Width = 1;
        for (const CounterValueReport &V : Site) {
          Total = satAdd(Total, V.Count);
          Width = std::max<int>(Width, Twine(V.Count).str().size());
        }
        OS << "    " << SiteNames[K] << " " << S << ": "
           << (Site.empty() ? std::string("no values")
                            : std::to_string(Total) + " in " +
                                  std::to_string(Site.size()) +
                                  (Site.size() == 1 ? " value" : " values"))
           << "\n";
        for (const CounterValueReport &V : Site)
          printSiteValue(OS, K, V, Total, Width);
      }
  }
}

/// The labels of the named frames of \p Rows, which one view lists side by
/// side: short names, made long enough to tell apart where they collide.
static std::map<std::string, std::string>
viewLabels(ArrayRef<ReportContext> Rows) {
  std::set<std::string> Names;
  for (const ReportContext &C : Rows)
    for (const ReportFrame &F : C.Frames)
      if (!F.Gap && !F.Name.empty())
        Names.insert(F.Name);
  return distinctShortNames(Names);
}

void printReportText(const Report &R, raw_ostream &OS) {
  if (R.Inputs.size() == 1) {
    OS << "Profile " << R.Inputs[0].Path << ": " << inputKind(R.Inputs[0])
       << "\n";
  } else {
    // One header for any number of inputs: a line per kind, in the order
    // the kinds first appear, naming at most three of its files.
    OS << "Profiles: " << R.Inputs.size() << " inputs\n";
    std::vector<std::pair<std::string, std::vector<StringRef>>> Kinds;
    for (const ReportInput &I : R.Inputs) {
      std::string K = inputKind(I);
      auto It = llvm::find_if(Kinds, [&](const auto &P) { return P.first == K; });
      if (It == Kinds.end()) {
        Kinds.push_back({K, {}});
        It = std::prev(Kinds.end());
      }
      It->second.push_back(I.Path);
    }
    for (const auto &[K, Paths] : Kinds) {
      OS << "  " << Paths.size() << " " << K << ": ";
      for (size_t I = 0; I < Paths.size() && I < 3; ++I)
        OS << (I ? ", " : "") << Paths[I];
      if (Paths.size() > 3)
        OS << " and " << (Paths.size() - 3) << " more";
      OS << "\n";
    }
  }
  if (R.Counters.Present) {
    printCountersText(R, OS);
    // Counters alone: no empty heap part.
    if (!R.HasMemProf)
      return;
  }
  if (R.Counters.Present)
    OS << "\nHeap profile (MemProf)\n";
  const ReportSummary &S = R.Summary;
  OS << "\nSummary\n";
  OS << "  " << left_justify("all", 13) << contexts(S.All.Contexts) << ", "
     << allocations(S.All.Allocations) << ", " << bytes(S.All.Bytes) << "\n";
  printTotals(OS, "cold", S.Cold, S.All.Bytes);
  printTotals(OS, "not cold", S.NotCold, S.All.Bytes);
  if (S.Hot.Contexts)
    printTotals(OS, "hot", S.Hot, S.All.Bytes);
  if (S.Unclassified.Contexts)
    printTotals(OS, "unclassified", S.Unclassified, S.All.Bytes);
  OS << "  functions    " << S.Functions << ", " << S.NamedFunctions
     << " named; frames " << S.Frames << ", " << S.FramesWithLocation
     << " with file:line\n";
  if (R.Heap) {
    // The questions asked first, answered where the profile is first seen.
    OS << "  heap         " << heapHeadline(R, HeapViewKind::Peak)
       << " (--view peak)\n";
    OS << "               " << heapHeadline(R, HeapViewKind::Leaks)
       << " (--view leaks)\n";
  }
  if (!S.Modules.empty()) {
    OS << "  modules (allocation sites):\n";
    for (const ModuleTotals &M : S.Modules) {
      OS << "    " << (M.BuildId.empty() ? "<unknown>" : M.BuildId);
      if (!M.Path.empty())
        OS << " " << M.Path;
      OS << ": " << contexts(M.Sites.Contexts) << ", " << bytes(M.Sites.Bytes);
      if (M.UnsymbolizedPCs)
        OS << "; " << addresses(M.UnsymbolizedPCs) << " not symbolized ("
           << M.Reason << ")";
      OS << "\n";
    }
  }
  if (S.AnyRaw && !S.GapsShown)
    OS << "  not symbolized: " << contexts(S.DroppedContexts) << " ("
       << allocations(S.DroppedAllocations) << ", " << bytes(S.DroppedBytes)
       << ") lost every frame; " << addresses(S.UnsymbolizedPCs)
       << " not symbolized; " << S.RuntimeFramesDropped
       << " profiler runtime frames dropped\n";
  else if (S.AnyRaw)
    OS << "  not symbolized: " << S.GapFrames
       << " frames, shown in place (\?\?), in " << contexts(S.WithGaps.Contexts)
       << " (" << allocations(S.WithGaps.Allocations) << ", "
       << bytes(S.WithGaps.Bytes) << "); " << addresses(S.UnsymbolizedPCs)
       << "; " << S.RuntimeFramesDropped
       << " profiler runtime frames dropped\n";
  if (!R.Options.FunctionFilters.empty())
    OS << "  selected     " << contexts(R.Selected.Contexts) << ", "
       << allocations(R.Selected.Allocations) << ", "
       << bytes(R.Selected.Bytes) << " match --function\n";
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";

  const GroupBy G = R.Options.Group;
  const auto Labels = viewLabels(R.Contexts);
  OS << "\nTop " << R.Contexts.size() << " of " << R.Rows << " "
     << (G == GroupBy::Context ? "contexts"
         : G == GroupBy::Site  ? "allocation sites"
         : G == GroupBy::Type  ? "types"
                               : "functions (by what they allocate, then by "
                                 "what is allocated through them)")
     << " by " << rankedByName(R.RankedBy);
  if (R.RankedBy != R.Options.Sort)
    OS << " (" << sortKeyName(R.Options.Sort)
       << (R.RankedBy || R.Options.Sort == SortKey::Bytes ? ""
                                                          : " and bytes")
       << " not stored)";
  OS << (R.Options.Reverse ? " (lowest first)" : "") << "\n";
  size_t Rank = 0;
  for (const ReportContext &C : R.Contexts) {
    ++Rank;
    OS << "\n#" << Rank << "  ";
    if (G == GroupBy::Function && !C.Contexts)
      OS << "no allocation site";
    else {
      OS << rowTotals(C, S.All.Bytes);
      if (G != GroupBy::Context)
        OS << ", " << contexts(C.Contexts);
      OS << ", " << (C.Class ? allocClassName(*C.Class) : StringRef("unclassified"));
    }
    if (G != GroupBy::Context && C.Cold.Contexts &&
        C.Cold.Contexts != C.Contexts)
      OS << " (cold: " << contexts(C.Cold.Contexts) << ", "
         << bytes(C.Cold.Bytes) << ")";
    if (C.Through)
      OS << "; through it: " << bytes(C.Through->Bytes) << " ("
         << percent(C.Through->Bytes, S.All.Bytes) << ") in "
         << allocations(C.Through->Allocations) << ", "
         << contexts(C.Through->Contexts);
    OS << "\n";
    // Only what the inputs store: a hot/cold-schema profile has no minima,
    // maxima or access counts, and shows none.
    auto Line = [&](StringRef Label, StringRef Text, StringRef Unit) {
      if (!Text.empty())
        OS << "    " << left_justify(Label, 10) << Text << Unit << "\n";
    };
    Line("size", stats(C, MIBTag::TotalSize, MIBTag::MinSize, MIBTag::MaxSize,
                       1, false),
         " bytes");
    Line("lifetime",
         stats(C, MIBTag::TotalLifetime, MIBTag::MinLifetime,
               MIBTag::MaxLifetime, 1, false),
         " ms");
    Line("accesses",
         stats(C, MIBTag::TotalAccessCount, MIBTag::MinAccessCount,
               MIBTag::MaxAccessCount, 1, true),
         "");
    std::string Density = stats(C, MIBTag::TotalAccessDensity,
                                MIBTag::MinAccessDensity,
                                MIBTag::MaxAccessDensity, 0.01, false);
    std::string Lifetime = stats(C, MIBTag::TotalLifetimeAccessDensity,
                                 MIBTag::MinLifetimeAccessDensity,
                                 MIBTag::MaxLifetimeAccessDensity, 0.01, false);
    if (!Density.empty())
      Density += " accesses/byte";
    if (!Lifetime.empty())
      Lifetime = (Density.empty() ? "lifetime " : "; lifetime ") + Lifetime +
                 " accesses/byte/s";
    Line("density", Density + Lifetime, "");
    // The type the context allocates, when known; a row of types always
    // says its type.
    Line("type",
         C.Type.empty() ? std::string(G == GroupBy::Type ? UnknownTypeLabel
                                                          : "")
         : R.Options.FullNames ? C.Type
                               : briefTypeName(C.Type),
         "");
    for (const ReportFrame &F : C.Frames)
      OS << "    " << (F.IsInlineFrame ? "[inlined] " : "")
         << frameLabel(F, R.Options.FullNames, &Labels) << "  "
         << frameWhere(F, G) << "\n";
  }
}

/// A value of the sort key, as the diff prints it.
static std::string keyValue(double V, SortKey K) {
  switch (K) {
  case SortKey::Bytes:
  case SortKey::Count:
  case SortKey::Accesses:
    return std::to_string(int64_t(V));
  case SortKey::Lifetime:
    return num(V);
  case SortKey::Density:
    return num(V * 0.01);
  }
  return num(V);
}

static StringRef keyUnit(SortKey K) {
  switch (K) {
  case SortKey::Bytes:
    return "bytes";
  case SortKey::Count:
    return "allocations";
  case SortKey::Accesses:
    return "accesses";
  case SortKey::Lifetime:
    return "ms average lifetime";
  case SortKey::Density:
    return "accesses/byte/s average lifetime access density";
  }
  return "";
}

static std::string signedValue(double V, SortKey K) {
  return (V > 0 ? "+" : "") + keyValue(V, K);
}

static std::string change(uint64_t Before, uint64_t After) {
  std::string S = std::to_string(Before) + " -> " + std::to_string(After);
  if (Before == After)
    return S;
  S += After > Before ? " (+" + std::to_string(After - Before)
                      : " (-" + std::to_string(Before - After);
  if (Before)
    S += formatv(", {0}{1:f1}%", After > Before ? "+" : "-",
                 100.0 *
                     double(After > Before ? After - Before : Before - After) /
                     double(Before))
             .str();
  return S + ")";
}

static void printSide(raw_ostream &OS, StringRef Label,
                      const std::vector<ReportInput> &Inputs) {
  OS << "  " << left_justify(Label, 8);
  for (size_t I = 0; I < Inputs.size() && I < 3; ++I)
    OS << (I ? ", " : "") << Inputs[I].Path;
  if (Inputs.size() > 3)
    OS << " and " << (Inputs.size() - 3) << " more";
  OS << "\n";
}

void printDiffText(const ReportDiff &D, raw_ostream &OS) {
  const ReportOptions &O = D.Options;
  const GroupBy G = O.Group;
  StringRef Rows = G == GroupBy::Context ? "contexts"
                   : G == GroupBy::Site  ? "allocation sites"
                   : G == GroupBy::Type  ? "types"
                                         : "functions";
  const SortKey By = D.ComparedBy;
  OS << "Comparison by " << sortKeyName(By) << " of " << Rows;
  if (By != O.Sort)
    OS << ", not " << sortKeyName(O.Sort) << " (see the note)";
  OS << "\n";
  printSide(OS, "base:", D.BeforeInputs);
  printSide(OS, "new:", D.AfterInputs);
  OS << "\nSummary\n";
  OS << "  " << left_justify("before", 13) << contexts(D.BeforeTotals.Contexts)
     << ", " << allocations(D.BeforeTotals.Allocations) << ", "
     << bytes(D.BeforeTotals.Bytes) << "\n";
  OS << "  " << left_justify("after", 13) << contexts(D.AfterTotals.Contexts)
     << ", " << allocations(D.AfterTotals.Allocations) << ", "
     << bytes(D.AfterTotals.Bytes) << "\n";
  OS << "  " << left_justify("bytes", 13)
     << change(D.BeforeTotals.Bytes, D.AfterTotals.Bytes) << "\n";
  OS << "  " << left_justify("allocations", 13)
     << change(D.BeforeTotals.Allocations, D.AfterTotals.Allocations) << "\n";
  if (By == SortKey::Accesses)
    OS << "  " << left_justify("accesses", 13)
       << change(D.BeforeAccesses, D.AfterAccesses) << "\n";
  OS << "  " << left_justify("rows", 13) << D.New << " new, " << D.Vanished
     << " vanished, " << D.Grown << " grown, " << D.Shrunk << " shrunk, "
     << D.Unchanged << " unchanged\n";
  for (const std::string &N : D.Notes)
    OS << "note: " << N << "\n";

  std::vector<ReportContext> Shown;
  for (const DiffRow &Row : D.Rows)
    Shown.push_back(Row.row());
  const auto Labels = viewLabels(Shown);
  const uint64_t Changed = D.New + D.Vanished + D.Grown + D.Shrunk;
  OS << "\nTop " << D.Rows.size() << " of " << Changed << " changed " << Rows
     << " by change of " << sortKeyName(By)
     << (O.Reverse ? " (largest fall first)" : "") << "\n";
  size_t Rank = 0;
  for (const DiffRow &Row : D.Rows) {
    const double Before = Row.Before ? sortValue(Row.Before->Info, By) : 0;
    const double After = Row.After ? sortValue(Row.After->Info, By) : 0;
    OS << "\n#" << ++Rank << "  " << signedValue(Row.Change, By) << " "
       << keyUnit(By) << ", " << Row.status() << ": "
       << (Row.Before ? keyValue(Before, By) : "none") << " -> "
       << (Row.After ? keyValue(After, By) : "none") << "\n";
    auto Field = [](const std::optional<ReportContext> &C, MIBTag T) {
      return C ? C->field(T).value_or(0) : 0;
    };
    OS << "    bytes " << change(Field(Row.Before, MIBTag::TotalSize),
                                 Field(Row.After, MIBTag::TotalSize))
       << "; allocations "
       << change(Field(Row.Before, MIBTag::AllocCount),
                 Field(Row.After, MIBTag::AllocCount));
    if (G != GroupBy::Context)
      OS << "; contexts " << (Row.Before ? Row.Before->Contexts : 0) << " -> "
         << (Row.After ? Row.After->Contexts : 0);
    OS << "\n";
    if (G == GroupBy::Type || !Row.row().Type.empty())
      OS << "    type      "
         << (Row.row().Type.empty() ? std::string(UnknownTypeLabel)
             : O.FullNames          ? Row.row().Type
                                    : briefTypeName(Row.row().Type))
         << "\n";
    for (const ReportFrame &F : Row.row().Frames)
      OS << "    " << (F.IsInlineFrame ? "[inlined] " : "")
         << frameLabel(F, O.FullNames, &Labels) << "  " << frameWhere(F, G)
         << "\n";
  }
}

//===----------------------------------------------------------------------===//
// JSON and YAML: one ordered tree, two printers
//===----------------------------------------------------------------------===//

namespace {

struct Node {
  enum Kind { Null, Bool, UInt, Real, Str, Arr, Obj } K = Null;
  bool B = false;
  uint64_t U = 0;
  double D = 0;
  std::string S;
  std::vector<Node> Items;
  std::vector<std::pair<std::string, Node>> Fields;

  static Node null() { return Node(); }
  static Node boolean(bool V) {
    Node N;
    N.K = Bool;
    N.B = V;
    return N;
  }
  static Node uint(uint64_t V) {
    Node N;
    N.K = UInt;
    N.U = V;
    return N;
  }
  static Node real(double V) {
    Node N;
    N.K = Real;
    N.D = V;
    return N;
  }
  static Node str(StringRef V) {
    Node N;
    N.K = Str;
    N.S = clean(V);
    return N;
  }
  static Node arr() {
    Node N;
    N.K = Arr;
    return N;
  }
  static Node obj() {
    Node N;
    N.K = Obj;
    return N;
  }
  Node &add(StringRef Key, Node V) {
    Fields.push_back({Key.str(), std::move(V)});
    return *this;
  }
  Node &push(Node V) {
    Items.push_back(std::move(V));
    return *this;
  }
  bool scalar() const { return K != Arr && K != Obj; }
  bool empty() const {
    return (K == Arr && Items.empty()) || (K == Obj && Fields.empty());
  }
};

Node optU(const Maybe<uint64_t> &V) { return V ? Node::uint(*V) : Node::null(); }
Node optD(const Maybe<double> &V, double Scale = 1) {
  return V ? Node::real(*V * Scale) : Node::null();
}
Node optScaled(const Maybe<uint64_t> &V, double Scale) {
  return V ? Node::real(double(*V) * Scale) : Node::null();
}

Node totals(const ClassTotals &T) {
  return Node::obj()
      .add("contexts", Node::uint(T.Contexts))
      .add("allocations", Node::uint(T.Allocations))
      .add("bytes", Node::uint(T.Bytes));
}

Node gapNode(const FrameGap &G) {
  const bool Outside = G.Reason == GapReason::OutsideSegments;
  return Node::obj()
      .add("reason", Node::str(gapReasonKey(G.Reason)))
      .add("build_id", G.BuildId.empty() ? Node::null() : Node::str(G.BuildId))
      .add("path", G.Path.empty() ? Node::null() : Node::str(clean(G.Path)))
      .add("offset", Outside ? Node::null() : Node::uint(G.Offset))
      .add("address", Outside ? Node::uint(G.Offset) : Node::null())
      .add("symbol", G.Symbol.empty() ? Node::null()
                                      : Node::str(clean(G.Symbol)));
}

Node counterSummary(const InstrProfSummary &S) {
  return Node::obj()
      .add("functions", Node::uint(S.TotalNumFunctions))
      .add("max_function_count", Node::uint(S.MaxFunctionCount))
      .add("max_internal_block_count", Node::uint(S.MaxInternalBlockCount))
      .add("blocks", Node::uint(S.TotalNumBlocks))
      .add("total_count", Node::uint(S.TotalBlockCount));
}

Node counterFunctionTree(const CounterFunctionReport &F, bool Detail) {
  Node N = Node::obj();
  N.add("name", Node::str(F.Name))
      .add("demangled_name", Node::str(F.Demangled))
      .add("hash", Node::str(guidName(F.Hash)))
      .add("context_sensitive", Node::boolean(F.CS))
      .add("max_count", Node::uint(F.MaxCount))
      .add("entry_count", Node::uint(F.EntryCount))
      .add("total_count", Node::uint(F.TotalCount))
      .add("num_counters", Node::uint(F.NumCounters));
  if (!Detail)
    return N;
  Node Counts = Node::arr();
  for (uint64_t C : F.Counts)
    Counts.push(Node::uint(C));
  N.add("counts", std::move(Counts));
  Node Bitmap = Node::arr();
  for (uint8_t B : F.Bitmap)
    Bitmap.push(Node::uint(B));
  N.add("bitmap_bytes", std::move(Bitmap));
  static constexpr const char *Keys[instrprof::NumValueKinds] = {
      "indirect_call_sites", "memop_size_sites", "vtable_sites"};
  for (unsigned K = 0; K < instrprof::NumValueKinds; ++K) {
    Node Sites = Node::arr();
    for (const auto &Site : F.Sites[K]) {
      Node Values = Node::arr();
      for (const CounterValueReport &V : Site) {
        Node VN = Node::obj();
        if (K == instrprof::ValueKindMemOPSize)
          VN.add("size", Node::uint(V.Value));
        else
          VN.add("value", Node::str(guidName(V.Value)))
              .add("name", V.Name.empty() ? Node::null() : Node::str(V.Name))
              .add("demangled_name", V.Name.empty() ? Node::null()
                                                    : Node::str(V.Demangled));
        VN.add("count", Node::uint(V.Count));
        Values.push(std::move(VN));
      }
      Sites.push(std::move(Values));
    }
    N.add(Keys[K], std::move(Sites));
  }
  return N;
}

Node countersTree(const Report &R) {
  const CounterReport &C = R.Counters;
  if (!C.Present)
    return Node::null();
  using namespace instrprof;
  Node Top = Node::arr();
  for (const CounterFunctionReport &F : C.Top)
    Top.push(counterFunctionTree(F, false));
  Node Sel = Node::arr();
  for (const CounterFunctionReport &F : C.Selected)
    Sel.push(counterFunctionTree(F, true));
  return Node::obj()
      .add("kind", Node::str(describeVariant(C.Variant & ~VariantMemProf)))
      .add("level", Node::str(C.Variant & VariantIR ? "IR" : "Front-end"))
      .add("entry_first", Node::boolean(C.Variant & VariantEntryFirst))
      .add("instrument_loop_entries",
           Node::boolean(C.Variant & VariantLoopEntries))
      .add("records", Node::uint(C.Records))
      .add("binary_ids", Node::uint(C.BinaryIds))
      .add("temporal_traces", Node::uint(C.Traces))
      .add("summary", counterSummary(C.Summary))
      .add("cs_summary",
           C.CSSummary ? counterSummary(*C.CSSummary) : Node::null())
      .add("top_functions", Node::uint(R.Options.TopFunctions))
      .add("ranked_functions", Node::uint(C.Ranked))
      .add("hottest", std::move(Top))
      .add("selected", std::move(Sel));
}

/// One row: a context or a group, with every field (null when not stored).
Node contextNode(const ReportContext &C, size_t Rank, bool Group) {
  auto Stat = [&](MIBTag Total, MIBTag Min, MIBTag Max, double Scale) {
    return Node::obj()
        .add("total", Scale == 1 ? optU(C.field(Total))
                                 : optScaled(C.field(Total), Scale))
        .add("average", optD(C.average(Total), Scale))
        .add("min", Scale == 1 ? optU(C.field(Min))
                               : optScaled(C.field(Min), Scale))
        .add("max", Scale == 1 ? optU(C.field(Max))
                               : optScaled(C.field(Max), Scale));
  };
  Node Frames = Node::arr();
  for (const ReportFrame &F : C.Frames)
    Frames.push(
        Node::obj()
            .add("function", F.Name.empty() ? Node::null() : Node::str(F.Name))
            .add("linkage_name", F.LinkageName.empty()
                                     ? Node::null()
                                     : Node::str(F.LinkageName))
            .add("guid", Node::str(guidName(F.Function)))
            .add("file", F.File.empty() ? Node::null() : Node::str(F.File))
            .add("line", F.File.empty() || !F.Line ? Node::null()
                                                   : Node::uint(F.Line))
            .add("column", Node::uint(F.Column))
            .add("line_offset", Node::uint(F.LineOffset))
            .add("inline", Node::boolean(F.IsInlineFrame))
            .add("gap", F.Gap ? gapNode(*F.Gap) : Node::null()));
  Node N =
      Node::obj()
          .add("rank", Node::uint(Rank))
          .add("id", Node::str(guidName(C.Id)))
          .add("class", C.Class ? Node::str(allocClassName(*C.Class))
                                : Node::null())
          .add("module", C.ModuleBuildId.empty()
                             ? Node::null()
                             : Node::str(C.ModuleBuildId))
          .add("type", C.Type.empty() ? Node::null() : Node::str(C.Type))
          .add("allocations", optU(C.field(MIBTag::AllocCount)))
          .add("size_bytes",
               Stat(MIBTag::TotalSize, MIBTag::MinSize, MIBTag::MaxSize, 1))
          .add("lifetime_ms", Stat(MIBTag::TotalLifetime, MIBTag::MinLifetime,
                                   MIBTag::MaxLifetime, 1))
          .add("accesses", Stat(MIBTag::TotalAccessCount,
                                MIBTag::MinAccessCount,
                                MIBTag::MaxAccessCount, 1))
          .add("access_density",
               Stat(MIBTag::TotalAccessDensity, MIBTag::MinAccessDensity,
                    MIBTag::MaxAccessDensity, 0.01))
          .add("lifetime_access_density",
               Stat(MIBTag::TotalLifetimeAccessDensity,
                    MIBTag::MinLifetimeAccessDensity,
                    MIBTag::MaxLifetimeAccessDensity, 0.01))
          .add("frames", std::move(Frames));
  if (Group) {
    N.add("contexts", Node::uint(C.Contexts));
    N.add("cold", totals(C.Cold));
    N.add("through", C.Through ? totals(*C.Through) : Node::null());
  }
  return N;
}

Node reportTree(const Report &R) {
  Node Root = Node::obj();
  Root.add("schema_version", Node::uint(1));
  Node Inputs = Node::arr();
  for (const ReportInput &I : R.Inputs) {
    Node Fields = Node::arr();
    for (uint8_t T : I.Schema)
      Fields.push(Node::str(mibFieldName(T)));
    Inputs.push(Node::obj()
                    .add("path", Node::str(I.Path))
                    .add("kind", Node::str(I.Raw    ? "raw"
                                          : I.Text ? "text"
                                                   : "indexed"))
                    .add("memprof_version", I.Raw || !I.HasMemProf ? Node::null()
                                                  : Node::uint(I.MemProfVersion))
                    .add("fields", std::move(Fields))
                    .add("names", Node::str(I.Names))
                    .add("memprof", Node::boolean(I.HasMemProf))
                    .add("counters", I.Counters.empty()
                                         ? Node::null()
                                         : Node::str(I.Counters)));
  }
  Root.add("inputs", std::move(Inputs));

  const ReportSummary &S = R.Summary;
  Node Modules = Node::arr();
  for (const ModuleTotals &M : S.Modules)
    Modules.push(Node::obj()
                     .add("build_id", M.BuildId.empty() ? Node::null()
                                                        : Node::str(M.BuildId))
                     .add("path", M.Path.empty() ? Node::null()
                                                 : Node::str(M.Path))
                     .add("contexts", Node::uint(M.Sites.Contexts))
                     .add("allocations", Node::uint(M.Sites.Allocations))
                     .add("bytes", Node::uint(M.Sites.Bytes))
                     .add("unsymbolized_addresses",
                          Node::uint(M.UnsymbolizedPCs)));
  Node Summary = Node::obj();
  Summary.add("contexts", Node::uint(S.All.Contexts))
      .add("allocations", Node::uint(S.All.Allocations))
      .add("bytes", Node::uint(S.All.Bytes))
      .add("classes", Node::obj()
                          .add("cold", totals(S.Cold))
                          .add("notcold", totals(S.NotCold))
                          .add("hot", totals(S.Hot))
                          .add("unclassified", totals(S.Unclassified)))
      .add("functions", Node::uint(S.Functions))
      .add("named_functions", Node::uint(S.NamedFunctions))
      .add("frames", Node::uint(S.Frames))
      .add("frames_with_location", Node::uint(S.FramesWithLocation))
      .add("modules", std::move(Modules))
      .add("unsymbolized",
           S.AnyRaw ? Node::obj()
                          .add("gaps_shown", Node::boolean(S.GapsShown))
                          .add("gap_frames", Node::uint(S.GapFrames))
                          .add("contexts",
                               Node::uint(S.GapsShown ? S.WithGaps.Contexts
                                                      : S.DroppedContexts))
                          .add("allocations",
                               Node::uint(S.GapsShown ? S.WithGaps.Allocations
                                                      : S.DroppedAllocations))
                          .add("bytes", Node::uint(S.GapsShown
                                                       ? S.WithGaps.Bytes
                                                       : S.DroppedBytes))
                          .add("addresses", Node::uint(S.UnsymbolizedPCs))
                          .add("runtime_frames",
                               Node::uint(S.RuntimeFramesDropped))
                    : Node::null());
  Root.add("summary", std::move(Summary));

  Node Filters = Node::arr();
  for (const std::string &F : R.Options.FunctionFilters)
    Filters.push(Node::str(F));
  Root.add("selection", Node::obj()
                            .add("functions", std::move(Filters))
                            .add("sort", Node::str(rankedByName(R.RankedBy)))
                            .add("requested_sort",
                                 Node::str(sortKeyName(R.Options.Sort)))
                            .add("reverse", Node::boolean(R.Options.Reverse))
                            .add("top", Node::uint(R.Options.TopContexts))
                            .add("group_by",
                                 Node::str(groupByName(R.Options.Group)))
                            .add("rows", Node::uint(R.Rows))
                            .add("contexts", Node::uint(R.Selected.Contexts))
                            .add("allocations",
                                 Node::uint(R.Selected.Allocations))
                            .add("bytes", Node::uint(R.Selected.Bytes)));
  Node Notes = Node::arr();
  for (const std::string &N : R.Notes)
    Notes.push(Node::str(N));
  Root.add("notes", std::move(Notes));

  Node Contexts = Node::arr();
  size_t Rank = 0;
  for (const ReportContext &C : R.Contexts)
    Contexts.push(contextNode(C, ++Rank, R.Options.Group != GroupBy::Context));
  Root.add("contexts", std::move(Contexts));
  Root.add("counters", countersTree(R));
  return Root;
}

/// A JSON string literal; also a valid YAML double-quoted scalar.
void quote(raw_ostream &OS, StringRef S) {
  OS << '"';
  for (unsigned char C : S) {
    switch (C) {
    case '"':
      OS << "\\\"";
      break;
    case '\\':
      OS << "\\\\";
      break;
    case '\n':
      OS << "\\n";
      break;
    case '\t':
      OS << "\\t";
      break;
    case '\r':
      OS << "\\r";
      break;
    default:
      if (C < 0x20 || C == 0x7f)
        OS << format("\\u%04x", C);
      else
        OS << C;
    }
  }
  OS << '"';
}

/// Shortest round-trip form, always with a '.' (YAML 1.1 needs one to read
/// a float).
void real(raw_ostream &OS, double V) {
  char Buf[64];
  auto Res = std::to_chars(Buf, Buf + sizeof(Buf), V);
  std::string S(Buf, Res.ptr);
  size_t E = S.find_first_of("eE");
  std::string Mantissa = S.substr(0, E);
  if (Mantissa.find('.') == std::string::npos)
    Mantissa += ".0";
  OS << Mantissa << (E == std::string::npos ? "" : S.substr(E));
}

void scalar(raw_ostream &OS, const Node &N) {
  switch (N.K) {
  case Node::Null:
    OS << "null";
    break;
  case Node::Bool:
    OS << (N.B ? "true" : "false");
    break;
  case Node::UInt:
    OS << N.U;
    break;
  case Node::Real:
    real(OS, N.D);
    break;
  case Node::Str:
    quote(OS, N.S);
    break;
  case Node::Arr:
    OS << "[]";
    break;
  case Node::Obj:
    OS << "{}";
    break;
  }
}

void printJSON(raw_ostream &OS, const Node &N, unsigned Indent) {
  if (N.scalar() || N.empty()) {
    scalar(OS, N);
    return;
  }
  const std::string Pad(Indent + 2, ' ');
  // Frames and other small objects of scalars fit on one line.
  bool Flat = N.K == Node::Obj && N.Fields.size() <= 8 &&
              llvm::all_of(N.Fields, [](const auto &F) {
                return F.second.scalar();
              });
  if (N.K == Node::Obj) {
    OS << '{';
    bool First = true;
    for (const auto &[Key, V] : N.Fields) {
      OS << (First ? "" : ",");
      if (Flat)
        OS << (First ? "" : " ");
      else
        OS << '\n' << Pad;
      First = false;
      quote(OS, Key);
      OS << ": ";
      printJSON(OS, V, Indent + 2);
    }
    if (!Flat)
      OS << '\n' << std::string(Indent, ' ');
    OS << '}';
    return;
  }
  // Lists of scalars fit on one line.
  const bool FlatList = llvm::all_of(N.Items, [](const Node &V) {
    return V.scalar();
  });
  OS << '[';
  bool First = true;
  for (const Node &V : N.Items) {
    OS << (First ? "" : ",");
    if (FlatList)
      OS << (First ? "" : " ");
    else
      OS << '\n' << Pad;
    First = false;
    printJSON(OS, V, Indent + 2);
  }
  if (!FlatList)
    OS << '\n' << std::string(Indent, ' ');
  OS << ']';
}

void printYAML(raw_ostream &OS, const Node &N, unsigned Indent,
               bool InlineFirst) {
  const std::string Pad(Indent, ' ');
  if (N.K == Node::Obj) {
    bool First = true;
    for (const auto &[Key, V] : N.Fields) {
      if (!(First && InlineFirst))
        OS << Pad;
      First = false;
      OS << Key << ':';
      if (V.scalar() || V.empty()) {
        OS << ' ';
        scalar(OS, V);
        OS << '\n';
      } else {
        OS << '\n';
        printYAML(OS, V, Indent + 2, false);
      }
    }
    return;
  }
  for (const Node &V : N.Items) {
    OS << Pad << "- ";
    if (V.scalar() || V.empty()) {
      scalar(OS, V);
      OS << '\n';
    } else if (V.K == Node::Obj) {
      printYAML(OS, V, Indent + 2, true);
    } else {
      OS << '\n';
      printYAML(OS, V, Indent + 2, false);
    }
  }
}

} // namespace

void printReportJSON(const Report &R, raw_ostream &OS) {
  printJSON(OS, reportTree(R), 0);
  OS << '\n';
}

void printReportYAML(const Report &R, raw_ostream &OS) {
  OS << "---\n";
  printYAML(OS, reportTree(R), 0, false);
}

static Node sideNode(const std::vector<ReportInput> &Inputs,
                     const ClassTotals &T) {
  Node Paths = Node::arr();
  for (const ReportInput &I : Inputs)
    Paths.push(Node::str(I.Path));
  return Node::obj()
      .add("inputs", std::move(Paths))
      .add("contexts", Node::uint(T.Contexts))
      .add("allocations", Node::uint(T.Allocations))
      .add("bytes", Node::uint(T.Bytes));
}

static Node diffTree(const ReportDiff &D) {
  const bool Group = D.Options.Group != GroupBy::Context;
  Node Root = Node::obj();
  Root.add("schema_version", Node::uint(1));
  Root.add("diff", Node::obj()
                       .add("sort", Node::str(sortKeyName(D.ComparedBy)))
                       .add("requested_sort",
                            Node::str(sortKeyName(D.Options.Sort)))
                       .add("reverse", Node::boolean(D.Options.Reverse))
                       .add("group_by", Node::str(groupByName(D.Options.Group)))
                       .add("top", Node::uint(D.Options.TopContexts)));
  Root.add("base", sideNode(D.BeforeInputs, D.BeforeTotals));
  Root.add("new", sideNode(D.AfterInputs, D.AfterTotals));
  Root.add("rows", Node::obj()
                       .add("new", Node::uint(D.New))
                       .add("vanished", Node::uint(D.Vanished))
                       .add("grown", Node::uint(D.Grown))
                       .add("shrunk", Node::uint(D.Shrunk))
                       .add("unchanged", Node::uint(D.Unchanged)));
  Node Notes = Node::arr();
  for (const std::string &N : D.Notes)
    Notes.push(Node::str(N));
  Root.add("notes", std::move(Notes));
  Node Rows = Node::arr();
  size_t Rank = 0;
  for (const DiffRow &Row : D.Rows) {
    ++Rank;
    Rows.push(Node::obj()
                  .add("rank", Node::uint(Rank))
                  .add("id", Node::str(guidName(Row.row().Id)))
                  .add("status", Node::str(Row.status()))
                  .add("change", Node::real(Row.Change))
                  .add("before", Row.Before ? contextNode(*Row.Before, Rank, Group)
                                            : Node::null())
                  .add("after", Row.After ? contextNode(*Row.After, Rank, Group)
                                          : Node::null()));
  }
  Root.add("changes", std::move(Rows));
  return Root;
}

void printDiffJSON(const ReportDiff &D, raw_ostream &OS) {
  printJSON(OS, diffTree(D), 0);
  OS << '\n';
}

void printDiffYAML(const ReportDiff &D, raw_ostream &OS) {
  OS << "---\n";
  printYAML(OS, diffTree(D), 0, false);
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

Expected<ProfileHeader> readProfileHeader(StringRef Data) {
  ProfileHeader H;
  if (isIndexedProfile(Data)) {
    NamesExtensionInfo NI;
    auto N = readNamesExtension(Data, &NI);
    if (!N)
      return N.takeError();
    IndexedProfileInfo Info;
    CounterProfile Counters;
    auto P = readIndexedProfile(NI.Present ? Data.take_front(NI.Offset) : Data,
                                &Info, nullptr, &Counters);
    if (!P)
      return P.takeError();
    H.Kind = "indexed";
    H.MemProf = Info.MemProfVersion != 0;
    H.Counters = Counters.Present;
    H.Contexts = indexedContexts(*P).size();
    H.FunctionRecords = Counters.Records.size();
    return H;
  }
  if (isRawInstrProf(Data) || isInstrProfText(Data)) {
    const bool Raw = isRawInstrProf(Data);
    auto C = Raw ? readRawInstrProf(Data) : readInstrProfText(Data);
    if (!C)
      return C.takeError();
    H.Kind = Raw ? "raw-counters" : "counters-text";
    H.Counters = true;
    H.FunctionRecords = C->Records.size();
    for (const std::string &Id : C->BinaryIds)
      H.Modules.push_back(buildIdToHex(Id));
    if (H.Modules.size() == 1)
      H.Program = H.Modules.front();
    return H;
  }
  if (isRawProfile(Data) || Data.size() < 8) {
    auto P = readRawProfile(Data);
    if (!P)
      return P.takeError();
    H.Kind = "raw";
    H.MemProf = true;
    H.Contexts = P->MIBs.size();
    for (const SegmentInfo &S : P->Segments) {
      if (S.BuildId.empty())
        continue;
      std::string Hex = buildIdToHex(S.BuildId);
      if (llvm::is_contained(H.Modules, Hex))
        continue; // a module's second segment
      if (H.Program.empty()) {
        H.Program = Hex;
        H.ProgramPath = clean(S.Path);
      }
      H.Modules.push_back(std::move(Hex));
    }
    return H;
  }
  return makeError(ErrorCode::BadMagic,
                   "not a raw or indexed profile (MemProf or PGO counters) "
                   "or LLVM's counters text",
                   0);
}

Expected<std::unique_ptr<ReportLoader>>
ReportLoader::create(const std::vector<std::string> &ProfiledBinaries,
                     const std::vector<std::string> &DebugDirs,
                     bool IgnoreNames, std::vector<std::string> SystemDirs) {
  auto Loc = ElfBinaryLocator::create(ProfiledBinaries, DebugDirs);
  if (!Loc)
    return Loc.takeError();
  if (SystemDirs.empty()) // nor files there that the profiles name
    (*Loc)->excludeRecordedPathsUnder(ElfBinaryLocator::systemDirs());
  (*Loc)->searchSystemDirs(std::move(SystemDirs));
  return make(std::move(*Loc), ProfiledBinaries, IgnoreNames);
}

Expected<std::unique_ptr<ReportLoader>>
ReportLoader::create(const ModuleSearch &S, bool IgnoreNames) {
  auto Loc = ElfBinaryLocator::create(S);
  if (!Loc)
    return Loc.takeError();
  return make(std::move(*Loc), S.ProfiledBinaries, IgnoreNames);
}

std::unique_ptr<ReportLoader>
ReportLoader::make(std::unique_ptr<ElfBinaryLocator> Locator,
                   const std::vector<std::string> &ProfiledBinaries,
                   bool IgnoreNames) {
  std::unique_ptr<ReportLoader> L(new ReportLoader());
  L->Locator = std::move(Locator);
  L->Binaries = ProfiledBinaries;
  L->IgnoreNames = IgnoreNames;
  L->Merger = std::make_unique<ProfileMerger>(L->Locator.get());
  L->Merger->keepGaps(); // a report shows what could not be symbolized
  return L;
}

ReportLoader::~ReportLoader() = default;

void ReportLoader::keepGaps(bool On) { Merger->keepGaps(On); }


Error ReportLoader::add(StringRef Path, StringRef Data) {
  ReportInput In;
  In.Path = Path.str();
  if (isIndexedProfile(Data)) {
    std::optional<ProfileNames> Names;
    HeapProfile Heap;
    if (!IgnoreNames) {
      NamesExtensionInfo NI;
      auto N = readNamesExtension(Data, &NI, &Heap);
      if (!N)
        return N.takeError();
      if (NI.Present) {
        Data = Data.take_front(NI.Offset);
        Names = std::move(*N);
      }
    }
    IndexedProfileInfo Info;
    CounterProfile Counters;
    auto P = readIndexedProfile(Data, &Info, nullptr, &Counters);
    if (!P)
      return P.takeError();
    if (Names)
      if (Error E = checkNamesContexts(*Names, *P))
        return E;
    if (Error E = checkHeapContexts(Heap, *P))
      return E;
    if (Counters.Present) {
      if (Error E = addCounters(Path, Counters))
        return E;
      In.Counters = describeVariant(Counters.Variant);
    }
    In.MemProfVersion = Info.MemProfVersion;
    In.HasMemProf = Info.MemProfVersion != 0;
    In.Schema = Info.Schema;
    In.Names = Names ? "profile" : "none";
    In.HeapRuns = Heap.Summary.Runs;
    Merger->addIndexed(*P, Info.Schema, Names ? &*Names : nullptr, 1, &Heap);
  } else if (isRawInstrProf(Data) || isInstrProfText(Data)) {
    const bool Raw = isRawInstrProf(Data);
    if (!Raw && (Data.contains("\n---\n") || Data.contains("\n---\r\n")))
      return makeError(ErrorCode::Usage,
                       "counters text with a MemProf part (the combined "
                       "form): make it an indexed profile with "
                       "memprof-convert --to-indexed first");
    auto C = Raw ? readRawInstrProf(Data) : readInstrProfText(Data);
    if (!C)
      return C.takeError();
    if (Error E = addCounters(Path, *C))
      return E;
    In.Raw = Raw;
    In.CountersRaw = Raw;
    In.Text = !Raw;
    In.Counters = describeVariant(C->Variant);
    In.Names = "profile";
  } else if (isRawProfile(Data) || Data.size() < 8) {
    auto P = readRawProfile(Data);
    if (!P)
      return P.takeError();
    if (Error E = Merger->addRaw(*P))
      return E;
    In.Raw = true;
    In.HeapRuns = P->HeapDumps.size();
    In.HasMemProf = true;
    In.Schema = fullSchema();
    In.Names = "symbolized";
  } else {
    return makeError(ErrorCode::BadMagic,
                     "not a raw or indexed profile (MemProf or PGO counters) "
                     "or LLVM's counters text",
                     0);
  }
  Inputs.push_back(std::move(In));
  return Error::success();
}

Expected<Report> ReportLoader::build(const ReportOptions &Opts) {
  const ProfileNames *Names = &Merger->names();
  ProfileNames Combined;
  bool Unnamed = llvm::any_of(Inputs, [](const ReportInput &I) {
    return I.Names == "none";
  });
  if (Unnamed && !Binaries.empty()) {
    // Only the GUIDs of the profile that nothing names yet.
    std::set<GUID> Wanted;
    Merger->forEachContext([&](CallStackId, ArrayRef<Frame> Fs,
                               const MemInfoBlock &, uint32_t) {
      for (const Frame &F : Fs)
        if (!Names->function(F.Function))
          Wanted.insert(F.Function);
    });
    ProfileNames FromBinaries;
    for (const std::string &B : Binaries)
      if (Error E = addBinaryNames(B, FromBinaries, &BinaryNotes,
                                   [&](GUID G) { return Wanted.count(G); }))
        return std::move(E);
    Combined = *Names;
    for (const auto &[G, N] : FromBinaries.functions())
      Combined.addFunction(G, N);
    Names = &Combined;
    for (ReportInput &I : Inputs)
      if (I.Names == "none")
        I.Names = "binary";
  }
  auto R = buildReport(*Merger, *Names, Inputs, Opts);
  if (!R)
    return R.takeError();
  // Modules of indexed inputs: the path of the binary named for them.
  for (const auto &[Path, Id] : Locator->profiledBinaries())
    for (ModuleTotals &M : R->Summary.Modules)
      if (M.Path.empty() && M.BuildId == buildIdToHex(Id))
        M.Path = Path;
  return R;
}

Error ReportLoader::addCounters(StringRef Path, const CounterProfile &P) {
  std::vector<CounterWarning> Warnings;
  if (Error E = Merger->addCounters(P, 1, Warnings))
    return E;
  for (const CounterWarning &W : Warnings)
    CounterNotes.push_back((Path + ": " + W.Function + ": " +
                            counterIssueText(W.Issue))
                               .str());
  return Error::success();
}

void ReportLoader::saveSymbolCache() { Locator->saveSymbolCache(); }

std::vector<std::string> ReportLoader::notes() const {
  std::vector<std::string> N = Locator->notes();
  N.insert(N.end(), CounterNotes.begin(), CounterNotes.end());
  N.insert(N.end(), BinaryNotes.begin(), BinaryNotes.end());
  std::vector<std::string> W = Merger->symbolizationWarnings();
  N.insert(N.end(), W.begin(), W.end());
  return N;
}

} // namespace memprof
