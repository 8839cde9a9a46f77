/* A fault-injection shim for profile writes, preloaded before
 * libmemprof_rt.so (or into a tool). It watches calls on files whose name
 * contains ".tmp." (the runtime's temporary profiles; MEMPROF_TEST_SHIM_MATCH
 * names another text, such as the tools' ".tmp-") and, by MEMPROF_TEST_SHIM:
 *   kill:<bytes>[:<sig>] writes up to <bytes> bytes in all, then raises
 *                       SIGKILL (or signal <sig>, such as 11 for SIGSEGV:
 *                       a fault inside the dump's writer) in the process
 *   fail:<calls>:<errno> fails the first <calls> such writes with <errno>
 *                       (ENOSPC is 28, EIO 5), later ones go through
 *   short:<bytes>       every such write writes at most <bytes> bytes
 *   eintr:<calls>       the first <calls> such writes fail with EINTR,
 *                       writing nothing
 *   log                 changes nothing; logs "write <bytes> <result>"
 *                       (the count written, or minus the errno)
 *   rename:<errno>, fsync:<errno>, close:<errno>
 *                       that call on the temporary file fails with <errno>
 *                       (close closes the descriptor first, as Linux does;
 *                       rename fails link too: both name the file)
 * Every watched call is logged as "write <bytes>" (or "fail", "eintr",
 * "rename", "fsync", "close" and what it returned) to the file named by
 * MEMPROF_TEST_SHIM_LOG, so a test can count the calls made. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long Written, Failed;

static int watched(int Fd) {
  char Link[64], Path[4096];
  snprintf(Link, sizeof(Link), "/proc/self/fd/%d", Fd);
  ssize_t N = readlink(Link, Path, sizeof(Path) - 1);
  if (N <= 0)
    return 0;
  Path[N] = 0;
  const char *Match = getenv("MEMPROF_TEST_SHIM_MATCH");
  return strstr(Path, Match ? Match : ".tmp.") != NULL;
}

/* The <errno> of "<call>:<errno>" if MEMPROF_TEST_SHIM is that, else 0. */
static int failing(const char *Call) {
  const char *Mode = getenv("MEMPROF_TEST_SHIM");
  size_t L = strlen(Call);
  if (!Mode || strncmp(Mode, Call, L) != 0 || Mode[L] != ':')
    return 0;
  return atoi(Mode + L + 1);
}

static void logLine(const char *What, long N) {
  const char *Log = getenv("MEMPROF_TEST_SHIM_LOG");
  if (!Log)
    return;
  int Fd = open(Log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd < 0)
    return;
  char Buf[64];
  int L = snprintf(Buf, sizeof(Buf), "%s %ld\n", What, N);
  syscall(SYS_write, Fd, Buf, (size_t)L);
  close(Fd);
}

ssize_t write(int Fd, const void *Buf, size_t N) {
  const char *Mode = getenv("MEMPROF_TEST_SHIM");
  if (!Mode || !watched(Fd))
    return syscall(SYS_write, Fd, Buf, N);
  if (strncmp(Mode, "kill:", 5) == 0) {
    char *End;
    long Limit = strtol(Mode + 5, &End, 10);
    int Sig = *End == ':' ? atoi(End + 1) : SIGKILL;
    size_t Room = Written < Limit ? (size_t)(Limit - Written) : 0;
    if (N > Room) {
      if (Room)
        syscall(SYS_write, Fd, Buf, Room);
      logLine("kill", (long)Room);
      signal(Sig, SIG_DFL);
      raise(Sig);
    }
    Written += (long)N;
    logLine("write", (long)N);
    return syscall(SYS_write, Fd, Buf, N);
  }
  if (strcmp(Mode, "log") == 0) {
    long R = (long)syscall(SYS_write, Fd, Buf, N);
    int Err = errno;
    char What[48];
    snprintf(What, sizeof(What), "write %zu", N);
    logLine(What, R < 0 ? -(long)Err : R);
    errno = Err;
    return R;
  }
  if (strncmp(Mode, "short:", 6) == 0) {
    size_t Max = (size_t)atol(Mode + 6);
    if (N > Max)
      N = Max;
    logLine("write", (long)N);
    return syscall(SYS_write, Fd, Buf, N);
  }
  if (strncmp(Mode, "eintr:", 6) == 0) {
    if (Failed < atol(Mode + 6)) {
      ++Failed;
      logLine("eintr", (long)N);
      errno = EINTR;
      return -1;
    }
    logLine("write", (long)N);
    return syscall(SYS_write, Fd, Buf, N);
  }
  if (strncmp(Mode, "fail:", 5) == 0) {
    char *End;
    long Calls = strtol(Mode + 5, &End, 10);
    int Err = *End == ':' ? atoi(End + 1) : ENOSPC;
    if (Failed < Calls) {
      ++Failed;
      logLine("fail", (long)N);
      errno = Err;
      return -1;
    }
    logLine("write", (long)N);
    return syscall(SYS_write, Fd, Buf, N);
  }
  return syscall(SYS_write, Fd, Buf, N);
}

int fsync(int Fd) {
  int Err = failing("fsync");
  if (Err && watched(Fd)) {
    logLine("fsync", -1);
    errno = Err;
    return -1;
  }
  return (int)syscall(SYS_fsync, Fd);
}

int close(int Fd) {
  int Err = failing("close");
  if (Err && watched(Fd)) {
    syscall(SYS_close, Fd);
    logLine("close", -1);
    errno = Err;
    return -1;
  }
  return (int)syscall(SYS_close, Fd);
}

int rename(const char *From, const char *To) {
  const char *Match = getenv("MEMPROF_TEST_SHIM_MATCH");
  int Err = failing("rename");
  if (Err && strstr(From, Match ? Match : ".tmp.")) {
    logLine("rename", -1);
    errno = Err;
    return -1;
  }
  return (int)syscall(SYS_renameat, AT_FDCWD, From, AT_FDCWD, To);
}

int link(const char *From, const char *To) {
  const char *Match = getenv("MEMPROF_TEST_SHIM_MATCH");
  int Err = failing("rename");
  if (Err && strstr(From, Match ? Match : ".tmp.")) {
    logLine("link", -1);
    errno = Err;
    return -1;
  }
  return (int)syscall(SYS_linkat, AT_FDCWD, From, AT_FDCWD, To, 0);
}
