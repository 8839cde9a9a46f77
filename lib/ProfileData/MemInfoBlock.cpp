//===- MemInfoBlock.cpp - MIB merge rules and serialization ----------------===//
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/format/MIBMergeRules.h"
#include "llvm/Support/Endian.h"
#include <algorithm>

using namespace llvm;

namespace memprof {

namespace {
struct FieldInfo {
  const char *Name;
  unsigned Width;
};
const FieldInfo Fields[NumMIBTags + 1] = {
    {"", 0},
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) {#Name, sizeof(Type)},
#include "memprof/format/MIBFields.def"
};
} // namespace

unsigned mibFieldWidth(unsigned Tag) {
  return Tag >= 1 && Tag <= NumMIBTags ? Fields[Tag].Width : 0;
}

StringRef mibFieldName(unsigned Tag) {
  return Tag >= 1 && Tag <= NumMIBTags ? Fields[Tag].Name : "";
}

unsigned mibFieldTag(StringRef Name) {
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    if (Name == Fields[T].Name)
      return T;
  return 0;
}

MemInfoBlock MemInfoBlock::forAllocation(uint64_t Size, uint64_t AccessCount,
                                         uint32_t AllocTs, uint32_t DeallocTs,
                                         uint32_t AllocCpu,
                                         uint32_t DeallocCpu) {
  MemInfoBlock M;
  M.AllocCount = 1;
  M.TotalAccessCount = M.MinAccessCount = M.MaxAccessCount = AccessCount;
  M.TotalSize = M.MinSize = M.MaxSize = Size;
  M.AllocTimestamp = AllocTs;
  M.DeallocTimestamp = DeallocTs;
  M.TotalLifetime = M.MinLifetime = M.MaxLifetime = DeallocTs - AllocTs;
  M.AllocCpuId = AllocCpu;
  M.DeallocCpuId = DeallocCpu;
  M.NumMigratedCpu = AllocCpu != DeallocCpu;
  uint64_t Density = Size ? AccessCount * 100 / Size : 0;
  M.TotalAccessDensity = M.MinAccessDensity = M.MaxAccessDensity = Density;
  uint64_t Lifetime = M.TotalLifetime ? M.TotalLifetime : 1;
  M.TotalLifetimeAccessDensity = M.MinLifetimeAccessDensity =
      M.MaxLifetimeAccessDensity = Density * 1000 / Lifetime;
  return M;
}

// The rules of MIBFields.def, as format/MIBMergeRules.h defines them.

void MemInfoBlock::mergeDump(const MemInfoBlock &New) {
  const MemInfoBlock Old = *this;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Name = MEMPROF_RULE_##DumpRule(Name);
#include "memprof/format/MIBFields.def"
}

void MemInfoBlock::mergeCross(const MemInfoBlock &Other) {
  const MemInfoBlock Old = *this;
  const MemInfoBlock &New = Other;
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  Name = MEMPROF_RULE_##CrossRule(Name);
#include "memprof/format/MIBFields.def"
}

void MemInfoBlock::mergeCrossKnown(const MemInfoBlock &Other,
                                   uint32_t ThisKnown, uint32_t OtherKnown) {
  if (ThisKnown == AllMIBFields && OtherKnown == AllMIBFields)
    return mergeCross(Other);
  MemInfoBlock Merged = *this;
  Merged.mergeCross(Other);
  for (unsigned T = 1; T <= NumMIBTags; ++T) {
    bool A = ThisKnown & (1u << (T - 1)), B = OtherKnown & (1u << (T - 1));
    if (A && B)
      set(T, Merged.get(T));
    else if (B)
      set(T, Other.get(T));
  }
}

namespace {
// Which cross-input rules sum: the fields a weight multiplies.
constexpr bool SumsSUM = true, SumsMIN = false, SumsMAX = false,
               SumsHISTPTR = false;
constexpr bool Summed[NumMIBTags + 1] = {
    false,
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule) Sums##CrossRule,
#include "memprof/format/MIBFields.def"
};
} // namespace

bool mibFieldIsSummed(unsigned Tag) {
  return Tag >= 1 && Tag <= NumMIBTags && Summed[Tag];
}

uint32_t MemInfoBlock::scale(uint64_t Weight) {
  uint32_t Saturated = 0;
  for (unsigned T = 1; T <= NumMIBTags; ++T) {
    if (!Summed[T])
      continue;
    uint64_t V = get(T), R;
    if (__builtin_mul_overflow(V, Weight, &R)) {
      R = ~uint64_t(0);
      Saturated |= 1u << (T - 1);
    }
    set(T, R);
  }
  return Saturated;
}

uint32_t saturatedFields(const MemInfoBlock &M, ArrayRef<uint8_t> S) {
  uint32_t Mask = 0;
  for (uint8_t T : S) {
    unsigned W = mibFieldWidth(T);
    if (!W)
      continue;
    uint64_t Max = W == 4 ? uint64_t(UINT32_MAX) : ~uint64_t(0);
    if (M.get(T) >= Max)
      Mask |= 1u << (T - 1);
  }
  return Mask;
}

uint64_t MemInfoBlock::get(unsigned Tag) const {
  switch (Tag) {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  case Tag:                                                                    \
    return Name;
#include "memprof/format/MIBFields.def"
  }
  return 0;
}

void MemInfoBlock::set(unsigned Tag, uint64_t Value) {
  switch (Tag) {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  case Tag:                                                                    \
    Name = Value;                                                              \
    return;
#include "memprof/format/MIBFields.def"
  }
}

bool MemInfoBlock::operator==(const MemInfoBlock &O) const {
#define MIB_FIELD(Tag, Name, Type, DumpRule, CrossRule)                        \
  if (Name != O.Name)                                                          \
    return false;
#include "memprof/format/MIBFields.def"
  return true;
}

MIBSchema hotColdSchema() {
  return {uint8_t(MIBTag::AllocCount), uint8_t(MIBTag::TotalSize),
          uint8_t(MIBTag::TotalLifetime),
          uint8_t(MIBTag::TotalLifetimeAccessDensity)};
}

MIBSchema fullSchema() {
  MIBSchema S;
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    S.push_back(T);
  return S;
}

uint32_t schemaMask(ArrayRef<uint8_t> S) {
  uint32_t M = 0;
  for (uint8_t T : S)
    if (T >= 1 && T <= NumMIBTags)
      M |= 1u << (T - 1);
  return M;
}

uint64_t schemaBlockSize(ArrayRef<uint8_t> S) {
  uint64_t N = 0;
  for (uint8_t T : S)
    N += mibFieldWidth(T);
  return N;
}

unsigned writeMIB(SmallVectorImpl<char> &Out, const MemInfoBlock &M,
                  ArrayRef<uint8_t> S) {
  unsigned Saturated = 0;
  for (uint8_t T : S) {
    uint64_t V = M.get(T);
    char Buf[8];
    if (mibFieldWidth(T) == 4) {
      if (V > UINT32_MAX) {
        V = UINT32_MAX;
        ++Saturated;
      }
      support::endian::write32le(Buf, uint32_t(V));
      Out.append(Buf, Buf + 4);
    } else {
      support::endian::write64le(Buf, V);
      Out.append(Buf, Buf + 8);
    }
  }
  return Saturated;
}

} // namespace memprof
