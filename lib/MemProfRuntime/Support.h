//===- Support.h - Freestanding building blocks of the runtime --*- C++ -*-===//
//
// Spin locks, mmap-backed memory, and stderr output that never allocate: the
// runtime replaces malloc, so nothing here may call it (house style; compare
// compiler-rt's sanitizer_common). No libstdc++, no exceptions, no RTTI.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_SUPPORT_H
#define MEMPROF_RUNTIME_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#define MEMPROF_EXPORT extern "C" __attribute__((visibility("default")))
#define MEMPROF_LIKELY(X) __builtin_expect(!!(X), 1)
#define MEMPROF_UNLIKELY(X) __builtin_expect(!!(X), 0)
#define MEMPROF_NOINLINE __attribute__((noinline))
#define MEMPROF_ALWAYS_INLINE inline __attribute__((always_inline))

namespace memprof {
namespace rt {

template <typename T> MEMPROF_ALWAYS_INLINE T loadAcquire(const T *P) {
  return __atomic_load_n(P, __ATOMIC_ACQUIRE);
}
template <typename T> MEMPROF_ALWAYS_INLINE T loadRelaxed(const T *P) {
  return __atomic_load_n(P, __ATOMIC_RELAXED);
}
template <typename T> MEMPROF_ALWAYS_INLINE void storeRelease(T *P, T V) {
  __atomic_store_n(P, V, __ATOMIC_RELEASE);
}
template <typename T> MEMPROF_ALWAYS_INLINE void storeRelaxed(T *P, T V) {
  __atomic_store_n(P, V, __ATOMIC_RELAXED);
}

/// Test-and-test-and-set lock; yields after a burst of spinning. Zero is the
/// unlocked state, so a zero-initialized global is a ready lock, and a lock
/// taken by a thread that fork() left behind can be re-initialized by
/// storing zero.
struct SpinLock {
  uint32_t State;

  void lock() {
    if (MEMPROF_LIKELY(tryLock()))
      return;
    lockSlow();
  }
  bool tryLock() {
    return __atomic_exchange_n(&State, 1u, __ATOMIC_ACQUIRE) == 0;
  }
  void unlock() { __atomic_store_n(&State, 0u, __ATOMIC_RELEASE); }
  void lockSlow();
};

/// A fair (FIFO) lock for long critical sections such as dumps, so that a
/// thread dumping in a loop cannot starve fork() or the API. Zero is the
/// unlocked state.
struct TicketLock {
  uint32_t Next;
  uint32_t Serving;

  void lock() {
    uint32_t Mine = __atomic_fetch_add(&Next, 1u, __ATOMIC_RELAXED);
    if (MEMPROF_LIKELY(loadAcquire(&Serving) == Mine))
      return;
    waitFor(Mine);
  }
  bool tryLock() {
    uint32_t S = loadAcquire(&Serving);
    uint32_t Expected = S;
    return __atomic_compare_exchange_n(&Next, &Expected, S + 1, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
  }
  void unlock() { storeRelease(&Serving, loadRelaxed(&Serving) + 1); }
  /// In a forked child: tickets of threads that no longer exist are void.
  void resetAfterFork() { Next = Serving = 0; }
  void waitFor(uint32_t Ticket);
};

/// RAII holder, the one C++ nicety kept (no destructor ordering issues: it
/// lives on the stack only).
template <typename LockT> class ScopedLockT {
public:
  explicit ScopedLockT(LockT &L) : L(L) { L.lock(); }
  ~ScopedLockT() { L.unlock(); }
  ScopedLockT(const ScopedLockT &) = delete;
  ScopedLockT &operator=(const ScopedLockT &) = delete;

private:
  LockT &L;
};
using ScopedLock = ScopedLockT<SpinLock>;
using ScopedTicketLock = ScopedLockT<TicketLock>;

/// Anonymous private memory, zero-filled; nullptr on failure. \p NoReserve
/// maps without committing swap (for sparse tables and the shadow).
void *mapMemory(size_t Bytes, bool NoReserve = false);
void unmapMemory(void *P, size_t Bytes);
size_t pageSize();
inline uint64_t alignUp(uint64_t V, uint64_t A) {
  return (V + A - 1) & ~(A - 1);
}

/// Bump allocation for data that lives until exit (stack-depot nodes, table
/// pages), 16-byte aligned and zeroed. nullptr when the system is out of
/// memory. One lock, taken only when a new stack or table page appears.
void *arenaAllocate(size_t Bytes);
void arenaLock();
void arenaUnlock();
/// After fork in the child: the lock may be held by a thread that no longer
/// exists; the prepare handler took it, so the state is consistent.
void arenaUnlockAfterFork();

/// A fixed buffer for one line of text, built without printf.
struct Line {
  char Data[4352] = {}; // a PATH_MAX path plus a message
  size_t Len = 0;

  Line &add(const char *S);
  Line &add(const char *S, size_t N);
  Line &addUnsigned(uint64_t V);
  Line &addSigned(int64_t V);
  Line &addChar(char C);
  /// \p S, or for a very long string its start, "..." and its end.
  Line &addShortened(const char *S);
  /// "No such file or directory (ENOENT)", without translation or malloc.
  Line &addErrno(int Err);
  const char *c_str();
};

/// Writes the whole buffer to stderr (retrying on EINTR and short writes).
void writeStderr(const char *S, size_t N);
inline void writeStderr(Line &L) { writeStderr(L.Data, L.Len); }

/// Writes all of \p N bytes to \p Fd; returns 0 or an errno value.
int writeAll(int Fd, const void *Buf, size_t N);

size_t stringLength(const char *S);
bool startsWith(const char *S, const char *Prefix);
bool stringsEqual(const char *A, const char *B, size_t NA);
/// Parses a decimal unsigned number from [S, S+N); false if malformed.
bool parseUnsigned(const char *S, size_t N, uint64_t &Out);

/// 64-bit mixer (murmur3's finalizer).
inline uint64_t mix64(uint64_t X) {
  X ^= X >> 33;
  X *= 0xff51afd7ed558ccdULL;
  X ^= X >> 33;
  X *= 0xc4ceb9fe1a85ec53ULL;
  X ^= X >> 33;
  return X;
}

} // namespace rt
} // namespace memprof

#endif
