/* A runtime of another instrumentation version: everything the pass calls
 * except this version's check symbol. */
#include <stdint.h>
uintptr_t memprof_shadow_base;
void memprof_init(void) {}
void memprof_record_strided(uintptr_t A, intptr_t S, uint64_t C, uint64_t I) {}
void memprof_rt_version_0(void) {}
