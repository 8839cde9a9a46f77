//===- InstrProfIndexed.cpp - Counter summary, value and name blobs -------===//
//
// What the counter readers and writer share beyond the tables: the InstrProf
// summary LLVM's InstrProfSummaryBuilder computes (spec 3.2), the
// value-profile blob (spec 1.10) and the name blobs (spec 1.8).
//
//===----------------------------------------------------------------------===//
#include "InstrProfInternal.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include <map>

using namespace llvm;

namespace memprof {

InstrProfSummary computeInstrProfSummary(ArrayRef<FunctionCounters> Records,
                                         bool CS) {
  InstrProfSummary S;
  // LLVM keeps u32 counts of blocks and functions and of each count's
  // frequency; everything else is u64 and wraps.
  uint32_t NumFunctions = 0, NumCounts = 0;
  std::map<uint64_t, uint32_t, std::greater<uint64_t>> Freq;
  for (const FunctionCounters &R : Records) {
    if (R.isCS() != CS || R.Counts.empty() || R.isPseudo())
      continue;
    for (size_t I = 0; I < R.Counts.size(); ++I) {
      uint64_t C = R.Counts[I];
      if (I == 0) {
        ++NumFunctions;
        S.MaxFunctionCount = std::max(S.MaxFunctionCount, C);
      } else {
        S.MaxInternalBlockCount = std::max(S.MaxInternalBlockCount, C);
      }
      S.TotalBlockCount += C;
      S.MaxBlockCount = std::max(S.MaxBlockCount, C);
      ++NumCounts;
      ++Freq[C];
    }
  }
  S.TotalNumFunctions = NumFunctions;
  S.TotalNumBlocks = NumCounts;

  auto It = Freq.begin();
  uint64_t Sum = 0, Count = 0;
  uint32_t Seen = 0;
  for (unsigned I = 0; I < indexed::NumCutoffs; ++I) {
    uint64_t Cutoff = indexed::DefaultCutoffs[I];
    // TotalCount * Cutoff / 10^6 in 128 bits, truncated.
    unsigned __int128 Desired128 =
        (unsigned __int128)S.TotalBlockCount * Cutoff / 1000000u;
    uint64_t Desired = uint64_t(Desired128);
    while (Sum < Desired && It != Freq.end()) {
      Count = It->first;
      Sum += Count * uint64_t(It->second);
      Seen += It->second;
      ++It;
    }
    S.Detailed.push_back({Cutoff, Count, Seen});
  }
  return S;
}

namespace {
uint64_t kindHeaderSize(uint64_t NumSites) { return alignTo(8 + NumSites, 8); }
} // namespace

uint64_t valueDataSize(const FunctionCounters &R) {
  uint64_t Size = 8;
  for (const auto &Sites : R.Sites) {
    if (Sites.empty())
      continue;
    Size += kindHeaderSize(Sites.size());
    for (const InstrProfValueSite &S : Sites)
      Size += 16 * S.size();
  }
  return Size;
}

void writeValueData(SmallVectorImpl<char> &Out, const FunctionCounters &R) {
  uint32_t NumKinds = 0;
  for (const auto &Sites : R.Sites)
    NumKinds += !Sites.empty();
  write32(Out, uint32_t(valueDataSize(R)));
  write32(Out, NumKinds);
  for (unsigned K = 0; K < instrprof::NumValueKinds; ++K) {
    const auto &Sites = R.Sites[K];
    if (Sites.empty())
      continue;
    write32(Out, K);
    write32(Out, uint32_t(Sites.size()));
    for (const InstrProfValueSite &S : Sites)
      write8(Out, uint8_t(S.size()));
    for (uint64_t I = 8 + Sites.size(); I < kindHeaderSize(Sites.size()); ++I)
      write8(Out, 0);
    for (const InstrProfValueSite &S : Sites)
      for (const InstrProfValue &V : S) {
        write64(Out, V.Value);
        write64(Out, V.Count);
      }
  }
}

Error readValueData(DataCursor &C, FunctionCounters &R) {
  const uint64_t Start = C.absoluteOffset();
  auto TotalSize = C.read<uint32_t>("value data size");
  if (!TotalSize)
    return TotalSize.takeError();
  auto NumKinds = C.read<uint32_t>("value kind count");
  if (!NumKinds)
    return NumKinds.takeError();
  if (*TotalSize < 8 || *TotalSize % 8 != 0)
    return makeError(ErrorCode::Malformed,
                     "value data size " + Twine(*TotalSize) +
                         " is not a positive multiple of 8",
                     Start);
  if (*TotalSize - 8 > C.remaining())
    return makeError(ErrorCode::Malformed,
                     "value data of " + Twine(*TotalSize) +
                         " bytes extends past the " +
                         Twine(C.remaining() + 8) + " bytes that remain",
                     Start);
  if (*NumKinds > instrprof::NumValueKinds)
    return makeError(ErrorCode::Malformed,
                     "value data holds " + Twine(*NumKinds) +
                         " value kinds (at most " +
                         Twine(instrprof::NumValueKinds) + ")",
                     Start + 4);
  DataCursor B(StringRef(C.current(), *TotalSize - 8), Start + 8);
  if (Error E = C.skip(*TotalSize - 8, "value data"))
    return E;
  for (auto &Sites : R.Sites)
    Sites.clear();
  int LastKind = -1;
  for (uint32_t I = 0; I < *NumKinds; ++I) {
    const uint64_t KindAt = B.absoluteOffset();
    auto Kind = B.read<uint32_t>("value kind");
    if (!Kind)
      return Kind.takeError();
    if (*Kind >= instrprof::NumValueKinds || int(*Kind) <= LastKind)
      return makeError(ErrorCode::Malformed,
                       "value kind " + Twine(*Kind) +
                           (*Kind >= instrprof::NumValueKinds
                                ? " is not a known kind (0-2)"
                                : " repeats or is out of order"),
                       KindAt);
    LastKind = int(*Kind);
    auto NumSites = B.read<uint32_t>("value site count");
    if (!NumSites)
      return NumSites.takeError();
    if (*NumSites == 0)
      return makeError(ErrorCode::Malformed,
                       "value kind " + Twine(*Kind) + " has no sites", KindAt);
    if (Error E = B.need(kindHeaderSize(*NumSites) - 8, "value site counts"))
      return E;
    StringRef Counts(B.current(), *NumSites);
    if (Error E = B.skip(kindHeaderSize(*NumSites) - 8, "value site counts"))
      return E;
    uint64_t NumValues = 0;
    for (char N : Counts)
      NumValues += uint8_t(N);
    if (Error E = B.needItems(NumValues, 16, "value"))
      return E;
    auto &Sites = R.Sites[*Kind];
    Sites.resize(*NumSites);
    for (uint32_t S = 0; S < *NumSites; ++S) {
      Sites[S].resize(uint8_t(Counts[S]));
      for (InstrProfValue &IV : Sites[S]) {
        if (Error E = B.readInto(IV.Value, "value"))
          return E;
        if (Error E = B.readInto(IV.Count, "value count"))
          return E;
      }
    }
  }
  if (!B.atEnd())
    return makeError(ErrorCode::Malformed,
                     "value data has " + Twine(B.remaining()) +
                         " bytes after its last kind",
                     B.absoluteOffset());
  return Error::success();
}

namespace {
/// zlib cannot expand data by more than about 1032:1; a names blob claiming
/// more is corrupt, and its claim must not size an allocation.
constexpr uint64_t MaxZlibRatio = 1032;
} // namespace

Error forEachNameInBlobs(StringRef Sec, uint64_t Base, StringRef What,
                         std::deque<SmallVector<uint8_t, 0>> &Inflated,
                         function_ref<Error(StringRef, uint64_t)> OnName) {
  DataCursor C(Sec, Base);
  // Decoded here: LLVM's decodeULEB128 shifts by 64 or more on a long run
  // of 0x80 bytes.
  auto ReadULEB = [&](const char *Field) -> Expected<uint64_t> {
    const uint64_t At = C.absoluteOffset();
    uint64_t V = 0;
    for (unsigned Shift = 0;; Shift += 7) {
      if (C.atEnd())
        return makeError(ErrorCode::Truncated,
                         What + " blob " + Field +
                             ": malformed uleb128, extends past the end",
                         At);
      const uint8_t Byte = *C.current();
      if (Error E = C.skip(1, Field))
        return std::move(E);
      const uint64_t Slice = Byte & 0x7f;
      if (Shift > 63 || (Shift == 63 && Slice > 1))
        return makeError(ErrorCode::Malformed,
                         What + " blob " + Field +
                             ": uleb128 too big for 64 bits",
                         At);
      V |= Slice << Shift;
      if (!(Byte & 0x80))
        return V;
    }
  };
  while (!C.atEnd()) {
    const uint64_t BlobAt = C.absoluteOffset();
    auto RawLen = ReadULEB("length");
    if (!RawLen)
      return RawLen.takeError();
    auto ZLen = ReadULEB("compressed length");
    if (!ZLen)
      return ZLen.takeError();
    StringRef Text;
    const uint64_t TextAt = C.absoluteOffset();
    if (*ZLen == 0) {
      auto Bytes = C.readBytes(*RawLen, What + " blob");
      if (!Bytes)
        return Bytes.takeError();
      Text = *Bytes;
    } else {
      auto Compressed = C.readBytes(*ZLen, "compressed " + What + " blob");
      if (!Compressed)
        return Compressed.takeError();
      StringRef Z = *Compressed;
      if (!compression::zlib::isAvailable())
        return makeError(ErrorCode::UnsupportedVersion,
                         What + " are zlib-compressed but this build has no "
                                "zlib",
                         BlobAt);
      if (*RawLen / MaxZlibRatio > *ZLen)
        return makeError(ErrorCode::Malformed,
                         What + " blob claims " + Twine(*RawLen) +
                             " bytes from " + Twine(*ZLen) +
                             " compressed bytes, more than zlib can expand to",
                         BlobAt);
      Inflated.emplace_back();
      SmallVector<uint8_t, 0> &Out = Inflated.back();
      if (Error Err = compression::zlib::decompress(arrayRefFromStringRef(Z),
                                                    Out, *RawLen))
        return makeError(ErrorCode::Malformed,
                         "cannot decompress " + What + ": " +
                             toString(std::move(Err)),
                         TextAt);
      Text = toStringRef(ArrayRef<uint8_t>(Out));
    }
    // Names are joined by '\x01'; the offset is the blob's (the text may be
    // inflated).
    while (true) {
      auto [Name, Rest] = Text.split('\x01');
      if (Error Err = OnName(Name, BlobAt))
        return Err;
      if (Name.size() == Text.size())
        break;
      Text = Rest;
    }
    // Zero bytes between the blobs of several translation units.
    while (!C.atEnd() && *C.current() == 0)
      if (Error Err = C.skip(1, "padding"))
        return Err;
  }
  return Error::success();
}

} // namespace memprof
