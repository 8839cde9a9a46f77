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
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler(
      "show fewer or smaller inputs at a time, or raise the memory limit");

  CLI::App App{"Show the allocation contexts of MemProf profiles, ranked, with a\n"
               "summary: indexed profiles (memprof-merge's, named by their names\n"
               "extension; llvm-profdata's, named from --profiled-binary) and raw\n"
               "profiles (symbolized with --profiled-binary/--debug-dir). Several\n"
               "inputs are merged as memprof-merge merges them.",
               "memprof-show"};
  std::vector<std::string> Inputs, Binaries, DebugDirs, Functions;
  std::string Sort = "bytes", Format = "text", Output;
  size_t Top = 10;
  bool Reverse = false, NoNames = false;
  App.add_option("inputs", Inputs, "Raw or indexed profiles")->required();
  App.add_option("--top-contexts,-n", Top, "How many contexts to list")
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
                 "works too); repeatable")
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
  App.add_flag("--no-names", NoNames,
               "Ignore the names extension of indexed inputs");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;

  tool::refuseOutputOverInputs(Inputs, Output);

  auto L = ReportLoader::create(Binaries, DebugDirs, NoNames);
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
