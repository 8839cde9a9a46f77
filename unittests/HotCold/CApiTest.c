/* CApiTest.c - hotcold.h compiles as C99 and its C entry points work from C. */
#include "memprof/HotCold/hotcold.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  struct memprof_hotcold_stats Before, After;
  char *Cold, *Hot;
  if (memprof_hotcold_stats(&Before) != 0)
    return 1;
  Cold = memprof_hotcold_malloc(100, MEMPROF_HOTCOLD_HINT_COLD);
  Hot = memprof_hotcold_malloc(100, MEMPROF_HOTCOLD_HINT_HOT);
  if (!Cold || !Hot)
    return 1;
  strcpy(Cold, "kept");
  Cold = memprof_hotcold_realloc(Cold, 1 << 20);
  memprof_hotcold_stats(&After);
  printf("cold=%d hot=%d contents=%s live=%llu requests=%llu\n",
         memprof_hotcold_is_cold(Cold), memprof_hotcold_is_cold(Hot), Cold,
         (unsigned long long)(After.cold_live_blocks - Before.cold_live_blocks),
         (unsigned long long)(After.classes[MEMPROF_HOTCOLD_CLASS_COLD].requests -
                              Before.classes[MEMPROF_HOTCOLD_CLASS_COLD].requests));
  memprof_hotcold_free(Cold);
  memprof_hotcold_free(Hot);
  return 0;
}
