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
               "with --profiled-binary/--debug-dir), .profraw and .proftext files.\n"
               "Several inputs are merged as memprof-merge merges them.",
               "memprof-show"};
  std::vector<std::string> Inputs, Binaries, DebugDirs, Functions;
  std::string Sort = "bytes", Format = "text", Output;
  size_t Top = 10, TopFunctions = 10;
  bool Reverse = false, NoNames = false, NoSystemDirs = false;
  App.add_option("inputs", Inputs,
                 "Raw or indexed profiles, MemProf or PGO counters or both, "
                 "or LLVM's counters text")
      ->required();
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
  App.add_option("--profiled-binary", Binaries,
                 "A binary of the profiled process: symbolizes raw inputs and "
                 "names indexed inputs without a names extension; repeatable")
      ->type_name("FILE");
  App.add_option("--debug-dir", DebugDirs,
                 "A directory searched by build id for raw inputs' binaries; "
                 "repeatable")
      ->type_name("DIR");
  App.add_option("-o,--output", Output,
                 "Write the report to this file (replaced whole, or left as "
                 "it was on error) instead of standard output")
      ->type_name("FILE");
  App.add_flag("--no-system-dirs", NoSystemDirs,
               "Do not search the system's library directories "
               "(/usr/lib/debug, /lib/x86_64-linux-gnu, ...) for the modules "
               "of raw inputs that no --profiled-binary or --debug-dir "
               "provides");
  App.add_flag("--no-names", NoNames,
               "Ignore the names extension of indexed inputs");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;

  tool::refuseOutputOverInputs(Inputs, Output);

  auto L = ReportLoader::create(
      Binaries, DebugDirs, NoNames,
      NoSystemDirs ? std::vector<std::string>() : ElfBinaryLocator::systemDirs());
  if (!L)
    tool::fatal("", L.takeError());
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
