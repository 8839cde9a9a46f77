/* hotcold.h - public API of libmemprof_hotcold, the hot/cold placing allocator. */
#ifndef MEMPROF_HOTCOLD_HOTCOLD_H
#define MEMPROF_HOTCOLD_HOTCOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The hint bytes clang-22 passes by default (-cold-new-hint-value and the
 * like). Like tcmalloc, the library reads every value below 128 as cold. */
enum {
  MEMPROF_HOTCOLD_HINT_COLD = 1,
  MEMPROF_HOTCOLD_HINT_NOTCOLD = 128,
  MEMPROF_HOTCOLD_HINT_AMBIGUOUS = 222,
  MEMPROF_HOTCOLD_HINT_HOT = 254
};

/* Request classes the statistics count. */
enum memprof_hotcold_class {
  MEMPROF_HOTCOLD_CLASS_UNHINTED = 0, /* the standard operator new family */
  MEMPROF_HOTCOLD_CLASS_COLD,         /* hints 0..127 */
  MEMPROF_HOTCOLD_CLASS_NOTCOLD,      /* 128 */
  MEMPROF_HOTCOLD_CLASS_AMBIGUOUS,    /* 222 */
  MEMPROF_HOTCOLD_CLASS_HOT,          /* 254 */
  MEMPROF_HOTCOLD_CLASS_OTHER,        /* any other hint from 129 up */
  MEMPROF_HOTCOLD_NUM_CLASSES
};

struct memprof_hotcold_class_stats {
  uint64_t requests;        /* successful allocations of this class */
  uint64_t requested_bytes; /* their requested sizes summed */
};

struct memprof_hotcold_stats {
  struct memprof_hotcold_class_stats classes[MEMPROF_HOTCOLD_NUM_CLASSES];
  /* Blocks now in the cold range and their usable sizes summed. */
  uint64_t cold_live_blocks;
  uint64_t cold_live_bytes;
  /* Cold requests the cold range could not serve (exhausted): the default
   * arenas served them. */
  uint64_t cold_fallbacks;
  /* The cold range: reserved address space, the part handed to jemalloc,
   * and its resident pages in bytes (mincore). */
  uint64_t cold_range_reserved_bytes;
  uint64_t cold_range_used_bytes;
  uint64_t cold_resident_bytes;
  /* jemalloc's resident bytes outside the cold arena: every hot, notcold,
   * ambiguous and unhinted block, and jemalloc's own metadata. */
  uint64_t other_resident_bytes;
  int ignore_hints; /* MEMPROF_HOTCOLD=ignore_hints=1 was given */
  int cold_arena;   /* jemalloc arena index; -1 before the first cold request */
};

/* The struct's name is also the function's: C++ code names it by this. */
typedef struct memprof_hotcold_stats memprof_hotcold_stats_t;

/* Fills *out; returns 0, or -1 if out is null. Counts are exact once no
 * thread is allocating or exiting. */
int memprof_hotcold_stats(struct memprof_hotcold_stats *out);
/* Prints the statistics, as MEMPROF_HOTCOLD=stats=1 does at exit. */
void memprof_hotcold_print_stats(int fd);
/* Whether p lies in the cold range. */
int memprof_hotcold_is_cold(const void *p);

/* For C code: a hinted allocation, its free and a realloc that keeps the
 * block in its class. Blocks of the operator new family may be passed too;
 * plain free() and realloc() (glibc's) must never see them. */
void *memprof_hotcold_malloc(size_t size, uint8_t hint);
void memprof_hotcold_free(void *p);
void *memprof_hotcold_realloc(void *p, size_t size);

#ifdef __cplusplus
} /* extern "C" */

#include <new>

/* The declarations tcmalloc's new_extension.h gives; clang-22's
 * -optimize-hot-cold-new calls these. */
enum class __hot_cold_t : uint8_t;
struct __sized_ptr_t {
  void *p;
  size_t n;
};
void *operator new(size_t Size, __hot_cold_t Hint);
void *operator new[](size_t Size, __hot_cold_t Hint);
void *operator new(size_t Size, const std::nothrow_t &, __hot_cold_t Hint) noexcept;
void *operator new[](size_t Size, const std::nothrow_t &, __hot_cold_t Hint) noexcept;
void *operator new(size_t Size, std::align_val_t Align, __hot_cold_t Hint);
void *operator new[](size_t Size, std::align_val_t Align, __hot_cold_t Hint);
void *operator new(size_t Size, std::align_val_t Align, const std::nothrow_t &,
                   __hot_cold_t Hint) noexcept;
void *operator new[](size_t Size, std::align_val_t Align, const std::nothrow_t &,
                     __hot_cold_t Hint) noexcept;
extern "C" __sized_ptr_t __size_returning_new(size_t Size);
extern "C" __sized_ptr_t __size_returning_new_hot_cold(size_t Size, __hot_cold_t Hint);
extern "C" __sized_ptr_t __size_returning_new_aligned(size_t Size, std::align_val_t Align);
extern "C" __sized_ptr_t __size_returning_new_aligned_hot_cold(size_t Size,
                                                               std::align_val_t Align,
                                                               __hot_cold_t Hint);
#endif

#endif /* MEMPROF_HOTCOLD_HOTCOLD_H */
