//===- InstrumentSupport.cpp - What code built with the pass links to -----===//
//
// The version-check symbol, the counter helper for ranges and strided loops,
// and the compile-time default output directory (lib/Instrument emits calls
// to these; docs/instrument.md).
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"
#include "Shadow.h"
#include "Support.h"
#include "memprof/Runtime/memprof_runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace memprof::rt;

/// Instrumented modules reference this symbol (from their constructor), so
/// a program built by a pass of another instrumentation version fails to
/// link against this runtime instead of counting wrongly. The call also
/// tells the runtime that accesses are counted (see noteInstrumentedModule).
MEMPROF_EXPORT void memprof_runtime_missing_or_not_version_1(void) { noteInstrumentedModule(); }
/// The same check under the name earlier builds of the pass referenced.
MEMPROF_EXPORT void memprof_rt_version_1(void) { noteInstrumentedModule(); }

/// Called by the constructor of a module the pass counted per object (its
/// default): access histograms then show where updates went, not accesses.
MEMPROF_EXPORT void memprof_note_object_counts(void) {
  storeRelaxed(&G.ObjectCounts, true);
}

/// Code built with the pass calls this at the entry of a function that finds
/// memprof_shadow_base still 0 (it runs before the runtime has started, in
/// another library's constructor for instance): the shadow is reserved
/// then, and the runtime uses it when it starts. The pass computes counter
/// addresses without any test, so instrumented code cannot run without the
/// shadow: if it cannot be reserved (an address-space limit, valgrind) the
/// process stops with a message.
MEMPROF_EXPORT uintptr_t memprof_shadow_start(void) {
  if (uintptr_t Base = reserveShadow())
    return Base;
  static const char Msg[] =
      "memprof: error: cannot reserve the access counters' shadow (16 TiB "
      "of address space, an address-space limit or valgrind?); code built "
      "with the pass cannot run without it (build with -mllvm "
      "-memprof-instrument-sink to run with counts 0 instead)\n";
  writeStderr(Msg, sizeof(Msg) - 1);
  _exit(1);
}

/// Counts Count accesses at Addr, Addr + Stride, ..., each Inc times: what
/// Count * Inc single-access updates give, in one update per granule.
MEMPROF_EXPORT void memprof_record_strided(uintptr_t Addr, intptr_t Stride,
                                           uint64_t Count, uint64_t Inc) {
  uintptr_t Base = loadRelaxed(&memprof_shadow_base);
  if (!Base || !Count || !Inc)
    return;
  auto Counter = [Base](uintptr_t A) {
    return reinterpret_cast<uint64_t *>(shadowAddress(Base, A));
  };
  if (Stride == 0) {
    *Counter(Addr) += Count * Inc;
    return;
  }
  uintptr_t Step = uintptr_t(Stride);
  if (Stride < 0) { // the same addresses, walked upwards
    Step = uintptr_t(0) - Step;
    Addr -= (Count - 1) * Step;
  }
  if (Step >= ShadowGranule) { // one access per granule
    for (uint64_t K = 0; K < Count; ++K, Addr += Step)
      *Counter(Addr) += Inc;
    return;
  }
  if ((Step & (Step - 1)) == 0) {
    // A power of two (memory intrinsics step by 8): after the first granule
    // every full granule holds exactly 64 / Step of the addresses.
    unsigned Shift = unsigned(__builtin_ctzll(Step));
    uintptr_t ToEnd = ShadowGranule - (Addr & (ShadowGranule - 1));
    uint64_t N = (ToEnd + Step - 1) >> Shift;
    if (N > Count)
      N = Count;
    uint64_t *C = Counter(Addr);
    *C++ += N * Inc;
    uint64_t Left = Count - N;
    const uint64_t PerGranule = ShadowGranule >> Shift;
    for (; Left >= PerGranule; Left -= PerGranule)
      *C++ += PerGranule * Inc;
    if (Left)
      *C += Left * Inc;
    return;
  }
  for (uint64_t K = 0; K < Count;) {
    // The accesses K, K+1, ... before the end of Addr's granule.
    uintptr_t ToEnd = ShadowGranule - (Addr & (ShadowGranule - 1));
    uint64_t N = (ToEnd + Step - 1) / Step;
    if (N > Count - K)
      N = Count - K;
    *Counter(Addr) += N * Inc;
    K += N;
    Addr += N * Step;
  }
}

/// A default directory chosen when the program was compiled: profiles go to
/// Dir/memprof.%p.memprofraw unless MEMPROF_PROFILE_FILE says otherwise. The
/// directory is created (one level) if missing.
MEMPROF_EXPORT void memprof_set_default_output_dir(const char *Dir) {
  const char *Env = getenv("MEMPROF_PROFILE_FILE");
  if (Env && *Env)
    return;
  static char Path[4096];
  size_t N = strlen(Dir);
  const char *Leaf = "/memprof.%p.memprofraw";
  if (N == 0 || N + strlen(Leaf) + 1 > sizeof(Path))
    return;
  memcpy(Path, Dir, N);
  memcpy(Path + N, Leaf, strlen(Leaf) + 1);
  int SavedErrno = errno;
  mkdir(Dir, 0777);
  errno = SavedErrno;
  memprof_set_output_path(Path);
}
