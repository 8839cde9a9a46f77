#include "ToolCommon.h"
#include "gtest/gtest.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

/// The VmFlags of the mapping that holds \p P (/proc/self/smaps), or "" if
/// none does.
std::string vmFlagsOf(const void *P) {
  FILE *F = std::fopen("/proc/self/smaps", "r");
  if (!F)
    return "";
  const uintptr_t A = reinterpret_cast<uintptr_t>(P);
  char Line[512];
  bool In = false;
  std::string Flags;
  while (std::fgets(Line, sizeof(Line), F)) {
    unsigned long Lo, Hi;
    if (std::sscanf(Line, "%lx-%lx ", &Lo, &Hi) == 2 &&
        std::strchr(Line, '-') < std::strchr(Line, ' ')) {
      In = Lo <= A && A < Hi;
      continue;
    }
    if (In && std::strncmp(Line, "VmFlags:", 8) == 0) {
      Flags = Line + 8;
      break;
    }
  }
  std::fclose(F);
  return Flags;
}

bool transparentHugePagesAvailable() {
  FILE *F = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!F)
    return false;
  char Buf[128] = {};
  size_t N = std::fread(Buf, 1, sizeof(Buf) - 1, F);
  std::fclose(F);
  return N && !std::strstr(Buf, "[never]");
}

/// In a child process (the allocator settings are the process's): after
/// tuneAllocator, is a block of 4 MiB (from the heap, below the mmap
/// threshold) in memory advised for huge pages? Exits 0 if it is, 1 if not.
void childChecksAdvice() {
  memprof::tool::tuneAllocator();
  void *P = std::malloc(4 << 20);
  std::memset(P, 1, 4 << 20);
  bool Advised = vmFlagsOf(static_cast<char *>(P) + (2 << 20)).find(" hg") !=
                 std::string::npos;
  std::_Exit(Advised ? 0 : 1);
}

// The tools' heap is advised for transparent huge pages
// (docs/memprof-merge.md), and MEMPROF_HUGE_PAGES=0 leaves it as it was.
TEST(ToolCommon, HeapAdvisedForHugePagesUnlessTurnedOff) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
    __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the sanitizer's allocator, not glibc's heap";
#endif
#endif
  if (!transparentHugePagesAvailable())
    GTEST_SKIP() << "no transparent huge pages on this system";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  unsetenv("MEMPROF_HUGE_PAGES");
  EXPECT_EXIT(childChecksAdvice(), testing::ExitedWithCode(0), "");
  setenv("MEMPROF_HUGE_PAGES", "0", 1);
  EXPECT_EXIT(childChecksAdvice(), testing::ExitedWithCode(1), "");
  unsetenv("MEMPROF_HUGE_PAGES");
}

/// Whether \p P lies in the main thread's heap, the "[heap]" mapping that
/// sbrk grows (/proc/self/maps).
bool inMainHeap(const void *P) {
  FILE *F = std::fopen("/proc/self/maps", "r");
  if (!F)
    return false;
  const uintptr_t A = reinterpret_cast<uintptr_t>(P);
  char Line[512];
  bool In = false;
  while (std::fgets(Line, sizeof(Line), F)) {
    unsigned long Lo, Hi;
    if (std::strstr(Line, "[heap]") &&
        std::sscanf(Line, "%lx-%lx ", &Lo, &Hi) == 2)
      In |= Lo <= A && A < Hi;
  }
  std::fclose(F);
  return In;
}

/// In a child process: a block of 64 KiB (below the mmap threshold) that a
/// new thread allocates, after shareHeapWithThreads if \p Share. Exits 0 if
/// it lies in the main heap, 1 if not.
void childChecksThreadHeap(bool Share) {
  if (Share)
    memprof::tool::shareHeapWithThreads();
  void *P = nullptr;
  std::thread T([&] {
    P = std::malloc(64 << 10);
    std::memset(P, 1, 64 << 10);
  });
  T.join();
  std::_Exit(inMainHeap(P) ? 0 : 1);
}

// memprof-merge's readers of raw inputs allocate from the main heap
// (warm, advised for huge pages) instead of an arena of their own; without
// the call, a thread's first block lies in an arena of its own.
TEST(ToolCommon, ThreadsShareTheMainHeapWhenAsked) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
    __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the sanitizer's allocator, not glibc's arenas";
#endif
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(childChecksThreadHeap(true), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(childChecksThreadHeap(false), testing::ExitedWithCode(1), "");
}

} // namespace
