//===- Support.cpp - Locks, mmap memory and output without malloc ---------===//
#include "Support.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

namespace memprof {
namespace rt {

void SpinLock::lockSlow() {
  for (unsigned Spins = 0;; ++Spins) {
    if (loadRelaxed(&State) == 0 && tryLock())
      return;
    if (Spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}

void TicketLock::waitFor(uint32_t Ticket) {
  for (unsigned Spins = 0; loadAcquire(&Serving) != Ticket; ++Spins) {
    if (Spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}

void *mapMemory(size_t Bytes, bool NoReserve) {
  int Flags = MAP_PRIVATE | MAP_ANONYMOUS | (NoReserve ? MAP_NORESERVE : 0);
  int SavedErrno = errno;
  void *P = mmap(nullptr, Bytes, PROT_READ | PROT_WRITE, Flags, -1, 0);
  errno = SavedErrno;
  return P == MAP_FAILED ? nullptr : P;
}

void unmapMemory(void *P, size_t Bytes) {
  if (!P)
    return;
  int SavedErrno = errno;
  munmap(P, Bytes);
  errno = SavedErrno;
}

size_t pageSize() {
  static size_t Cached;
  size_t P = loadRelaxed(&Cached);
  if (!P) {
    P = getauxval(AT_PAGESZ);
    if (!P)
      P = 4096;
    storeRelaxed(&Cached, P);
  }
  return P;
}

namespace {
constexpr size_t ArenaBlockBytes = 1 << 20;
SpinLock ArenaMutex;
char *ArenaCur;
char *ArenaEnd;
} // namespace

void *arenaAllocate(size_t Bytes) {
  Bytes = alignUp(Bytes, 16);
  if (Bytes > ArenaBlockBytes / 4)
    return mapMemory(alignUp(Bytes, pageSize()));
  ScopedLock Guard(ArenaMutex);
  if (!ArenaCur || (size_t)(ArenaEnd - ArenaCur) < Bytes) {
    char *Block = static_cast<char *>(mapMemory(ArenaBlockBytes));
    if (!Block)
      return nullptr;
    ArenaCur = Block;
    ArenaEnd = Block + ArenaBlockBytes;
  }
  void *P = ArenaCur;
  ArenaCur += Bytes;
  return P;
}

void arenaLock() { ArenaMutex.lock(); }
void arenaUnlock() { ArenaMutex.unlock(); }
void arenaUnlockAfterFork() { ArenaMutex.State = 0; }

Line &Line::add(const char *S, size_t N) {
  if (N > sizeof(Data) - 1 - Len)
    N = sizeof(Data) - 1 - Len;
  memcpy(Data + Len, S, N);
  Len += N;
  return *this;
}

Line &Line::add(const char *S) {
  return add(S ? S : "(null)", S ? stringLength(S) : 6);
}

Line &Line::addChar(char C) { return add(&C, 1); }

Line &Line::addShortened(const char *S) {
  if (!S)
    return add(S);
  size_t N = stringLength(S);
  if (N <= 300)
    return add(S, N);
  return add(S, 200).add("...").add(S + N - 60, 60);
}

Line &Line::addUnsigned(uint64_t V) {
  char Buf[24];
  size_t I = sizeof(Buf);
  do {
    Buf[--I] = char('0' + V % 10);
    V /= 10;
  } while (V);
  return add(Buf + I, sizeof(Buf) - I);
}

Line &Line::addSigned(int64_t V) {
  if (V < 0) {
    addChar('-');
    return addUnsigned(uint64_t(0) - uint64_t(V));
  }
  return addUnsigned(uint64_t(V));
}

Line &Line::addErrno(int Err) {
  // strerrordesc_np/strerrorname_np (glibc 2.32) return static, untranslated
  // strings: no locale lookup and no allocation, unlike strerror.
  const char *Desc = strerrordesc_np(Err);
  const char *Name = strerrorname_np(Err);
  if (Desc)
    add(Desc);
  else
    add("error ").addSigned(Err);
  if (Name)
    add(" (").add(Name).add(")");
  return *this;
}

const char *Line::c_str() {
  Data[Len < sizeof(Data) ? Len : sizeof(Data) - 1] = 0;
  return Data;
}

int writeAll(int Fd, const void *Buf, size_t N) {
  const char *P = static_cast<const char *>(Buf);
  while (N) {
    ssize_t W = write(Fd, P, N);
    if (W < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    if (W == 0)
      return EIO;
    P += W;
    N -= size_t(W);
  }
  return 0;
}

void writeStderr(const char *S, size_t N) {
  int SavedErrno = errno;
  writeAll(2, S, N);
  errno = SavedErrno;
}

size_t stringLength(const char *S) {
  size_t N = 0;
  while (S[N])
    ++N;
  return N;
}

bool startsWith(const char *S, const char *Prefix) {
  for (; *Prefix; ++S, ++Prefix)
    if (*S != *Prefix)
      return false;
  return true;
}

bool stringsEqual(const char *A, const char *B, size_t NA) {
  size_t NB = stringLength(B);
  return NA == NB && memcmp(A, B, NA) == 0;
}

bool parseUnsigned(const char *S, size_t N, uint64_t &Out) {
  if (N == 0 || N > 19)
    return false;
  uint64_t V = 0;
  for (size_t I = 0; I < N; ++I) {
    if (S[I] < '0' || S[I] > '9')
      return false;
    V = V * 10 + uint64_t(S[I] - '0');
  }
  Out = V;
  return true;
}

} // namespace rt
} // namespace memprof
