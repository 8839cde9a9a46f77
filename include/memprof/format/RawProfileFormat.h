/* LLVM raw MemProf profile layout (versions 3-5), shared unchanged by the runtime, the
 * pass and ProfileData. Freestanding: only <stdint.h> and <stddef.h>.
 * Spec: shared/docs/llvm-memprof-formats.md section 1. All integers little-endian.
 */
#ifndef MEMPROF_FORMAT_RAWPROFILEFORMAT_H
#define MEMPROF_FORMAT_RAWPROFILEFORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace memprof {
namespace raw {
#endif

/* 0xFF 'm' 'p' 'r' 'o' 'f' 'r' 0x81 */
static const uint64_t RawMagic = 0xFF6D70726F667281ULL;
static const uint64_t RawVersionWritten = 5;
static const uint64_t RawVersionMin = 3;
static const uint64_t RawVersionMax = 5;

static const size_t HeaderSize = 48;
static const size_t SegmentEntrySize = 64;
static const size_t BuildIdMaxSize = 32;
static const size_t MIBSizeV3 = 132; /* fields 1-25 */
static const size_t MIBSizeV4 = 144; /* fields 1-27 (v4 and v5) */
static const uint32_t NumMIBFields = 27;

/* memprof's module paths (docs/runtime.md#module-paths-in-the-raw-profile):
 * where the profiled process loaded each module from, after the stack
 * section and inside TotalSize, 8-aligned. LLVM's readers take each section
 * at its header offset and the next dump at TotalSize, so they skip it.
 *   u64 ModulePathsMagic ("MPMODPTH")
 *   u64 NumEntries
 *   NumEntries x { u64 SegmentIndex; u64 PathSize; PathSize bytes of the
 *                  path (no NUL); zero padding to 8 }
 * A segment without an entry has no known path. */
static const uint64_t ModulePathsMagic = 0x485450444f4d504dULL;
static const uint64_t ModulePathMaxSize = 4096;

/* memprof's heap section (docs/heap-data.md): live and peak values per
 * context and a timeline, after the module paths (or the stack section),
 * inside TotalSize, 8-aligned. All fields u64:
 *   HeapMagic ("MPHEAPV1"), Flags (HeapFlagExitDump), DumpTimeMs,
 *   PeakTimeMs, PeakBytes, PeakBlocks, NumContexts, NumSamples,
 *   NumContexts x { StackId, LiveBytes, LiveBlocks, PeakBytes, PeakBlocks },
 *   NumSamples x { TimeMs, TotalBytes, NumTop (<= HeapMaxTop),
 *                  NumTop x { StackId, Bytes } } */
static const uint64_t HeapMagic = 0x315650414548504DULL;
static const uint64_t HeapFlagExitDump = 1;
static const uint64_t HeapHeaderWords = 8;
static const uint64_t HeapContextWords = 5;
static const uint64_t HeapMaxTop = 8;
static const uint64_t HeapMaxSamples = 4096;

/* Histogram counter encoding of raw v5: 4-bit exponent, 12-bit mantissa. */
static const uint64_t HistogramMaxEncodable = 4095ULL << 15;

#ifdef __cplusplus
#define MEMPROF_PACKED __attribute__((packed))

struct MEMPROF_PACKED Header {
  uint64_t Magic;
  uint64_t Version;
  uint64_t TotalSize;
  uint64_t SegmentOffset;
  uint64_t MIBOffset;
  uint64_t StackOffset;
};
static_assert(sizeof(Header) == HeaderSize, "raw header is 48 bytes");

struct MEMPROF_PACKED SegmentEntry {
  uint64_t Start;
  uint64_t End;
  uint64_t Offset; /* the module's load bias */
  uint64_t BuildIdSize;
  uint8_t BuildId[BuildIdMaxSize];
};
static_assert(sizeof(SegmentEntry) == SegmentEntrySize, "segment entry is 64 bytes");

/* The raw (v4/v5) MemInfoBlock as the runtime writes it: packed, fields in list order. */
struct MEMPROF_PACKED RawMemInfoBlock {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) Type Name;
#include "memprof/format/MIBFields.def"
};
static_assert(sizeof(RawMemInfoBlock) == MIBSizeV4, "raw MIB is 144 bytes");
static_assert(offsetof(RawMemInfoBlock, TotalSize) == 28, "TotalSize offset");
static_assert(offsetof(RawMemInfoBlock, DataTypeId) == 92, "DataTypeId offset");
static_assert(offsetof(RawMemInfoBlock, AccessHistogramSize) == MIBSizeV3,
              "v3 MIB ends before the histogram fields");

static inline uint64_t alignTo8(uint64_t N) { return (N + 7) & ~(uint64_t)7; }

static inline uint64_t decodeHistogramCount(uint16_t E) {
  return (uint64_t)(E & 0xFFF) << (E >> 12);
}

static inline uint16_t encodeHistogramCount(uint64_t C) {
  if (C == 0)
    return 0;
  if (C > HistogramMaxEncodable)
    C = HistogramMaxEncodable;
  if (C <= 4095)
    return (uint16_t)C;
  uint64_t M = C;
  uint16_t E = 0;
  while (M > 4095) {
    M = (M + 1) >> 1;
    ++E;
  }
  return (uint16_t)((E << 12) | M);
}

#undef MEMPROF_PACKED
} // namespace raw
} // namespace memprof
#endif /* __cplusplus */

#endif /* MEMPROF_FORMAT_RAWPROFILEFORMAT_H */
