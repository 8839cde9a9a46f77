//===- ToolCommon.h - Diagnostics, inputs and atomic output for the tools -===//
#ifndef MEMPROF_TOOLS_TOOLCOMMON_H
#define MEMPROF_TOOLS_TOOLCOMMON_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace CLI {
class App;
} // namespace CLI

namespace memprof {
struct ModuleSearch;
struct Report;
struct ReportOptions;
namespace tool {

/// Reads \p Inputs (raw or indexed profiles, counters) as memprof-show does
/// and builds their report; the loader's notes become warnings, a bad input
/// is fatal. \p Gaps keeps the frames of raw inputs that cannot be
/// symbolized in their place.
Report loadReport(const std::vector<std::string> &Inputs,
                  const ModuleSearch &Search, bool IgnoreNames, bool Gaps,
                  const ReportOptions &Opts);

/// The options that say where the modules of raw profiles are found
/// (--profiled-binary, --debug-dir, --no-system-dirs, --no-debuginfod), the
/// same in every tool that symbolizes (docs/memprof-merge.md#symbolization).
void addModuleSearchOptions(CLI::App &App, ModuleSearch &S);
/// --bundle: adds each bundle's profiles to \p Profiles and its modules'
/// files to \p S's profiled binaries; a bad bundle is fatal.
void addBundles(const std::vector<std::string> &Bundles,
                std::vector<std::string> &Profiles, ModuleSearch &S);

/// Parses the command line. A usage error prints "<tool>: error: ... (see
/// --help)" and exits 1; --help prints the help and returns false (the tool
/// then exits 0); otherwise returns true.
bool parseCommandLine(CLI::App &App, int argc, char **argv);

/// Sets the name printed in front of every diagnostic, and what --version
/// says the tool writes (by default, the indexed profile and its versions).
void setToolName(llvm::StringRef Name, llvm::StringRef Writes = "");
/// The tool reads PGO counter profiles too (said by --version).
void setReadsCounters();
/// Keeps freed memory for reuse instead of returning it to the system: a
/// tool runs briefly and its tables grow by doubling, so glibc's defaults
/// (allocations of 128 KiB and more mmapped afresh and unmapped at free, the
/// heap's top trimmed) cost a page fault for every page of every growth
/// step. Call first thing in main.
void tuneAllocator();
/// Makes threads started from now on allocate from the main thread's heap
/// (glibc's M_ARENA_MAX 1) instead of an arena of their own, which faults in
/// fresh small pages for everything they build while the main heap is warm
/// and advised for huge pages. Worth it only where threads allocate a few
/// large blocks (raw profiles: a handful of vectors each): threads making
/// many small allocations would wait on the heap's lock. Call before the
/// threads start.
void shareHeapWithThreads();
/// Makes a failed allocation (operator new, or LLVM's own allocators) print
/// "<tool>: error: out of memory (an allocation failed); <Hint>" and exit
/// with status 1, removing any temporary output file, instead of aborting.
/// Call after setToolName.
void installOutOfMemoryHandler(llvm::StringRef Hint);
/// From now on, every warning and error printed is also appended to
/// \p Into ("warning: FILE: message"), for a machine-readable report; null
/// stops it.
void captureDiagnostics(std::vector<std::string> *Into);
/// "<tool>: error: <file>: <message>" (file omitted when empty).
void error(llvm::StringRef File, const llvm::Twine &Msg);
void error(llvm::StringRef File, llvm::Error E);
void warning(llvm::StringRef File, const llvm::Twine &Msg);
void note(const llvm::Twine &Msg);
/// Runs \p Hook (once) when fatal() is about to exit: a tool that promised
/// a report writes it even when it fails.
void setFatalHook(std::function<void()> Hook);
/// Prints the error and exits with status 1.
[[noreturn]] void fatal(llvm::StringRef File, const llvm::Twine &Msg);
[[noreturn]] void fatal(llvm::StringRef File, llvm::Error E);

/// Reads a whole input file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInput(llvm::StringRef Path);

/// Reads a list file: one path per line; blank lines and lines starting
/// with '#' are skipped; relative paths are taken relative to the list.
llvm::Error readInputList(llvm::StringRef ListPath,
                          std::vector<std::string> &Out);
/// The same where a line may also be `W,FILE` (llvm-profdata's weighted
/// form): a line whose text up to its first comma is all decimal digits
/// gives the weight of the file after the comma; other lines have weight 1.
/// \p Weights gets one entry per path added to \p Out.
llvm::Error readInputList(llvm::StringRef ListPath,
                          std::vector<std::string> &Out,
                          std::vector<uint64_t> &Weights);

/// The weights of `W,FILE` inputs: integers from 1 to 2^32.
constexpr uint64_t MaxInputWeight = uint64_t(1) << 32;
/// Parses `W,FILE` (--weighted-input): a decimal W from 1 to MaxInputWeight
/// and a non-empty FILE.
llvm::Expected<std::pair<uint64_t, std::string>>
parseWeightedInput(llvm::StringRef Arg);

/// True if \p A and \p B name the same existing file.
bool sameFile(llvm::StringRef A, llvm::StringRef B);
/// Exits with an error naming the first of \p Inputs that \p Output (when
/// given) names too: writing it would destroy an input.
void refuseOutputOverInputs(const std::vector<std::string> &Inputs,
                            llvm::StringRef Output);

/// Writes \p Data to a temporary file beside \p Path and renames it into
/// place, so \p Path holds either its old content or all of the new. The
/// temporary file is "<Path>.tmp-<pid>-<random>"; one that a process killed
/// while writing (SIGKILL: no handler runs) left beside \p Path is removed
/// first if that process no longer exists, with a note.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Data);

/// The same, with the content written by \p Write as it is produced, so
/// that a large output is never held in memory. \p Write's error, if any,
/// removes the temporary file and is returned.
llvm::Error
writeFileAtomically(llvm::StringRef Path,
                    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Write);

/// How far a long run has come, on stderr, at most once a second:
/// "<tool>: 1200 of 10000 inputs (12%), 350 MiB, 4 s", in place on a
/// terminal and a line each otherwise. --progress: "auto" shows it on a
/// terminal once the tool has run for a second (not when \p Quiet), and
/// nothing for a run shorter than that; "always" everywhere from the start;
/// "never" not at all. Time counts from construction.
class ProgressLine {
public:
  ProgressLine(llvm::StringRef Mode, bool Quiet = false);
  /// \p Done of \p Total \p Unit; \p Extra follows the percentage (such
  /// as ", 350 MiB"). The last update of a phase has Done == Total.
  void update(uint64_t Done, uint64_t Total, llvm::StringRef Unit,
              llvm::StringRef Extra = "");

private:
  bool Terminal, Always, On, Printed = false;
  std::chrono::steady_clock::time_point Start, Last;
};

/// Flushes standard output; a failed write (a full disk, a closed pipe) is
/// "<tool>: error: <stdout>: write failed: <reason>" and exit status 1,
/// instead of LLVM's "IO failure on output stream" crash at exit.
void finishStdout();

} // namespace tool
} // namespace memprof

#endif
