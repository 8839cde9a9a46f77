//===- PreloadLibrary.cpp - What only libmemprof_rt.so holds --------------===//
//
// Linked into the shared runtime alone (LD_PRELOAD), not into the static
// archive or memprof_rt.o: its definition replaces Profile.cpp's weak one.
//
//===----------------------------------------------------------------------===//
#include "RuntimeInternal.h"

namespace memprof {
namespace rt {
bool isPreloadLibrary() { return true; }
} // namespace rt
} // namespace memprof
