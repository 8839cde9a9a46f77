//===- RunCommand.h - A shell command's output, for oracle tests -*- C++ -*-===//
//
// The unit tests that compare with an LLVM tool (llvm-symbolizer-22,
// llvm-dwarfdump-22) run it through the shell and read what it prints.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_UNITTESTS_RUNCOMMAND_H
#define MEMPROF_UNITTESTS_RUNCOMMAND_H

#include <cstdio>
#include <string>

namespace memprof {
namespace test {

/// What \p Cmd (run by /bin/sh) writes to standard output; empty if it
/// cannot be started.
inline std::string runCommand(const std::string &Cmd) {
  std::string Out;
  FILE *F = popen(Cmd.c_str(), "r");
  if (!F)
    return Out;
  char Buf[65536];
  size_t N;
  while ((N = fread(Buf, 1, sizeof(Buf), F)) > 0)
    Out.append(Buf, N);
  pclose(F);
  return Out;
}

} // namespace test
} // namespace memprof

#endif
