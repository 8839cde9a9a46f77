/* LLVM InstrProf (instrumented PGO counters) constants: raw profile
 * (.profraw, versions 8-10) and the variant bits shared with the indexed
 * version word. Freestanding. Spec: shared/docs/llvm-instrprof-formats.md
 * sections 0 and 1.
 */
#ifndef MEMPROF_FORMAT_INSTRPROFFORMAT_H
#define MEMPROF_FORMAT_INSTRPROFFORMAT_H

#include <stdint.h>

#ifdef __cplusplus
namespace memprof {
namespace instrprof {

/* 0xFF 'l' 'p' 'r' 'o' 'f' 'r' 0x81; 'R' instead of 'r' for 32-bit pointers. */
static const uint64_t RawMagic64 = 0xFF6C70726F667281ULL;
static const uint64_t RawMagic32 = 0xFF6C70726F665281ULL;
static const uint64_t RawVersionMin = 8;  /* LLVM 14-17 */
static const uint64_t RawVersionMax = 10; /* LLVM 19-22 */

/* Variant bits in the high half of the raw and indexed version words. */
static const uint64_t VariantMask = 0xFFFFFFFF00000000ULL;
static const uint64_t VariantLoopEntries = 1ULL << 55;
static const uint64_t VariantIR = 1ULL << 56;
static const uint64_t VariantCSIR = 1ULL << 57;
static const uint64_t VariantEntryFirst = 1ULL << 58;
static const uint64_t VariantDebugCorrelate = 1ULL << 59;
static const uint64_t VariantByteCoverage = 1ULL << 60;
static const uint64_t VariantFunctionEntryOnly = 1ULL << 61;
static const uint64_t VariantMemProf = 1ULL << 62;
static const uint64_t VariantTemporal = 1ULL << 63;

/* Bit 60 of a function hash marks a context-sensitive record. */
static const uint64_t CSHashBit = 1ULL << 60;

/* Value kinds and limits. */
static const unsigned ValueKindIndirectCallTarget = 0;
static const unsigned ValueKindMemOPSize = 1;
static const unsigned ValueKindVTableTarget = 2;
static const unsigned NumValueKinds = 3;
static const unsigned MaxValuesPerSite = 255;

/* Counts clamp here (getInstrMaxCountValue); the two above are pseudo counts. */
static const uint64_t MaxCount = UINT64_MAX - 2;
static const uint64_t PseudoHot = UINT64_MAX;
static const uint64_t PseudoWarm = UINT64_MAX - 1;
/* A raw counter above this is "excessively large": corrupted data. */
static const uint64_t SuspiciousCount = 1ULL << 56;

/* Temporal traces: llvm-profdata's defaults. */
static const uint64_t TraceReservoirSize = 100;
static const uint64_t MaxTraceLength = 10000;

} /* namespace instrprof */
} /* namespace memprof */
#endif

#endif /* MEMPROF_FORMAT_INSTRPROFFORMAT_H */
