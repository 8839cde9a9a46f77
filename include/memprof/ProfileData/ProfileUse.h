//===- ProfileUse.h - The clang flags that build with a profile -*- C++ -*-===//
//
// The one place that decides how clang-22 builds with a merged profile: from
// what the file holds, not its name. PGO counters take -fprofile-use=, MemProf
// data -fmemory-profile-use= with the debug information that option matches
// allocation calls by; each flag on a file without its part is an error in
// clang ("Not an IR level instrumentation profile", "Not a memory profile").
// memprof-show --use-flags prints the decision; the CMake package's
// memprof_use_profile and the pkg-config route take it from there.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_PROFILEUSE_H
#define MEMPROF_PROFILEDATA_PROFILEUSE_H

#include "memprof/ProfileData/Report.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace memprof {

/// What -fmemory-profile-use needs besides the profile: line tables with
/// discriminators and the functions' linkage names, without which it matches
/// no allocation call and says nothing. The CMake package
/// (MemProf_USE_COMPILE_OPTIONS) and the pkg-config files (use_cflags) give
/// the same words.
inline constexpr const char *MemProfUseDebugFlags[] = {
    "-gmlt", "-fdebug-info-for-profiling"};

struct ProfileUse {
  /// Its PGO counters hold function records: -fprofile-use=.
  bool Counters = false;
  /// Its MemProf part holds allocation contexts: -fmemory-profile-use=.
  bool MemProf = false;
  /// clang-22's flags, \p Path as given: MemProfUseDebugFlags and
  /// -fmemory-profile-use=PATH for the heap part, -fprofile-use=PATH for the
  /// counters, in the order `-gmlt -fdebug-info-for-profiling
  /// -fprofile-use=PATH -fmemory-profile-use=PATH`.
  std::vector<std::string> Flags;
  /// A part the file has but which holds nothing, and so gets no flag.
  std::vector<std::string> Warnings;
};

/// Decides from \p H, the header of the file at \p Path. Only an indexed
/// profile (memprof-merge's or llvm-profdata's) is one clang reads: a raw
/// profile or counters text is an error saying how to merge it; so is an
/// indexed profile that holds neither function records nor allocation
/// contexts.
llvm::Expected<ProfileUse> decideProfileUse(llvm::StringRef Path,
                                            const ProfileHeader &H);
/// Reads the header of \p Data (the bytes of \p Path) and decides; a file
/// that cannot be read as a profile is an error saying what clang builds
/// with.
llvm::Expected<ProfileUse> readProfileUse(llvm::StringRef Path,
                                          llvm::StringRef Data);
/// Appends to a read error of \p Path what to give --use-flags instead.
llvm::Error explainUnusable(llvm::Error E);

/// \p Words as one line for a POSIX shell, a make recipe or CMake's
/// separate_arguments(UNIX_COMMAND): a word with any character outside
/// [A-Za-z0-9_@%+=:,./-] is single-quoted (pkg-config quotes likewise), so
/// the common paths print as they are.
std::string shellCommandLine(llvm::ArrayRef<std::string> Words);

} // namespace memprof

#endif
