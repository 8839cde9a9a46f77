//===- Profile.cpp - Options, dumps, output files, signals and fork -------===//
//
// A dump serializes a snapshot (the MIB table plus the live allocations as
// if freed now) to LLVM raw MemProf v5 in mmap'd memory, writes it to a
// temporary file beside the final one and renames it into place. Dumps
// happen at exit, through the C API, and after the dump signal (whose
// handler only sets a flag; the next allocation or free performs the dump).
//
//===----------------------------------------------------------------------===//
#include "RawProfileWriter.h"
#include "RuntimeInternal.h"
#include "StackDepot.h"
#include "memprof/Runtime/memprof_runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern "C" char *program_invocation_short_name;
// glibc's sigaction under its other exported name: the runtime's own calls
// go past the sigaction it exports.
extern "C" int __sigaction(int, const struct sigaction *, struct sigaction *);

namespace memprof {
namespace rt {

namespace {

constexpr size_t MaxPathBytes = 4096;
constexpr const char *DefaultPattern = "memprof.%p.memprofraw";
constexpr const char *OptionsVar = "MEMPROF_RT_OPTIONS";
constexpr const char *PathVar = "MEMPROF_PROFILE_FILE";

/// Serializes dumps, resets, output-path changes and fork.
TicketLock DumpMutex;
char Pattern[MaxPathBytes] = "memprof.%p.memprofraw";
/// Dumps of this process so far (restarts at 0 in a forked child); names
/// the temporary files.
uint64_t DumpSeq;
/// Dumps written with the current pattern: the sequence number of %n and
/// of the ".<n>" suffix. A new pattern (or a forked child) starts at 1, so
/// its first dump takes the name exactly as given.
uint64_t PatternDumps;
/// A write failure was reported for the current pattern.
bool WriteErrorReported;
/// A profile of the current pattern went to another name because its own
/// was taken (reported once per pattern).
bool NameTakenReported;
/// When this process started (CLOCK_REALTIME_COARSE, the clock of file
/// times; a forked child keeps its parent's): a profile that got the output
/// name since then is another process's (several processes with one name),
/// an older one an earlier run's.
struct timespec StartTime;
/// The file this process placed last: replacing it again is no conflict.
dev_t PlacedDev;
ino_t PlacedIno;
char AltPath[MaxPathBytes];
// Scratch space of a dump, under DumpMutex: keeps the dumping thread's stack
// small (a dump may run on any thread, at its next allocation).
#define MEMPROF_CONSTINIT [[clang::require_constant_initialization]]
MEMPROF_CONSTINIT Line ExpandBuffer;
MEMPROF_CONSTINIT Line TempBuffer;
char FinalPath[MaxPathBytes];
char TempPath[MaxPathBytes];
char ExePath[raw::ModulePathMaxSize + 1];
char CwdPath[raw::ModulePathMaxSize + 1];

//===-- Messages ----------------------------------------------------------===//

void warn(Line &L) {
  L.addChar('\n');
  writeStderr(L);
}

//===-- Options -----------------------------------------------------------===//

bool parseBool(const char *V, size_t N, bool &Out) {
  if (stringsEqual(V, "1", N) || stringsEqual(V, "true", N)) {
    Out = true;
    return true;
  }
  if (stringsEqual(V, "0", N) || stringsEqual(V, "false", N)) {
    Out = false;
    return true;
  }
  return false;
}

bool parseSignal(const char *V, size_t N, int &Out) {
  uint64_t Num;
  if (parseUnsigned(V, N, Num)) {
    if (Num == 0 || (Num < 65 && Num != SIGKILL && Num != SIGSTOP)) {
      Out = int(Num);
      return true;
    }
    return false;
  }
  if (N > 3 && startsWith(V, "SIG")) {
    V += 3;
    N -= 3;
  }
  static const struct {
    const char *Name;
    int Num;
  } Names[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
               {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"ALRM", SIGALRM},
               {"TERM", SIGTERM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}};
  for (const auto &E : Names)
    if (stringsEqual(V, E.Name, N)) {
      Out = E.Num;
      return true;
    }
  return false;
}

void badValue(const char *Key, size_t KeyLen, const char *V, size_t N,
              const char *Expected, const char *Default) {
  Line L;
  L.add("memprof: warning: ")
      .add(OptionsVar)
      .add(": invalid value '")
      .add(V, N)
      .add("' for ")
      .add(Key, KeyLen)
      .add(" (expected ")
      .add(Expected)
      .add("); using the default ")
      .add(Default);
  warn(L);
}

void applyOption(const char *K, size_t KN, const char *V, size_t VN) {
  Options &O = G.Opts;
  uint64_t Num;
  bool B;
  int Sig;
  if (stringsEqual(K, "max_stack_depth", KN)) {
    if (parseUnsigned(V, VN, Num) && Num >= 1 && Num <= MaxStackDepthLimit)
      O.MaxStackDepth = uint32_t(Num);
    else
      badValue(K, KN, V, VN, "1-256", "64");
  } else if (stringsEqual(K, "dump_at_exit", KN)) {
    if (parseBool(V, VN, B))
      O.DumpAtExit = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "1");
  } else if (stringsEqual(K, "dump_signal", KN)) {
    if (parseSignal(V, VN, Sig))
      O.DumpSignal = Sig;
    else
      badValue(K, KN, V, VN,
               "0, a catchable signal number or a name such as SIGUSR2",
               "0 (none)");
  } else if (stringsEqual(K, "dump_on_terminate", KN)) {
    if (parseBool(V, VN, B))
      O.DumpOnTerminate = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "1");
  } else if (stringsEqual(K, "fsync", KN)) {
    if (parseBool(V, VN, B))
      O.Fsync = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "0");
  } else if (stringsEqual(K, "histogram", KN)) {
    if (parseBool(V, VN, B))
      O.Histogram = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "0");
  } else if (stringsEqual(K, "histogram_max_bytes", KN)) {
    if (parseUnsigned(V, VN, Num) && Num <= (uint64_t(1) << 32))
      O.HistogramMaxBytes = Num;
    else
      badValue(K, KN, V, VN, "0-4294967296", "65536");
  } else if (stringsEqual(K, "exact_granules", KN)) {
    if (parseBool(V, VN, B))
      O.ExactGranules = B;
    else
      badValue(K, KN, V, VN, "0 or 1",
               "(1 linked into a program, 0 preloaded)");
  } else if (stringsEqual(K, "granule_slab", KN)) {
    if (parseBool(V, VN, B))
      O.GranuleSlab = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "1");
  } else if (stringsEqual(K, "unwind", KN)) {
    if (VN == 2 && stringsEqual(V, "fp", 2))
      O.Unwind = UnwindMode::Fp;
    else if (VN == 6 && stringsEqual(V, "hybrid", 6))
      O.Unwind = UnwindMode::Hybrid;
    else if (VN == 3 && stringsEqual(V, "cfi", 3))
      O.Unwind = UnwindMode::Cfi;
    else
      badValue(K, KN, V, VN, "fp, hybrid or cfi", "hybrid");
  } else if (stringsEqual(K, "capture_memo", KN)) {
    if (parseBool(V, VN, B))
      O.CaptureMemo = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "1");
  } else if (stringsEqual(K, "capture_check", KN)) {
    if (parseBool(V, VN, B))
      O.CaptureCheck = B;
    else
      badValue(K, KN, V, VN, "0 or 1", "0");
  } else if (stringsEqual(K, "verbosity", KN)) {
    if (parseUnsigned(V, VN, Num) && Num <= 2)
      O.Verbosity = uint32_t(Num);
    else
      badValue(K, KN, V, VN, "0-2", "0");
  } else {
    Line L;
    L.add("memprof: warning: ")
        .add(OptionsVar)
        .add(": unknown option '")
        .add(K, KN)
        .add("'; ignored");
    warn(L);
  }
}

void parseOptions(const char *S) {
  while (*S) {
    if (*S == ':' || *S == ',' || *S == ' ') {
      ++S;
      continue;
    }
    const char *B = S;
    while (*S && *S != ':' && *S != ',' && *S != ' ')
      ++S;
    const char *Eq = B;
    while (Eq < S && *Eq != '=')
      ++Eq;
    if (Eq == S) {
      Line L;
      L.add("memprof: warning: ")
          .add(OptionsVar)
          .add(": option '")
          .add(B, size_t(S - B))
          .add("' has no value; ignored");
      warn(L);
      continue;
    }
    applyOption(B, size_t(Eq - B), Eq + 1, size_t(S - Eq - 1));
  }
}

/// nullptr if \p P is a valid output pattern, else why not.
const char *checkPattern(const char *P) {
  if (!P || !*P)
    return "empty pattern";
  size_t N = stringLength(P);
  if (N >= MaxPathBytes)
    return "pattern longer than PATH_MAX";
  for (size_t I = 0; I < N; ++I) {
    if (P[I] != '%')
      continue;
    char C = P[++I];
    if (C != 'p' && C != 'h' && C != 'e' && C != 'n' && C != '%')
      return C ? "unknown directive (known: %p %h %e %n %%)"
               : "'%' at the end of the pattern";
  }
  return nullptr;
}

const char *findEnv(char **Envp, const char *Name) {
  size_t N = stringLength(Name);
  for (char **E = Envp; E && *E; ++E)
    if (startsWith(*E, Name) && (*E)[N] == '=')
      return *E + N + 1;
  return nullptr;
}

void anchorPattern(char *P);

void readEnvironment(char **Envp) {
  const char *Opts = findEnv(Envp, OptionsVar);
  const char *Path = findEnv(Envp, PathVar);
  if (getauxval(AT_SECURE)) {
    if (Opts || Path) {
      Line L;
      L.add("memprof: warning: setuid/setgid program: ignoring ")
          .add(OptionsVar)
          .add(" and ")
          .add(PathVar);
      warn(L);
    }
    return;
  }
  if (Opts)
    parseOptions(Opts);
  if (Path) {
    if (const char *Why = checkPattern(Path)) {
      Line L;
      L.add("memprof: warning: ")
          .add(PathVar)
          .add(": ")
          .add(Why)
          .add(" in '")
          .addShortened(Path)
          .add("'; using the default '")
          .add(DefaultPattern)
          .add("'");
      warn(L);
    } else {
      memcpy(Pattern, Path, stringLength(Path) + 1);
    }
  }
  int SavedErrno = errno;
  anchorPattern(Pattern);
  errno = SavedErrno;
}

//===-- Output paths ------------------------------------------------------===//

/// Makes the pattern \p P (MaxPathBytes) absolute against the working
/// directory now, so that a program that changes directory still writes
/// where it was started (or where memprof_set_output_path was called). A
/// '%' of the directory is doubled; a result too long, or a directory that
/// cannot be named, leaves \p P relative.
void anchorPattern(char *P) {
  if (P[0] == '/')
    return;
  char Cwd[MaxPathBytes];
  if (!getcwd(Cwd, sizeof(Cwd)) || Cwd[0] != '/')
    return;
  char Out[MaxPathBytes];
  size_t N = 0;
  for (const char *C = Cwd; *C; ++C) {
    if (N + 3 >= sizeof(Out))
      return;
    if (*C == '%')
      Out[N++] = '%';
    Out[N++] = *C;
  }
  if (N > 1) // not the root
    Out[N++] = '/';
  size_t PN = stringLength(P);
  if (N + PN + 1 > sizeof(Out))
    return;
  memcpy(Out + N, P, PN + 1);
  memcpy(P, Out, N + PN + 1);
}

/// Writes \p Lead and the decimal digits of \p V to \p Out (room for 22
/// bytes); returns the length.
size_t formatSuffix(char *Out, char Lead, uint64_t V) {
  char Digits[21];
  size_t N = 0, Len = 0;
  do
    Digits[N++] = char('0' + V % 10);
  while (V /= 10);
  Out[Len++] = Lead;
  while (N)
    Out[Len++] = Digits[--N];
  return Len;
}

/// Inserts \p Suffix before the extension of \p L's last component (at its
/// end if that has no dot): "dir/p.memprofraw" + ".2" is "dir/p.2.memprofraw".
void insertBeforeExtension(Line &L, const char *Suffix, size_t SuffixLen) {
  size_t Slash = 0, Dot = 0;
  for (size_t I = 0; I < L.Len; ++I) {
    if (L.Data[I] == '/')
      Slash = I + 1, Dot = 0;
    else if (L.Data[I] == '.' && I > Slash)
      Dot = I;
  }
  size_t At = Dot ? Dot : L.Len;
  if (L.Len + SuffixLen < sizeof(L.Data) - 1) {
    memmove(L.Data + At + SuffixLen, L.Data + At, L.Len - At);
    memcpy(L.Data + At, Suffix, SuffixLen);
    L.Len += SuffixLen;
  }
}

/// Expands the pattern for dump \p Seq into \p Out. Without %n, the first
/// dump takes the name as is and later ones get ".<seq>" before the
/// extension of the last component. Returns false if too long.
bool expandPattern(uint64_t Seq, char *Out) {
  Line &L = ExpandBuffer;
  L.Len = 0;
  bool HasSeq = false;
  for (const char *P = Pattern; *P; ++P) {
    if (*P != '%') {
      L.addChar(*P);
      continue;
    }
    switch (*++P) {
    case 'p':
      L.addUnsigned(uint64_t(getpid()));
      break;
    case 'h': {
      char Host[256] = {};
      if (gethostname(Host, sizeof(Host) - 1) != 0)
        memcpy(Host, "unknown", 8);
      L.add(Host);
      break;
    }
    case 'e':
      L.add(program_invocation_short_name && *program_invocation_short_name
                ? program_invocation_short_name
                : "unknown");
      break;
    case 'n':
      L.addUnsigned(Seq);
      HasSeq = true;
      break;
    default: // '%'; checkPattern rejected everything else
      L.addChar('%');
      break;
    }
  }
  bool Device = false;
  if (!HasSeq && Seq > 1 && L.Len < sizeof(L.Data)) {
    // Dumps to a device or FIFO (such as /dev/null) always go to it: never
    // invent sibling names beside it.
    L.Data[L.Len] = 0;
    struct stat St;
    Device = stat(L.Data, &St) == 0 && !S_ISREG(St.st_mode);
  }
  if (!HasSeq && Seq > 1 && !Device) {
    char Suffix[24];
    insertBeforeExtension(L, Suffix, formatSuffix(Suffix, '.', Seq));
  }
  // Leave room for the temporary name's ".tmp.<pid>.<seq>" suffix.
  if (L.Len + 48 >= MaxPathBytes || L.Len + 48 >= sizeof(L.Data))
    return false;
  memcpy(Out, L.Data, L.Len);
  Out[L.Len] = 0;
  return true;
}

void reportWriteError(const char *Path, const char *What, int Err) {
  if (WriteErrorReported)
    return;
  WriteErrorReported = true;
  Line L;
  L.add("memprof: error: cannot write the profile '")
      .addShortened(Path)
      .add("': ")
      .add(What)
      .add(": ")
      .addErrno(Err)
      .add(" (reported once; the program continues)");
  warn(L);
}

/// Whether \p St, found at the output name, is another process's profile
/// written while this one ran (rather than an earlier run's, or our own).
bool takenSinceStart(const struct stat &St) {
  if (!S_ISREG(St.st_mode))
    return false;
  if (St.st_dev == PlacedDev && St.st_ino == PlacedIno)
    return false;
  // The status change time: set when the file got this name (link or
  // rename), later than its last write, so a profile written before this
  // process started but named after it is still seen as another's.
  if (St.st_ctim.tv_sec != StartTime.tv_sec)
    return St.st_ctim.tv_sec > StartTime.tv_sec;
  return St.st_ctim.tv_nsec >= StartTime.tv_nsec;
}

void rememberPlaced(const char *Path) {
  struct stat St;
  if (lstat(Path, &St) == 0)
    PlacedDev = St.st_dev, PlacedIno = St.st_ino;
}

/// Gives the complete temporary file \p Temp its name \p Path. A hard link
/// creates the name only if it is free; a name held by an earlier run's
/// profile (older than this process) is replaced by a rename, as is one
/// this process wrote. A name another process wrote since this one started
/// (several processes sharing a name without %p) is left alone: this
/// profile goes to "<name>.<pid>" (".<pid>-<k>" if need be, before the
/// extension), said once per pattern on stderr. File systems without hard
/// links get the rename. Returns 0 or an errno value (\p What says the step).
int placeProfile(const char *Temp, const char *Path, const char *&What) {
  What = "rename";
  if (link(Temp, Path) == 0) {
    unlink(Temp);
    rememberPlaced(Path);
    return 0;
  }
  struct stat St;
  if (errno != EEXIST || lstat(Path, &St) != 0 || !takenSinceStart(St)) {
    if (rename(Temp, Path) != 0)
      return errno;
    rememberPlaced(Path);
    return 0;
  }
  Line &A = ExpandBuffer; // free again: the path was expanded before
  for (uint64_t K = 1; K <= 64; ++K) {
    A.Len = 0;
    A.add(Path);
    char Suffix[48];
    size_t SuffixLen = formatSuffix(Suffix, '.', uint64_t(getpid()));
    if (K > 1)
      SuffixLen += formatSuffix(Suffix + SuffixLen, '-', K);
    insertBeforeExtension(A, Suffix, SuffixLen);
    if (A.Len >= sizeof(AltPath))
      return ENAMETOOLONG;
    memcpy(AltPath, A.Data, A.Len);
    AltPath[A.Len] = 0;
    if (link(Temp, AltPath) == 0) {
      unlink(Temp);
      rememberPlaced(AltPath);
      if (!NameTakenReported) {
        NameTakenReported = true;
        Line M;
        M.add("memprof: warning: '")
            .addShortened(Path)
            .add("' was written by another process while this one ran; "
                 "this profile is '")
            .addShortened(AltPath)
            .add("' (use %p in the output name for a file per process; "
                 "reported once)");
        warn(M);
      }
      return 0;
    }
    if (errno != EEXIST)
      return errno;
  }
  return EEXIST;
}

/// Writes \p N bytes to \p Path through a temporary file in the same
/// directory and a rename, so the final path never holds a partial profile.
/// Devices and FIFOs (such as /dev/null) are written in place.
int writeProfileFile(const char *Path, const uint8_t *Buf, size_t N,
                     uint64_t Seq) {
  struct stat St;
  if (stat(Path, &St) == 0 && !S_ISREG(St.st_mode)) {
    if (S_ISDIR(St.st_mode)) {
      reportWriteError(Path, "open", EISDIR);
      return -1;
    }
    int Fd = open(Path, O_WRONLY | O_CLOEXEC);
    if (Fd < 0) {
      reportWriteError(Path, "open", errno);
      return -1;
    }
    int Err = writeAll(Fd, Buf, N);
    close(Fd);
    if (Err) {
      reportWriteError(Path, "write", Err);
      return -1;
    }
    return 0;
  }

  char *Temp = TempPath;
  Line &T = TempBuffer;
  T.Len = 0;
  T.add(Path)
      .add(".tmp.")
      .addUnsigned(uint64_t(getpid()))
      .addChar('.')
      .addUnsigned(Seq);
  memcpy(Temp, T.Data, T.Len);
  Temp[T.Len] = 0;
  int Fd = open(Temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  if (Fd < 0 && errno == EEXIST) {
    // A leftover of a process that had our pid; it never reached its name.
    unlink(Temp);
    Fd = open(Temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  }
  if (Fd < 0) {
    reportWriteError(Path, "cannot create a temporary file", errno);
    return -1;
  }
  int Err = writeAll(Fd, Buf, N);
  const char *What = "write";
  if (!Err && G.Opts.Fsync && fsync(Fd) != 0) {
    Err = errno;
    What = "fsync";
  }
  if (close(Fd) != 0 && !Err) {
    Err = errno;
    What = "close";
  }
  // Never replace anything but a regular file (or a dangling name): if the
  // target became a device, FIFO, directory or socket meanwhile, give up
  // rather than rename over it.
  struct stat Target;
  if (!Err && lstat(Path, &Target) == 0 && !S_ISREG(Target.st_mode) &&
      !S_ISLNK(Target.st_mode)) {
    Err = EEXIST;
    What = "the target is not a regular file; not replacing it";
  }
  if (!Err)
    Err = placeProfile(Temp, Path, What);
  if (Err) {
    unlink(Temp);
    reportWriteError(Path, What, Err);
    return -1;
  }
  return 0;
}

//===-- Sweeping stale temporary files ------------------------------------===//

/// Whether \p N (length \p NL) matches the pattern's last component
/// \p P (length \p PL): %p and %n match one or more digits, %h and %e any
/// non-empty text, %% a '%'.
bool globMatch(const char *P, size_t PL, const char *N, size_t NL) {
  if (PL == 0)
    return NL == 0;
  if (P[0] != '%' || PL < 2)
    return NL && *N == *P && globMatch(P + 1, PL - 1, N + 1, NL - 1);
  char D = P[1];
  if (D == '%')
    return NL && *N == '%' && globMatch(P + 2, PL - 2, N + 1, NL - 1);
  bool Digits = D == 'p' || D == 'n';
  for (size_t K = 1; K <= NL; ++K) {
    if (Digits && !(N[K - 1] >= '0' && N[K - 1] <= '9'))
      return false;
    if (globMatch(P + 2, PL - 2, N + K, NL - K))
      return true;
  }
  return false;
}

/// Parses the end of \p Name as "<prefix>.tmp.<pid>.<seq>"; the prefix's
/// length and the pid, or false.
bool parseTempName(const char *Name, size_t Len, size_t &PrefixLen,
                   uint64_t &Pid) {
  size_t E = Len, B = E;
  while (B > 0 && Name[B - 1] >= '0' && Name[B - 1] <= '9')
    --B;
  if (B == E || B == 0 || Name[B - 1] != '.')
    return false;
  size_t PE = B - 1, PB = PE;
  while (PB > 0 && Name[PB - 1] >= '0' && Name[PB - 1] <= '9')
    --PB;
  if (PB == PE || PB < 5 || !stringsEqual(Name + PB - 5, ".tmp.", 5))
    return false;
  if (!parseUnsigned(Name + PB, PE - PB, Pid))
    return false;
  PrefixLen = PB - 5;
  return PrefixLen > 0;
}

/// At start: removes the temporary files (<final>.tmp.<pid>.<n>) that a
/// process killed during a dump left beside the pattern's final names, if
/// that process no longer exists. Only the pattern's directory is looked
/// at, and only names its last component matches (with the ".<n>" a later
/// dump inserts before the extension). A directory with a directive in it
/// is not swept.
void sweepStaleTemporaries() {
  const char *Slash = nullptr;
  for (const char *C = Pattern; *C; ++C)
    if (*C == '/')
      Slash = C;
  char Dir[MaxPathBytes];
  const char *Last = Pattern;
  if (Slash) {
    size_t DL = size_t(Slash - Pattern);
    for (size_t I = 0; I < DL; ++I)
      if (Pattern[I] == '%')
        return;
    memcpy(Dir, Pattern, DL);
    Dir[DL ? DL : 1] = 0;
    if (!DL)
      Dir[0] = '/';
    Last = Slash + 1;
  } else {
    Dir[0] = '.';
    Dir[1] = 0;
  }
  size_t LastLen = stringLength(Last);
  int Fd = open(Dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd < 0)
    return;
  alignas(8) char Buf[4096];
  uint64_t Removed = 0;
  for (;;) {
    long N = syscall(SYS_getdents64, Fd, Buf, sizeof(Buf));
    if (N <= 0)
      break;
    for (long Off = 0; Off < N;) {
      struct Entry {
        uint64_t Ino;
        int64_t Next;
        unsigned short RecLen;
        unsigned char Type;
        char Name[1];
      };
      const Entry *D = reinterpret_cast<const Entry *>(Buf + Off);
      Off += D->RecLen;
      if (D->Type != DT_REG && D->Type != DT_UNKNOWN)
        continue;
      size_t Len = stringLength(D->Name), PrefixLen;
      uint64_t Pid;
      if (!parseTempName(D->Name, Len, PrefixLen, Pid) || Pid == 0 ||
          Pid > 0x7fffffff)
        continue;
      bool Match = globMatch(Last, LastLen, D->Name, PrefixLen);
      if (!Match) {
        // A later dump's name: ".<n>" inserted before the extension.
        size_t Dot = PrefixLen;
        for (size_t I = PrefixLen; I-- > 0;)
          if (D->Name[I] == '.') {
            Dot = I;
            break;
          }
        size_t B = Dot;
        while (B > 0 && D->Name[B - 1] >= '0' && D->Name[B - 1] <= '9')
          --B;
        if (B < Dot && B > 0 && D->Name[B - 1] == '.') {
          char Joined[512];
          size_t HeadLen = B - 1, TailLen = PrefixLen - Dot;
          if (HeadLen + TailLen < sizeof(Joined)) {
            memcpy(Joined, D->Name, HeadLen);
            memcpy(Joined + HeadLen, D->Name + Dot, TailLen);
            Match = globMatch(Last, LastLen, Joined, HeadLen + TailLen);
          }
        }
      }
      if (!Match)
        continue;
      if (kill(pid_t(Pid), 0) == 0 || errno != ESRCH)
        continue; // alive (or not ours to know): leave it
      if (unlinkat(Fd, D->Name, 0) == 0)
        ++Removed;
    }
  }
  close(Fd);
  if (Removed && G.Opts.Verbosity >= 1) {
    Line L;
    L.add("memprof: removed ")
        .addUnsigned(Removed)
        .add(" stale temporary profile file(s) in ")
        .addShortened(Dir);
    warn(L);
  }
}

//===-- Segments ----------------------------------------------------------===//

struct SegmentList {
  SegmentInfo *Items;
  uint64_t Capacity;
  uint64_t Count;
  /// The modules' paths, copied here (the link map's names may go with a
  /// dlclose meanwhile); null while counting. NamesUsed counts the bytes
  /// wanted, also past NamesCapacity.
  char *Names;
  uint64_t NamesCapacity;
  uint64_t NamesUsed;
};

/// Where a module was loaded from, as an absolute path, for the raw
/// profile's module paths: \p Name as the link map has it ("" for the main
/// program, a relative path as dlopen was given one). Written to \p Out when
/// it fits \p Room; returns its size either way, 0 when the module has no
/// file (the vdso's name has no '/') or the path is too long. Under
/// DumpMutex (ExePath, CwdPath). readlink and getcwd are system calls here:
/// no allocation.
uint64_t modulePath(const char *Name, char *Out, uint64_t Room) {
  const char *Prefix = "";
  uint64_t PrefixSize = 0, NameSize = stringLength(Name);
  if (NameSize == 0) {
    ssize_t N = readlink("/proc/self/exe", ExePath, sizeof(ExePath) - 1);
    if (N <= 0 || uint64_t(N) > raw::ModulePathMaxSize)
      return 0;
    Name = ExePath;
    NameSize = uint64_t(N);
  } else if (Name[0] != '/') {
    bool HasSlash = false;
    for (uint64_t I = 0; I < NameSize && !HasSlash; ++I)
      HasSlash = Name[I] == '/';
    if (!HasSlash || !getcwd(CwdPath, sizeof(CwdPath) - 1))
      return 0;
    Prefix = CwdPath;
    PrefixSize = stringLength(CwdPath);
    if (PrefixSize == 0 || CwdPath[PrefixSize - 1] != '/')
      CwdPath[PrefixSize++] = '/';
  }
  uint64_t Size = PrefixSize + NameSize;
  if (Size > raw::ModulePathMaxSize)
    return 0;
  if (Size <= Room) {
    memcpy(Out, Prefix, PrefixSize);
    memcpy(Out + PrefixSize, Name, NameSize);
  }
  return Size;
}

uint64_t readBuildId(uintptr_t Addr, uint64_t Size, uint64_t Align,
                     uint8_t *Out) {
  const uint8_t *P = reinterpret_cast<const uint8_t *>(Addr);
  const uint8_t *E = P + Size;
  Align = Align == 8 ? 8 : 4;
  while (E - P >= 12) {
    uint32_t NameSize, DescSize, Type;
    memcpy(&NameSize, P, 4);
    memcpy(&DescSize, P + 4, 4);
    memcpy(&Type, P + 8, 4);
    const uint8_t *Name = P + 12;
    if (uint64_t(E - Name) < alignUp(NameSize, Align))
      break;
    const uint8_t *Desc = Name + alignUp(NameSize, Align);
    if (uint64_t(E - Desc) < DescSize)
      break;
    if (Type == NT_GNU_BUILD_ID && NameSize == 4 &&
        memcmp(Name, "GNU", 4) == 0) {
      uint64_t N =
          DescSize < raw::BuildIdMaxSize ? DescSize : raw::BuildIdMaxSize;
      memcpy(Out, Desc, N);
      return N;
    }
    if (uint64_t(E - Desc) < alignUp(DescSize, Align))
      break;
    P = Desc + alignUp(DescSize, Align);
  }
  return 0;
}

int addModule(dl_phdr_info *Info, size_t, void *Data) {
  SegmentList &L = *static_cast<SegmentList *>(Data);
  const char *Path = nullptr;
  uint64_t PathSize = 0;
  if (L.Names) {
    const uint64_t Room =
        L.NamesUsed < L.NamesCapacity ? L.NamesCapacity - L.NamesUsed : 0;
    PathSize = modulePath(Info->dlpi_name ? Info->dlpi_name : "",
                          L.Names + L.NamesUsed, Room);
    Path = L.Names + L.NamesUsed;
    L.NamesUsed += PathSize;
    if (PathSize > Room) // loaded since the count: no room left for it
      PathSize = 0;
  } else {
    L.NamesUsed += modulePath(Info->dlpi_name ? Info->dlpi_name : "",
                              nullptr, 0);
  }
  uint8_t Id[raw::BuildIdMaxSize] = {};
  uint64_t IdSize = 0;
  for (unsigned I = 0; I < Info->dlpi_phnum && !IdSize; ++I) {
    const ElfW(Phdr) &Ph = Info->dlpi_phdr[I];
    if (Ph.p_type == PT_NOTE)
      IdSize =
          readBuildId(Info->dlpi_addr + Ph.p_vaddr, Ph.p_memsz, Ph.p_align, Id);
  }
  for (unsigned I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &Ph = Info->dlpi_phdr[I];
    if (Ph.p_type != PT_LOAD || !(Ph.p_flags & PF_X))
      continue;
    if (L.Count < L.Capacity) {
      SegmentInfo &S = L.Items[L.Count];
      S.Start = Info->dlpi_addr + Ph.p_vaddr;
      S.End = S.Start + Ph.p_memsz;
      S.Offset = Info->dlpi_addr;
      S.BuildIdSize = IdSize;
      memcpy(S.BuildId, Id, sizeof(Id));
      S.Path = PathSize ? Path : nullptr;
      S.PathSize = PathSize;
    }
    ++L.Count;
  }
  return 0;
}

//===-- Modules unloaded before a dump ------------------------------------===//

/// Executable segments of libraries the program dlclose'd: captured just
/// before the real dlclose, so that a later dump still lists them and their
/// frames symbolize. Another library may later be loaded at the same
/// address, so the frames are moved first: each unloaded module gets its
/// own range at RelocatedBase + slot * RelocatedSlotBytes (no real address
/// on x86-64, with 4- or 5-level page tables), the stacks' PCs in its
/// segments move there (depotRelocate), and the segment is listed there,
/// with its load bias moved alike, so every frame still maps to the same
/// address in its binary. Deduplicated by original segment and build id (a
/// library closed twice keeps its range); only the first RetainedMax are
/// kept.
constexpr uint64_t RetainedMax = 4096;
constexpr uint64_t RelocatedBase = uint64_t(1) << 62;
constexpr uint64_t RelocatedSlotBytes = uint64_t(1) << 36;
struct RetainedSegment {
  SegmentInfo Seg; ///< where it is listed: where it was loaded, plus Delta
  uint64_t Delta;  ///< 0: not moved
};
RetainedSegment *Retained;
uint64_t RetainedCount;
/// Their paths (Seg.Path points here), under DumpMutex.
constexpr uint64_t RetainedNamesMax = uint64_t(1) << 20;
char *RetainedNames;
uint64_t RetainedNamesUsed;
uint64_t RelocatedSlots;
SpinLock RetainedLock;

struct ModuleQuery {
  uintptr_t Base;
  const char *Name;
  SegmentList *Out;
};

int addMatchingModule(dl_phdr_info *Info, size_t Size, void *Data) {
  ModuleQuery &Q = *static_cast<ModuleQuery *>(Data);
  const char *Name = Info->dlpi_name ? Info->dlpi_name : "";
  if (Info->dlpi_addr == Q.Base && Q.Name &&
      stringsEqual(Name, Q.Name, stringLength(Name)))
    addModule(Info, Size, Q.Out);
  return 0;
}

bool sameOrigin(const RetainedSegment &R, const SegmentInfo &S) {
  return R.Seg.Start - R.Delta == S.Start && R.Seg.End - R.Delta == S.End &&
         R.Seg.BuildIdSize == S.BuildIdSize &&
         memcmp(R.Seg.BuildId, S.BuildId, sizeof(S.BuildId)) == 0;
}

void retainModule(void *Handle) {
  struct link_map *LM = nullptr;
  if (dlinfo(Handle, RTLD_DI_LINKMAP, &LM) != 0 || !LM)
    return;
  // No dump may list segments from before the move and write stacks from
  // after it (the order of every dump: DumpMutex, then the loader's lock in
  // dl_iterate_phdr, then RetainedLock); modulePath needs it too.
  ScopedTicketLock DumpGuard(DumpMutex);
  if (!RetainedNames)
    RetainedNames = static_cast<char *>(mapMemory(RetainedNamesMax));
  SegmentInfo Found[16];
  SegmentList L = {Found, 16, 0, nullptr, 0, 0};
  if (RetainedNames) {
    L.Names = RetainedNames + RetainedNamesUsed;
    L.NamesCapacity = RetainedNamesMax - RetainedNamesUsed;
  }
  ModuleQuery Q = {LM->l_addr, LM->l_name, &L};
  dl_iterate_phdr(addMatchingModule, &Q);
  if (L.Count > 16)
    L.Count = 16;
  if (L.Names)
    RetainedNamesUsed +=
        L.NamesUsed < L.NamesCapacity ? L.NamesUsed : L.NamesCapacity;
  ScopedLock Guard(RetainedLock);
  if (!Retained) {
    Retained = static_cast<RetainedSegment *>(
        mapMemory(RetainedMax * sizeof(RetainedSegment)));
    if (!Retained)
      return;
  }
  // One range for the whole module: its segments keep their distances.
  uint64_t Bias = LM->l_addr, Delta = 0;
  for (uint64_t I = 0; I < L.Count && !Delta; ++I)
    for (uint64_t J = 0; J < RetainedCount && !Delta; ++J)
      if (sameOrigin(Retained[J], Found[I]))
        Delta = Retained[J].Delta;
  bool Fits = RelocatedSlots < RetainedMax;
  for (uint64_t I = 0; I < L.Count; ++I)
    Fits &= Found[I].Start >= Bias && Found[I].End - Bias <= RelocatedSlotBytes;
  if (!Delta && Fits)
    Delta = RelocatedBase + RelocatedSlots++ * RelocatedSlotBytes - Bias;
  for (uint64_t I = 0; I < L.Count; ++I) {
    // A module too large for a slot (or past RetainedMax modules) stays
    // where it was, as before: listed at its own address.
    if (Delta)
      depotRelocate(Found[I].Start, Found[I].End, Delta);
    bool Known = false;
    for (uint64_t J = 0; J < RetainedCount && !Known; ++J)
      Known = sameOrigin(Retained[J], Found[I]) && Retained[J].Delta == Delta;
    if (Known || RetainedCount >= RetainedMax)
      continue;
    RetainedSegment &R = Retained[RetainedCount++];
    R.Seg = Found[I];
    R.Delta = Delta;
    R.Seg.Start += Delta;
    R.Seg.End += Delta;
    R.Seg.Offset += Delta;
  }
}

/// Appends the retained segments (a moved one has an address no loaded
/// module has). One that was not moved is left out while it is loaded
/// again (the same segment and build id).
void addRetainedModules(SegmentList &Segs) {
  ScopedLock Guard(RetainedLock);
  uint64_t Loaded = Segs.Count < Segs.Capacity ? Segs.Count : Segs.Capacity;
  for (uint64_t I = 0; I < RetainedCount; ++I) {
    bool Present = false;
    for (uint64_t J = 0; J < Loaded && !Present && !Retained[I].Delta; ++J)
      Present = sameOrigin(Retained[I], Segs.Items[J]);
    if (!Present && Segs.Count < Segs.Capacity)
      Segs.Items[Segs.Count++] = Retained[I].Seg;
  }
}

uint64_t retainedCount() {
  ScopedLock Guard(RetainedLock);
  return RetainedCount;
}

//===-- Dumping -----------------------------------------------------------===//

void sortByStackId(MIBInfo *A, uint64_t N) {
  auto SiftDown = [A](uint64_t I, uint64_t End) {
    for (;;) {
      uint64_t C = 2 * I + 1;
      if (C >= End)
        return;
      if (C + 1 < End && A[C + 1].StackId > A[C].StackId)
        ++C;
      if (A[I].StackId >= A[C].StackId)
        return;
      MIBInfo T = A[I];
      A[I] = A[C];
      A[C] = T;
      I = C;
    }
  };
  for (uint64_t I = N / 2; I-- > 0;)
    SiftDown(I, N);
  for (uint64_t End = N; End > 1; --End) {
    MIBInfo T = A[0];
    A[0] = A[End - 1];
    A[End - 1] = T;
    SiftDown(0, End - 1);
  }
}

/// Memory that the dump frees on every path.
struct Mapping {
  void *P = nullptr;
  size_t Bytes = 0;
  void *get(size_t N) {
    Bytes = alignUp(N ? N : 1, pageSize());
    P = mapMemory(Bytes);
    return P;
  }
  ~Mapping() { unmapMemory(P, Bytes); }
};

/// The heap section of a dump (docs/heap-data.md) from the sorted \p Mibs
/// of collectProfile's entries, the process's \p Totals and their
/// \p Samples (whose top entries are kept only where they name a context
/// of the dump). false when out of memory.
bool buildHeapInfo(HeapInfo &Heap, Mapping &Mem, const MIBInfo *Mibs,
                   uint64_t K, const HeapTotals &Totals,
                   HeapSampleInfo *Samples, bool AtExit) {
  Heap = HeapInfo{};
  Heap.Flags = AtExit ? raw::HeapFlagExitDump : 0;
  Heap.DumpTimeMs = nowMs();
  Heap.PeakTimeMs = Totals.PeakTimeMs;
  Heap.PeakBytes = Totals.PeakBytes;
  HeapContextInfo *Contexts =
      static_cast<HeapContextInfo *>(Mem.get(K * sizeof(HeapContextInfo)));
  if (!Contexts || !Samples)
    return false;
  uint64_t N = 0;
  for (uint64_t I = 0; I < K; ++I) {
    const MIBEntry *E = reinterpret_cast<const MIBEntry *>(
        reinterpret_cast<const char *>(Mibs[I].Block) -
        offsetof(MIBEntry, Block));
    if (!E->LiveBlocks && !E->PeakBlocks)
      continue;
    Contexts[N++] = HeapContextInfo{Mibs[I].StackId, E->LiveBytes,
                                    E->LiveBlocks, E->PeakBytes,
                                    E->PeakBlocks};
    Heap.PeakBlocks += E->PeakBlocks;
  }
  Heap.Contexts = Contexts;
  Heap.NumContexts = N;
  auto IsContext = [&](uint64_t Id) {
    uint64_t Lo = 0, Hi = K;
    while (Lo < Hi) {
      uint64_t Mid = Lo + (Hi - Lo) / 2;
      if (Mibs[Mid].StackId < Id)
        Lo = Mid + 1;
      else
        Hi = Mid;
    }
    return Lo < K && Mibs[Lo].StackId == Id;
  };
  for (uint64_t I = 0; I < Totals.NumSamples; ++I) {
    HeapSampleInfo &X = Samples[I];
    uint64_t Kept = 0;
    for (uint64_t J = 0; J < X.NumTop && J < raw::HeapMaxTop; ++J)
      if (IsContext(X.TopIds[J])) {
        X.TopIds[Kept] = X.TopIds[J];
        X.TopBytes[Kept++] = X.TopBytes[J];
      }
    X.NumTop = Kept;
  }
  Heap.Samples = Samples;
  Heap.NumSamples = Totals.NumSamples;
  return true;
}

/// Serializes and writes one dump. Holds DumpMutex; the guard is set.
/// \p AtExit: the process ends after it (exit, a termination signal), so
/// what is live was never freed.
int dumpLocked(bool Reset, bool AtExit = false) {
  uint64_t Seq = ++DumpSeq;
  char *Path = FinalPath;
  bool PathOk = expandPattern(++PatternDumps, Path);

  if (G.Opts.Histogram && loadRelaxed(&G.ObjectCounts)) {
    static bool Said;
    if (!Said) {
      Said = true;
      Line L;
      L.add("memprof: warning: histogram=1, but code built with the pass "
            "counts the accesses of a group to one object in one granule "
            "of it: totals are exact, each block's histogram is not (build "
            "with -mllvm -memprof-instrument-granules for exact histograms)");
      warn(L);
    }
  }
  Mapping MibMem, StackMem, SegMem, NameMem, OutMem, HeapMem, SampleMem;
  HeapSampleInfo *Samples = static_cast<HeapSampleInfo *>(
      SampleMem.get(raw::HeapMaxSamples * sizeof(HeapSampleInfo)));
  HeapTotals Totals = {0, 0, 0};
  MIBMap Snapshot = {};
  bool Ok = collectProfile(Snapshot, Reset, Samples ? &Totals : nullptr,
                           Samples);
  struct Releaser {
    MIBMap &M;
    ~Releaser() { M.release(); }
  } ReleaseSnapshot{Snapshot};
  if (!PathOk) {
    reportWriteError(Pattern, "expanded path too long", ENAMETOOLONG);
    return -1;
  }

  uint64_t N = Snapshot.Count;
  MIBInfo *Mibs = static_cast<MIBInfo *>(MibMem.get(N * sizeof(MIBInfo)));
  StackInfo *Stacks =
      static_cast<StackInfo *>(StackMem.get(N * sizeof(StackInfo)));
  if (!Ok || !Mibs || !Stacks) {
    reportWriteError(Path, "collecting the profile", ENOMEM);
    return -1;
  }
  uint64_t K = 0;
  for (uint64_t I = 0; I < Snapshot.Capacity; ++I) {
    const MIBEntry &E = Snapshot.Entries[I];
    uint32_t NumPCs;
    if (E.Key && depotGet(E.Key, NumPCs))
      Mibs[K++] = MIBInfo{E.Key, &E.Block};
  }
  sortByStackId(Mibs, K);
  for (uint64_t I = 0; I < K; ++I) {
    uint32_t NumPCs = 0;
    const uint64_t *PCs = depotGet(uint32_t(Mibs[I].StackId), NumPCs);
    Stacks[I] = StackInfo{Mibs[I].StackId, PCs, NumPCs};
  }
  HeapInfo Heap;
  if (!buildHeapInfo(Heap, HeapMem, Mibs, K, Totals, Samples, AtExit)) {
    reportWriteError(Path, "collecting the heap values", ENOMEM);
    return -1;
  }

  // Count the modules, then fill (with room for some loaded meanwhile).
  SegmentList Segs = {nullptr, 0, 0, nullptr, 0, 0};
  dl_iterate_phdr(addModule, &Segs);
  Segs.Capacity = Segs.Count + 16 + retainedCount();
  Segs.Count = 0;
  Segs.Items = static_cast<SegmentInfo *>(
      SegMem.get(Segs.Capacity * sizeof(SegmentInfo)));
  Segs.NamesCapacity = Segs.NamesUsed + 4 * raw::ModulePathMaxSize;
  Segs.NamesUsed = 0;
  Segs.Names = static_cast<char *>(NameMem.get(Segs.NamesCapacity));
  if (!Segs.Items || !Segs.Names) {
    reportWriteError(Path, "collecting the module list", ENOMEM);
    return -1;
  }
  dl_iterate_phdr(addModule, &Segs);
  if (Segs.Count > Segs.Capacity)
    Segs.Count = Segs.Capacity;
  addRetainedModules(Segs);

  uint64_t HistogramEntries = 0;
  for (uint64_t I = 0; I < K; ++I)
    HistogramEntries += Mibs[I].Block->AccessHistogram
                            ? Mibs[I].Block->AccessHistogramSize
                            : 0;
  RawProfileLayout L = computeRawProfileLayout(
      Segs.Items, Segs.Count, K, Stacks, K, HistogramEntries, &Heap);
  uint8_t *Out = static_cast<uint8_t *>(OutMem.get(L.TotalSize));
  if (!Out) {
    reportWriteError(Path, "serializing", ENOMEM);
    return -1;
  }
  writeRawProfile(Out, L, Segs.Items, Segs.Count, Mibs, K, Stacks, K, &Heap);
  if (writeProfileFile(Path, Out, L.TotalSize, Seq) != 0)
    return -1;
  if (G.Opts.Verbosity >= 1) {
    Line M;
    M.add("memprof: wrote ")
        .add(Path)
        .add(" (")
        .addUnsigned(L.TotalSize)
        .add(" bytes, ")
        .addUnsigned(K)
        .add(" contexts)");
    warn(M);
  }
  return 0;
}

int apiDump(bool Reset) {
  RuntimeScope Scope;
  if (Scope.nested())
    return -1;
  ensureInit();
  ScopedTicketLock Guard(DumpMutex);
  return dumpLocked(Reset);
}

//===-- Signals, fork, start and exit -------------------------------------===//

/// The termination signals a profile survives (docs/runtime.md).
constexpr int TerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// A termination signal that arrived while its thread ran runtime code, for
/// the next safe point (serviceDumpRequest); 0 if none.
int PendingTermination;

/// Ends the process by \p Sig's default action (the exit status a program
/// without the runtime would have).
[[noreturn]] void dieBySignal(int Sig) {
  struct sigaction Dfl;
  memset(&Dfl, 0, sizeof(Dfl));
  Dfl.sa_handler = SIG_DFL;
  sigemptyset(&Dfl.sa_mask);
  __sigaction(Sig, &Dfl, nullptr);
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, Sig);
  pthread_sigmask(SIG_UNBLOCK, &Set, nullptr);
  raise(Sig);
  _exit(128 + Sig); // not reached: the default action of Sig ends the process
}

/// SIGINT, SIGTERM or SIGHUP, installed where the program left the default:
/// dumps what was recorded, then dies of the same signal. A thread inside
/// runtime code (a malloc, a dump) may hold what a dump needs: there the
/// dump waits for the next allocation or free in any thread, and the same
/// signal once more ends the process at once, without it.
void terminationHandler(int Sig) {
  if (TLS.InRuntime) {
    if (__atomic_exchange_n(&PendingTermination, Sig, __ATOMIC_RELAXED))
      dieBySignal(Sig);
    __atomic_store_n(&G.PendingDump, 1u, __ATOMIC_RELAXED);
    return;
  }
  RuntimeScope Scope;
  // Another thread's dump finishes first (a second or two at the most);
  // one that never does (it waits for a lock this thread holds) is given up.
  bool Locked = DumpMutex.tryLock();
  for (int I = 0; !Locked && I < 200; ++I) {
    struct timespec Ten = {0, 10 * 1000 * 1000};
    nanosleep(&Ten, nullptr);
    Locked = DumpMutex.tryLock();
  }
  if (Locked && !finished())
    dumpLocked(false, /*AtExit=*/true);
  dieBySignal(Sig);
}

/// Set at start when the termination handlers are used (dump_on_terminate).
bool TerminationDumps;

bool isTerminationSignal(int Sig) {
  for (int T : TerminationSignals)
    if (Sig == T)
      return true;
  return false;
}

bool isDefault(const struct sigaction &A) {
  return !(A.sa_flags & SA_SIGINFO) && A.sa_handler == SIG_DFL;
}

/// Whether \p A is this runtime's termination handler.
bool isTerminationHandler(const struct sigaction &A) {
  return !(A.sa_flags & SA_SIGINFO) && A.sa_handler == terminationHandler;
}

struct sigaction terminationAction() {
  struct sigaction Act;
  memset(&Act, 0, sizeof(Act));
  Act.sa_handler = terminationHandler;
  Act.sa_flags = SA_RESTART;
  sigemptyset(&Act.sa_mask);
  for (int Other : TerminationSignals)
    sigaddset(&Act.sa_mask, Other); // one at a time
  return Act;
}

void installTerminationHandlers() {
  TerminationDumps = true;
  struct sigaction Act = terminationAction();
  for (int Sig : TerminationSignals) {
    struct sigaction Old;
    if (__sigaction(Sig, nullptr, &Old) == 0 && isDefault(Old))
      __sigaction(Sig, &Act, nullptr);
    // else ignored (nohup) or the program's own handler: it wins
  }
}

/// sigaction as the program sees it: the runtime's termination handler
/// stands for the default disposition, reported as SIG_DFL and installed
/// where the program asks for SIG_DFL.
int programSigaction(int Sig, const struct sigaction *Act,
                     struct sigaction *Old) {
  struct sigaction Mine;
  if (Act && TerminationDumps && isTerminationSignal(Sig) && isDefault(*Act)) {
    Mine = terminationAction();
    Act = &Mine;
  }
  int R = __sigaction(Sig, Act, Old);
  if (R == 0 && Old && isTerminationHandler(*Old)) {
    Old->sa_handler = SIG_DFL;
    Old->sa_flags = 0;
    sigemptyset(&Old->sa_mask);
  }
  return R;
}

void dumpSignalHandler(int) {
  __atomic_store_n(&G.PendingDump, 1u, __ATOMIC_RELAXED);
}

__thread uint8_t ForkSavedGuard __attribute__((tls_model("initial-exec")));

void forkPrepare() {
  ForkSavedGuard = TLS.InRuntime;
  TLS.InRuntime = 1; // allocations inside fork() itself take no lock of ours
  DumpMutex.lock();
  lockAllShards();
  depotLockAll();
  arenaLock();
}

void forkParent() {
  arenaUnlock();
  depotUnlockAll();
  unlockAllShards();
  DumpMutex.unlock();
  TLS.InRuntime = ForkSavedGuard;
}

void forkChild() {
  arenaUnlockAfterFork();
  depotUnlockAll();
  resetShardsInChild();
  unlockAllShards();
  DumpSeq = 0;
  PatternDumps = 0;
  PendingTermination = 0;
  WriteErrorReported = false;
  NameTakenReported = false;
  __atomic_store_n(&G.PendingDump, 0u, __ATOMIC_RELAXED);
  DumpMutex.resetAfterFork();
  TLS.InRuntime = ForkSavedGuard;
}

/// The load address of the module that holds \p Addr; nullptr if none.
void *moduleOf(const void *Addr) {
  Dl_info Info;
  if (!Addr || !dladdr(Addr, &Info))
    return nullptr;
  return Info.dli_fbase;
}

/// The GOT slot through which a PLT entry at \p Code jumps, or nullptr if
/// the code there is not one: [endbr64] [bnd] jmp *disp32(%rip), the first
/// instruction of every x86-64 PLT entry (.plt, .plt.sec, .plt.got). Read a
/// byte at a time, so that nothing past the first byte that differs is
/// read (a real function may be shorter than an entry).
void *const *pltSlotOf(const void *Code) {
  const auto *B = static_cast<const uint8_t *>(Code);
  static const uint8_t EndBr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  unsigned I = 0;
  if (B[0] == EndBr64[0])
    for (; I < 4; ++I)
      if (B[I] != EndBr64[I])
        return nullptr;
  if (B[I] == 0xf2) // bnd
    ++I;
  if (B[I] != 0xff || B[I + 1] != 0x25)
    return nullptr;
  int32_t Disp;
  memcpy(&Disp, B + I + 2, sizeof(Disp));
  return reinterpret_cast<void *const *>(reinterpret_cast<uintptr_t>(B) + I +
                                         6 + intptr_t(Disp));
}

/// Whether a call through \p Malloc reaches this copy's malloc: the probe
/// mark asks the allocation that reaches this copy to answer, and the guard
/// keeps it unrecorded. The block is freed through the process's free,
/// which belongs to the same allocator as its malloc.
bool callReachesThisCopy(void *Malloc) {
  using MallocFn = void *(*)(size_t);
  using FreeFn = void (*)(void *);
  auto Free = reinterpret_cast<FreeFn>(dlsym(RTLD_DEFAULT, "free"));
  uint8_t Saved = TLS.InRuntime;
  TLS.InRuntime = InRuntimeProbe;
  void *P = reinterpret_cast<MallocFn>(Malloc)(1);
  bool Reached = TLS.InRuntime == InRuntimeProbeAnswered;
  TLS.InRuntime = Saved;
  if (P && Free)
    Free(P);
  return Reached;
}

/// Whether the process's malloc is this copy's. With the static runtime
/// linked in and the shared one preloaded too (or another allocator, or
/// clang's runtime, preloaded first), only the first definition in symbol
/// lookup sees allocations; the other copy must not write (empty) profiles
/// over the first one's.
///
/// dlsym(RTLD_DEFAULT, "malloc") is that first definition, except in a
/// non-PIE executable that takes malloc's address (Debian's python3.11):
/// there it is the executable's canonical PLT entry, a stub that jumps
/// through its GOT slot to the real definition. So a PLT entry is followed
/// to where its slot points; a slot not yet bound (lazy binding: it points
/// back into the same PLT) is decided by a call through the entry, which
/// binds it as the program's own first call would.
bool thisCopyIsActive() {
  void *Mine = moduleOf(reinterpret_cast<void *>(&thisCopyIsActive));
  void *Malloc = dlsym(RTLD_DEFAULT, "malloc");
  if (!Mine || !Malloc)
    return true;
  const void *F = Malloc;
  for (int Hops = 0; Hops < 4; ++Hops) {
    void *Module = moduleOf(F);
    if (Module == Mine)
      return true;
    void *const *Slot = pltSlotOf(F);
    if (!Slot)
      return false; // another module's own malloc
    const void *Target = *Slot;
    if (!Target || moduleOf(Target) == Module)
      break; // not bound yet
    F = Target;
  }
  return callReachesThisCopy(Malloc);
}

/// Whether this runtime is a shared library (LD_PRELOAD) rather than linked
/// into the executable.
bool isPreloaded() {
  Dl_info Exe, Mine;
  void *Entry = reinterpret_cast<void *>(getauxval(AT_ENTRY));
  if (!Entry || !dladdr(Entry, &Exe) ||
      !dladdr(reinterpret_cast<void *>(&isPreloaded), &Mine))
    return false;
  return Exe.dli_fbase != Mine.dli_fbase;
}

/// Whether another copy of the runtime provides the runtime's symbols to
/// the process (comes first in symbol lookup).
bool anotherCopyComesFirst() {
  void *Theirs = dlsym(RTLD_DEFAULT, "memprof_runtime_missing_or_not_version_1");
  return Theirs && moduleOf(Theirs) !=
                       moduleOf(reinterpret_cast<void *>(&thisCopyIsActive));
}

__attribute__((constructor(101))) void memprofConstructor(int, char **,
                                                          char **Envp) {
  RuntimeScope Scope;
  ensureInit();
  if (!thisCopyIsActive()) {
    // Records nothing from now on. The functions the other allocator lacks
    // still reach this copy and go on to glibc's (MallocInterceptors.cpp).
    G.Inactive = true;
    markSlowFree(SlowFreeFinished);
    // A copy linked into an instrumented shared library (pkg-config's flags
    // in LDFLAGS) while the program or an earlier library has the runtime:
    // the library's code calls the first copy, which records the whole
    // process. Only the preload library, which the user chose, says so.
    if (!isPreloadLibrary() && anotherCopyComesFirst())
      return;
    Line L;
    L.add("memprof: warning: malloc is not this runtime's (another copy of "
          "memprof or another allocator comes first); this copy writes no "
          "profile");
    warn(L);
    return;
  }
  resolveGlibcUsableSize();
  clock_gettime(CLOCK_REALTIME_COARSE, &StartTime);
  readEnvironment(Envp ? Envp : environ);
  {
    int SavedErrno = errno;
    sweepStaleTemporaries();
    errno = SavedErrno;
  }
  // Chunk layout: granule-exclusive where access counts can be non-zero
  // (linked into a program, which the pass instruments) or histograms are
  // asked for; compact under LD_PRELOAD, where nothing counts accesses.
  int Exact = G.Opts.ExactGranules;
  if (G.Opts.Histogram && Exact == 0) {
    Line L;
    L.add("memprof: warning: histogram=1 needs exact_granules=1; using it");
    warn(L);
  }
  if (G.Opts.Histogram) {
    Exact = 1;
    markSlowFree(SlowFreeHistogram);
  } else if (Exact < 0) {
    Exact = !isPreloaded() || loadRelaxed(&G.InstrumentedCode);
  }
  if (G.Opts.CaptureCheck)
    enableCaptureCheck();
  storeRelaxed(&G.CompactChunks, !Exact);
  storeRelaxed(&G.LayoutChosen, true);
  pthread_atfork(forkPrepare, forkParent, forkChild);
  if (G.Opts.DumpOnTerminate && G.Opts.DumpAtExit)
    installTerminationHandlers();
  if (G.Opts.DumpSignal) {
    struct sigaction Act;
    memset(&Act, 0, sizeof(Act));
    Act.sa_handler = dumpSignalHandler;
    Act.sa_flags = SA_RESTART;
    sigemptyset(&Act.sa_mask);
    if (__sigaction(G.Opts.DumpSignal, &Act, nullptr) != 0) {
      Line L;
      L.add("memprof: warning: cannot install the dump signal handler: ")
          .addErrno(errno);
      warn(L);
    }
  }
}

__attribute__((destructor(101))) void memprofDestructor() {
  RuntimeScope Scope;
  if (G.Inactive)
    return;
  ensureInit();
  int SavedErrno = errno;
  ScopedTicketLock Guard(DumpMutex);
  if (G.Opts.DumpAtExit && !finished())
    dumpLocked(false, /*AtExit=*/true);
  if (G.Opts.CaptureCheck)
    reportCaptureCheck();
  errno = SavedErrno;
  // Later frees (other libraries' destructors) are ignored safely.
  markSlowFree(SlowFreeFinished);
}

} // namespace

__attribute__((weak)) bool isPreloadLibrary() { return false; }

void noteInstrumentedModule() {
  storeRelaxed(&G.InstrumentedCode, true);
  // Code that counts accesses is here: it needs the shadow, which only such
  // code reserves. If there is nowhere to count, say so, once.
  static uint32_t NoShadowReported;
  if (!reserveShadow() &&
      !__atomic_exchange_n(&NoShadowReported, 1u, __ATOMIC_RELAXED)) {
    Line L;
    L.add("memprof: warning: cannot reserve the access counters' shadow (16 "
          "TiB of address space: an address-space limit such as ulimit -v, "
          "or valgrind?); access counts are 0, allocations are still "
          "recorded");
    warn(L);
  }
  // Before the constructor (an instrumented library's constructor runs
  // before a preloaded runtime's), the constructor sees the flag; after it
  // (a library dlopen'ed later), switch now unless the user chose.
  if (loadRelaxed(&G.LayoutChosen) && G.Opts.ExactGranules < 0 &&
      loadRelaxed(&G.CompactChunks)) {
    storeRelaxed(&G.CompactChunks, false);
    if (G.Opts.Verbosity >= 1) {
      Line L;
      L.add("memprof: an instrumented module started: blocks allocated from "
            "now on own their granules (exact access counts)");
      warn(L);
    }
  }
}

void serviceDumpRequest() {
  if (!__atomic_exchange_n(&G.PendingDump, 0u, __ATOMIC_RELAXED))
    return;
  // Never wait here: this thread may hold a lock (the loader's, say) that
  // a running dump needs. Try again at the next safe point instead.
  if (!DumpMutex.tryLock()) {
    __atomic_store_n(&G.PendingDump, 1u, __ATOMIC_RELAXED);
    return;
  }
  int SavedErrno = errno; // the allocation that runs the dump must not see it
  dumpLocked(false, /*AtExit=*/loadRelaxed(&PendingTermination) != 0);
  if (int Sig = __atomic_exchange_n(&PendingTermination, 0, __ATOMIC_RELAXED))
    dieBySignal(Sig); // a termination signal that came inside runtime code
  DumpMutex.unlock();
  errno = SavedErrno;
}

} // namespace rt
} // namespace memprof

using namespace memprof::rt;

MEMPROF_EXPORT int memprof_dump(void) { return apiDump(false); }

MEMPROF_EXPORT int memprof_dump_and_reset(void) { return apiDump(true); }

/// dlclose: the library's executable segments are kept for later dumps, so
/// frames in a library unloaded before the dump still symbolize. The call
/// goes on as a tail call, so that no frame of the runtime stands between
/// an allocation a library's destructor makes and the program's caller.
MEMPROF_EXPORT int dlclose(void *Handle) {
  using DlcloseFn = int (*)(void *);
  static DlcloseFn Real;
  DlcloseFn F = nextDefinition(Real, "dlclose");
  if (reinterpret_cast<uintptr_t>(Handle) != 0 && !G.Inactive) {
    RuntimeScope Scope; // dlinfo and dl_iterate_phdr may allocate
    retainModule(Handle);
  }
  // Another module may be loaded where this one was: its rules and its
  // class are not.
  invalidateUnwindCache(true);
  if (!F)
    return -1;
  [[clang::musttail]] return F(Handle);
}

/// dlopen: a library opened with RTLD_DEEPBIND binds its own calls to malloc
/// and free to glibc's, past the runtime: its blocks are not recorded, and a
/// block allocated on one side and freed on the other would make glibc
/// abort. Said once per process. The call goes on as a tail call, so that
/// glibc still sees the program's code as the caller (it searches the
/// caller's DT_RUNPATH).
MEMPROF_EXPORT void *dlopen(const char *File, int Mode) {
  using DlopenFn = void *(*)(const char *, int);
  static DlopenFn Real;
  static uint32_t DeepBindReported;
  DlopenFn F = nextDefinition(Real, "dlopen");
  if ((Mode & RTLD_DEEPBIND) && !G.Inactive &&
      !__atomic_exchange_n(&DeepBindReported, 1u, __ATOMIC_RELAXED)) {
    Line L;
    L.add("memprof: warning: ")
        .addShortened(File ? File : "(main program)")
        .add(" was opened with RTLD_DEEPBIND: its own malloc and free calls "
             "go to glibc, not recorded, and a block allocated on one side of "
             "it and freed on the other makes glibc abort");
    warn(L);
  }
  // The new module may lie where an unloaded one was (also done at
  // dlclose; this covers the rules cached in between).
  invalidateUnwindCache(false);
  if (!F)
    return nullptr;
  [[clang::musttail]] return F(File, Mode);
}

/// sigaction and signal: the runtime's termination handlers stand for the
/// default disposition. They are reported as SIG_DFL, so that a program
/// that installs its own handler only where it finds the default (Python's
/// SIGINT handler, which raises KeyboardInterrupt) still does, and asking
/// for SIG_DFL keeps them (Python restores the default before it ends
/// itself with SIGINT). Any other handler replaces them, as without the
/// runtime.
MEMPROF_EXPORT int sigaction(int Sig, const struct sigaction *__restrict Act,
                             struct sigaction *__restrict Old) noexcept {
  return programSigaction(Sig, Act, Old);
}

/// glibc's signal: BSD semantics (SA_RESTART, the signal blocked in its
/// handler), through the runtime's sigaction.
MEMPROF_EXPORT __sighandler_t signal(int Sig, __sighandler_t Handler) noexcept {
  struct sigaction Act, Old;
  memset(&Act, 0, sizeof(Act));
  Act.sa_handler = Handler;
  Act.sa_flags = SA_RESTART;
  sigemptyset(&Act.sa_mask);
  if (Sig > 0 && Sig < NSIG)
    sigaddset(&Act.sa_mask, Sig);
  if (programSigaction(Sig, &Act, &Old) != 0)
    return SIG_ERR;
  return Old.sa_handler;
}

MEMPROF_EXPORT int memprof_reset(void) {
  RuntimeScope Scope;
  if (Scope.nested())
    return -1;
  ensureInit();
  ScopedTicketLock Guard(DumpMutex);
  resetProfile();
  return 0;
}

MEMPROF_EXPORT int memprof_set_output_path(const char *NewPattern) {
  RuntimeScope Scope;
  if (const char *Why = checkPattern(NewPattern)) {
    Line L;
    L.add("memprof: warning: memprof_set_output_path: ")
        .add(Why)
        .add(" in '")
        .addShortened(NewPattern)
        .add("'; the output path is unchanged");
    warn(L);
    return -1;
  }
  char Anchored[MaxPathBytes];
  memcpy(Anchored, NewPattern, stringLength(NewPattern) + 1);
  int SavedErrno = errno;
  anchorPattern(Anchored);
  errno = SavedErrno;
  ScopedTicketLock Guard(DumpMutex);
  size_t N = stringLength(Anchored);
  if (stringLength(Pattern) == N && stringsEqual(Pattern, Anchored, N))
    return 0; // the same pattern: numbering and reporting continue
  memcpy(Pattern, Anchored, N + 1);
  PatternDumps = 0;
  WriteErrorReported = false;
  NameTakenReported = false;
  return 0;
}
