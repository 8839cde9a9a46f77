//===- NewDeleteInterceptors.cpp - Every operator new and delete ----------===//
//
// Kept in their own object so that C programs linking the static runtime
// need no C++. When an allocation fails, the corresponding operator of the
// C++ library (found with RTLD_NEXT) is called with the same arguments: it
// retries through our malloc, runs the new_handler and throws std::bad_alloc
// (or returns nullptr for nothrow), so the standard semantics hold although
// the runtime itself is built without exceptions.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <new>
#include <stdlib.h>

using namespace memprof::rt;

#define FRAME __builtin_frame_address(0)
#define MEMPROF_NEW_EXPORT __attribute__((visibility("default")))

namespace {

void *resolveNext(const char *Name) {
  RuntimeScope Scope; // dlsym may allocate
  void *F = dlsym(RTLD_NEXT, Name);
  if (!F) {
    Line L;
    L.add("memprof: error: out of memory in ")
        .add(Name)
        .add(" and no C++ library to report it\n");
    writeStderr(L);
    abort();
  }
  return F;
}

using NewFn = void *(*)(size_t);
using NewNothrowFn = void *(*)(size_t, const std::nothrow_t &);
using NewAlignFn = void *(*)(size_t, std::align_val_t);
using NewAlignNothrowFn = void *(*)(size_t, std::align_val_t,
                                    const std::nothrow_t &);

MEMPROF_NOINLINE void *newFailed(const char *Name, size_t Size) {
  return reinterpret_cast<NewFn>(resolveNext(Name))(Size);
}
MEMPROF_NOINLINE void *newFailed(const char *Name, size_t Size,
                                 const std::nothrow_t &NT) {
  return reinterpret_cast<NewNothrowFn>(resolveNext(Name))(Size, NT);
}
MEMPROF_NOINLINE void *newFailed(const char *Name, size_t Size,
                                 std::align_val_t A) {
  return reinterpret_cast<NewAlignFn>(resolveNext(Name))(Size, A);
}
MEMPROF_NOINLINE void *newFailed(const char *Name, size_t Size,
                                 std::align_val_t A, const std::nothrow_t &NT) {
  return reinterpret_cast<NewAlignNothrowFn>(resolveNext(Name))(Size, A, NT);
}

bool validAlignment(std::align_val_t A) {
  size_t V = static_cast<size_t>(A);
  return V && !(V & (V - 1));
}

} // namespace

MEMPROF_NEW_EXPORT void *operator new(size_t Size) {
  void *P = allocate(Size, 0, false, FRAME);
  return MEMPROF_LIKELY(P) ? P : newFailed("_Znwm", Size);
}
MEMPROF_NEW_EXPORT void *operator new[](size_t Size) {
  void *P = allocate(Size, 0, false, FRAME);
  return MEMPROF_LIKELY(P) ? P : newFailed("_Znam", Size);
}
MEMPROF_NEW_EXPORT void *operator new(size_t Size,
                                      const std::nothrow_t &NT) noexcept {
  void *P = allocate(Size, 0, false, FRAME);
  return MEMPROF_LIKELY(P) ? P : newFailed("_ZnwmRKSt9nothrow_t", Size, NT);
}
MEMPROF_NEW_EXPORT void *operator new[](size_t Size,
                                        const std::nothrow_t &NT) noexcept {
  void *P = allocate(Size, 0, false, FRAME);
  return MEMPROF_LIKELY(P) ? P : newFailed("_ZnamRKSt9nothrow_t", Size, NT);
}
MEMPROF_NEW_EXPORT void *operator new(size_t Size, std::align_val_t A) {
  void *P = validAlignment(A)
                ? allocate(Size, static_cast<size_t>(A), false, FRAME)
                : nullptr;
  return MEMPROF_LIKELY(P) ? P : newFailed("_ZnwmSt11align_val_t", Size, A);
}
MEMPROF_NEW_EXPORT void *operator new[](size_t Size, std::align_val_t A) {
  void *P = validAlignment(A)
                ? allocate(Size, static_cast<size_t>(A), false, FRAME)
                : nullptr;
  return MEMPROF_LIKELY(P) ? P : newFailed("_ZnamSt11align_val_t", Size, A);
}
MEMPROF_NEW_EXPORT void *operator new(size_t Size, std::align_val_t A,
                                      const std::nothrow_t &NT) noexcept {
  void *P = validAlignment(A)
                ? allocate(Size, static_cast<size_t>(A), false, FRAME)
                : nullptr;
  return MEMPROF_LIKELY(P)
             ? P
             : newFailed("_ZnwmSt11align_val_tRKSt9nothrow_t", Size, A, NT);
}
MEMPROF_NEW_EXPORT void *operator new[](size_t Size, std::align_val_t A,
                                        const std::nothrow_t &NT) noexcept {
  void *P = validAlignment(A)
                ? allocate(Size, static_cast<size_t>(A), false, FRAME)
                : nullptr;
  return MEMPROF_LIKELY(P)
             ? P
             : newFailed("_ZnamSt11align_val_tRKSt9nothrow_t", Size, A, NT);
}

MEMPROF_NEW_EXPORT void operator delete(void *P) noexcept { deallocate(P); }
MEMPROF_NEW_EXPORT void operator delete[](void *P) noexcept { deallocate(P); }
MEMPROF_NEW_EXPORT void operator delete(void *P,
                                        const std::nothrow_t &) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete[](void *P,
                                          const std::nothrow_t &) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete(void *P, size_t) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete[](void *P, size_t) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete(void *P, std::align_val_t) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete[](void *P, std::align_val_t) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete(void *P, std::align_val_t,
                                        const std::nothrow_t &) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete[](void *P, std::align_val_t,
                                          const std::nothrow_t &) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete(void *P, size_t,
                                        std::align_val_t) noexcept {
  deallocate(P);
}
MEMPROF_NEW_EXPORT void operator delete[](void *P, size_t,
                                          std::align_val_t) noexcept {
  deallocate(P);
}
