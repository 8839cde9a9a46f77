//===- InstrProfInternal.h - Shared pieces of the counter readers/writers -===//
//
// The value-profile blob (spec llvm-instrprof-formats.md 1.10), which raw and
// indexed files share, in its little-endian form.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_LIB_PROFILEDATA_INSTRPROFINTERNAL_H
#define MEMPROF_LIB_PROFILEDATA_INSTRPROFINTERNAL_H

#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/SmallVector.h"

namespace memprof {

/// Bytes of the value blob of \p R (8 when it has no sites).
uint64_t valueDataSize(const FunctionCounters &R);
/// Appends the value blob of \p R. Sites must hold at most 255 values.
void writeValueData(llvm::SmallVectorImpl<char> &Out,
                    const FunctionCounters &R);
/// Reads one value blob at \p C into \p R's sites (replacing them), checking
/// every size against the blob and the bytes that remain.
llvm::Error readValueData(DataCursor &C, FunctionCounters &R);

} // namespace memprof

#endif
