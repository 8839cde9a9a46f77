// R14: dumps to paths that cannot be written fail with a message on stderr
// and a non-zero result, and the program continues; invalid patterns are
// refused and leave the pattern unchanged. argv[1] is a scratch directory;
// without it the program just allocates once and exits.
#include "memprof/Runtime/memprof_runtime.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#pragma weak memprof_dump
#pragma weak memprof_set_output_path

extern "C" __attribute__((noinline)) void *site_paths(size_t N) { return malloc(N); }

static void attempt(const std::string &Pattern) {
  int Set = memprof_set_output_path(Pattern.c_str());
  int Dump = Set == 0 ? memprof_dump() : -1;
  // The label, not the path: the scratch directory differs between runs.
  printf("set=%d dump=%s\n", Set, Dump == 0 ? "ok" : "failed");
  fflush(stdout);
}

int main(int argc, char **argv) {
  free(site_paths(10));
  if (argc < 2)
    return 0; // only the exit dump, to the path the environment gives
  std::string Dir = argv[1];
  attempt(Dir + "/missing/dir/p.memprofraw"); // ENOENT
  attempt(Dir + "/missing/dir/p.memprofraw"); // the same: reported once
  attempt(Dir);                               // a directory: EISDIR
  attempt(Dir + "/" + std::string(5000, 'x')); // longer than PATH_MAX
  attempt(Dir + "/" + std::string(300, 'y'));  // a component too long
  attempt("/proc/self/p.memprofraw");          // procfs refuses new files
  attempt(Dir + "/bad.%z");                    // unknown directive
  attempt(Dir + "/bad.%");                     // '%' at the end
  attempt("");                                 // empty
  attempt(Dir + "/good.memprofraw");           // works after all that
  printf("continued\n");
  return 0;
}
