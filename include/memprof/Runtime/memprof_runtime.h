/* The C API of the memprof runtime (lib/MemProfRuntime), for programs linked
 * with memprof_rt or run with LD_PRELOAD=libmemprof_rt.so. docs/runtime.md
 * describes the options, output files and policies.
 *
 * Under LD_PRELOAD a program built without the runtime can still call these:
 * declare them weak and test for NULL, e.g.
 *   extern int memprof_dump(void) __attribute__((weak));
 *   if (memprof_dump) memprof_dump();
 */
#ifndef MEMPROF_RUNTIME_MEMPROF_RUNTIME_H
#define MEMPROF_RUNTIME_MEMPROF_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a profile now: everything recorded so far plus every allocation
 * still live, counted as if freed now (live allocations stay allocated and
 * tracked). Each dump goes to its own file (see memprof_set_output_path).
 * Returns 0 on success, non-zero on failure (reported once on stderr). */
int memprof_dump(void);

/* memprof_dump, then discards everything it wrote, atomically with respect
 * to other threads: the next dump covers exactly the allocations made after
 * this one, so the files of successive calls can be merged without counting
 * anything twice. */
int memprof_dump_and_reset(void);

/* Discards everything recorded so far: the table is emptied and allocations
 * live now are forgotten (never reported, neither live nor at their free).
 * Returns 0 on success. */
int memprof_reset(void);

/* Sets the output path pattern of later dumps: %p pid, %h host name,
 * %e executable name, %n the dump's sequence number with this pattern
 * (1, 2, ...), %% a '%'. The first dump takes the name as given; without %n,
 * later ones insert ".<n>" before the extension of the last component.
 * Returns non-zero, leaving the pattern unchanged, if the pattern is empty,
 * longer than PATH_MAX or uses an unknown directive. */
int memprof_set_output_path(const char *pattern);

/* Starts the runtime before the first allocation (idempotent). */
void memprof_init(void);

/* Shadow memory: one 64-bit access counter per 64-byte granule of memory,
 * at MEMPROF_SHADOW_COUNTER(addr). Instrumented code increments it on every
 * access; the runtime reads and clears an allocation's counters at free.
 * 0 until code built with the pass reserves it (its module constructor, or
 * memprof_shadow_start), or if the shadow could not be mapped: a process
 * without such code has no shadow. Code that counts by hand calls
 * memprof_shadow_start first. */
extern uintptr_t memprof_shadow_base;

/* For code built with the instrumentation pass and
 * -memprof-instrument-sink=false (docs/instrument.md), and for code that
 * counts by hand: reserves the shadow if nothing has yet and returns
 * memprof_shadow_base; stops the process if the shadow cannot be reserved
 * (the pass's default form never calls it). */
uintptr_t memprof_shadow_start(void);
/* For code built with the instrumentation pass (docs/instrument.md):
 * adds Inc to the counter of each of Addr, Addr + Stride, ...
 * (Count addresses), one update per granule. */
void memprof_record_strided(uintptr_t Addr, intptr_t Stride, uint64_t Count,
                            uint64_t Inc);
/* Profiles go to Dir/memprof.%p.memprofraw unless MEMPROF_PROFILE_FILE is
 * set (the pass's -memprof-instrument-output-dir calls it at start-up). */
void memprof_set_default_output_dir(const char *Dir);
/* Defined only by a runtime that matches the pass's counting (version 1),
 * under the name the pass references (a link error names it when the
 * runtime is missing or of another version) and the one earlier builds of
 * the pass referenced. */
void memprof_runtime_missing_or_not_version_1(void);
void memprof_rt_version_1(void);
/* Called by the constructor of a module the pass counted per object (its
 * default): with histogram=1 the runtime warns that histograms are then not
 * per granule. */
void memprof_note_object_counts(void);

/* Keeps the pass out of one function. */
#define MEMPROF_NO_INSTRUMENT __attribute__((disable_sanitizer_instrumentation))

#define MEMPROF_SHADOW_SCALE 6
#define MEMPROF_SHADOW_GRANULE (1u << MEMPROF_SHADOW_SCALE)
#define MEMPROF_SHADOW_COUNTER(addr)                                           \
  ((uint64_t *)(memprof_shadow_base +                                          \
                (((uintptr_t)(addr) >> MEMPROF_SHADOW_SCALE) << 3)))

#ifdef __cplusplus
}
#endif

#endif /* MEMPROF_RUNTIME_MEMPROF_RUNTIME_H */
