//===- MemInfoBlock.h - Memory Info Blocks and their merge rules -*- C++ -*-===//
//
// The in-memory MIB keeps every field as a u64 so that merging many inputs
// cannot wrap; writers saturate to the on-disk width and count what they cut.
// Fields, widths and merge rules all come from format/MIBFields.def.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MEMINFOBLOCK_H
#define MEMPROF_PROFILEDATA_MEMINFOBLOCK_H

#include "memprof/format/MIBMergeRules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace memprof {

/// Schema tags of the indexed format; the value is the tag written on disk.
enum class MIBTag : uint8_t {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) Name = Tag,
#include "memprof/format/MIBFields.def"
};
constexpr unsigned NumMIBTags = 27;

/// Width in bytes (4 or 8) of field \p Tag on disk; 0 for an unknown tag.
unsigned mibFieldWidth(unsigned Tag);
/// Name of field \p Tag ("AllocCount", ...); empty for an unknown tag.
llvm::StringRef mibFieldName(unsigned Tag);
/// Tag of the field named \p Name, or 0.
unsigned mibFieldTag(llvm::StringRef Name);

struct MemInfoBlock {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) uint64_t Name = 0;
#include "memprof/format/MIBFields.def"

  /// The block of a single allocation, as the runtime forms it (spec 1.4).
  static MemInfoBlock forAllocation(uint64_t Size, uint64_t AccessCount,
                                    uint32_t AllocTs, uint32_t DeallocTs,
                                    uint32_t AllocCpu, uint32_t DeallocCpu);

  /// LLVM's MemInfoBlock::Merge: used within one raw file (the runtime's own
  /// rule, which replaces timestamps and CPU ids with the newer block's).
  void mergeDump(const MemInfoBlock &New);

  /// The rule across inputs: commutative and associative (sums saturate).
  void mergeCross(const MemInfoBlock &Other);

  /// The same, where each side may know only some fields (bit T-1 set for
  /// tag T; an indexed input knows only its schema's). A field known to one
  /// side only takes that side's value, so absent fields never act as zeros.
  void mergeCrossKnown(const MemInfoBlock &Other, uint32_t ThisKnown,
                       uint32_t OtherKnown);

  /// Weights the block by \p Weight: makes it the block \p Weight copies of
  /// it merge to by the cross-input rule. Fields that rule sums are
  /// multiplied, saturating at 2^64-1; minima, maxima, timestamps, CPU ids
  /// and the data type id are unchanged. Returns the fields that saturated
  /// (bit T-1 for tag T).
  uint32_t scale(uint64_t Weight);

  uint64_t get(unsigned Tag) const;
  void set(unsigned Tag, uint64_t Value);

  bool operator==(const MemInfoBlock &O) const;
  bool operator!=(const MemInfoBlock &O) const { return !(*this == O); }
};

/// Bit T-1 set for every tag T: a block that knows every field.
constexpr uint32_t AllMIBFields = (1u << NumMIBTags) - 1;

/// A list of field tags, in the order they are serialized.
using MIBSchema = llvm::SmallVector<uint8_t, NumMIBTags>;

/// {AllocCount, TotalSize, TotalLifetime, TotalLifetimeAccessDensity}: what
/// llvm-profdata writes by default.
MIBSchema hotColdSchema();
/// Tags 1..27 in order (--memprof-full-schema).
MIBSchema fullSchema();
/// The known-field mask of schema \p S.
uint32_t schemaMask(llvm::ArrayRef<uint8_t> S);
/// Bytes one serialized block takes under \p S.
uint64_t schemaBlockSize(llvm::ArrayRef<uint8_t> S);

/// Appends \p M under schema \p S, each field little-endian at its width.
/// Values too wide for a 32-bit field are saturated; returns how many were.
unsigned writeMIB(llvm::SmallVectorImpl<char> &Out, const MemInfoBlock &M,
                  llvm::ArrayRef<uint8_t> S);

/// Saturating u64 addition (the one the merge rules use).
inline uint64_t satAdd(uint64_t A, uint64_t B) { return memprof_sat_add(A, B); }

/// Saturating u64 multiplication.
inline uint64_t satMul(uint64_t A, uint64_t B) {
  uint64_t R;
  return __builtin_mul_overflow(A, B, &R) ? ~uint64_t(0) : R;
}

/// Whether field \p Tag's cross-input rule sums (the fields a weight scales).
bool mibFieldIsSummed(unsigned Tag);

/// The fields of \p M in schema \p S that are at or beyond the largest value
/// their on-disk width holds (2^32-1 or 2^64-1): they overflowed, or will be
/// saturated when written (bit T-1 for tag T).
uint32_t saturatedFields(const MemInfoBlock &M, llvm::ArrayRef<uint8_t> S);

} // namespace memprof

#endif
