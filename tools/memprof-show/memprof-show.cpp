//===- memprof-show.cpp - Rank and summarize the contexts of MemProf profiles ===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Report.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>

using namespace llvm;
using namespace memprof;

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
               "Several inputs are merged as memprof-merge merges them.",
               "memprof-show"};
  std::vector<std::string> Inputs, Functions, Bundles;
  ModuleSearch Search;
  std::string Sort = "bytes", Format = "text", Output;
  size_t Top = 10, TopFunctions = 10;
  bool Reverse = false, NoNames = false, NoGaps = false;
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
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;

  tool::addBundles(Bundles, Inputs, Search);
  if (Inputs.empty())
    tool::fatal("", "no input files; give profiles or --bundle (see --help)");
  tool::refuseOutputOverInputs(Inputs, Output);

  auto L = ReportLoader::create(Search, NoNames);
  if (!L)
    tool::fatal("", L.takeError());
  (*L)->keepGaps(!NoGaps);
  for (const std::string &Path : Inputs) {
    auto Buf = tool::readInput(Path);
    if (!Buf)
      tool::fatal(Path, Buf.takeError());
    if (Error E = (*L)->add(Path, (*Buf)->getBuffer()))
      tool::fatal(Path, std::move(E));
  }
  ReportOptions Opts;
  Opts.TopContexts = Top;
  Opts.TopFunctions = TopFunctions;
  Opts.Sort = *parseSortKey(Sort);
  Opts.Reverse = Reverse;
  Opts.FunctionFilters = Functions;
  auto R = (*L)->build(Opts);
  if (!R)
    tool::fatal("", R.takeError());
  for (const std::string &N : (*L)->notes())
    tool::warning("", N);

  std::string Text;
  raw_string_ostream File(Text);
  raw_ostream &OS = Output.empty() ? static_cast<raw_ostream &>(outs()) : File;
  if (Format == "json")
    printReportJSON(*R, OS);
  else if (Format == "yaml")
    printReportYAML(*R, OS);
  else
    printReportText(*R, OS);
  if (Output.empty()) {
    tool::finishStdout();
    return 0;
  }
  if (Error E = tool::writeFileAtomically(Output, Text))
    tool::fatal(Output, std::move(E));
  return 0;
}
