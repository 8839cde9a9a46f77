//===- ToolCommon.cpp - Diagnostics, inputs and atomic output --------------===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Bundle.h"
#include "memprof/ProfileData/Report.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/Support/FileSystem.h"
#include <CLI/CLI.hpp>
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Config/llvm-config.h"
#include "memprof/format/IndexedFormat.h"
#include "memprof/format/InstrProfFormat.h"
#include "memprof/format/RawProfileFormat.h"
#include <algorithm>
#include <functional>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace llvm;

namespace memprof {
namespace tool {

static std::string ToolName = "memprof";
static std::string ToolWrites;
static bool ToolReadsCounters = false;

void setReadsCounters() { ToolReadsCounters = true; }

void setToolName(StringRef Name, StringRef Writes) {
  ToolName = Name.str();
  ToolWrites = Writes.str();
}

// The message is built once, up front: when memory runs out, nothing may be
// allocated to report it.
static char OutOfMemoryMsg[256];
static size_t OutOfMemoryLen = 0;

[[noreturn]] static void outOfMemory() {
  // write(2) and _exit only: the heap cannot be trusted any more. Temporary
  // outputs registered with RemoveFileOnSignal are removed first.
  ssize_t R = ::write(2, OutOfMemoryMsg, OutOfMemoryLen);
  (void)R;
  sys::RunInterruptHandlers();
  ::_exit(1);
}

static void outOfMemoryNewHandler() { outOfMemory(); }

static void outOfMemoryLLVMHandler(void *, const char *, bool) {
  outOfMemory();
}

void tuneAllocator() {
#ifdef __GLIBC__
  // Below 64 MiB from the heap (reused after free); trim only past 256 MiB
  // free at the top. Allocation failure is still reported as before.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // The heap's next 64 MiB in transparent huge pages, as glibc's
  // glibc.malloc.hugetlb=1 tunable would ask (an environment variable read
  // before main, so not ours to set): grown once with 64 MiB of top pad,
  // then advised. A merge's tables touch tens of MiB that each small page
  // would fault in (about 4 us a fault on a VM): a tenth of a one-input
  // merge. Advice only: without THP nothing changes. Only when the block
  // just allocated lies in the region sbrk extended, so that nothing else
  // is ever advised. MEMPROF_HUGE_PAGES=0 leaves the heap as it was.
  const char *HP = getenv("MEMPROF_HUGE_PAGES");
  if (!HP || StringRef(HP) != "0") {
    constexpr uintptr_t Huge = 2 << 20, Pad = 64 << 20;
    mallopt(M_TOP_PAD, Pad);
    void *P = malloc(1 << 20);
    uintptr_t At = reinterpret_cast<uintptr_t>(P);
    uintptr_t End = reinterpret_cast<uintptr_t>(sbrk(0));
    if (P && At < End && End - At <= Pad + Huge) {
      uintptr_t Start = (At + Huge - 1) & ~(Huge - 1);
      if (Start < End)
        (void)madvise(reinterpret_cast<void *>(Start), End - Start,
                      MADV_HUGEPAGE);
    }
    free(P);
    mallopt(M_TOP_PAD, 128 << 10); // glibc's default again
  }
#endif
}

void shareHeapWithThreads() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
#endif
}

void installOutOfMemoryHandler(StringRef Hint) {
  int N = std::snprintf(OutOfMemoryMsg, sizeof(OutOfMemoryMsg),
                        "%s: error: out of memory (an allocation failed); "
                        "%.*s\n",
                        ToolName.c_str(), int(Hint.size()), Hint.data());
  OutOfMemoryLen =
      N < 0 ? 0 : std::min<size_t>(size_t(N), sizeof(OutOfMemoryMsg) - 1);
  std::set_new_handler(outOfMemoryNewHandler);
  install_bad_alloc_error_handler(outOfMemoryLLVMHandler);
}

static std::vector<std::string> *Captured = nullptr;

void captureDiagnostics(std::vector<std::string> *Into) { Captured = Into; }

static void print(StringRef Kind, StringRef File, const Twine &Msg) {
  std::string Text = Kind.str() + ": ";
  if (!File.empty())
    Text += File.str() + ": ";
  Text += Msg.str();
  errs() << ToolName << ": " << Text << "\n";
  if (Captured)
    Captured->push_back(std::move(Text));
}

void error(StringRef File, const Twine &Msg) { print("error", File, Msg); }

void error(StringRef File, Error E) {
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    print("error", File, EI.message());
  });
}

void warning(StringRef File, const Twine &Msg) { print("warning", File, Msg); }

std::string versionText() {
  std::string S;
  raw_string_ostream OS(S);
  OS << ToolName << " (memprof " << MEMPROF_VERSION << ", built with LLVM "
     << LLVM_VERSION_STRING << ")\n"
     << "  reads:  raw MemProf profiles v" << raw::RawVersionMin << "-v"
     << raw::RawVersionMax;
  if (ToolReadsCounters)
    OS << "; raw PGO counter profiles v" << instrprof::RawVersionMin << "-v"
       << instrprof::RawVersionMax;
  OS << "; indexed profiles up to v" << indexed::VersionMax
     << (ToolReadsCounters ? " with counters and" : " with")
     << " MemProf sections V" << indexed::MemProfVersionMin << "-V"
     << indexed::MemProfVersionMax << "\n"
     << "  writes: ";
  if (!ToolWrites.empty()) {
    OS << ToolWrites;
    return S;
  }
  OS << "indexed profile v" << indexed::VersionWritten
     << (ToolReadsCounters ? " with counters and" : ",")
     << " MemProf section V" << indexed::MemProfVersionMin << "-V"
     << indexed::MemProfVersionMax << " (default V"
     << indexed::MemProfVersionDefault
     << "), memprof's names extension after LLVM's bytes";
  return S;
}

void addModuleSearchOptions(CLI::App &App, ModuleSearch &S) {
  App.add_option("--profiled-binary", S.ProfiledBinaries,
                 "A binary of the profiled process (main program or shared "
                 "library, or its debug file), found by its build id; "
                 "repeatable")
      ->allow_extra_args(false)
      ->type_name("FILE");
  App.add_option("--debug-dir", S.DebugDirs,
                 "A directory searched for binaries and debug files by build id "
                 "(.build-id/ab/cdef....debug or any ELF file inside); repeatable")
      ->allow_extra_args(false)
      ->type_name("DIR");
  App.add_flag("--no-system-dirs", S.NoSystemDirs,
               "Do not search the system's library directories "
               "(/usr/lib/debug, /lib/x86_64-linux-gnu, ...) for modules "
               "nothing else provides, nor use the recorded paths inside them "
               "(searched by default: libc and libstdc++ frames are named "
               "when the profile was made on this machine)");
  App.add_flag("--system-dwarf", S.SystemDwarf,
               "Symbolize modules found only in the system's directories "
               "(libc, libstdc++, ...) with their DWARF too: inline chains, "
               "files and lines (by default their symbol tables name their "
               "frames, which is much faster; the program's own modules "
               "always get DWARF)");
  App.add_flag("--no-symbol-cache", S.NoSymbolCache,
               "Neither read nor write the symbol cache (frames of modules "
               "symbolized before, kept by build id; also "
               "MEMPROF_SYMBOL_CACHE=off)");
  App.add_option("--symbol-cache-dir", S.SymbolCacheDir,
                 "The symbol cache's directory (default: "
                 "$MEMPROF_SYMBOL_CACHE, else $XDG_CACHE_HOME/memprof, else "
                 "~/.cache/memprof)")
      ->allow_extra_args(false)
      ->type_name("DIR");
  App.add_flag("--no-debuginfod", S.NoDebuginfod,
               "Do not fetch missing modules from the debuginfod servers in "
               "DEBUGINFOD_URLS (asked last, when the variable is set; "
               "cached in DEBUGINFOD_CACHE_PATH, each request bounded by "
               "DEBUGINFOD_TIMEOUT seconds)");
}

Report loadReport(const std::vector<std::string> &Inputs,
                  const ModuleSearch &Search, bool IgnoreNames, bool Gaps,
                  const ReportOptions &Opts) {
  auto L = ReportLoader::create(Search, IgnoreNames);
  if (!L)
    fatal("", L.takeError());
  (*L)->keepGaps(Gaps);
  for (const std::string &Path : Inputs) {
    auto Buf = readInput(Path);
    if (!Buf)
      fatal(Path, Buf.takeError());
    if (Error E = (*L)->add(Path, (*Buf)->getBuffer()))
      fatal(Path, std::move(E));
  }
  auto R = (*L)->build(Opts);
  if (!R)
    fatal("", R.takeError());
  (*L)->saveSymbolCache();
  for (const std::string &N : (*L)->notes())
    warning("", N);
  return std::move(*R);
}

void addBundles(const std::vector<std::string> &Bundles,
                std::vector<std::string> &Profiles, ModuleSearch &S) {
  for (const std::string &B : Bundles) {
    Expected<BundleManifest> M = readBundle(B);
    if (!M)
      fatal(B, M.takeError());
    Profiles.insert(Profiles.end(), M->Profiles.begin(), M->Profiles.end());
    for (const BundleModule &Mod : M->Modules)
      S.ProfiledBinaries.push_back(Mod.File);
  }
}

bool parseCommandLine(CLI::App &App, int argc, char **argv) {
  App.set_version_flag("--version", versionText(),
                       "Print the version, LLVM's and the formats read and "
                       "written, and exit");
  // Unsigned options take whole numbers: "-1" must not wrap to 2^64 - 1.
  for (CLI::Option *O : App.get_options())
    if (O->get_type_name() == "UINT")
      O->check(CLI::Validator(
          [](std::string &V) -> std::string {
            if (V.empty() || V.find_first_not_of("0123456789") != V.npos)
              return "'" + V + "' is not a whole number (0 or more)";
            return std::string();
          },
          "", "UINT"));
  try {
    App.parse(argc, argv);
  } catch (const CLI::ParseError &E) {
    if (E.get_exit_code() == 0) {
      App.exit(E); // --help
      return false;
    }
    fatal("", Twine(E.what()) + " (see --help)");
  }
  return true;
}

void note(const Twine &Msg) { errs() << ToolName << ": " << Msg << "\n"; }

static std::function<void()> FatalHook;

void setFatalHook(std::function<void()> Hook) { FatalHook = std::move(Hook); }

[[noreturn]] static void exitFatally() {
  if (auto Hook = std::move(FatalHook)) {
    FatalHook = nullptr; // once, even if it fails fatally itself
    Hook();
  }
  std::exit(1);
}

void fatal(StringRef File, const Twine &Msg) {
  error(File, Msg);
  exitFatally();
}

void fatal(StringRef File, Error E) {
  error(File, std::move(E));
  exitFatally();
}

Expected<std::unique_ptr<MemoryBuffer>> readInput(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return makeError(ErrorCode::IO, "is a directory");
  auto BufOrErr = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return makeError(ErrorCode::IO,
                     "cannot read: " + BufOrErr.getError().message());
  return std::move(*BufOrErr);
}

Expected<std::pair<uint64_t, std::string>>
parseWeightedInput(StringRef Arg) {
  auto [W, File] = Arg.split(',');
  uint64_t Weight = 0;
  if (Arg.find(',') == StringRef::npos || W.empty() ||
      W.find_first_not_of("0123456789") != StringRef::npos || File.empty())
    return createStringError(inconvertibleErrorCode(),
                             "'" + Arg + "' is not WEIGHT,FILE");
  if (W.getAsInteger(10, Weight) || Weight < 1 || Weight > MaxInputWeight)
    return createStringError(inconvertibleErrorCode(),
                             "'" + Arg +
                                 "': the weight must be an integer from 1 to " +
                                 Twine(MaxInputWeight));
  return std::make_pair(Weight, File.str());
}

static Error readList(StringRef ListPath, std::vector<std::string> &Out,
                      std::vector<uint64_t> *Weights) {
  auto BufOrErr = readInput(ListPath);
  if (!BufOrErr)
    return BufOrErr.takeError();
  StringRef Dir = sys::path::parent_path(ListPath);
  SmallVector<StringRef, 64> Lines;
  (*BufOrErr)->getBuffer().split(Lines, '\n');
  unsigned LineNo = 0;
  for (StringRef L : Lines) {
    ++LineNo;
    L = L.trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    uint64_t Weight = 1;
    if (Weights) {
      StringRef Head = L.take_until([](char C) { return C == ','; });
      if (Head.size() < L.size() && !Head.empty() &&
          Head.find_first_not_of("0123456789") == StringRef::npos) {
        auto WOr = parseWeightedInput(L);
        if (!WOr)
          return makeError(ErrorCode::Malformed,
                           "line " + Twine(LineNo) + ": " +
                               toString(WOr.takeError()));
        Weight = WOr->first;
        L = L.drop_front(Head.size() + 1);
      }
      Weights->push_back(Weight);
    }
    if (sys::path::is_absolute(L) || Dir.empty()) {
      Out.push_back(L.str());
    } else {
      SmallString<256> P(Dir);
      sys::path::append(P, L);
      Out.push_back(std::string(P));
    }
  }
  return Error::success();
}

Error readInputList(StringRef ListPath, std::vector<std::string> &Out) {
  return readList(ListPath, Out, nullptr);
}

Error readInputList(StringRef ListPath, std::vector<std::string> &Out,
                    std::vector<uint64_t> &Weights) {
  return readList(ListPath, Out, &Weights);
}

bool sameFile(StringRef A, StringRef B) {
  sys::fs::UniqueID IA, IB;
  if (sys::fs::getUniqueID(A, IA) || sys::fs::getUniqueID(B, IB))
    return false;
  return IA == IB;
}

void refuseOutputOverInputs(const std::vector<std::string> &Inputs,
                            StringRef Output) {
  if (Output.empty())
    return;
  for (const std::string &I : Inputs)
    if (sameFile(I, Output))
      fatal(I, "the output would overwrite this input; choose another -o");
}

/// Removes "<Path>.tmp-<pid>-<8 characters>" files whose process is gone.
/// Pids are this host's: on a directory shared between hosts, another
/// host's merge could lose its temporary file, and its rename then fails
/// with an error (never a partial output), as for the runtime's sweep.
static void sweepStaleTemporaries(StringRef Path) {
  SmallString<256> Dir(sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  std::string Prefix = (sys::path::filename(Path) + ".tmp-").str();
  unsigned Removed = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    StringRef Name = sys::path::filename(I->path());
    if (!Name.consume_front(Prefix))
      continue;
    auto [PidText, Rest] = Name.split('-');
    unsigned long Pid = 0;
    if (Rest.size() != 8 || PidText.getAsInteger(10, Pid) || Pid == 0 ||
        Pid > 0x7fffffff)
      continue;
    if (::kill(pid_t(Pid), 0) == 0 || errno != ESRCH)
      continue; // alive (or not ours to signal): still writing
    sys::fs::file_status St;
    if (sys::fs::status(I->path(), St, /*Follow=*/false) ||
        !sys::fs::is_regular_file(St))
      continue;
    if (!sys::fs::remove(I->path()))
      ++Removed;
  }
  if (Removed)
    note("removed " + Twine(Removed) + " stale temporary file" +
         (Removed == 1 ? "" : "s") + " of " + Path +
         " (left by a killed process)");
}

void finishStdout() {
  outs().flush();
  if (outs().has_error()) {
    std::string Msg = "write failed: " + outs().error().message();
    outs().clear_error();
    fatal("<stdout>", Msg);
  }
}

Error writeFileAtomically(StringRef Path, StringRef Data) {
  return writeFileAtomically(Path, [&](raw_ostream &OS) {
    OS << Data;
    return Error::success();
  });
}

Error writeFileAtomically(StringRef Path,
                          function_ref<Error(raw_ostream &)> Write) {
  if (sys::fs::is_directory(Path))
    return makeError(ErrorCode::IO, "output is a directory");
  // A device, FIFO or /dev/stdout is written in place: renaming a temporary
  // file over it would replace the device itself.
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) && sys::fs::exists(St) &&
      !sys::fs::is_regular_file(St)) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
    if (EC)
      return makeError(ErrorCode::IO, "cannot open: " + EC.message());
    if (Error E = Write(OS))
      return E;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = "write failed: " + OS.error().message();
      OS.clear_error();
      return makeError(ErrorCode::IO, Msg);
    }
    return Error::success();
  }
  sweepStaleTemporaries(Path);
  SmallString<256> Model(Path);
  Model += ".tmp-" + std::to_string(::getpid()) + "-%%%%%%%%";
  int FD;
  SmallString<256> Tmp;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Tmp))
    return makeError(ErrorCode::IO,
                     "cannot create a temporary file beside the output: " +
                         EC.message());
  sys::RemoveFileOnSignal(Tmp);
  auto Remove = [&] {
    sys::fs::remove(Tmp);
    sys::DontRemoveFileOnSignal(Tmp);
  };
  auto Fail = [&](const Twine &What) {
    Remove();
    return makeError(ErrorCode::IO, What);
  };
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    if (Error E = Write(OS)) {
      OS.close();
      OS.clear_error();
      Remove();
      return E;
    }
    OS.flush();
    if (OS.has_error()) {
      std::string Msg = "write failed: " + OS.error().message();
      OS.clear_error();
      return Fail(Msg);
    }
    OS.close();
    if (OS.has_error()) {
      std::string Msg = "write failed: " + OS.error().message();
      OS.clear_error();
      return Fail(Msg);
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Path))
    return Fail("cannot rename the temporary file into place: " +
                EC.message());
  sys::DontRemoveFileOnSignal(Tmp);
  return Error::success();
}

ProgressLine::ProgressLine(StringRef Mode, bool Quiet)
    : Terminal(sys::Process::StandardErrIsDisplayed()),
      Always(Mode == "always"),
      On(Mode == "always" || (Mode == "auto" && !Quiet && Terminal)),
      Start(std::chrono::steady_clock::now()), Last(Start) {}

void ProgressLine::update(uint64_t Done, uint64_t Total, StringRef Unit,
                          StringRef Extra) {
  if (!On)
    return;
  auto Now = std::chrono::steady_clock::now();
  bool Final = Done == Total;
  if (!Always && Now - Start < std::chrono::seconds(1))
    return;
  if (!Final && Printed && Now - Last < std::chrono::seconds(1))
    return;
  if (Final && !Printed && !Always)
    return; // a short run: no progress to show
  Last = Now;
  Printed = true;
  auto Secs = std::chrono::duration_cast<std::chrono::seconds>(Now - Start);
  errs() << (Terminal ? "\r" : "") << ToolName << ": " << Done << " of "
         << Total << " " << Unit << " ("
         << (Total ? Done * 100 / Total : 100) << "%)" << Extra << ", "
         << Secs.count() << " s" << (Terminal ? "\x1b[K" : "\n");
  if (Final && Terminal)
    errs() << "\n";
}

} // namespace tool
} // namespace memprof
