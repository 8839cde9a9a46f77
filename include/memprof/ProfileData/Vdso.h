//===- Vdso.h - Modules that have no file: the vDSO -------------*- C++ -*-===//
//
// The kernel maps a small shared object into every process, the vDSO
// (linux-vdso.so.1; linux-gate.so.1 in 32-bit processes). It has a build id
// and an executable segment like any module, so a raw profile lists it, but
// it has no file anywhere on disk: no binary can be looked up or bundled for
// it, and saying that one is missing would only be noise.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_VDSO_H
#define MEMPROF_PROFILEDATA_VDSO_H

#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace memprof {

/// The build id (raw bytes) of this process's vDSO, read from the image the
/// kernel maps at getauxval(AT_SYSINFO_EHDR); empty when there is none or it
/// has no build id. Every process of one kernel maps the same image, so on
/// the machine that ran a program (until it boots another kernel) this is
/// the build id its profile lists for the vDSO.
llvm::StringRef runningVdsoBuildId();

/// The vDSO's build id as runningVdsoBuildId reads it from the ELF image at
/// \p Image (of \p Size bytes; notes past them are not read): empty when it
/// is not a 64-bit ELF image or has no build-id note. For tests.
std::string vdsoBuildIdOf(const uint8_t *Image, size_t Size);

/// Whether \p S, a segment of a raw profile whose segments are \p All, is
/// the vDSO:
///  - its build id is this machine's vDSO's (runningVdsoBuildId), or
///  - the profile records module paths (memprof's runtime records one for
///    every module loaded from a file, and none for the vDSO) but not this
///    segment's, and the segment has the vDSO's layout: the image is linked
///    at address 0 and mapped whole, so its one executable segment starts at
///    its load bias (Start == Offset), and it is small (at most 64 KiB).
/// A profile of clang's runtime, which records no paths, made on another
/// machine (or before a reboot into another kernel) has only its build id
/// to go by, which is then no file's: its vDSO is not recognized.
bool isVdsoSegment(const SegmentInfo &S, llvm::ArrayRef<SegmentInfo> All);

} // namespace memprof

#endif
