/* R19: run setuid (AT_SECURE): prints the flag and allocates a little; the
 * runtime, linked in, must ignore MEMPROF_PROFILE_FILE and
 * MEMPROF_RT_OPTIONS and say so. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
int main(void) {
  for (int I = 0; I < 10; ++I)
    free(malloc(100));
  printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
  return 0;
}
