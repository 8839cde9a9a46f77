/* LLVM indexed profile (InstrProf version 13) and MemProf section constants.
 * Freestanding. Spec: shared/docs/llvm-memprof-formats.md section 3.
 */
#ifndef MEMPROF_FORMAT_INDEXEDFORMAT_H
#define MEMPROF_FORMAT_INDEXEDFORMAT_H

#include <stdint.h>

#include "memprof/format/InstrProfFormat.h"

#ifdef __cplusplus
namespace memprof {
namespace indexed {

static const uint64_t Magic = 0x8169666F72706CFFULL;
static const uint64_t VersionWritten = 13;
static const uint64_t VersionMax = 13;
/* The variant bits of the version word, shared with the raw counter format. */
using instrprof::VariantMask;
using instrprof::VariantMemProf;
using instrprof::VariantTemporal;
using instrprof::VariantCSIR;

static const uint64_t MemProfVersionMin = 2;
static const uint64_t MemProfVersionMax = 4;
static const uint64_t MemProfVersionDefault = 3;

static const unsigned NumSummaryFields = 6;
static const unsigned NumCutoffs = 16;
static const uint64_t DefaultCutoffs[NumCutoffs] = {
    10000,  100000, 200000, 300000, 400000, 500000, 600000, 700000,
    800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999};

/* Header size by format version (spec 3.2). */
static inline uint64_t headerSize(uint64_t Version) {
  if (Version <= 7)
    return 40;
  if (Version == 8)
    return 48;
  if (Version == 9)
    return 56;
  if (Version <= 11)
    return 64;
  return 72;
}

} // namespace indexed
} // namespace memprof
#endif

#endif /* MEMPROF_FORMAT_INDEXEDFORMAT_H */
