//===- HeapView.cpp - memprof-show's peak and leaks views ------------------===//
#include "memprof/ProfileData/HeapView.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Export.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace memprof {

std::optional<HeapViewKind> parseHeapView(StringRef Name) {
  if (Name == "peak")
    return HeapViewKind::Peak;
  if (Name == "leaks")
    return HeapViewKind::Leaks;
  return std::nullopt;
}

StringRef heapViewName(HeapViewKind K) {
  return K == HeapViewKind::Peak ? "peak" : "leaks";
}

uint64_t heapBytes(const HeapStats &S, HeapViewKind K) {
  return K == HeapViewKind::Peak ? S.PeakBytes : S.LiveBytes;
}

uint64_t heapBlocks(const HeapStats &S, HeapViewKind K) {
  return K == HeapViewKind::Peak ? S.PeakBlocks : S.LiveBlocks;
}

std::string humanBytes(uint64_t N) {
  static const char *const Units[] = {"KiB", "MiB", "GiB", "TiB", "PiB",
                                      "EiB"};
  if (N < 1024)
    return std::to_string(N) + " B";
  double V = double(N) / 1024;
  unsigned U = 0;
  // Round first, so that 1023.96 KiB shows as 1.0 MiB, not 1024.0 KiB.
  while (std::round(V * 10) / 10 >= 1024 && U + 1 < std::size(Units)) {
    V /= 1024;
    ++U;
  }
  return formatv("{0:f1} {1}", V, Units[U]).str();
}

std::string thousands(uint64_t N) {
  std::string D = std::to_string(N), Out;
  for (size_t I = 0; I < D.size(); ++I) {
    if (I && (D.size() - I) % 3 == 0)
      Out += ',';
    Out += D[I];
  }
  return Out;
}

namespace {

std::string percent(uint64_t Part, uint64_t Whole) {
  if (!Whole)
    return "0.0%";
  return formatv("{0:f1}%", 100.0 * double(Part) / double(Whole)).str();
}

std::string seconds(uint64_t Ms) {
  return formatv("{0:f2} s", double(Ms) / 1000).str();
}

std::string blocks(uint64_t N) {
  return thousands(N) + (N == 1 ? " block" : " blocks");
}

std::string runs(uint64_t N) {
  return thousands(N) + (N == 1 ? " run" : " runs");
}

/// "bytes at the peak", "bytes live at exit".
std::string whatRanked(const HeapView &V) {
  if (V.Kind == HeapViewKind::Peak)
    return "bytes at the peak";
  return V.AtExit ? "bytes live at exit" : "bytes live at the dump";
}

StringRef rowsName(GroupBy G) {
  return G == GroupBy::Context ? "contexts"
         : G == GroupBy::Site  ? "allocation sites"
                               : "functions";
}

/// The frames of a report's row: its own, or those it refers to.
std::vector<const ReportFrame *> framesOf(const Report &R,
                                          const ReportContext &C) {
  std::vector<const ReportFrame *> Out;
  for (const ReportFrame &F : C.Frames)
    Out.push_back(&F);
  for (uint32_t I : C.FrameIds)
    if (I < R.FrameTable.size())
      Out.push_back(&R.FrameTable[I]);
  return Out;
}

std::map<std::string, std::string> labelsOf(const Report &R,
                                            ArrayRef<ReportContext> Rows) {
  std::set<std::string> Names;
  for (const ReportContext &C : Rows)
    for (const ReportFrame *F : framesOf(R, C))
      if (!F->Gap && !F->Name.empty())
        Names.insert(F->Name);
  return distinctShortNames(Names);
}

void printFrames(raw_ostream &OS, const Report &R, const ReportContext &C,
                 GroupBy G, bool FullNames,
                 const std::map<std::string, std::string> &Labels) {
  for (const ReportFrame *F : framesOf(R, C))
    OS << "    " << (F->IsInlineFrame ? "[inlined] " : "")
       << frameLabel(*F, FullNames, &Labels) << "  " << frameWhere(*F, G)
       << "\n";
}

void printInputs(raw_ostream &OS, StringRef Label,
                 ArrayRef<ReportInput> Inputs) {
  OS << Label;
  for (size_t I = 0; I < Inputs.size() && I < 3; ++I)
    OS << (I ? ", " : "") << Inputs[I].Path;
  if (Inputs.size() > 3)
    OS << " and " << (Inputs.size() - 3) << " more";
  OS << "\n";
}

void framesJSON(json::OStream &J, const Report &R, const ReportContext &C) {
  auto OrNull = [&](StringRef Key, const std::string &V) {
    if (V.empty())
      J.attribute(Key, nullptr);
    else
      J.attribute(Key, V);
  };
  J.attributeArray("frames", [&] {
    for (const ReportFrame *F : framesOf(R, C))
      J.object([&] {
        OrNull("function", F->Name);
        OrNull("linkage_name", F->LinkageName);
        J.attribute("guid", hexValue(F->Function));
        OrNull("file", F->File);
        if (F->File.empty() || F->Line == 0)
          J.attribute("line", nullptr);
        else
          J.attribute("line", F->Line);
        J.attribute("column", F->Column);
        J.attribute("line_offset", F->LineOffset);
        J.attribute("inline", F->IsInlineFrame);
        if (!F->Gap) {
          J.attribute("gap", nullptr);
          return;
        }
        J.attributeObject("gap", [&] {
          J.attribute("reason", gapReasonKey(F->Gap->Reason));
          OrNull("build_id", F->Gap->BuildId);
          J.attribute("offset", F->Gap->Offset);
        });
      });
  });
}

void statsJSON(json::OStream &J, StringRef Key, uint64_t Bytes,
               uint64_t Blocks) {
  J.attributeObject(Key, [&] {
    J.attribute("bytes", Bytes);
    J.attribute("blocks", Blocks);
  });
}

void inputsJSON(json::OStream &J, ArrayRef<ReportInput> Inputs) {
  J.attributeArray("inputs", [&] {
    for (const ReportInput &I : Inputs)
      J.object([&] {
        J.attribute("path", validUTF8(I.Path));
        J.attribute("heap_runs", I.HeapRuns);
      });
  });
}

} // namespace

Expected<HeapView> buildHeapView(Report R, HeapViewKind K, size_t Top) {
  if (!R.Heap)
    return makeError(
        ErrorCode::NotFound,
        "no heap data: --view " + heapViewName(K) +
            " needs a profile of memprof's runtime that recorded it; profiles "
            "of clang's runtime, llvm-profdata's and those of memprof before "
            "heap data (issue 34) do not record it");
  HeapView V;
  V.Kind = K;
  const HeapSummary &H = *R.Heap;
  V.AtExit = H.ExitRuns == H.Runs;
  V.TotalBytes = K == HeapViewKind::Peak ? H.PeakBytes : R.Summary.Heap.LiveBytes;
  V.TotalBlocks =
      K == HeapViewKind::Peak ? H.PeakBlocks : R.Summary.Heap.LiveBlocks;
  const uint64_t NoHeap = llvm::count_if(
      R.Inputs, [](const ReportInput &I) { return I.HeapRuns == 0; });
  if (NoHeap)
    V.Notes.push_back((Twine(NoHeap) + " of " + Twine(R.Inputs.size()) +
                       " inputs recorded no heap data; the values are of the "
                       "others' " + runs(H.Runs))
                          .str());
  std::vector<ReportContext> Rows;
  for (ReportContext &C : R.Contexts)
    if (heapBytes(C.Heap, K) || heapBlocks(C.Heap, K))
      Rows.push_back(std::move(C));
  const bool Reverse = R.Options.Reverse;
  llvm::stable_sort(Rows, [&](const ReportContext &A, const ReportContext &B) {
    uint64_t BA = heapBytes(A.Heap, K), BB = heapBytes(B.Heap, K);
    if (BA != BB)
      return Reverse ? BA < BB : BA > BB;
    uint64_t NA = heapBlocks(A.Heap, K), NB = heapBlocks(B.Heap, K);
    if (NA != NB)
      return Reverse ? NA < NB : NA > NB;
    return A.Id < B.Id;
  });
  V.Rows = Rows.size();
  if (Rows.size() > Top)
    Rows.resize(Top);
  R.Contexts = std::move(Rows);
  V.R = std::move(R);
  return std::move(V);
}

std::string heapHeadline(const Report &R, HeapViewKind K) {
  if (!R.Heap)
    return "";
  const HeapSummary &H = *R.Heap;
  const HeapTimeline &T = R.Timeline;
  if (K == HeapViewKind::Peak) {
    if (H.Runs == 1)
      return "peak: " + humanBytes(H.PeakBytes) + " in " +
             blocks(H.PeakBlocks) + " at " + seconds(T.PeakTimeMs) + ", 1 run";
    return "peak: " + humanBytes(H.PeakBytes) + " in " + blocks(H.PeakBlocks) +
           " summed over " + runs(H.Runs) + " (average " +
           humanBytes(H.PeakBytes / H.Runs) + "); the highest, " +
           humanBytes(T.PeakBytes) + ", at " + seconds(T.PeakTimeMs);
  }
  const bool AtExit = H.ExitRuns == H.Runs;
  const HeapStats &All = R.Summary.Heap;
  std::string Live = (AtExit ? "live at exit: " : "live at the dump: ") +
                     humanBytes(All.LiveBytes) + " in " +
                     blocks(All.LiveBlocks) + ", " + runs(H.Runs);
  if (!AtExit && H.ExitRuns)
    Live += " (" + thousands(H.ExitRuns) + " dumped at exit)";
  return Live;
}

std::string heapViewHeadline(const HeapView &V) {
  return heapHeadline(V.R, V.Kind);
}

void printHeapViewText(const HeapView &V, raw_ostream &OS) {
  const Report &R = V.R;
  if (R.Inputs.size() == 1)
    OS << "Profile " << R.Inputs[0].Path << "\n";
  else
    printInputs(OS, "Profiles: " + std::to_string(R.Inputs.size()) +
                        " inputs: ",
                R.Inputs);
  const HeapViewKind K = V.Kind;
  const HeapViewKind Other =
      K == HeapViewKind::Peak ? HeapViewKind::Leaks : HeapViewKind::Peak;
  OS << "\n"
     << (K == HeapViewKind::Peak ? "Heap at its peak"
         : V.AtExit              ? "Heap live at exit"
                                 : "Heap live at the dump")
     << "\n";
  OS << "  " << heapViewHeadline(V) << "\n";
  {
    // The other view's headline, for context.
    HeapView O;
    O.Kind = Other;
    O.AtExit = V.AtExit;
    O.R.Heap = R.Heap;
    O.R.Timeline = R.Timeline;
    O.R.Summary.Heap = R.Summary.Heap;
    OS << "  " << heapViewHeadline(O) << "\n";
  }
  if (!R.Options.FunctionFilters.empty())
    OS << "  selected: " << V.Rows << " " << rowsName(R.Options.Group)
       << " with " << whatRanked(V) << " match --function\n";
  for (const std::string &N : V.Notes)
    OS << "note: " << N << "\n";
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";

  const GroupBy G = R.Options.Group;
  OS << "\nTop " << R.Contexts.size() << " of " << V.Rows << " "
     << rowsName(G) << " by " << whatRanked(V)
     << (R.Options.Reverse ? " (lowest first)" : "") << "\n";
  const auto Labels = labelsOf(R, R.Contexts);
  const StringRef OtherWhat =
      K == HeapViewKind::Peak
          ? (V.AtExit ? "live at exit" : "live at the dump")
          : "at the peak";
  size_t Rank = 0;
  for (const ReportContext &C : R.Contexts) {
    OS << "\n#" << ++Rank << "  " << heapBytes(C.Heap, K) << " bytes ("
       << percent(heapBytes(C.Heap, K), V.TotalBytes) << ") in "
       << blocks(heapBlocks(C.Heap, K));
    if (G != GroupBy::Context)
      OS << ", " << C.Contexts << (C.Contexts == 1 ? " context" : " contexts");
    OS << "; " << OtherWhat << ": " << heapBytes(C.Heap, Other)
       << " bytes in " << blocks(heapBlocks(C.Heap, Other)) << "\n";
    printFrames(OS, R, C, G, R.Options.FullNames, Labels);
  }
}

void printHeapViewJSON(const HeapView &V, raw_ostream &OS) {
  const Report &R = V.R;
  const HeapSummary &H = *R.Heap;
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("schema_version", 1);
    J.attribute("view", heapViewName(V.Kind));
    inputsJSON(J, R.Inputs);
    J.attributeObject("heap", [&] {
      J.attribute("runs", H.Runs);
      J.attribute("exit_runs", H.ExitRuns);
      J.attribute("peak_bytes", H.PeakBytes);
      J.attribute("peak_blocks", H.PeakBlocks);
      J.attribute("live_bytes", R.Summary.Heap.LiveBytes);
      J.attribute("live_blocks", R.Summary.Heap.LiveBlocks);
      J.attribute("live_at", V.AtExit ? "exit" : "dump");
      J.attributeObject("timeline", [&] {
        J.attribute("peak_time_ms", R.Timeline.PeakTimeMs);
        J.attribute("peak_bytes", R.Timeline.PeakBytes);
        J.attributeArray("samples", [&] {
          for (const HeapSample &S : R.Timeline.Samples)
            J.object([&] {
              J.attribute("time_ms", S.TimeMs);
              J.attribute("total_bytes", S.TotalBytes);
              J.attributeArray("top", [&] {
                for (const HeapTopEntry &E : S.Top)
                  J.object([&] {
                    J.attribute("id", hexValue(E.Context));
                    J.attribute("bytes", E.Bytes);
                  });
              });
            });
        });
      });
    });
    J.attribute("headline", heapViewHeadline(V));
    J.attribute("group_by", groupByName(R.Options.Group));
    J.attribute("reverse", R.Options.Reverse);
    statsJSON(J, "total", V.TotalBytes, V.TotalBlocks);
    J.attribute("rows", V.Rows);
    J.attributeArray("notes", [&] {
      for (const std::string &N : V.Notes)
        J.value(validUTF8(N));
      for (const std::string &N : R.Notes)
        J.value(validUTF8(N));
    });
    J.attributeArray("contexts", [&] {
      size_t Rank = 0;
      for (const ReportContext &C : R.Contexts)
        J.object([&] {
          const uint64_t Bytes = heapBytes(C.Heap, V.Kind);
          J.attribute("rank", ++Rank);
          J.attribute("id", hexValue(C.Id));
          J.attribute("bytes", Bytes);
          J.attribute("blocks", heapBlocks(C.Heap, V.Kind));
          J.attribute("share", V.TotalBytes ? double(Bytes) /
                                                  double(V.TotalBytes)
                                            : 0.0);
          statsJSON(J, "peak", C.Heap.PeakBytes, C.Heap.PeakBlocks);
          statsJSON(J, "live", C.Heap.LiveBytes, C.Heap.LiveBlocks);
          J.attribute("contexts", C.Contexts);
          framesJSON(J, R, C);
        });
    });
  });
  OS << "\n";
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

StringRef HeapDiffRow::status() const {
  if (!Before)
    return "new";
  if (!After)
    return "vanished";
  return Change > 0 ? "grown" : Change < 0 ? "shrunk" : "unchanged";
}

HeapViewDiff diffHeapViews(const HeapView &Before, const HeapView &After,
                           size_t Top, bool Reverse) {
  HeapViewDiff D;
  D.Kind = After.Kind;
  D.BeforeInputs = Before.R.Inputs;
  D.AfterInputs = After.R.Inputs;
  D.BeforeBytes = Before.TotalBytes;
  D.AfterBytes = After.TotalBytes;
  D.BeforeBlocks = Before.TotalBlocks;
  D.AfterBlocks = After.TotalBlocks;
  D.Reverse = Reverse;
  D.Group = After.R.Options.Group;
  D.FullNames = After.R.Options.FullNames;
  const HeapViewKind K = After.Kind;
  std::map<CallStackId, HeapDiffRow> Joined;
  for (const ReportContext &C : Before.R.Contexts)
    Joined[C.Id].Before = C;
  for (const ReportContext &C : After.R.Contexts)
    Joined[C.Id].After = C;
  std::vector<HeapDiffRow> Rows;
  for (auto &[Id, Row] : Joined) {
    const uint64_t B = Row.Before ? heapBytes(Row.Before->Heap, K) : 0;
    const uint64_t A = Row.After ? heapBytes(Row.After->Heap, K) : 0;
    // Differences of u64s, held in an i64: saturated at its ends.
    Row.Change = A >= B ? int64_t(std::min<uint64_t>(A - B, INT64_MAX))
                        : -int64_t(std::min<uint64_t>(B - A, INT64_MAX));
    StringRef S = Row.status();
    if (S == "unchanged") {
      ++D.Unchanged;
      continue;
    }
    ++(S == "new"        ? D.New
       : S == "vanished" ? D.Vanished
       : S == "grown"    ? D.Grown
                         : D.Shrunk);
    Rows.push_back(std::move(Row));
  }
  llvm::stable_sort(Rows, [&](const HeapDiffRow &A, const HeapDiffRow &B) {
    if (Reverse && A.Change != B.Change)
      return A.Change < B.Change;
    uint64_t MA = A.Change < 0 ? uint64_t(-(A.Change + 1)) + 1 : A.Change;
    uint64_t MB = B.Change < 0 ? uint64_t(-(B.Change + 1)) + 1 : B.Change;
    if (MA != MB)
      return MA > MB;
    if (A.Change != B.Change)
      return A.Change > B.Change;
    return A.row().Id < B.row().Id;
  });
  if (Rows.size() > Top)
    Rows.resize(Top);
  D.Rows = std::move(Rows);
  return D;
}

namespace {

std::string signedBytes(int64_t V) {
  return (V > 0 ? "+" : "") + std::to_string(V) + " bytes";
}

std::string diffWhat(HeapViewKind K) {
  return K == HeapViewKind::Peak ? "bytes at the peak" : "bytes live at the end";
}

} // namespace

void printHeapDiffText(const HeapViewDiff &D, raw_ostream &OS) {
  OS << "Comparison of " << diffWhat(D.Kind) << " of " << rowsName(D.Group)
     << "\n";
  printInputs(OS, "  base:   ", D.BeforeInputs);
  printInputs(OS, "  new:    ", D.AfterInputs);
  const int64_t Change = int64_t(D.AfterBytes) - int64_t(D.BeforeBytes);
  OS << "\nSummary\n  "
     << (D.Kind == HeapViewKind::Peak ? "peak" : "live") << "   "
     << D.BeforeBytes << " -> " << D.AfterBytes << " bytes ("
     << (Change > 0 ? "+" : "") << Change << "), " << D.BeforeBlocks
     << " -> " << D.AfterBlocks << " blocks\n"
     << "  rows   " << D.New << " new, " << D.Vanished << " vanished, "
     << D.Grown << " grown, " << D.Shrunk << " shrunk, " << D.Unchanged
     << " unchanged\n";
  OS << "\nTop " << D.Rows.size() << " of "
     << (D.New + D.Vanished + D.Grown + D.Shrunk) << " changed "
     << rowsName(D.Group) << " by change of " << diffWhat(D.Kind)
     << (D.Reverse ? " (largest fall first)" : "") << "\n";
  Report Empty;
  std::vector<ReportContext> Shown;
  for (const HeapDiffRow &Row : D.Rows)
    Shown.push_back(Row.row());
  const auto Labels = labelsOf(Empty, Shown);
  size_t Rank = 0;
  for (const HeapDiffRow &Row : D.Rows) {
    auto Side = [&](const std::optional<ReportContext> &C) {
      return C ? std::to_string(heapBytes(C->Heap, D.Kind))
               : std::string("none");
    };
    OS << "\n#" << ++Rank << "  " << signedBytes(Row.Change) << ", "
       << Row.status() << ": " << Side(Row.Before) << " -> "
       << Side(Row.After) << "\n";
    printFrames(OS, Empty, Row.row(), D.Group, D.FullNames, Labels);
  }
}

void printHeapDiffJSON(const HeapViewDiff &D, raw_ostream &OS) {
  Report Empty;
  json::OStream J(OS, 2);
  auto Side = [&](StringRef Key, const std::optional<ReportContext> &C) {
    if (!C)
      J.attribute(Key, nullptr);
    else
      statsJSON(J, Key, heapBytes(C->Heap, D.Kind),
                heapBlocks(C->Heap, D.Kind));
  };
  auto Totals = [&](StringRef Key, ArrayRef<ReportInput> Inputs,
                    uint64_t Bytes, uint64_t Blocks) {
    J.attributeObject(Key, [&] {
      inputsJSON(J, Inputs);
      J.attribute("bytes", Bytes);
      J.attribute("blocks", Blocks);
    });
  };
  J.object([&] {
    J.attribute("schema_version", 1);
    J.attribute("view", heapViewName(D.Kind));
    J.attribute("group_by", groupByName(D.Group));
    J.attribute("reverse", D.Reverse);
    Totals("base", D.BeforeInputs, D.BeforeBytes, D.BeforeBlocks);
    Totals("new", D.AfterInputs, D.AfterBytes, D.AfterBlocks);
    J.attributeObject("rows", [&] {
      J.attribute("new", D.New);
      J.attribute("vanished", D.Vanished);
      J.attribute("grown", D.Grown);
      J.attribute("shrunk", D.Shrunk);
      J.attribute("unchanged", D.Unchanged);
    });
    J.attributeArray("changes", [&] {
      size_t Rank = 0;
      for (const HeapDiffRow &Row : D.Rows)
        J.object([&] {
          J.attribute("rank", ++Rank);
          J.attribute("id", hexValue(Row.row().Id));
          J.attribute("status", Row.status());
          J.attribute("change", Row.Change);
          Side("before", Row.Before);
          Side("after", Row.After);
          framesJSON(J, Empty, Row.row());
        });
    });
  });
  OS << "\n";
}

} // namespace memprof
