//===- memprof-merge.cpp - Merge raw and indexed MemProf profiles ----------===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/Merge.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <unistd.h>

using namespace llvm;
using namespace memprof;

namespace {

struct Input {
  std::string Path;
  uint64_t Weight = 1;
  std::unique_ptr<MemoryBuffer> Buffer; // kept while Raw reads its PCs
  std::optional<RawProfile> Raw;
  std::optional<IndexedMemProf> Indexed;
  std::optional<CounterProfile> Counters; // PGO counters (raw or indexed)
  bool RawCounters = false;               // Counters come from a .profraw
  std::optional<ProfileNames> Names;
  HeapProfile Heap; // an indexed input's heap table, if any
  IndexedProfileInfo Info;
  uint64_t Bytes = 0; // the file's size, for the progress line
  Error Err = Error::success();
};

/// --report: a machine-readable account of one merge (docs/memprof-merge.md).
struct MergeReport {
  bool Ok = false;
  std::string Output;
  uint64_t Given = 0, Used = 0;
  std::vector<std::pair<std::string, std::string>> Rejected; // path, why
  bool MemProf = false, Counters = false;
  uint64_t Contexts = 0, Functions = 0, NamedFunctions = 0;
  std::vector<std::string> Programs; // main executables' build ids, hex
  uint64_t CounterRecords = 0, OutputBytes = 0;
  std::string CounterKind;
  std::vector<std::string> Diagnostics;

  std::string json() const {
    json::Array Rej;
    for (const auto &[Path, Why] : Rejected)
      Rej.push_back(
          json::Object{{"path", validUTF8(Path)}, {"error", validUTF8(Why)}});
    json::Array Diag;
    for (const std::string &D : Diagnostics)
      Diag.push_back(validUTF8(D));
    json::Array Progs;
    for (const std::string &P : Programs)
      Progs.push_back(P);
    json::Object O{
        {"schema_version", 1},
        {"status", Ok ? "ok" : "failed"},
        {"output", Ok ? json::Value(validUTF8(Output)) : json::Value(nullptr)},
        {"output_bytes", Ok ? json::Value(OutputBytes) : json::Value(nullptr)},
        {"inputs", json::Object{{"given", Given},
                                {"used", Used},
                                {"rejected", std::move(Rej)}}},
        {"memprof", MemProf ? json::Value(json::Object{
                                  {"contexts", Contexts},
                                  {"functions", Functions},
                                  {"named_functions", NamedFunctions},
                                  {"programs", std::move(Progs)}})
                            : json::Value(nullptr)},
        {"counters", Counters ? json::Value(json::Object{
                                    {"records", CounterRecords},
                                    {"kind", CounterKind}})
                              : json::Value(nullptr)},
        {"diagnostics", std::move(Diag)},
    };
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", json::Value(std::move(O))) << "\n";
    return S;
  }
};

/// \p StackIds: the reading thread's call-stack ids, kept across the
/// indexed inputs it reads.
void loadInput(Input &In, bool ReadNames, CallStackIdCache &StackIds) {
  auto BufOrErr = tool::readInput(In.Path);
  if (!BufOrErr) {
    In.Err = BufOrErr.takeError();
    return;
  }
  In.Buffer = std::move(*BufOrErr);
  StringRef Data = In.Buffer->getBuffer();
  In.Bytes = Data.size();
  if (isIndexedProfile(Data)) {
    if (ReadNames) {
      // The LLVM part must stand on its own: it is read without the names.
      NamesExtensionInfo NI;
      auto N = readNamesExtension(Data, &NI, &In.Heap);
      if (!N) {
        In.Err = N.takeError();
        In.Buffer.reset();
        return;
      }
      if (NI.Present) {
        Data = Data.take_front(NI.Offset);
        In.Names = std::move(*N);
      }
    }
    CounterProfile Counters;
    auto P = readIndexedProfile(Data, &In.Info, nullptr, &Counters, &StackIds);
    if (!P) {
      In.Err = P.takeError();
    } else if (In.Info.DataAccessProfileOffset != 0) {
      // Everything an indexed input holds is carried over, or the merge
      // says what it cannot carry: never a silent drop.
      In.Err = makeError(
          ErrorCode::Incompatible,
          "its MemProf section holds a data access profile, which "
          "memprof-merge cannot carry over into the output",
          In.Info.DataAccessProfileOffset);
    } else if (Error E = checkHeapContexts(In.Heap, *P)) {
      In.Err = std::move(E);
    } else {
      if (In.Names)
        if (Error E = checkNamesContexts(*In.Names, *P)) {
          In.Err = std::move(E);
          In.Buffer.reset();
          return;
        }
      if (In.Info.MemProfVersion != 0)
        In.Indexed = std::move(*P);
      if (Counters.Present)
        In.Counters = std::move(Counters);
    }
  } else if (isRawInstrProf(Data)) {
    In.RawCounters = true;
    auto P = readRawInstrProf(Data);
    if (!P)
      In.Err = P.takeError();
    else
      In.Counters = std::move(*P);
  } else if (Data.empty() && StringRef(In.Path).ends_with(".profraw")) {
    // What LLVM's runtime leaves when the program dies of a signal: it
    // creates the file at start and writes it only at exit.
    In.Err = makeError(ErrorCode::Empty,
                       "the file is empty (LLVM's runtime writes a .profraw "
                       "only at exit: a program ended by a signal leaves it "
                       "empty); leave it out, or merge with --failure-mode "
                       "all",
                       0);
  } else if (isRawProfile(Data) || Data.size() < 8) {
    // Its stacks' PCs stay in the buffer, which the input keeps until it
    // is merged: no copy of them.
    auto P = readRawProfile(Data, /*PCsInPlace=*/true);
    if (!P)
      In.Err = P.takeError();
    else
      In.Raw = std::move(*P);
  } else {
    In.Err = makeError(ErrorCode::BadMagic,
                       "not a profile: neither raw MemProf (.memprofraw), raw "
                       "PGO counters (.profraw) nor indexed (.profdata)",
                       0);
  }
  // The indexed model is self-contained; the bytes can go (a raw
  // profile's PCs are read from them).
  if (!In.Raw)
    In.Buffer.reset();
}

/// "counter_overflow": the contexts whose written counters are at their
/// maximum, each named by its allocation site, the first few listed.
void reportSaturatedSites(const IndexedMemProf &P, ArrayRef<uint8_t> Schema,
                          const ProfileNames &Names) {
  std::vector<SaturatedSite> Sites = findSaturatedSites(P, Schema);
  if (Sites.empty())
    return;
  tool::warning("", "counter_overflow: " + Twine(Sites.size()) +
                        " allocation context" +
                        (Sites.size() == 1 ? " has" : "s have") +
                        " counters at their maximum (2^32-1 or 2^64-1): "
                        "the true values may be larger (overflowed and "
                        "saturated):");
  constexpr size_t MaxListed = 10;
  for (size_t I = 0; I < Sites.size() && I < MaxListed; ++I) {
    const SaturatedSite &S = Sites[I];
    std::string Site = "<no frames>";
    if (!S.Frames.empty()) {
      const Frame &F = S.Frames.front();
      const FunctionNameInfo *N = Names.function(F.Function);
      Site = N && !N->DemangledName.empty() ? N->DemangledName.str()
             : N                            ? N->LinkageName.str()
                 : "function 0x" + utohexstr(F.Function, /*LowerCase=*/true);
      SourceLocation L = Names.location(F.Function, F.LineOffset);
      if (L.known())
        Site += " at " + sourceLocationText(L.File, L.Line);
      else
        Site += (" +" + Twine(F.LineOffset) + " line offset").str();
    }
    std::string Fields;
    for (unsigned T = 1; T <= NumMIBTags; ++T)
      if (S.Fields & (1u << (T - 1)))
        Fields += (Fields.empty() ? "" : ", ") + mibFieldName(T).str();
    tool::warning("", "  " + Site + " (context of " + Twine(S.Frames.size()) +
                          " frames, stack id 0x" +
                          utohexstr(S.Id, /*LowerCase=*/true) + "): " + Fields);
  }
  if (Sites.size() > MaxListed)
    tool::warning("", "  and " + Twine(Sites.size() - MaxListed) +
                          " more contexts");
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tool::setToolName("memprof-merge");
  tool::setReadsCounters();
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler(
      "merge fewer or smaller inputs at a time, or raise the memory limit");

  CLI::App App{
      "Merge raw MemProf profiles (LLVM raw v3-v5, as clang's -fmemory-profile\n"
      "runtime and ours write them), raw PGO counter profiles (.profraw from\n"
      "-fprofile-generate or -fprofile-instr-generate, raw v8-v10) and indexed\n"
      "profiles into one indexed profile for clang's -fprofile-use and\n"
      "-fmemory-profile-use, and llvm-profdata 22.\n\n"
      "Every module of the profiled process is symbolized through its build id,\n"
      "from the file memprof's runtime recorded it was loaded from (on the\n"
      "machine that ran the program), --profiled-binary files, --debug-dir\n"
      "directories and the system's library directories.",
      "memprof-merge"};
  std::vector<std::string> Inputs, ListFiles, WeightedArgs, Bundles;
  ModuleSearch Search;
  std::string Output, FailureMode = "any", ReportPath;
  unsigned Threads = 0, MemProfVersion = 3;
  // The largest MemProf version and the widest schema of the indexed inputs.
  uint64_t IndexedVersion = 0;
  bool IndexedFullSchema = false;
  bool FullSchema = false, Quiet = false, NoNames = false,
       KeepVTableSymbols = false;
  App.add_option("inputs", Inputs,
                 "Raw MemProf (.memprofraw), raw PGO counter (.profraw) or "
                 "indexed (.profdata) profiles");
  App.add_option("--weighted-input", WeightedArgs,
                 "An input counted W times (W from 1 to 2^32): its counts and "
                 "sums are multiplied by W (saturating), minima and maxima "
                 "kept; repeatable")
      ->allow_extra_args(false)
      ->type_name("W,FILE");
  App.add_option("-o,--output", Output,
                 "Output indexed profile (required)");
  tool::addModuleSearchOptions(App, Search);
  App.add_option("--bundle", Bundles,
                 "A directory memprof-bundle wrote: its profiles are inputs "
                 "(weight 1) and its modules' files symbolize them, from any "
                 "directory; repeatable")
      ->allow_extra_args(false)
      ->type_name("DIR");
  App.add_option("-f,--input-files", ListFiles,
                 "A file listing inputs, one per line: FILE or W,FILE ('#' "
                 "comments)")
      ->allow_extra_args(false)
      ->type_name("FILE");
  App.add_option("-j,--num-threads", Threads,
                 "Threads for reading and parsing inputs (0 = one per core)")
      ->capture_default_str();
  App.add_option("--failure-mode", FailureMode,
                 "any: fail if any input is bad; all: skip bad inputs with a "
                 "warning and fail only if every input is bad")
      ->check(CLI::IsMember({"any", "all"}))
      ->capture_default_str();
  App.add_option("--memprof-version", MemProfVersion,
                 "MemProf section version of the output (2, 3 or 4; by "
                 "default 3, or the largest of the indexed inputs)")
      ->check(CLI::IsMember({2u, 3u, 4u}))
      ->capture_default_str();
  App.add_flag("--memprof-full-schema", FullSchema,
               "Write all 27 MemInfoBlock fields instead of the hot/cold four "
               "(also the default when an indexed input has more than those "
               "four)");
  bool HotColdSchema = false;
  App.add_flag("--memprof-hot-cold-schema", HotColdSchema,
               "Write the hot/cold four fields even when an indexed input "
               "stores more")
      ->excludes("--memprof-full-schema");
  App.add_flag("--no-names", NoNames,
               "Write only LLVM's bytes: no names extension (function names, "
               "files and lines after the LLVM part), and ignore the names "
               "extensions of indexed inputs");
  App.add_flag("--keep-vtable-symbols", KeepVTableSymbols,
               "Keep the vtable names of raw PGO inputs (as llvm-profdata's "
               "flag; an indexed input's vtable names are always kept)");
  App.add_flag("-q,--quiet", Quiet, "Print only errors and warnings");
  App.add_option("--report", ReportPath,
                 "Also write a JSON summary to this file (replaced whole), "
                 "whether the merge succeeds or not: the inputs used and "
                 "those rejected with why, the contexts and functions "
                 "written, every warning (schema: docs/memprof-merge.md)")
      ->type_name("FILE.json");
  std::string Progress = "auto";
  App.add_option("--progress", Progress,
                 "Inputs read so far on stderr, at most once a second: auto "
                 "(on a terminal, once the merge takes over a second; not "
                 "with -q), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  PruneOptions Prune;
  App.add_option("--prune-min-bytes", Prune.MinBytes,
                 "Fold contexts with fewer total bytes into one remainder per "
                 "allocation site (totals are kept)")
      ->group("Pruning");
  App.add_option("--prune-min-count", Prune.MinCount,
                 "Fold contexts with fewer allocations into one remainder per "
                 "allocation site (totals are kept)")
      ->group("Pruning");
  App.add_flag("--trim-contexts", Prune.Trim,
               "Trim each context to the shortest caller suffix that still "
               "separates cold from not-cold allocations at its site")
      ->group("Pruning");
  App.add_option("--max-depth", Prune.MaxDepth,
                 "Keep at most this many frames per context (whole inline "
                 "chains; the allocation site always stays)")
      ->group("Pruning");
  App.footer("The output depends only on the inputs' content: not on their order,\n"
             "the thread count, or how a batch was split into partial merges\n"
             "(one raw input alone keeps llvm-profdata's own order, byte for byte).");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;

  // Every input with its weight: positional inputs (weight 1), then
  // --weighted-input, then the list files.
  std::vector<uint64_t> Weights(Inputs.size(), 1);
  for (const std::string &A : WeightedArgs) {
    auto WOr = tool::parseWeightedInput(A);
    if (!WOr)
      tool::fatal("", "--weighted-input " + toString(WOr.takeError()) +
                          " (see --help)");
    Inputs.push_back(WOr->second);
    Weights.push_back(WOr->first);
  }
  for (const std::string &L : ListFiles)
    if (Error E = tool::readInputList(L, Inputs, Weights))
      tool::fatal(L, std::move(E));
  tool::addBundles(Bundles, Inputs, Search);
  Weights.resize(Inputs.size(), 1); // a bundle's profiles count once
  if (Inputs.empty())
    tool::fatal("", "no input files; give profiles, --weighted-input, "
                    "--input-files or --bundle (see --help)");
  if (Output.empty())
    tool::fatal("", "no output file; give -o FILE (see --help)");
  tool::refuseOutputOverInputs(Inputs, Output);
  if (!ReportPath.empty()) {
    tool::refuseOutputOverInputs(Inputs, ReportPath);
    if (tool::sameFile(ReportPath, Output) || ReportPath == Output)
      tool::fatal(ReportPath, "the report would overwrite the output; choose "
                              "another --report");
  }

  // --report: what the merge did, written at every exit from here on.
  MergeReport Rep;
  Rep.Given = Inputs.size();
  std::vector<std::string> Diagnostics;
  if (!ReportPath.empty())
    tool::captureDiagnostics(&Diagnostics);
  auto WriteReport = [&](bool Ok) {
    if (ReportPath.empty())
      return;
    tool::captureDiagnostics(nullptr);
    Rep.Ok = Ok;
    Rep.Output = Ok ? Output : "";
    Rep.Diagnostics = std::move(Diagnostics);
    if (Error E = tool::writeFileAtomically(ReportPath, Rep.json()))
      tool::error(ReportPath, std::move(E));
  };
  tool::setFatalHook([&] { WriteReport(false); });

  // The symbolizer is needed if any input is raw: look at the magic only.
  bool AnyRaw = false, AllRaw = true;
  for (const std::string &Path : Inputs) {
    // The first 8 bytes, read alone (a stream would read a buffer's worth).
    char Magic[8];
    bool Raw = false;
    int FD;
    if (!sys::fs::openFileForRead(Path, FD)) {
      Raw = ::pread(FD, Magic, 8, 0) == 8 && isRawProfile(StringRef(Magic, 8));
      ::close(FD);
    }
    AnyRaw |= Raw;
    AllRaw &= Raw;
  }
  std::unique_ptr<ElfBinaryLocator> Locator;
  if (AnyRaw) {
    auto L = ElfBinaryLocator::create(Search);
    if (!L)
      tool::fatal("", L.takeError());
    Locator = std::move(*L);
  }

  // Inputs are read ahead, at most Window of them at a time, by the
  // reading threads and by the main thread whenever its next input is not
  // read yet; the main thread merges them in input order and releases each
  // at once, so memory stays bounded by the window and merging overlaps
  // reading. Every bad input is reported, in input order.
  ProfileMerger Merger(Locator.get());
  const unsigned NumThreads =
      hardware_concurrency(Threads).compute_thread_count();
  std::optional<DefaultThreadPool> Pool;
  if (Inputs.size() > 1 && NumThreads > 1) {
    // A raw input is parsed into a few large vectors: the readers share
    // the main heap, warm and in huge pages, rather than each faulting in
    // an arena of its own (3% of a 50-input merge's CPU). Indexed inputs
    // make many small allocations, which would wait on the one lock.
    if (AllRaw)
      tool::shareHeapWithThreads();
    Pool.emplace(hardware_concurrency(NumThreads - 1));
  }
  const size_t Window = std::max<size_t>(8, 4 * size_t(NumThreads));
  // Input I is read into slot I % Window once input I - Window is merged
  // and its slot released; ReadInto[S] is the input slot S holds, read.
  std::vector<std::optional<Input>> Slots(Window);
  std::vector<size_t> ReadInto(Window, SIZE_MAX);
  std::mutex Mu;
  std::condition_variable Changed;
  // Guarded by Mu: the next input to claim and to merge, and who sleeps.
  size_t NextRead = 0, NextMerge = 0;
  bool MainWaits = false;
  unsigned ReadersWait = 0;
  auto Room = [&] { return NextMerge + Window - NextRead; }; // Mu held
  auto CanRead = [&] { // Mu held
    return NextRead < Inputs.size() && Room() > 0;
  };
  // Reads input I, claimed (Mu not held), then says so. Each thread keeps
  // its own call-stack ids across the inputs it reads.
  CallStackIdCache MainStackIds;
  auto Read = [&](size_t I, CallStackIdCache &StackIds) {
    std::optional<Input> &Slot = Slots[I % Window];
    Slot.emplace();
    Slot->Path = Inputs[I];
    Slot->Weight = Weights[I];
    loadInput(*Slot, !NoNames, StackIds);
    bool Wake;
    {
      std::lock_guard<std::mutex> L(Mu);
      ReadInto[I % Window] = I;
      Wake = MainWaits;
    }
    if (Wake)
      Changed.notify_all();
  };
  // A reader that found the window full sleeps until half of it is free:
  // woken once for several inputs, not for each (the main thread reads its
  // next input itself meanwhile, if it must).
  auto Reader = [&] {
    CallStackIdCache StackIds;
    for (;;) {
      size_t I;
      {
        std::unique_lock<std::mutex> L(Mu);
        if (!CanRead() && NextRead < Inputs.size()) {
          ++ReadersWait;
          Changed.wait(L, [&] {
            return NextRead >= Inputs.size() || Room() >= Window / 2;
          });
          --ReadersWait;
        }
        if (NextRead >= Inputs.size())
          return;
        I = NextRead++;
      }
      Read(I, StackIds);
    }
  };
  if (Pool)
    for (unsigned T = 1; T < NumThreads; ++T)
      Pool->async(Reader);
  unsigned Bad = 0, Used = 0, MemProfInputs = 0, RawMemProfInputs = 0;
  bool CounterHintGiven = false;
  tool::ProgressLine Progressed(Progress, Quiet);
  uint64_t BytesRead = 0;
  auto MergeOne = [&](Input &In) {
    BytesRead += In.Bytes;
    Error E = std::move(In.Err);
    if (!E && In.Raw)
      E = Merger.addRaw(*In.Raw, In.Weight);
    std::vector<CounterWarning> CounterWarnings;
    if (!E && In.Counters) {
      // As llvm-profdata without --keep-vtable-symbols: a raw input's
      // vtable names are not kept (an indexed input's are).
      if (!KeepVTableSymbols && In.RawCounters)
        In.Counters->VTableNames.clear();
      E = Merger.addCounters(*In.Counters, In.Weight, CounterWarnings);
    }
    for (const CounterWarning &W : CounterWarnings) {
      tool::warning(In.Path, W.Function + ": " +
                                 counterIssueText(W.Issue));
      if (!CounterHintGiven && W.Issue != CounterIssue::CounterOverflow) {
        CounterHintGiven = true;
        tool::note("make sure that all profile data to be merged is "
                   "generated from the same binary");
      }
    }
    if (E) {
      ++Bad;
      std::string Why = toString(std::move(E));
      Rep.Rejected.push_back({In.Path, Why});
      if (FailureMode == "any")
        tool::error(In.Path, Why);
      else
        tool::warning(In.Path, Why + "; skipped");
      return;
    }
    if (Bad && FailureMode == "any")
      return; // the merge fails anyway; keep looking for bad inputs
    if (In.Indexed) {
      Merger.addIndexed(*In.Indexed, In.Info.Schema,
                        In.Names ? &*In.Names : nullptr, In.Weight,
                        &In.Heap);
      // What the indexed inputs were written with is kept unless said
      // otherwise: a re-merge loses no field and changes no byte.
      IndexedVersion = std::max<uint64_t>(IndexedVersion,
                                          In.Info.MemProfVersion);
      IndexedFullSchema |= schemaMask(In.Info.Schema) &
                           ~schemaMask(hotColdSchema());
    }
    if (In.Raw || In.Indexed) {
      ++MemProfInputs;
      RawMemProfInputs += In.Raw.has_value();
    }
    ++Used;
  };
  for (size_t K = 0; K < Inputs.size(); ++K) {
    // Input K, read by a reader or by this thread, which reads the next
    // input of the window itself while K is not read yet.
    for (;;) {
      size_t I;
      {
        std::unique_lock<std::mutex> L(Mu);
        if (ReadInto[K % Window] == K)
          break;
        if (!CanRead()) {
          MainWaits = true;
          Changed.wait(L);
          MainWaits = false;
          continue;
        }
        I = NextRead++;
      }
      Read(I, MainStackIds);
    }
    MergeOne(*Slots[K % Window]);
    Slots[K % Window].reset(); // its memory, before another input is read
    bool Wake;
    {
      std::lock_guard<std::mutex> L(Mu);
      NextMerge = K + 1;
      Wake = ReadersWait && (Room() >= Window / 2 || NextMerge == Inputs.size());
    }
    if (Wake)
      Changed.notify_all();
    if ((K + 1) % Window == 0 || K + 1 == Inputs.size()) // a window's worth
      Progressed.update(K + 1, Inputs.size(), "inputs",
                        ", " + utostr(BytesRead >> 20) + " MiB");
  }
  if (Pool)
    Pool->wait();
  // What the search for binaries met (files refused, debuginfod), also
  // when the merge fails: it may be why.
  if (Locator) {
    Locator->saveSymbolCache();
    for (const std::string &N : Locator->notes())
      tool::warning("", N);
  }
  Rep.Used = Used;
  if (Bad && FailureMode == "any") {
    WriteReport(false);
    return 1;
  }
  if (Used == 0)
    tool::fatal("", "every input is bad; nothing to merge");

  const MergeStats &St = Merger.stats();
  bool SaidHow = false;
  for (const auto &[Hex, U] : St.Unsymbolized) {
    std::string Where = "module " + Hex;
    auto RP = St.RecordedPaths.find(Hex);
    if (RP != St.RecordedPaths.end())
      Where += " (" + RP->second + " in the profiled process)";
    if (Hex.empty())
      Where = "a module without build id";
    std::string How;
    if (!Hex.empty() && !U.Vdso && St.Modules.count(Hex) &&
        St.Modules.at(Hex).empty() && !SaidHow) {
      // Said once: how to supply the modules no binary was found for.
      How = "; give its binary (the file that ran, or its debug file) with "
            "--profiled-binary FILE, or a directory holding it with "
            "--debug-dir DIR, or serve it from a debuginfod server named in "
            "DEBUGINFOD_URLS; on the machine that ran the program, "
            "memprof-bundle collects every module for --bundle";
      SaidHow = true;
    }
    tool::warning("", Twine(U.PCs) + " addresses not symbolized in " + Where +
                          ": " + U.Reason + How);
  }
  for (const std::string &W : Merger.symbolizationWarnings())
    tool::warning("", W);
  if (St.OutsideSegmentPCs)
    tool::warning("", Twine(St.OutsideSegmentPCs) +
                          " addresses not symbolized: outside every executable "
                          "segment their profile lists");
  if (St.DroppedContexts)
    tool::warning("", Twine(St.DroppedContexts) +
                          " contexts had no symbolized frame and were dropped (" +
                          Twine(St.DroppedAllocations) + " allocations, " +
                          Twine(St.DroppedBytes) + " bytes)");

  bool Pruning = Prune.MinBytes || Prune.MinCount || Prune.Trim || Prune.MaxDepth;
  if (Pruning) {
    PruneStats PS = Merger.prune(Prune);
    if (!Quiet)
      tool::note(Twine("pruned ") + Twine(PS.ContextsBefore) + " contexts (" +
                 Twine(PS.FramesBefore) + " frames) to " +
                 Twine(PS.ContextsAfter) + " (" + Twine(PS.FramesAfter) +
                 " frames): " + Twine(PS.Folded) +
                 " folded into site remainders (" +
                 Twine(PS.FoldedAllocations) + " allocations, " +
                 Twine(PS.FoldedBytes) + " bytes), " + Twine(PS.Trimmed) +
                 " trimmed, " + Twine(PS.DepthCut) + " cut to --max-depth");
  }
  // One MemProf input, raw, keeps llvm-profdata's order (byte identity);
  // anything else, or a pruned profile, is written in the canonical order.
  RecordOrder Order =
      (MemProfInputs == 1 && RawMemProfInputs == 1 && !Pruning)
          ? RecordOrder::FirstAppearance
          : RecordOrder::Canonical;
  IndexedMemProf Merged = Merger.build(Order);
  CounterProfile Counters = Merger.counters().build();
  // The MemProf section is written when some input had MemProf data, as
  // llvm-profdata does; a counters-only merge has none.
  const bool WithMemProf = MemProfInputs != 0;
  if (!App.count("--memprof-version") && IndexedVersion >= 2 &&
      IndexedVersion <= 4)
    MemProfVersion = unsigned(IndexedVersion);
  if (!HotColdSchema)
    FullSchema |= IndexedFullSchema;
  IndexedWriterOptions WO;
  WO.MemProfVersion = MemProfVersion;
  WO.FullSchema = FullSchema;
  SmallVector<char, 0> Bytes;
  auto WS = writeIndexedProfile(Counters, WithMemProf ? &Merged : nullptr, WO,
                                Bytes);
  if (!WS)
    tool::fatal(Output, WS.takeError());
  NamesExtensionStats NS;
  if (!NoNames && WithMemProf) {
    ProfileNames &Names = Merger.names();
    Names.markUnobservedFrames(Merged);
    HeapProfile Heap = Merger.heap();
    auto N = appendNamesExtension(Bytes, Merged, Names, &Heap);
    if (!N)
      tool::fatal(Output, N.takeError());
    NS = *N;
  }
  reportSaturatedSites(Merged, FullSchema ? fullSchema() : hotColdSchema(),
                       Merger.names());
  if (!FullSchema && !Quiet) {
    // The hot/cold schema stores no access counts: say so once when the
    // inputs have some (a program built with the pass).
    bool Accesses = false;
    for (const auto &R : Merged.Records)
      for (const IndexedAllocSite &A : R.second.AllocSites)
        Accesses |= A.Info.TotalAccessCount != 0;
    if (Accesses)
      tool::note("the inputs hold access counts, which LLVM's default "
                 "hot/cold schema does not store (clang needs only its "
                 "densities); --memprof-full-schema keeps them for "
                 "memprof-show --sort=accesses");
  }
  if (Error E = tool::writeFileAtomically(Output, StringRef(Bytes.data(), Bytes.size())))
    tool::fatal(Output, std::move(E));
  // Profiles of several programs in one file: say so, as clang applies
  // every context whose call stack a build has, whichever program it
  // came from.
  const std::set<StringRef> &Programs = Merger.names().programs();
  if (WithMemProf && Programs.size() > 1 && !Quiet) {
    std::string List;
    for (StringRef P : Programs) {
      List += (List.empty() ? "" : ", ") + buildIdToHex(P);
      if (StringRef Path = Merger.names().modulePath(P); !Path.empty())
        List += " (" + Path.str() + ")";
    }
    tool::note(Twine("the inputs profiled ") + Twine(Programs.size()) +
               " programs (main executables' build ids: " + List +
               "); each program's build with this file takes the contexts "
               "whose call stacks it has (docs/memprof-merge.md, \"Several "
               "programs in one file\")");
  }
  if (WithMemProf)
    for (StringRef P : Programs)
      Rep.Programs.push_back(buildIdToHex(P));
  std::string NamesNote;
  if (NS.TotalBytes)
    NamesNote = (", names of " + Twine(NS.NumFunctions) + " (" +
                 Twine(NS.TotalBytes) + " bytes)")
                    .str();
  std::string What;
  if (Counters.Present) {
    // Records, as llvm-profdata show's "Total functions", memprof-show and
    // the report count them: one name with two hashes (a context-sensitive
    // record, a static function of two files of one name) is two.
    const size_t Records = Counters.Records.size();
    What = ("counters of " + Twine(Records) + " function record" +
            (Records == 1 ? "" : "s") + " (" +
            describeVariant(Counters.Variant) + ")")
               .str();
  }
  if (WithMemProf)
    What += ((What.empty() ? "" : "; ") + Twine(Merger.numContexts()) +
             " allocation contexts, " + Twine(Merged.Records.size()) +
             " functions" + NamesNote)
                .str();
  if (!Quiet)
    tool::note(Twine("merged ") + Twine(Used) + " input" +
               (Used == 1 ? "" : "s") + ": " + What + " -> " + Output);
  if (WithMemProf) {
    Rep.MemProf = true;
    Rep.Contexts = Merger.numContexts();
    Rep.Functions = Merged.Records.size();
    Rep.NamedFunctions = NS.NumFunctions;
  }
  if (Counters.Present) {
    Rep.Counters = true;
    Rep.CounterRecords = Counters.Records.size();
    Rep.CounterKind = describeVariant(Counters.Variant);
  }
  Rep.OutputBytes = Bytes.size();
  WriteReport(true);
  // The symbolizer's DWARF tables and the merger's maps take longer to free
  // than the process to exit; the operating system reclaims them (as
  // clang's -disable-free). Everything is written: exit without freeing.
  BuryPointer(std::move(Locator));
  outs().flush();
  errs().flush();
  sys::Process::Exit(0, /*NoCleanup=*/true);
}
