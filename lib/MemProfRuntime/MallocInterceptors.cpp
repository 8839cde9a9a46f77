//===- MallocInterceptors.cpp - The C allocation API ----------------------===//
//
// malloc and friends with glibc's results and errno for bad arguments. Each
// passes its own frame address down, so the recorded stack starts at its
// caller. No libc header declaring these functions is included: our
// definitions are the declarations.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <errno.h>

using namespace memprof::rt;

#define FRAME __builtin_frame_address(0)

namespace {

/// memalign's semantics in glibc (_mid_memalign): small alignments are
/// plain mallocs, others are raised to a power of two of at least 32.
void *alignedAllocate(size_t Align, size_t Size, const void *Frame) {
  if (Align <= 16)
    return allocate(Size, 0, false, Frame);
  if (Align > SIZE_MAX / 2 + 1) {
    errno = EINVAL;
    return nullptr;
  }
  if (Align & (Align - 1)) {
    size_t A = 32;
    while (A < Align)
      A <<= 1;
    Align = A;
  }
  return allocate(Size, Align, false, Frame);
}

} // namespace

/// When another allocator comes first in symbol lookup (the constructor
/// found that malloc is not this copy's, G.Inactive), only the functions
/// it lacks reach this copy: they go on to the next definition, glibc's,
/// which allocates through the process's malloc, as if this copy were not
/// loaded (a block of glibc's own would crash the other allocator's free).
/// malloc, free, calloc and realloc are never reached then, nor checked.
#define FORWARD_WHEN_INACTIVE(Fn, ...)                                         \
  do {                                                                         \
    if (MEMPROF_UNLIKELY(G.Inactive)) {                                        \
      static decltype(&Fn) Next;                                               \
      if (auto F = nextDefinition(Next, #Fn))                                  \
        return F(__VA_ARGS__);                                                 \
    }                                                                          \
  } while (0)

MEMPROF_EXPORT void *malloc(size_t Size) {
  return allocate(Size, 0, false, FRAME);
}

MEMPROF_EXPORT void free(void *P) { deallocate(P); }

MEMPROF_EXPORT void *calloc(size_t N, size_t Size) {
  size_t Total;
  if (__builtin_mul_overflow(N, Size, &Total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return allocate(Total, 0, true, FRAME);
}

MEMPROF_EXPORT void *realloc(void *P, size_t Size) {
  if (!P)
    return allocate(Size, 0, false, FRAME);
  if (Size == 0) { // glibc frees and returns NULL
    deallocate(P);
    return nullptr;
  }
  return reallocate(P, Size, FRAME);
}

MEMPROF_EXPORT void *reallocarray(void *P, size_t N, size_t Size) {
  FORWARD_WHEN_INACTIVE(reallocarray, P, N, Size);
  size_t Total;
  if (__builtin_mul_overflow(N, Size, &Total)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (!P)
    return allocate(Total, 0, false, FRAME);
  if (Total == 0) {
    deallocate(P);
    return nullptr;
  }
  return reallocate(P, Total, FRAME);
}

MEMPROF_EXPORT void *memalign(size_t Align, size_t Size) {
  FORWARD_WHEN_INACTIVE(memalign, Align, Size);
  return alignedAllocate(Align, Size, FRAME);
}

MEMPROF_EXPORT int posix_memalign(void **Out, size_t Align, size_t Size) {
  FORWARD_WHEN_INACTIVE(posix_memalign, Out, Align, Size);
  if (Align == 0 || Align % sizeof(void *) != 0 ||
      ((Align / sizeof(void *)) & (Align / sizeof(void *) - 1)))
    return EINVAL; // *Out untouched, errno untouched
  void *P = alignedAllocate(Align, Size, FRAME);
  if (!P)
    return ENOMEM;
  *Out = P;
  return 0;
}

MEMPROF_EXPORT void *aligned_alloc(size_t Align, size_t Size) {
  FORWARD_WHEN_INACTIVE(aligned_alloc, Align, Size);
  // glibc before 2.38 treats aligned_alloc as memalign; 2.38 rejects an
  // alignment that is not a power of two.
  if (G.StrictAlignedAlloc && (Align == 0 || (Align & (Align - 1)))) {
    errno = EINVAL;
    return nullptr;
  }
  return alignedAllocate(Align, Size, FRAME);
}

MEMPROF_EXPORT void *valloc(size_t Size) {
  FORWARD_WHEN_INACTIVE(valloc, Size);
  return alignedAllocate(pageSize(), Size, FRAME);
}

MEMPROF_EXPORT void *pvalloc(size_t Size) {
  FORWARD_WHEN_INACTIVE(pvalloc, Size);
  size_t Page = pageSize();
  size_t Rounded;
  if (__builtin_add_overflow(Size, Page - 1, &Rounded)) {
    errno = ENOMEM;
    return nullptr;
  }
  return alignedAllocate(Page, Rounded & ~(Page - 1), FRAME);
}

MEMPROF_EXPORT size_t malloc_usable_size(void *P) {
  FORWARD_WHEN_INACTIVE(malloc_usable_size, P);
  if (!P)
    return 0;
  if (ownChunk(P))
    return usableSize(P);
  return glibcUsableSize(P);
}

namespace {
/// The process's free (the first definition in symbol lookup), for an
/// inactive copy's free_sized: glibc before 2.39 has no free_sized to go
/// on to.
void processFree(void *P) {
  static decltype(&free) First;
  if (auto F = lookupOnce(First, RTLD_DEFAULT, "free"))
    F(P);
}
} // namespace

// C23 (glibc 2.39); exported so that programs built against a newer libc
// keep working under the preload.
MEMPROF_EXPORT void free_sized(void *P, size_t) {
  if (MEMPROF_UNLIKELY(G.Inactive))
    return processFree(P);
  deallocate(P);
}
MEMPROF_EXPORT void free_aligned_sized(void *P, size_t, size_t) {
  if (MEMPROF_UNLIKELY(G.Inactive))
    return processFree(P);
  deallocate(P);
}

/// Lets the compiler pass (and tests) start the runtime before the first
/// allocation; idempotent.
MEMPROF_EXPORT void memprof_init(void) { ensureInit(); }
