//===- memprof-show.cpp - Rank and summarize the contexts of MemProf profiles ===//
#include "ToolCommon.h"
#include "memprof/ProfileData/HeapView.h"
#include "memprof/ProfileData/HintsView.h"
#include "memprof/ProfileData/ProfileUse.h"
#include "memprof/ProfileData/Report.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>

using namespace llvm;
using namespace memprof;

/// --header-only: one entry per input, bad ones included.
static int printHeaders(const std::vector<std::string> &Inputs,
                        StringRef Format, StringRef Output) {
  if (Inputs.empty())
    tool::fatal("", "no input files (see --help)");
  tool::refuseOutputOverInputs(Inputs, Output);
  json::Array Entries;
  std::string Text;
  bool AnyBad = false;
  for (const std::string &Path : Inputs) {
    Expected<ProfileHeader> H = [&]() -> Expected<ProfileHeader> {
      auto Buf = tool::readInput(Path);
      if (!Buf)
        return Buf.takeError();
      return readProfileHeader((*Buf)->getBuffer());
    }();
    if (!H) {
      AnyBad = true;
      std::string Why = toString(H.takeError());
      tool::error(Path, Why);
      Entries.push_back(json::Object{{"path", validUTF8(Path)},
                                     {"error", validUTF8(Why)}});
      Text += Path + ": error: " + Why + "\n";
      continue;
    }
    json::Array Modules;
    for (const std::string &M : H->Modules)
      Modules.push_back(M);
    Entries.push_back(json::Object{
        {"path", validUTF8(Path)},
        {"error", nullptr},
        {"kind", H->Kind},
        {"memprof", H->MemProf},
        {"counters", H->Counters},
        {"program", H->Program.empty() ? json::Value(nullptr)
                                       : json::Value(H->Program)},
        {"program_path", H->ProgramPath.empty()
                             ? json::Value(nullptr)
                             : json::Value(H->ProgramPath)},
        {"modules", std::move(Modules)}});
    Text += Path + ": " + H->Kind + ", program " +
            (H->Program.empty() ? std::string("unknown") : H->Program) +
            (H->ProgramPath.empty() ? "" : " (" + H->ProgramPath + ")") +
            ", " + std::to_string(H->Modules.size()) + " modules\n";
  }
  std::string Out = Text;
  if (Format != "text") {
    // JSON; YAML readers take it too (JSON is YAML 1.2).
    Out.clear();
    raw_string_ostream OS(Out);
    OS << formatv("{0:2}", json::Value(json::Object{
                               {"schema_version", 1},
                               {"headers", std::move(Entries)}}))
       << "\n";
  }
  if (Output.empty()) {
    outs() << Out;
    tool::finishStdout();
  } else if (Error E = tool::writeFileAtomically(Output, Out)) {
    tool::fatal(Output, std::move(E));
  }
  return AnyBad ? 1 : 0;
}

/// --use-flags: the clang flags that build with the one indexed profile.
static int printUseFlags(const CLI::App &App,
                         const std::vector<std::string> &Inputs,
                         StringRef Output) {
  // The report's options mean nothing here: say so rather than ignore them.
  for (const CLI::Option *O : App.get_options()) {
    const std::string Name = O->get_name();
    if (O->count() && Name != "--use-flags" && Name != "--output" &&
        Name != "inputs")
      tool::fatal("", Twine(Name) + " does not go with --use-flags, which "
                                    "takes one profile and -o (see --help)");
  }
  if (Inputs.empty())
    tool::fatal("", "--use-flags needs the indexed profile to build with "
                    "(see --help)");
  if (Inputs.size() > 1)
    tool::fatal("", "--use-flags takes one profile, not " +
                        Twine(Inputs.size()) +
                        ": merge them into one first (memprof-merge "
                        "FILE... -o app.profdata)");
  const std::string &Path = Inputs.front();
  tool::refuseOutputOverInputs(Inputs, Output);
  auto Buf = tool::readInput(Path);
  if (!Buf)
    tool::fatal(Path, explainUnusable(Buf.takeError()));
  Expected<ProfileUse> U = readProfileUse(Path, (*Buf)->getBuffer());
  if (!U)
    tool::fatal(Path, U.takeError());
  for (const std::string &W : U->Warnings)
    tool::warning(Path, W);
  std::string Line = shellCommandLine(U->Flags) + "\n";
  if (Output.empty()) {
    outs() << Line;
    tool::finishStdout();
  } else if (Error E = tool::writeFileAtomically(Output, Line)) {
    tool::fatal(Output, std::move(E));
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tool::setToolName("memprof-show", "reports (text, JSON, YAML), no profiles");
  tool::setReadsCounters();
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler(
      "show fewer or smaller inputs at a time, or raise the memory limit");

  CLI::App App{"Show what profiles hold: the allocation contexts of MemProf\n"
               "data, ranked, with a summary, and the PGO counters beside them\n"
               "(llvm-profdata show's summary, the hottest functions, chosen\n"
               "functions' counters and value sites). Indexed profiles\n"
               "(memprof-merge's, named by their names extension; llvm-profdata's,\n"
               "named from --profiled-binary), raw MemProf profiles (symbolized\n"
               "from the files the runtime recorded, --profiled-binary and\n"
               "--debug-dir), .profraw and .proftext files.\n"
               "Several inputs are merged as memprof-merge merges them.\n"
               "--use-flags PROFILE prints the clang flags that build with a\n"
               "merged profile, for what it holds.",
               "memprof-show"};
  std::vector<std::string> Inputs, Functions, Bundles;
  ModuleSearch Search;
  std::string Sort = "bytes", Format = "text", Output;
  size_t Top = 10, TopFunctions = 10;
  std::string Group = "context", View = "default";
  std::vector<std::string> DiffBases;
  bool Reverse = false, NoNames = false, NoGaps = false, FullNames = false;
  bool HeaderOnly = false, UseFlags = false, Hints = false;
  AllocThresholds Thresholds;
  App.add_option("inputs", Inputs,
                 "Raw or indexed profiles, MemProf or PGO counters or both, "
                 "or LLVM's counters text");
  App.add_option("--top-contexts,-n", Top, "How many contexts to list")
      ->capture_default_str();
  App.add_option("--top-functions", TopFunctions,
                 "How many functions the PGO counter section lists, by their "
                 "largest counter (llvm-profdata show --topn)")
      ->capture_default_str();
  App.add_option("--sort", Sort,
                 "Rank by bytes (total size), count (allocations), accesses "
                 "(total access count), lifetime (average) or density "
                 "(average lifetime access density)")
      ->check(CLI::IsMember({"bytes", "count", "accesses", "lifetime", "density"}))
      ->capture_default_str();
  App.add_flag("--reverse", Reverse, "List the lowest values first");
  App.add_option("--view", View,
                 "What ranks the rows: default (the MemInfoBlock values, "
                 "--sort), peak (the bytes each row held at the process's "
                 "peak) or leaks (the bytes still live at the end: never "
                 "freed, when the dump was the exit dump); peak and leaks "
                 "need heap data, which memprof's runtime records "
                 "(docs/heap-data.md); text or JSON")
      ->check(CLI::IsMember({"default", "peak", "leaks"}))
      ->capture_default_str();
  App.add_option("--group-by", Group,
                 "The rows: allocation contexts, or their sums by allocation "
                 "site (function, line and column of the allocating call) or "
                 "by the function the site lies in (with the totals of every "
                 "context through it), or by the type they allocate")
      ->check(CLI::IsMember({"context", "site", "function", "type"}))
      ->capture_default_str();
  App.add_option("--diff", DiffBases,
                 "Compare the inputs with this base profile (raw or indexed; "
                 "repeatable, merged): rows ranked by the change of the "
                 "--sort value, new and vanished ones marked, each with its "
                 "before and after")
      ->type_name("BASE");
  App.add_flag("--full-names", FullNames,
               "Text: full demangled names (by default template arguments "
               "and parameter lists are folded, std::__cxx11:: dropped; "
               "JSON and YAML always give full names)");
  App.add_option("--function", Functions,
                 "List only contexts with a frame whose demangled or linkage "
                 "name matches this extended regular expression (a substring "
                 "works too), and show the PGO counters and value sites of "
                 "the functions whose demangled or PGO name matches; "
                 "repeatable")
      ->type_name("REGEX");
  App.add_option("--format", Format, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  tool::addModuleSearchOptions(App, Search);
  App.add_option("--bundle", Bundles,
                 "A directory memprof-bundle wrote: its profiles are inputs "
                 "and its modules' files symbolize them; repeatable")
      ->type_name("DIR");
  App.add_option("-o,--output", Output,
                 "Write the report to this file (replaced whole, or left as "
                 "it was on error) instead of standard output")
      ->type_name("FILE");
  App.add_flag("--no-names", NoNames,
               "Ignore the names extension of indexed inputs");
  App.add_flag("--no-gaps", NoGaps,
               "Drop the frames of raw inputs that cannot be symbolized, and "
               "the contexts left with none, as memprof-merge does (by "
               "default each is shown in its place, as ?? with its module, "
               "offset and why)");
  App.add_flag("--header-only", HeaderOnly,
               "Only say what each input is and which program it profiles "
               "(the build id of a raw profile's first module, a .profraw's "
               "binary id), reading nothing else: no symbolization, no "
               "merge. A bad input is reported in its entry; the status is "
               "1 if any is bad");
  App.add_flag("--use-flags", UseFlags,
               "Print the clang-22 flags that build with this indexed "
               "profile, decided by what it holds: -fprofile-use=PROFILE for "
               "PGO counters, -gmlt -fdebug-info-for-profiling "
               "-fmemory-profile-use=PROFILE for heap (MemProf) data, all of "
               "them for both. One shell line, for "
               "clang++-22 -O2 $(memprof-show --use-flags app.profdata) ...; "
               "the status is 1, with an error saying what to do, for a file "
               "that holds neither or that clang does not read (a raw "
               "profile: merge it first). Takes -o and nothing else");
  App.add_flag("--hints", Hints,
               "List what clang-22 -fmemory-profile-use decides for each "
               "allocation site without LTO (cold, notcold, hot, or "
               "ambiguous when the site has cold and not-cold contexts), "
               "each context under it with its class, its numbers and the "
               "threshold that decided; text or JSON (docs/memprof-show.md, "
               "Hints)");
  App.add_option("--cold-lifetime-threshold", Thresholds.ColdLifetimeSec,
                 "--hints: the average lifetime (whole seconds) a cold "
                 "context reaches; mirrors clang's -mllvm "
                 "-memprof-ave-lifetime-cold-threshold")
      ->type_name("SEC")
      ->capture_default_str();
  App.add_option("--cold-density-threshold", Thresholds.ColdDensity,
                 "--hints: the lifetime access density (accesses per byte "
                 "per second) a cold context stays under; mirrors -mllvm "
                 "-memprof-lifetime-access-density-cold-threshold")
      ->type_name("D")
      ->capture_default_str();
  App.add_option("--hot-density-threshold", Thresholds.HotDensity,
                 "--hints: the density (whole number) a hot context exceeds; "
                 "mirrors -mllvm "
                 "-memprof-min-ave-lifetime-access-density-hot-threshold")
      ->type_name("D")
      ->capture_default_str();
  App.add_flag("--hot-hints", Thresholds.UseHotHints,
               "--hints: classify hot contexts (off: nothing is hot); "
               "mirrors -mllvm -memprof-use-hot-hints");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;
  if (UseFlags)
    return printUseFlags(App, Inputs, Output);
  if (HeaderOnly)
    return printHeaders(Inputs, Format, Output);

  tool::addBundles(Bundles, Inputs, Search);
  if (Inputs.empty())
    tool::fatal("", "no input files; give profiles or --bundle (see --help)");
  tool::refuseOutputOverInputs(Inputs, Output);

  ReportOptions Opts;
  Opts.TopContexts = Top;
  Opts.TopFunctions = TopFunctions;
  Opts.Sort = *parseSortKey(Sort);
  Opts.Reverse = Reverse;
  Opts.FunctionFilters = Functions;
  Opts.Group = *parseGroupBy(Group);
  Opts.FullNames = FullNames;
  tool::refuseOutputOverInputs(DiffBases, Output);

  for (const char *O : {"--cold-lifetime-threshold", "--cold-density-threshold",
                        "--hot-density-threshold", "--hot-hints"})
    if (App.count(O) && !Hints)
      tool::fatal("", Twine(O) + " goes with --hints");
  if (Hints)
    for (const char *O : {"--view", "--diff", "--sort", "--group-by",
                          "--reverse", "--top-contexts"})
      if (App.count(O))
        tool::fatal("", Twine(O) + " does not go with --hints, which lists "
                                   "every allocation site");
  if (Hints && Format == "yaml")
    tool::fatal("", "--hints writes text or JSON");

  std::string Text;
  raw_string_ostream File(Text);
  raw_ostream &OS = Output.empty() ? static_cast<raw_ostream &>(outs()) : File;
  if (Hints) {
    ReportOptions All = Opts;
    All.TopContexts = SIZE_MAX;
    All.Group = GroupBy::Context;
    Report R = tool::loadReport(Inputs, Search, NoNames, !NoGaps, All);
    Expected<HintsView> V = buildHintsView(R, Thresholds);
    if (!V)
      tool::fatal(Inputs.size() == 1 ? StringRef(Inputs[0]) : StringRef(),
                  V.takeError());
    if (Format == "json")
      printHintsJSON(*V, OS);
    else
      printHintsText(*V, OS);
  } else if (std::optional<HeapViewKind> K = parseHeapView(View)) {
    if (App.count("--sort"))
      tool::fatal("", "--sort goes with --view default; --view " + View +
                          " ranks by its own bytes");
    if (Format == "yaml")
      tool::fatal("", "--view " + View + " writes text or JSON");
    // Every row, ranked by the view.
    ReportOptions All = Opts;
    All.TopContexts = SIZE_MAX;
    auto ViewOf = [&](const std::vector<std::string> &Files, size_t N) {
      Expected<HeapView> V = buildHeapView(
          tool::loadReport(Files, Search, NoNames, !NoGaps, All), *K, N);
      if (!V)
        tool::fatal(Files.size() == 1 ? StringRef(Files[0]) : StringRef(),
                    V.takeError());
      return std::move(*V);
    };
    if (!DiffBases.empty()) {
      HeapView Before = ViewOf(DiffBases, SIZE_MAX);
      HeapView After = ViewOf(Inputs, SIZE_MAX);
      HeapViewDiff D = diffHeapViews(Before, After, Top, Reverse);
      if (Format == "json")
        printHeapDiffJSON(D, OS);
      else
        printHeapDiffText(D, OS);
    } else {
      HeapView V = ViewOf(Inputs, Top);
      if (Format == "json")
        printHeapViewJSON(V, OS);
      else
        printHeapViewText(V, OS);
    }
  } else if (!DiffBases.empty()) {
    // Every row of both sides, joined; the top ones are chosen by change.
    ReportOptions All = Opts;
    All.TopContexts = SIZE_MAX;
    Report Before = tool::loadReport(DiffBases, Search, NoNames, !NoGaps, All);
    Report After = tool::loadReport(Inputs, Search, NoNames, !NoGaps, All);
    ReportDiff D = diffReports(std::move(Before), std::move(After), Opts);
    if (Format == "json")
      printDiffJSON(D, OS);
    else if (Format == "yaml")
      printDiffYAML(D, OS);
    else
      printDiffText(D, OS);
  } else {
    Report R = tool::loadReport(Inputs, Search, NoNames, !NoGaps, Opts);
    if (Format == "json")
      printReportJSON(R, OS);
    else if (Format == "yaml")
      printReportYAML(R, OS);
    else
      printReportText(R, OS);
  }

  if (Output.empty()) {
    tool::finishStdout();
    return 0;
  }
  if (Error E = tool::writeFileAtomically(Output, Text))
    tool::fatal(Output, std::move(E));
  return 0;
}
