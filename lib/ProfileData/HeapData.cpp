//===- HeapData.cpp - Heap data: merge rules and the indexed heap table ----===//
#include "memprof/ProfileData/HeapData.h"
#include "NamesSection.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/format/RawProfileFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/LEB128.h"
#include <algorithm>
#include <tuple>
#include <unordered_set>

using namespace llvm;

namespace memprof {

void HeapStats::add(const HeapStats &O) {
  LiveBytes = satAdd(LiveBytes, O.LiveBytes);
  LiveBlocks = satAdd(LiveBlocks, O.LiveBlocks);
  PeakBytes = satAdd(PeakBytes, O.PeakBytes);
  PeakBlocks = satAdd(PeakBlocks, O.PeakBlocks);
}

void HeapStats::scale(uint64_t Weight) {
  LiveBytes = satMul(LiveBytes, Weight);
  LiveBlocks = satMul(LiveBlocks, Weight);
  PeakBytes = satMul(PeakBytes, Weight);
  PeakBlocks = satMul(PeakBlocks, Weight);
}

void HeapSummary::add(const HeapSummary &O) {
  Runs = satAdd(Runs, O.Runs);
  ExitRuns = satAdd(ExitRuns, O.ExitRuns);
  PeakBytes = satAdd(PeakBytes, O.PeakBytes);
  PeakBlocks = satAdd(PeakBlocks, O.PeakBlocks);
}

void HeapSummary::scale(uint64_t Weight) {
  Runs = satMul(Runs, Weight);
  ExitRuns = satMul(ExitRuns, Weight);
  PeakBytes = satMul(PeakBytes, Weight);
  PeakBlocks = satMul(PeakBlocks, Weight);
}

bool preferTimeline(const HeapTimeline &A, const HeapTimeline &B) {
  if (A.PeakBytes != B.PeakBytes)
    return A.PeakBytes > B.PeakBytes;
  if (A.PeakTimeMs != B.PeakTimeMs)
    return A.PeakTimeMs < B.PeakTimeMs;
  auto Key = [](const HeapSample &S) {
    return std::make_tuple(S.TimeMs, S.TotalBytes, S.Top.size());
  };
  for (size_t I = 0; I < A.Samples.size() && I < B.Samples.size(); ++I) {
    const HeapSample &X = A.Samples[I], &Y = B.Samples[I];
    if (Key(X) != Key(Y))
      return Key(X) < Key(Y);
    for (size_t J = 0; J < X.Top.size(); ++J) {
      auto KX = std::make_pair(X.Top[J].Context, X.Top[J].Bytes);
      auto KY = std::make_pair(Y.Top[J].Context, Y.Top[J].Bytes);
      if (KX != KY)
        return KX < KY;
    }
  }
  return A.Samples.size() < B.Samples.size();
}

void normalizeTop(SmallVectorImpl<HeapTopEntry> &Top) {
  llvm::sort(Top, [](const HeapTopEntry &A, const HeapTopEntry &B) {
    return A.Context < B.Context;
  });
  size_t Out = 0;
  for (size_t I = 0; I < Top.size(); ++I) {
    if (Out && Top[Out - 1].Context == Top[I].Context)
      Top[Out - 1].Bytes = satAdd(Top[Out - 1].Bytes, Top[I].Bytes);
    else
      Top[Out++] = Top[I];
  }
  Top.resize(Out);
  llvm::sort(Top, [](const HeapTopEntry &A, const HeapTopEntry &B) {
    return A.Bytes != B.Bytes ? A.Bytes > B.Bytes : A.Context < B.Context;
  });
}

//===----------------------------------------------------------------------===//
// The heap table
//===----------------------------------------------------------------------===//

namespace {

/// The contexts a table lists: those with a value and those the timeline
/// names, by id.
std::map<CallStackId, HeapStats> listedContexts(const HeapProfile &H) {
  std::map<CallStackId, HeapStats> Out;
  for (const auto &[Id, S] : H.Contexts)
    if (!S.empty())
      Out.emplace(Id, S);
  for (const HeapSample &S : H.Timeline.Samples)
    for (const HeapTopEntry &E : S.Top) {
      auto It = H.Contexts.find(E.Context);
      Out.emplace(E.Context, It == H.Contexts.end() ? HeapStats() : It->second);
    }
  return Out;
}

} // namespace

void writeHeapTable(SmallVectorImpl<char> &Out, const HeapProfile &H) {
  const HeapSummary &S = H.Summary;
  writeULEB(Out, S.Runs);
  writeULEB(Out, S.ExitRuns);
  writeULEB(Out, S.PeakBytes);
  writeULEB(Out, S.PeakBlocks);
  std::map<CallStackId, HeapStats> Listed = listedContexts(H);
  writeULEB(Out, Listed.size());
  std::map<CallStackId, uint64_t> Index;
  for (const auto &[Id, C] : Listed) {
    Index.emplace(Id, Index.size());
    write64(Out, Id);
    writeULEB(Out, C.LiveBytes);
    writeULEB(Out, C.LiveBlocks);
    writeULEB(Out, C.PeakBytes);
    writeULEB(Out, C.PeakBlocks);
  }
  const HeapTimeline &T = H.Timeline;
  writeULEB(Out, T.PeakTimeMs);
  writeULEB(Out, T.PeakBytes);
  writeULEB(Out, T.Samples.size());
  uint64_t Prev = 0;
  for (const HeapSample &Sample : T.Samples) {
    writeULEB(Out, Sample.TimeMs - Prev);
    Prev = Sample.TimeMs;
    writeULEB(Out, Sample.TotalBytes);
    SmallVector<HeapTopEntry, 8> Top(Sample.Top.begin(), Sample.Top.end());
    normalizeTop(Top);
    writeULEB(Out, Top.size());
    for (const HeapTopEntry &E : Top) {
      writeULEB(Out, Index[E.Context]);
      writeULEB(Out, E.Bytes);
    }
  }
}

Expected<HeapProfile> readHeapTable(StringRef Section, uint64_t Base) {
  SectionCursor S(Section, Base, "heap table");
  HeapProfile H;
  auto Field = [&](uint64_t &Out, const Twine &What) -> Error {
    auto V = S.uleb(What);
    if (!V)
      return V.takeError();
    Out = *V;
    return Error::success();
  };
  uint64_t At = S.C.absoluteOffset();
  if (Error E = Field(H.Summary.Runs, "runs"))
    return std::move(E);
  if (H.Summary.Runs == 0)
    return namesMalformed("heap table counts 0 runs", At);
  At = S.C.absoluteOffset();
  if (Error E = Field(H.Summary.ExitRuns, "exit runs"))
    return std::move(E);
  if (H.Summary.ExitRuns > H.Summary.Runs)
    return namesMalformed("heap table counts " + Twine(H.Summary.ExitRuns) +
                              " exit runs of " + Twine(H.Summary.Runs) +
                              " runs",
                          At);
  if (Error E = Field(H.Summary.PeakBytes, "peak bytes"))
    return std::move(E);
  At = S.C.absoluteOffset();
  if (Error E = Field(H.Summary.PeakBlocks, "peak blocks"))
    return std::move(E);
  if (H.Summary.PeakBlocks == 0 && H.Summary.PeakBytes != 0)
    return namesMalformed("heap table peak of " +
                              Twine(H.Summary.PeakBytes) +
                              " bytes in 0 blocks",
                          At);

  // A context takes at least 12 bytes: its id and four one-byte varints.
  auto N = S.count(12, "heap context");
  if (!N)
    return N.takeError();
  std::vector<CallStackId> Ids;
  Ids.reserve(*N);
  for (uint64_t I = 0; I < *N; ++I) {
    At = S.C.absoluteOffset();
    auto IdOr = S.increasingId(
        I, Ids.empty() ? std::nullopt : std::optional<uint64_t>(Ids.back()),
        "heap context", "id");
    if (!IdOr)
      return IdOr.takeError();
    const uint64_t Id = *IdOr;
    HeapStats C;
    for (auto [Out, What] :
         {std::pair(&C.LiveBytes, "live bytes"),
          std::pair(&C.LiveBlocks, "live blocks"),
          std::pair(&C.PeakBytes, "peak bytes"),
          std::pair(&C.PeakBlocks, "peak blocks")})
      if (Error E = Field(*Out, Twine("heap context ") + What))
        return std::move(E);
    if ((C.LiveBlocks == 0 && C.LiveBytes != 0) ||
        (C.PeakBlocks == 0 && C.PeakBytes != 0))
      return namesMalformed("heap context " + Twine(I) +
                                " has bytes in 0 blocks",
                            At);
    Ids.push_back(Id);
    H.Contexts.emplace(Id, C);
  }

  HeapTimeline &T = H.Timeline;
  if (Error E = Field(T.PeakTimeMs, "timeline peak time"))
    return std::move(E);
  At = S.C.absoluteOffset();
  if (Error E = Field(T.PeakBytes, "timeline peak bytes"))
    return std::move(E);
  if (T.PeakBytes > H.Summary.PeakBytes)
    return namesMalformed("heap timeline peak of " + Twine(T.PeakBytes) +
                              " bytes is above the runs' sum of " +
                              Twine(H.Summary.PeakBytes),
                          At);
  At = S.C.absoluteOffset();
  // A sample takes at least 3 bytes: three one-byte varints.
  auto NumSamples = S.count(3, "heap sample");
  if (!NumSamples)
    return NumSamples.takeError();
  if (*NumSamples > raw::HeapMaxSamples)
    return namesMalformed("heap timeline of " + Twine(*NumSamples) +
                              " samples; at most " +
                              Twine(raw::HeapMaxSamples) + " are kept",
                          At);
  std::vector<bool> Named(Ids.size());
  T.Samples.reserve(*NumSamples);
  uint64_t Time = 0;
  for (uint64_t I = 0; I < *NumSamples; ++I) {
    At = S.C.absoluteOffset();
    HeapSample Sample;
    uint64_t Delta;
    if (Error E = Field(Delta, "heap sample time delta"))
      return std::move(E);
    if (Delta > UINT64_MAX - Time)
      return namesMalformed("heap sample " + Twine(I) +
                                " time overflows 64 bits",
                            At);
    Time += Delta;
    Sample.TimeMs = Time;
    At = S.C.absoluteOffset();
    if (Error E = Field(Sample.TotalBytes, "heap sample total"))
      return std::move(E);
    if (Sample.TotalBytes > T.PeakBytes)
      return namesMalformed("heap sample " + Twine(I) + " total of " +
                                Twine(Sample.TotalBytes) +
                                " bytes is above the timeline's peak of " +
                                Twine(T.PeakBytes),
                            At);
    At = S.C.absoluteOffset();
    uint64_t NumTop;
    if (Error E = Field(NumTop, "heap sample top count"))
      return std::move(E);
    if (NumTop > raw::HeapMaxTop)
      return namesMalformed("heap sample " + Twine(I) + " names " +
                                Twine(NumTop) + " contexts; at most " +
                                Twine(raw::HeapMaxTop),
                            At);
    std::optional<std::pair<uint64_t, uint64_t>> Prev; // bytes, index
    for (uint64_t J = 0; J < NumTop; ++J) {
      At = S.C.absoluteOffset();
      uint64_t Index, Bytes;
      if (Error E = Field(Index, "heap sample context"))
        return std::move(E);
      if (Index >= Ids.size())
        return namesMalformed("heap sample " + Twine(I) + " context " +
                                  Twine(Index) + " is not one of the " +
                                  Twine(Ids.size()) + " heap contexts",
                              At);
      if (Error E = Field(Bytes, "heap sample context bytes"))
        return std::move(E);
      if (llvm::any_of(Sample.Top, [&](const HeapTopEntry &E) {
            return E.Context == Ids[Index];
          }))
        return namesMalformed("heap sample " + Twine(I) + " entry " +
                                  Twine(J) + " names context " + Twine(Index) +
                                  " again",
                              At);
      // Largest first, equal bytes by index.
      if (Prev && !(Bytes < Prev->first ||
                    (Bytes == Prev->first && Index > Prev->second)))
        return namesMalformed("heap sample " + Twine(I) + " entry " +
                                  Twine(J) +
                                  " is not ordered after the previous one "
                                  "(largest first, then by context)",
                              At);
      Prev = {Bytes, Index};
      Named[Index] = true;
      Sample.Top.push_back({Ids[Index], Bytes});
    }
    T.Samples.push_back(std::move(Sample));
  }
  if (Error E = S.finish())
    return std::move(E);
  // Every listed context holds something or is named by a sample, so a
  // table has one form.
  for (size_t I = 0; I < Ids.size(); ++I)
    if (!Named[I] && H.Contexts[Ids[I]].empty())
      return namesMalformed("heap context " + Twine(I) + " id 0x" +
                                Twine::utohexstr(Ids[I]) +
                                " holds nothing and no sample names it",
                            Base);
  return std::move(H);
}

Error checkHeapContexts(const HeapProfile &H, const IndexedMemProf &P) {
  if (H.Contexts.empty())
    return Error::success();
  std::unordered_set<CallStackId> Known;
  for (const IndexedContext &C : indexedContexts(P))
    Known.insert(C.Id);
  for (const auto &KV : H.Contexts)
    if (!Known.count(KV.first))
      return namesMalformed("heap context id 0x" + Twine::utohexstr(KV.first) +
                                " is not an allocation context of the LLVM "
                                "part",
                            MemProfError::NoOffset);
  return Error::success();
}

} // namespace memprof
