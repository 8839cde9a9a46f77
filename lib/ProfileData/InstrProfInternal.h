//===- InstrProfInternal.h - Shared pieces of the counter readers/writers -===//
//
// What raw and indexed files share: the value-profile blob (spec
// llvm-instrprof-formats.md 1.10) in its little-endian form, and the name
// blobs (1.8) of function and vtable names.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_LIB_PROFILEDATA_INSTRPROFINTERNAL_H
#define MEMPROF_LIB_PROFILEDATA_INSTRPROFINTERNAL_H

#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <deque>

namespace memprof {

/// Bytes of the value blob of \p R (8 when it has no sites).
uint64_t valueDataSize(const FunctionCounters &R);
/// Appends the value blob of \p R. Sites must hold at most 255 values.
void writeValueData(llvm::SmallVectorImpl<char> &Out,
                    const FunctionCounters &R);
/// Reads one value blob at \p C into \p R's sites (replacing them), checking
/// every size against the blob and the bytes that remain.
llvm::Error readValueData(DataCursor &C, FunctionCounters &R);

/// Decodes the name blobs of \p Sec (absolute offset \p Base): each is
/// ULEB128 length, ULEB128 compressed length (0: stored plain), then the
/// names joined by 0x01, zlib-compressed or not; zero bytes may separate
/// blobs. Calls \p OnName with each name and its blob's offset; names point
/// into \p Sec or into a buffer appended to \p Inflated, which must outlive
/// them. \p What ("names", "vtable names") names the section in errors.
llvm::Error forEachNameInBlobs(
    llvm::StringRef Sec, uint64_t Base, llvm::StringRef What,
    std::deque<llvm::SmallVector<uint8_t, 0>> &Inflated,
    llvm::function_ref<llvm::Error(llvm::StringRef Name, uint64_t BlobAt)>
        OnName);

} // namespace memprof

#endif
