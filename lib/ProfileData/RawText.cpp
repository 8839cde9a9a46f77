//===- RawText.cpp - A readable text form of raw MemProf profiles ---------===//
//
// The decompiler parses each dump without merging or validating its meaning
// (a zero AllocCount or an unknown stack id is shown as it is); only what it
// cannot lay out (an unsupported version, offsets out of order, counts that
// overrun their section) falls back to hex. Every byte it does not describe
// by structure is written out as padding, so compiling the text reproduces
// the input exactly.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/RawText.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/format/RawProfileFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include <array>
#include <optional>
#include <vector>

using namespace llvm;

namespace memprof {

namespace {

constexpr unsigned BytesPerLine = 32;
constexpr unsigned PCsPerLine = 4;
constexpr unsigned HistogramPerLine = 16;

std::string hexU64(uint64_t V) { return ("0x" + Twine::utohexstr(V)).str(); }

std::string hexBytes(StringRef B) { return toHex(B, /*LowerCase=*/true); }

bool allZero(StringRef B) {
  return llvm::all_of(B, [](char C) { return C == 0; });
}

/// Fields of an MIB entry in layout \p Layout (raw version 3, 4 or 5).
unsigned numFields(unsigned Layout) { return Layout == 3 ? 25 : 27; }

//===----------------------------------------------------------------------===//
// Decompiler
//===----------------------------------------------------------------------===//

struct PSeg {
  uint64_t Start, End, Offset, IdSize;
  StringRef Id; // all 32 bytes
};

struct PMIB {
  uint64_t StackId;
  std::array<uint64_t, NumMIBTags + 1> Fields{};
  std::vector<uint64_t> Histogram; // stored words (u64 in v4, u16 in v5)
};

struct PStack {
  uint64_t Id;
  std::vector<uint64_t> PCs;
};

struct PDump {
  uint64_t Version, TotalSize, SegOff, MIBOff, StackOff;
  StringRef HeaderPad;
  std::vector<PSeg> Segs;
  std::vector<PMIB> MIBs;
  std::vector<PStack> Stacks;
  uint64_t SegEnd, MIBEnd, StackEnd; // dump-relative ends of the content
  StringRef SegPad, MIBPad, StackPad;
};

#define TRY(Var, Expr)                                                         \
  auto Var##OrErr = (Expr);                                                    \
  if (!Var##OrErr)                                                             \
    return Var##OrErr.takeError();                                             \
  auto Var = *Var##OrErr;

Expected<PDump> parseDump(StringRef File, uint64_t Start) {
  StringRef Rest = File.substr(Start);
  PDump D;
  DataCursor H(Rest, Start);
  TRY(Magic, H.read<uint64_t>("magic"));
  if (Magic != raw::RawMagic)
    return makeError(ErrorCode::BadMagic, "no raw MemProf magic", Start);
  TRY(Version, H.read<uint64_t>("version"));
  TRY(Total, H.read<uint64_t>("total size"));
  TRY(SegOff, H.read<uint64_t>("segment offset"));
  TRY(MIBOff, H.read<uint64_t>("MIB offset"));
  TRY(StackOff, H.read<uint64_t>("stack offset"));
  if (Version < raw::RawVersionMin || Version > raw::RawVersionMax)
    return makeError(ErrorCode::UnsupportedVersion,
                     "version " + Twine(Version), Start + 8);
  if (Total > Rest.size())
    return makeError(ErrorCode::Truncated,
                     "total size " + Twine(Total) + " but " +
                         Twine(Rest.size()) + " bytes remain",
                     Start + 16);
  if (SegOff < raw::HeaderSize || SegOff > MIBOff || MIBOff > StackOff ||
      StackOff > Total)
    return makeError(ErrorCode::Malformed, "section offsets out of order",
                     Start + 24);
  D.Version = Version;
  D.TotalSize = Total;
  D.SegOff = SegOff;
  D.MIBOff = MIBOff;
  D.StackOff = StackOff;
  D.HeaderPad = Rest.slice(raw::HeaderSize, SegOff);

  // Segments.
  {
    DataCursor C(Rest.slice(SegOff, MIBOff), Start + SegOff);
    TRY(N, C.read<uint64_t>("segment count"));
    if (Error E = C.needItems(N, raw::SegmentEntrySize, "segment"))
      return std::move(E);
    for (uint64_t I = 0; I < N; ++I) {
      PSeg S;
      for (auto [Field, What] : {std::pair(&S.Start, "segment start"),
                                 std::pair(&S.End, "segment end"),
                                 std::pair(&S.Offset, "segment offset"),
                                 std::pair(&S.IdSize, "build id size")})
        if (Error E = C.readInto(*Field, What))
          return std::move(E);
      TRY(Id, C.readBytes(raw::BuildIdMaxSize, "build id"));
      S.Id = Id;
      D.Segs.push_back(S);
    }
    D.SegEnd = SegOff + C.tell();
    D.SegPad = Rest.slice(D.SegEnd, MIBOff);
  }
  // MIBs and their histograms.
  {
    DataCursor C(Rest.slice(MIBOff, StackOff), Start + MIBOff);
    TRY(N, C.read<uint64_t>("MIB count"));
    const unsigned NF = numFields(unsigned(Version));
    const uint64_t EntrySize =
        8 + (Version == 3 ? raw::MIBSizeV3 : raw::MIBSizeV4);
    if (Error E = C.needItems(N, EntrySize, "MIB"))
      return std::move(E);
    for (uint64_t I = 0; I < N; ++I) {
      PMIB M;
      TRY(Id, C.read<uint64_t>("MIB stack id"));
      M.StackId = Id;
      for (unsigned T = 1; T <= NF; ++T) {
        TRY(V, C.readWidth(mibFieldWidth(T), mibFieldName(T)));
        M.Fields[T] = V;
      }
      if (Version >= 4) {
        uint64_t Count = M.Fields[unsigned(MIBTag::AccessHistogramSize)];
        unsigned Width = Version == 4 ? 8 : 2;
        if (Error E = C.needItems(Count, Width, "histogram entry"))
          return std::move(E);
        M.Histogram.reserve(Count);
        for (uint64_t J = 0; J < Count; ++J) {
          TRY(H, C.readWidth(Width, "histogram entry"));
          M.Histogram.push_back(H);
        }
      }
      D.MIBs.push_back(std::move(M));
    }
    D.MIBEnd = MIBOff + C.tell();
    D.MIBPad = Rest.slice(D.MIBEnd, StackOff);
  }
  // Stacks.
  {
    DataCursor C(Rest.slice(StackOff, Total), Start + StackOff);
    TRY(N, C.read<uint64_t>("stack count"));
    if (Error E = C.needItems(N, 16, "stack"))
      return std::move(E);
    for (uint64_t I = 0; I < N; ++I) {
      PStack S;
      TRY(Id, C.read<uint64_t>("stack id"));
      TRY(NumPCs, C.read<uint64_t>("stack PC count"));
      if (Error E = C.needItems(NumPCs, 8, "stack PC"))
        return std::move(E);
      S.Id = Id;
      S.PCs.reserve(NumPCs);
      for (uint64_t J = 0; J < NumPCs; ++J) {
        TRY(PC, C.read<uint64_t>("stack PC"));
        S.PCs.push_back(PC);
      }
      D.Stacks.push_back(std::move(S));
    }
    D.StackEnd = StackOff + C.tell();
    D.StackPad = Rest.slice(D.StackEnd, Total);
  }
  return std::move(D);
}

class Decompiler {
public:
  Decompiler(StringRef File, raw_ostream &OS) : File(File), OS(OS) {}
  void run();

private:
  void writeDump(const PDump &D, uint64_t Start);
  void writePadding(StringRef Indent, StringRef Pad, uint64_t ContentEnd);
  void writeBytes(StringRef Keyword, StringRef Indent, StringRef B);

  StringRef File;
  raw_ostream &OS;
};

void Decompiler::writeBytes(StringRef Keyword, StringRef Indent, StringRef B) {
  if (B.empty()) {
    OS << Indent << Keyword << "\n";
    return;
  }
  for (size_t I = 0; I < B.size(); I += BytesPerLine)
    OS << Indent << Keyword << " " << hexBytes(B.substr(I, BytesPerLine))
       << "\n";
}

void Decompiler::writePadding(StringRef Indent, StringRef Pad,
                              uint64_t ContentEnd) {
  // The default is zeros up to the next multiple of 8 in the dump.
  if (Pad.size() == raw::alignTo8(ContentEnd) - ContentEnd && allZero(Pad))
    return;
  writeBytes("padding", Indent, Pad);
}

void Decompiler::writeDump(const PDump &D, uint64_t Start) {
  OS << "dump  # at offset " << Start << ", " << D.TotalSize << " bytes\n";
  OS << "  version " << D.Version << "\n";
  if (!D.HeaderPad.empty())
    writeBytes("header-padding", "  ", D.HeaderPad);

  OS << "  segments  # at offset " << Start + D.SegOff << "\n";
  for (const PSeg &S : D.Segs) {
    OS << "    segment start=" << hexU64(S.Start) << " end=" << hexU64(S.End)
       << " offset=" << hexU64(S.Offset);
    uint64_t Shown = std::min<uint64_t>(S.IdSize, raw::BuildIdMaxSize);
    if (Shown)
      OS << " build-id=" << hexBytes(S.Id.substr(0, Shown));
    if (S.IdSize != Shown)
      OS << " build-id-size=" << S.IdSize;
    if (!allZero(S.Id.substr(Shown)))
      OS << " build-id-tail=" << hexBytes(S.Id.substr(Shown));
    OS << "\n";
  }
  writePadding("    ", D.SegPad, D.SegEnd);

  OS << "  mibs  # at offset " << Start + D.MIBOff << "\n";
  const unsigned NF = numFields(unsigned(D.Version));
  for (const PMIB &M : D.MIBs) {
    OS << "    mib stack-id=" << M.StackId << "\n";
    for (unsigned T = 1; T <= NF; ++T) {
      OS << "      " << mibFieldName(T) << " ";
      if (T == unsigned(MIBTag::AccessHistogram))
        OS << hexU64(M.Fields[T]) << "\n";
      else
        OS << M.Fields[T] << "\n";
    }
    if (M.Histogram.empty())
      continue;
    // Counts read best; v5's lossy encoding is shown raw when a word is not
    // what encoding its count would give back.
    bool Raw = D.Version == 5 &&
               llvm::any_of(M.Histogram, [](uint64_t W) {
                 return raw::encodeHistogramCount(raw::decodeHistogramCount(
                            uint16_t(W))) != W;
               });
    for (size_t I = 0; I < M.Histogram.size(); I += HistogramPerLine) {
      OS << "      " << (Raw ? "histogram-raw" : "histogram");
      for (size_t J = I; J < M.Histogram.size() && J < I + HistogramPerLine;
           ++J) {
        uint64_t W = M.Histogram[J];
        if (Raw)
          OS << " " << hexU64(W);
        else
          OS << " "
             << (D.Version == 5 ? raw::decodeHistogramCount(uint16_t(W)) : W);
      }
      OS << "\n";
    }
  }
  writePadding("    ", D.MIBPad, D.MIBEnd);

  OS << "  stacks  # at offset " << Start + D.StackOff << "\n";
  for (const PStack &S : D.Stacks) {
    OS << "    stack id=" << S.Id << "\n";
    for (size_t I = 0; I < S.PCs.size(); I += PCsPerLine) {
      OS << "      pcs";
      for (size_t J = I; J < S.PCs.size() && J < I + PCsPerLine; ++J)
        OS << " " << hexU64(S.PCs[J]);
      OS << "\n";
    }
  }
  writePadding("    ", D.StackPad, D.StackEnd);
  OS << "end\n";
}

void Decompiler::run() {
  OS << RawTextMarker << " " << RawTextVersion << "\n";
  OS << "# " << File.size() << " bytes\n";
  uint64_t Off = 0;
  while (Off < File.size()) {
    StringRef Rest = File.substr(Off);
    size_t Zeros = 0;
    while (Zeros < Rest.size() && Rest[Zeros] == 0)
      ++Zeros;
    if (Zeros) {
      OS << "zeros " << Zeros << "  # at offset " << Off << "\n";
      Off += Zeros;
      continue;
    }
    auto D = parseDump(File, Off);
    if (D) {
      writeDump(*D, Off);
      Off += D->TotalSize;
      continue;
    }
    std::string Why = toString(D.takeError());
    OS << "# not a dump that can be laid out: " << Why << "\n";
    if (Rest.size() >= raw::HeaderSize) {
      // What the header claims, to read alongside the hex.
      const char *Names[] = {"magic",        "version",    "total-size",
                             "segment-offset", "mib-offset", "stack-offset"};
      OS << "# header:";
      for (unsigned I = 0; I < 6; ++I)
        OS << " " << Names[I] << "="
           << hexU64(support::endian::read64le(Rest.data() + 8 * I));
      OS << "\n";
    }
    writeBytes("bytes", "", Rest);
    break;
  }
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

struct CSeg {
  uint64_t Start = 0, End = 0, Offset = 0;
  std::string Id;
  std::optional<uint64_t> IdSize;
  std::string Tail;
};

struct CMIB {
  uint64_t StackId = 0;
  std::array<std::optional<uint64_t>, NumMIBTags + 1> Fields;
  std::optional<std::vector<uint64_t>> Counts, Words;
};

struct CStack {
  uint64_t Id = 0;
  std::optional<uint64_t> NumPCs;
  std::vector<uint64_t> PCs;
};

struct CSection {
  bool Seen = false;
  std::optional<uint64_t> Count;
  std::optional<std::string> Padding;
};

enum class Section { None, Segments, MIBs, Stacks };

struct CDump {
  unsigned StartLine = 0;
  std::optional<uint64_t> Magic, Version, TotalSize, SegOff, MIBOff, StackOff,
      Layout;
  std::string HeaderPad;
  CSection Secs[3];
  std::vector<CSeg> Segs;
  std::vector<CMIB> MIBs;
  std::vector<CStack> Stacks;
  Section Current = Section::None;
};

class Compiler {
public:
  Compiler(StringRef Text, const RawTextLimits &Limits)
      : Text(Text), Limits(Limits) {}
  Expected<std::string> run();

private:
  Error fail(const Twine &Msg) {
    return makeError(ErrorCode::Malformed, "line " + Twine(Line) + ": " + Msg);
  }
  Expected<uint64_t> number(StringRef S, StringRef What);
  Expected<std::string> bytes(ArrayRef<StringRef> Hex, StringRef What);
  Error grow(uint64_t N);
  Error dumpLine(StringRef Key, ArrayRef<StringRef> Args);
  Error finishDump();
  Error keyValues(ArrayRef<StringRef> Args,
                  function_ref<Error(StringRef, StringRef)> Each);
  Error setOnce(std::optional<uint64_t> &Slot, StringRef Key,
                ArrayRef<StringRef> Args);

  StringRef Text;
  RawTextLimits Limits;
  unsigned Line = 0;
  std::string Out;
  std::optional<CDump> Dump;
  std::optional<uint64_t> Truncate;
};

Expected<uint64_t> Compiler::number(StringRef S, StringRef What) {
  uint64_t V;
  bool Bad;
  // Decimal, or hex after 0x; never octal.
  if (S.starts_with_insensitive("0x"))
    Bad = S.size() == 2 || S.drop_front(2).getAsInteger(16, V);
  else
    Bad = S.empty() || !llvm::all_of(S, isDigit) || S.getAsInteger(10, V);
  if (Bad)
    return fail(What + " '" + S + "' is not a number (decimal or 0x hex) "
                       "that fits in 64 bits");
  return V;
}

Expected<std::string> Compiler::bytes(ArrayRef<StringRef> Hex, StringRef What) {
  std::string Out;
  for (StringRef H : Hex) {
    if (H.size() % 2 != 0 || !llvm::all_of(H, isHexDigit))
      return fail(What + " '" + H + "' is not an even number of hex digits");
    Out += fromHex(H);
  }
  return Out;
}

Error Compiler::grow(uint64_t N) {
  if (N > Limits.MaxOutputBytes || Out.size() > Limits.MaxOutputBytes - N)
    return makeError(ErrorCode::TooLarge,
                     "line " + Twine(Line) +
                         ": the compiled file would exceed " +
                         Twine(Limits.MaxOutputBytes) + " bytes");
  return Error::success();
}

Error Compiler::setOnce(std::optional<uint64_t> &Slot, StringRef Key,
                        ArrayRef<StringRef> Args) {
  if (Args.size() != 1)
    return fail("'" + Key + "' takes one number");
  if (Slot)
    return fail("'" + Key + "' given twice");
  TRY(V, number(Args[0], Key));
  Slot = V;
  return Error::success();
}

Error Compiler::keyValues(ArrayRef<StringRef> Args,
                          function_ref<Error(StringRef, StringRef)> Each) {
  for (StringRef A : Args) {
    auto [K, V] = A.split('=');
    if (K.size() == A.size())
      return fail("expected key=value, found '" + A + "'");
    if (Error E = Each(K, V))
      return E;
  }
  return Error::success();
}

Error Compiler::dumpLine(StringRef Key, ArrayRef<StringRef> Args) {
  CDump &D = *Dump;
  auto SectionOf = [](StringRef K) -> std::optional<Section> {
    if (K == "segments")
      return Section::Segments;
    if (K == "mibs")
      return Section::MIBs;
    if (K == "stacks")
      return Section::Stacks;
    return std::nullopt;
  };
  auto Need = [&](Section S, StringRef What) -> Error {
    if (D.Current != S)
      return fail("'" + Key + "' belongs in " + What);
    return Error::success();
  };

  if (auto S = SectionOf(Key)) {
    if (!Args.empty())
      return fail("'" + Key + "' takes no arguments");
    CSection &Sec = D.Secs[unsigned(*S) - 1];
    if (Sec.Seen)
      return fail("section '" + Key + "' given twice in one dump");
    Sec.Seen = true;
    D.Current = *S;
    return Error::success();
  }
  if (Key == "count" || Key == "padding") {
    if (D.Current == Section::None)
      return fail("'" + Key +
                  "' belongs in a section (segments, mibs, stacks)");
    CSection &Sec = D.Secs[unsigned(D.Current) - 1];
    if (Key == "count")
      return setOnce(Sec.Count, Key, Args);
    TRY(B, bytes(Args, "padding"));
    if (!Sec.Padding)
      Sec.Padding.emplace();
    *Sec.Padding += B;
    return Error::success();
  }
  if (Key == "segment") {
    if (Error E = Need(Section::Segments, "'segments'"))
      return E;
    CSeg S;
    std::optional<uint64_t> Start, End, Offset;
    if (Error E = keyValues(Args, [&](StringRef K, StringRef V) -> Error {
          if (K == "start" || K == "end" || K == "offset" ||
              K == "build-id-size") {
            TRY(N, number(V, K));
            (K == "start"    ? Start
             : K == "end"    ? End
             : K == "offset" ? Offset
                             : S.IdSize) = N;
            return Error::success();
          }
          if (K == "build-id" || K == "build-id-tail") {
            TRY(B, bytes({V}, K));
            (K == "build-id" ? S.Id : S.Tail) = B;
            return Error::success();
          }
          return fail("unknown segment key '" + K +
                      "' (start, end, offset, build-id, build-id-size, "
                      "build-id-tail)");
        }))
      return E;
    S.Start = Start.value_or(0);
    S.End = End.value_or(0);
    S.Offset = Offset.value_or(0);
    if (S.Id.size() + S.Tail.size() > raw::BuildIdMaxSize)
      return fail("build-id and build-id-tail hold " +
                  Twine(S.Id.size() + S.Tail.size()) +
                  " bytes; a segment has " + Twine(raw::BuildIdMaxSize));
    D.Segs.push_back(std::move(S));
    return Error::success();
  }
  if (Key == "mib") {
    if (Error E = Need(Section::MIBs, "'mibs'"))
      return E;
    CMIB M;
    std::optional<uint64_t> Id;
    if (Error E = keyValues(Args, [&](StringRef K, StringRef V) -> Error {
          if (K != "stack-id")
            return fail("unknown mib key '" + K + "' (stack-id)");
          TRY(N, number(V, K));
          Id = N;
          return Error::success();
        }))
      return E;
    M.StackId = Id.value_or(0);
    D.MIBs.push_back(std::move(M));
    return Error::success();
  }
  if (unsigned Tag = mibFieldTag(Key)) {
    if (Error E = Need(Section::MIBs, "an 'mib' entry"))
      return E;
    if (D.MIBs.empty())
      return fail("field '" + Key + "' before the first 'mib'");
    std::optional<uint64_t> &Slot = D.MIBs.back().Fields[Tag];
    if (Error E = setOnce(Slot, Key, Args))
      return E;
    if (mibFieldWidth(Tag) == 4 && *Slot > UINT32_MAX)
      return fail("value " + Twine(*Slot) + " of '" + Key +
                  "' does not fit in its 32 bits");
    return Error::success();
  }
  if (Key == "histogram" || Key == "histogram-raw") {
    if (Error E = Need(Section::MIBs, "an 'mib' entry"))
      return E;
    if (D.MIBs.empty())
      return fail("'" + Key + "' before the first 'mib'");
    CMIB &M = D.MIBs.back();
    auto &List = Key == "histogram" ? M.Counts : M.Words;
    if (!List)
      List.emplace();
    for (StringRef A : Args) {
      TRY(V, number(A, Key));
      if (Error E = grow(8 * (List->size() + 1)))
        return E;
      List->push_back(V);
    }
    if (M.Counts && M.Words)
      return fail("an mib has both 'histogram' and 'histogram-raw'");
    return Error::success();
  }
  if (Key == "stack") {
    if (Error E = Need(Section::Stacks, "'stacks'"))
      return E;
    CStack S;
    std::optional<uint64_t> Id;
    if (Error E = keyValues(Args, [&](StringRef K, StringRef V) -> Error {
          if (K != "id" && K != "num-pcs")
            return fail("unknown stack key '" + K + "' (id, num-pcs)");
          TRY(N, number(V, K));
          (K == "id" ? Id : S.NumPCs) = N;
          return Error::success();
        }))
      return E;
    S.Id = Id.value_or(0);
    D.Stacks.push_back(std::move(S));
    return Error::success();
  }
  if (Key == "pcs") {
    if (Error E = Need(Section::Stacks, "a 'stack' entry"))
      return E;
    if (D.Stacks.empty())
      return fail("'pcs' before the first 'stack'");
    for (StringRef A : Args) {
      TRY(V, number(A, "PC"));
      if (Error E = grow(8 * (D.Stacks.back().PCs.size() + 1)))
        return E;
      D.Stacks.back().PCs.push_back(V);
    }
    return Error::success();
  }

  // Header lines close any open section.
  D.Current = Section::None;
  if (Key == "version")
    return setOnce(D.Version, Key, Args);
  if (Key == "magic")
    return setOnce(D.Magic, Key, Args);
  if (Key == "total-size")
    return setOnce(D.TotalSize, Key, Args);
  if (Key == "segment-offset")
    return setOnce(D.SegOff, Key, Args);
  if (Key == "mib-offset")
    return setOnce(D.MIBOff, Key, Args);
  if (Key == "stack-offset")
    return setOnce(D.StackOff, Key, Args);
  if (Key == "mib-layout") {
    if (Error E = setOnce(D.Layout, Key, Args))
      return E;
    if (*D.Layout < 3 || *D.Layout > 5)
      return fail("mib-layout must be 3, 4 or 5");
    return Error::success();
  }
  if (Key == "header-padding") {
    TRY(B, bytes(Args, Key));
    D.HeaderPad += B;
    return Error::success();
  }
  return fail("unknown keyword '" + Key + "' in a dump");
}

void put64(std::string &S, uint64_t V) {
  char B[8];
  support::endian::write64le(B, V);
  S.append(B, 8);
}
void putWidth(std::string &S, uint64_t V, unsigned Width) {
  char B[8];
  if (Width == 2)
    support::endian::write16le(B, uint16_t(V));
  else if (Width == 4)
    support::endian::write32le(B, uint32_t(V));
  else
    support::endian::write64le(B, V);
  S.append(B, Width);
}

Error Compiler::finishDump() {
  CDump &D = *Dump;
  const uint64_t Version = D.Version.value_or(raw::RawVersionWritten);
  const unsigned Layout = D.Layout ? unsigned(*D.Layout)
                          : (Version >= 3 && Version <= 5) ? unsigned(Version)
                                                           : 5u;
  std::string B(raw::HeaderSize, '\0');
  B += D.HeaderPad;
  auto Pad = [&](const CSection &S) {
    if (S.Padding)
      B += *S.Padding;
    else
      B.append(raw::alignTo8(B.size()) - B.size(), '\0');
  };
  auto Check = [&]() -> Error { return grow(B.size()); };

  const uint64_t SegOff = B.size();
  put64(B, D.Secs[0].Count.value_or(D.Segs.size()));
  for (const CSeg &S : D.Segs) {
    put64(B, S.Start);
    put64(B, S.End);
    put64(B, S.Offset);
    put64(B, S.IdSize.value_or(S.Id.size()));
    std::string Id = S.Id + S.Tail;
    Id.resize(raw::BuildIdMaxSize, '\0');
    B += Id;
  }
  Pad(D.Secs[0]);
  if (Error E = Check())
    return E;

  const uint64_t MIBOff = B.size();
  put64(B, D.Secs[1].Count.value_or(D.MIBs.size()));
  const unsigned NF = numFields(Layout);
  for (const CMIB &M : D.MIBs) {
    put64(B, M.StackId);
    const std::vector<uint64_t> *Hist = M.Words ? &*M.Words
                                        : M.Counts ? &*M.Counts
                                                   : nullptr;
    if (Layout == 3 && Hist)
      return makeError(ErrorCode::Malformed,
                       "line " + Twine(D.StartLine) +
                           ": raw v3 MIBs have no histogram");
    for (unsigned T = NF + 1; T <= NumMIBTags; ++T)
      if (M.Fields[T])
        return makeError(ErrorCode::Malformed,
                         "line " + Twine(D.StartLine) + ": field " +
                             mibFieldName(T) + " does not exist in raw v3");
    for (unsigned T = 1; T <= NF; ++T) {
      uint64_t V = M.Fields[T].value_or(0);
      if (T == unsigned(MIBTag::AccessHistogramSize) && !M.Fields[T])
        V = Hist ? Hist->size() : 0;
      putWidth(B, V, mibFieldWidth(T));
    }
    if (Hist) {
      const unsigned Width = Layout == 4 ? 8 : 2;
      for (uint64_t W : *Hist) {
        if (Width == 2 && M.Words && W > UINT16_MAX)
          return makeError(ErrorCode::Malformed,
                           "line " + Twine(D.StartLine) +
                               ": histogram-raw word " + Twine(W) +
                               " does not fit in the 16 bits of raw v5");
        putWidth(B, Width == 2 && M.Counts ? raw::encodeHistogramCount(W) : W,
                 Width);
      }
    }
    if (Error E = Check())
      return E;
  }
  Pad(D.Secs[1]);

  const uint64_t StackOff = B.size();
  put64(B, D.Secs[2].Count.value_or(D.Stacks.size()));
  for (const CStack &S : D.Stacks) {
    put64(B, S.Id);
    put64(B, S.NumPCs.value_or(S.PCs.size()));
    for (uint64_t PC : S.PCs)
      put64(B, PC);
    if (Error E = Check())
      return E;
  }
  Pad(D.Secs[2]);
  if (Error E = Check())
    return E;

  support::endian::write64le(&B[0], D.Magic.value_or(raw::RawMagic));
  support::endian::write64le(&B[8], Version);
  support::endian::write64le(&B[16], D.TotalSize.value_or(B.size()));
  support::endian::write64le(&B[24], D.SegOff.value_or(SegOff));
  support::endian::write64le(&B[32], D.MIBOff.value_or(MIBOff));
  support::endian::write64le(&B[40], D.StackOff.value_or(StackOff));
  if (Error E = grow(B.size()))
    return E;
  Out += B;
  Dump.reset();
  return Error::success();
}

Expected<std::string> Compiler::run() {
  bool SawMarker = false;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    StringRef L;
    std::tie(L, Rest) = Rest.split('\n');
    ++Line;
    // A '#' at the start or after a blank begins a comment.
    for (size_t I = 0; I < L.size(); ++I)
      if (L[I] == '#' && (I == 0 || L[I - 1] == ' ' || L[I - 1] == '\t')) {
        L = L.take_front(I);
        break;
      }
    // Tabs and carriage returns count as blanks.
    std::string Clean = L.str();
    for (char &C : Clean)
      if (C == '\t' || C == '\r')
        C = ' ';
    SmallVector<StringRef, 16> Words;
    StringRef(Clean).split(Words, ' ', -1, /*KeepEmpty=*/false);
    if (Words.empty())
      continue;
    StringRef Key = Words[0];
    ArrayRef<StringRef> Args = ArrayRef(Words).drop_front();

    if (!SawMarker) {
      if (Key != RawTextMarker || Args.size() != 1)
        return fail("expected '" + Twine(RawTextMarker) + " " +
                    Twine(RawTextVersion) + "' first");
      TRY(V, number(Args[0], "raw text version"));
      if (V != RawTextVersion)
        return makeError(ErrorCode::UnsupportedVersion,
                         "line " + Twine(Line) + ": raw text version " +
                             Twine(V) + "; this tool reads version " +
                             Twine(RawTextVersion));
      SawMarker = true;
      continue;
    }
    if (Dump) {
      if (Key == "end") {
        if (!Args.empty())
          return fail("'end' takes no arguments");
        if (Error E = finishDump())
          return std::move(E);
        continue;
      }
      if (Key == "dump" || Key == "zeros" || Key == "bytes" ||
          Key == "truncate")
        return fail("'" + Key + "' inside the dump begun on line " +
                    Twine(Dump->StartLine) + " (missing 'end'?)");
      if (Error E = dumpLine(Key, Args))
        return std::move(E);
      continue;
    }
    if (Key == "dump") {
      if (!Args.empty())
        return fail("'dump' takes no arguments");
      Dump.emplace();
      Dump->StartLine = Line;
    } else if (Key == "zeros") {
      if (Args.size() != 1)
        return fail("'zeros' takes one number");
      TRY(N, number(Args[0], "zeros"));
      if (Error E = grow(N))
        return std::move(E);
      Out.append(N, '\0');
    } else if (Key == "bytes") {
      TRY(B, bytes(Args, "bytes"));
      if (Error E = grow(B.size()))
        return std::move(E);
      Out += B;
    } else if (Key == "truncate") {
      if (Error E = setOnce(Truncate, Key, Args))
        return std::move(E);
    } else {
      return fail("unknown keyword '" + Key +
                  "' (expected dump, zeros, bytes or truncate)");
    }
  }
  if (!SawMarker)
    return makeError(ErrorCode::Empty,
                     "no '" + Twine(RawTextMarker) + "' line: not raw text");
  if (Dump)
    return makeError(ErrorCode::Malformed,
                     "the dump begun on line " + Twine(Dump->StartLine) +
                         " has no 'end'");
  if (Truncate) {
    if (*Truncate > Out.size())
      return makeError(ErrorCode::Malformed,
                       "truncate " + Twine(*Truncate) + " is beyond the " +
                           Twine(Out.size()) + " bytes compiled");
    Out.resize(*Truncate);
  }
  return std::move(Out);
}

} // namespace

bool isRawText(StringRef Buffer) {
  StringRef Rest = Buffer;
  // Only the first few kilobytes are looked at.
  Rest = Rest.take_front(1 << 16);
  while (!Rest.empty()) {
    StringRef L;
    std::tie(L, Rest) = Rest.split('\n');
    L = L.trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    return L.starts_with(RawTextMarker);
  }
  return false;
}

void writeRawText(StringRef Buffer, raw_ostream &OS) {
  Decompiler(Buffer, OS).run();
}

Expected<std::string> compileRawText(StringRef Text,
                                     const RawTextLimits &Limits) {
  return Compiler(Text, Limits).run();
}

} // namespace memprof
