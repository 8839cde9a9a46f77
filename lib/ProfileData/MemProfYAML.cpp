//===- MemProfYAML.cpp - LLVM's MemProf YAML: writer and reader -----------===//
//
// The YAML traits below mirror llvm/ProfileData/MemProfYAML.h field for field
// (keys, their order, flow styles, GUIDs as unpadded 0x hex, optional keys
// elided when empty), so yaml::Output prints what llvm-profdata prints and
// yaml::Input accepts what it accepts. They are declared over our own types:
// LLVM's are tied to llvm::memprof's in-memory records.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/MemProfYAML.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/format/IndexedFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"
#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

namespace memprof {
namespace {

/// A function GUID in YAML: printed as unpadded 0x hex; read from 0x hex or
/// from a function name, never from decimal (LLVM's GUIDHex64).
struct GUIDHex {
  uint64_t Value = 0;
};

/// A MemInfoBlock value; the reader checks it against the field's width.
struct MIBValue {
  uint64_t Value = 0;
};

struct YFrame {
  GUIDHex Function;
  uint32_t LineOffset = 0;
  uint32_t Column = 0;
  bool IsInlineFrame = false;
};

struct YMIB {
  MemInfoBlock Info;
  /// Bit T-1 for each field tag T read (input) or to print (output).
  uint32_t Fields = 0;
};

struct YAllocSite {
  std::vector<YFrame> Callstack;
  YMIB MemInfoBlock;
};

struct YCallSite {
  std::vector<YFrame> Frames;
  std::vector<GUIDHex> CalleeGuids;
};

struct YRecord {
  GUIDHex GUID;
  std::vector<YAllocSite> AllocSites;
  std::vector<YCallSite> CallSites;
};

struct YLocation {
  std::string FileName;
  uint32_t Line = 0;
};

struct YDataAccessRecord {
  std::string Symbol;
  uint64_t Hash = 0;
  uint64_t AccessCount = 0;
  std::vector<YLocation> Locations;
};

/// Read only to be rejected with a clear message: memprof does not model
/// data-access profiles.
struct YDataAccess {
  std::vector<YDataAccessRecord> SampledRecords;
  std::vector<std::string> KnownColdSymbols;
  std::vector<uint64_t> KnownColdStrHashes;
  bool empty() const {
    return SampledRecords.empty() && KnownColdSymbols.empty() &&
           KnownColdStrHashes.empty();
  }
};

struct YDocument {
  std::vector<YRecord> HeapProfileRecords;
  YDataAccess DataAccessProfiles;
};

/// Shared with the traits through IO::getContext().
struct YContext {
  /// Width in bytes of the MemInfoBlock field being read, and its name.
  unsigned FieldWidth = 8;
  StringRef FieldName;
  std::string Message;
};

bool isReservedGUID(uint64_t G) {
  // DenseMap's empty and tombstone keys: LLVM's record map cannot hold them
  // and our indexed reader rejects them.
  return G == ~0ULL || G == ~0ULL - 1;
}

} // namespace
} // namespace memprof

LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YFrame)
LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YAllocSite)
LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YCallSite)
LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YRecord)
LLVM_YAML_IS_FLOW_SEQUENCE_VECTOR(memprof::GUIDHex)
LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YLocation)
LLVM_YAML_IS_SEQUENCE_VECTOR(memprof::YDataAccessRecord)

namespace llvm {
namespace yaml {

template <> struct ScalarTraits<memprof::GUIDHex> {
  static void output(const memprof::GUIDHex &V, void *, raw_ostream &OS) {
    OS << format("0x%" PRIx64, V.Value);
  }
  static StringRef input(StringRef Scalar, void *, memprof::GUIDHex &V) {
    // Exactly LLVM's rules, including that an empty scalar counts as decimal.
    if (all_of(Scalar, [](char C) { return std::isdigit((unsigned char)C); }))
      return "use a hexadecimal GUID or a function instead";
    if (Scalar.starts_with_insensitive("0x")) {
      uint64_t N;
      if (Scalar.getAsInteger(0, N))
        return "invalid hex64 number";
      V.Value = N;
    } else {
      V.Value = memprof::functionGUID(Scalar);
    }
    return StringRef();
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <> struct ScalarTraits<memprof::MIBValue> {
  static void output(const memprof::MIBValue &V, void *Ctx, raw_ostream &OS) {
    ScalarTraits<uint64_t>::output(V.Value, Ctx, OS);
  }
  static StringRef input(StringRef Scalar, void *Ctx, memprof::MIBValue &V) {
    StringRef Err = ScalarTraits<uint64_t>::input(Scalar, Ctx, V.Value);
    if (!Err.empty())
      return Err;
    auto *C = static_cast<memprof::YContext *>(Ctx);
    if (C && C->FieldWidth == 4 && V.Value > UINT32_MAX) {
      // The returned message must outlive this call.
      C->Message = (Twine("value ") + Twine(V.Value) + " of " + C->FieldName +
                    " does not fit in its 32 bits")
                       .str();
      return C->Message;
    }
    return StringRef();
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <> struct MappingTraits<memprof::YFrame> {
  static void mapping(IO &Io, memprof::YFrame &F) {
    Io.mapRequired("Function", F.Function);
    Io.mapRequired("LineOffset", F.LineOffset);
    Io.mapRequired("Column", F.Column);
    Io.mapRequired("IsInlineFrame", F.IsInlineFrame);
  }
  static const bool flow = true;
};

template <> struct CustomMappingTraits<memprof::YMIB> {
  static void inputOne(IO &Io, StringRef Key, memprof::YMIB &M) {
    unsigned Tag = memprof::mibFieldTag(Key);
    if (Tag == 0) {
      Io.setError("unknown MemInfoBlock field '" + Key + "'");
      return;
    }
    auto *C = static_cast<memprof::YContext *>(Io.getContext());
    C->FieldWidth = memprof::mibFieldWidth(Tag);
    C->FieldName = memprof::mibFieldName(Tag);
    memprof::MIBValue V;
    Io.mapRequired(Key.str().c_str(), V);
    C->FieldWidth = 8;
    M.Info.set(Tag, V.Value);
    M.Fields |= 1u << (Tag - 1);
  }
  static void output(IO &Io, memprof::YMIB &M) {
    for (unsigned Tag = 1; Tag <= memprof::NumMIBTags; ++Tag) {
      if (!(M.Fields & (1u << (Tag - 1))))
        continue;
      memprof::MIBValue V{M.Info.get(Tag)};
      Io.mapRequired(memprof::mibFieldName(Tag).data(), V);
    }
  }
};

template <> struct MappingTraits<memprof::YAllocSite> {
  static void mapping(IO &Io, memprof::YAllocSite &A) {
    Io.mapRequired("Callstack", A.Callstack);
    Io.mapRequired("MemInfoBlock", A.MemInfoBlock);
  }
};

template <> struct MappingTraits<memprof::YCallSite> {
  static void mapping(IO &Io, memprof::YCallSite &C) {
    Io.mapRequired("Frames", C.Frames);
    Io.mapOptional("CalleeGuids", C.CalleeGuids);
  }
};

template <> struct MappingTraits<memprof::YRecord> {
  static void mapping(IO &Io, memprof::YRecord &R) {
    Io.mapRequired("GUID", R.GUID);
    Io.mapOptional("AllocSites", R.AllocSites);
    Io.mapOptional("CallSites", R.CallSites);
  }
  static std::string validate(IO &Io, memprof::YRecord &R) {
    if (!Io.outputting() && memprof::isReservedGUID(R.GUID.Value))
      return ("record GUID 0x" + Twine::utohexstr(R.GUID.Value) +
              " is a reserved value")
          .str();
    return std::string();
  }
};

template <> struct MappingTraits<memprof::YLocation> {
  static void mapping(IO &Io, memprof::YLocation &L) {
    Io.mapOptional("FileName", L.FileName);
    Io.mapOptional("Line", L.Line);
  }
};

template <> struct MappingTraits<memprof::YDataAccessRecord> {
  static void mapping(IO &Io, memprof::YDataAccessRecord &R) {
    Io.mapOptional("Symbol", R.Symbol);
    Io.mapOptional("Hash", R.Hash);
    Io.mapRequired("AccessCount", R.AccessCount);
    Io.mapOptional("Locations", R.Locations);
  }
};

template <> struct MappingTraits<memprof::YDataAccess> {
  static void mapping(IO &Io, memprof::YDataAccess &D) {
    Io.mapOptional("SampledRecords", D.SampledRecords);
    Io.mapOptional("KnownColdSymbols", D.KnownColdSymbols);
    Io.mapOptional("KnownColdStrHashes", D.KnownColdStrHashes);
  }
};

template <> struct MappingTraits<memprof::YDocument> {
  static void mapping(IO &Io, memprof::YDocument &D) {
    if (!Io.outputting() || !D.HeapProfileRecords.empty())
      Io.mapOptional("HeapProfileRecords", D.HeapProfileRecords);
    if (!Io.outputting())
      Io.mapOptional("DataAccessProfiles", D.DataAccessProfiles);
  }
  static std::string validate(IO &Io, memprof::YDocument &D) {
    if (!Io.outputting() && !D.DataAccessProfiles.empty())
      return "DataAccessProfiles are not supported by memprof";
    return std::string();
  }
};

} // namespace yaml
} // namespace llvm

namespace memprof {

bool isMemProfYAML(StringRef Buffer) { return Buffer.starts_with("---"); }

bool YAMLProfile::impliesFullSchema() const {
  uint32_t HotCold = schemaMask(hotColdSchema());
  return (schemaMask(FieldsPresent) & ~HotCold) != 0;
}

void writeMemProfSummaryYAML(raw_ostream &OS, const MemProfSummary &S) {
  // MemProfSummary::printSummaryYaml: comments, since they are not read back.
  OS << "---\n";
  OS << "# MemProfSummary:\n";
  OS << "#   Total contexts: " << S.NumContexts << "\n";
  OS << "#   Total cold contexts: " << S.NumColdContexts << "\n";
  OS << "#   Total hot contexts: " << S.NumHotContexts << "\n";
  OS << "#   Maximum cold context total size: " << S.MaxColdTotalSize << "\n";
  OS << "#   Maximum warm context total size: " << S.MaxWarmTotalSize << "\n";
  OS << "#   Maximum hot context total size: " << S.MaxHotTotalSize << "\n";
}

void writeMemProfYAMLRecords(raw_ostream &OS, const IndexedMemProf &P,
                             ArrayRef<uint8_t> Schema) {
  const uint32_t Fields = schemaMask(Schema);
  auto Frames = [&](CallStackId CS) {
    std::vector<YFrame> Out;
    for (const Frame &F : P.stackFrames(CS))
      Out.push_back({GUIDHex{F.Function}, F.LineOffset, F.Column,
                     F.IsInlineFrame});
    return Out;
  };
  YDocument Doc;
  Doc.HeapProfileRecords.reserve(P.Records.size());
  for (const auto &[Guid, R] : P.Records) {
    YRecord Y;
    Y.GUID.Value = Guid;
    for (const IndexedAllocSite &A : R.AllocSites)
      Y.AllocSites.push_back({Frames(A.CSId), YMIB{A.Info, Fields}});
    for (const IndexedCallSite &C : R.CallSites) {
      YCallSite S;
      S.Frames = Frames(C.CSId);
      for (GUID G : C.CalleeGuids)
        S.CalleeGuids.push_back(GUIDHex{G});
      Y.CallSites.push_back(std::move(S));
    }
    Doc.HeapProfileRecords.push_back(std::move(Y));
  }
  // llvm-profdata's printer breaks a flow mapping before a key that would
  // start past column 80 (matched against llvm-profdata-22 on frame lines of
  // every length from 55 to 92 columns and on long CalleeGuids lists).
  yaml::Output Yout(OS, nullptr, /*WrapColumn=*/80);
  Yout << Doc;
}

std::string annotateYAMLWithNames(StringRef YAML, const ProfileNames &Names) {
  auto HexAfter = [](StringRef Line, StringRef Key) -> std::optional<GUID> {
    size_t At = Line.find(Key);
    if (At == StringRef::npos)
      return std::nullopt;
    StringRef Rest = Line.drop_front(At + Key.size()).ltrim();
    if (!Rest.consume_front("0x"))
      return std::nullopt;
    StringRef Digits = Rest.take_while(isHexDigit);
    GUID G;
    if (Digits.empty() || Digits.getAsInteger(16, G))
      return std::nullopt;
    return G;
  };
  auto NameOf = [&](GUID G) -> std::string {
    const FunctionNameInfo *F = Names.function(G);
    if (!F)
      return std::string();
    return (F->DemangledName.empty() ? F->LinkageName : F->DemangledName)
        .str();
  };
  std::string Out;
  raw_string_ostream OS(Out);
  std::string Pending; // the comment of a frame whose '}' is on a later line
  StringRef Rest = YAML;
  while (!Rest.empty()) {
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    std::string Comment;
    StringRef Trimmed = Line.ltrim();
    if (Trimmed.starts_with("- GUID:")) {
      if (auto G = HexAfter(Line, "GUID:"))
        Comment = NameOf(*G);
    } else if (Trimmed.starts_with("- { Function:")) {
      auto G = HexAfter(Line, "Function:");
      size_t LO = Line.find("LineOffset: ");
      uint32_t LineOffset = 0;
      if (G && LO != StringRef::npos &&
          !Line.drop_front(LO + 12).take_while(isDigit).getAsInteger(
              10, LineOffset)) {
        std::string Name = NameOf(*G);
        SourceLocation L = Names.location(*G, LineOffset);
        if (!Name.empty() && L.known())
          Pending = Name + " " + sourceLocationText(L.File, L.Line);
        else if (!Name.empty())
          Pending = Name;
      }
    }
    if (!Pending.empty() && Line.ends_with("}")) {
      Comment = std::move(Pending);
      Pending.clear();
    }
    OS << Line;
    if (!Comment.empty()) {
      // Printable ASCII only: the comment must neither end its line nor
      // hold a byte LLVM's YAML scanner refuses.
      for (char &C : Comment)
        if (C < 0x20 || C > 0x7e)
          C = '?';
      OS << "  # " << Comment;
    }
    if (!Rest.empty() || YAML.ends_with("\n"))
      OS << "\n";
  }
  return Out;
}

bool hasDataAccessProfile(StringRef Buffer) {
  auto At = [&](uint64_t Off, uint64_t &V) {
    if (Off > Buffer.size() || Buffer.size() - Off < 8)
      return false;
    V = support::endian::read64le(Buffer.data() + Off);
    return true;
  };
  uint64_t MemProfOffset, Version, DAPOffset;
  if (!At(40, MemProfOffset) || MemProfOffset == 0 ||
      !At(MemProfOffset, Version) || Version != 4)
    return false;
  // Version, then CallStackPayload, RecordPayload, RecordTable, DataAccessProf.
  return MemProfOffset <= UINT64_MAX - 32 &&
         At(MemProfOffset + 32, DAPOffset) && DAPOffset != 0;
}

MemProfSummary computeReaderSummary(const IndexedMemProf &P) {
  MemProfSummary S;
  std::unordered_set<uint64_t> Seen;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &A : KV.second.AllocSites) {
      // computeFullStackId: BLAKE3 over (u64, u32, u32) per frame, LE.
      SmallVector<uint8_t, 256> Buf;
      for (const Frame &F : P.stackFrames(A.CSId)) {
        uint8_t B[16];
        support::endian::write64le(B, F.Function);
        support::endian::write32le(B + 8, F.LineOffset);
        support::endian::write32le(B + 12, F.Column);
        Buf.append(B, B + 16);
      }
      auto H = BLAKE3::hash<8>(Buf);
      if (!Seen.insert(support::endian::read64le(H.data())).second)
        continue;
      addToSummary(S, A.Info);
    }
  return S;
}

std::vector<size_t> roundTripRecordOrder(const IndexedMemProf &P) {
  const size_t N = P.Records.size();
  std::vector<uint64_t> Hash(N);
  for (size_t I = 0; I < N; ++I)
    Hash[I] = (P.Records.begin() + I)->first; // the identity hash
  std::vector<size_t> Payload(N);
  for (size_t I = 0; I < N; ++I)
    Payload[I] = I;
  if (N < 2)
    return Payload;

  // The generator's bucket counts (spec 3.4): 64 at first, doubled before
  // linking item K (1-based) when 4K >= 3*Buckets; then one resize to Target
  // in emit(). Target never exceeds the insertion-time count.
  uint64_t S = 64;
  std::vector<bool> ResizeBefore(N + 1, false);
  for (uint64_t K = 1; K <= N; ++K)
    if (4 * K >= 3 * S) {
      S *= 2;
      ResizeBefore[K] = true;
    }
  const uint64_t T = N <= 2 ? 1 : llvm::bit_ceil(uint64_t(N) * 4 / 3 + 1);
  if (T > S)
    return Payload;

  // Undo emit(): payload bucket j (head first) is the reverse of the
  // insertion-time buckets i with i % T == j, taken in increasing i.
  std::unordered_map<uint64_t, std::deque<size_t>> Lists;
  for (size_t Begin = 0; Begin < N;) {
    size_t End = Begin;
    while (End < N && (Hash[End] & (T - 1)) == (Hash[Begin] & (T - 1)))
      ++End;
    if (Begin > 0 && (Hash[Begin - 1] & (T - 1)) >= (Hash[Begin] & (T - 1)))
      return Payload; // buckets out of order: not LLVM's payload
    uint64_t Prev = 0;
    for (size_t I = End; I-- > Begin;) {
      uint64_t B = Hash[I] & (S - 1);
      if (I + 1 < End && B < Prev)
        return Payload;
      Prev = B;
      if (T == S)
        Lists[B].push_front(I); // no emit resize: payload order is the chain
      else
        Lists[B].push_back(I);
    }
    Begin = End;
  }

  // Record K takes the K-th payload position's bucket slot. Undo insertions
  // from the last: the item linked at time K is the head of its chain; a
  // resize before K reversed every chain (all items of one insertion-time
  // chain shared a bucket at every earlier size).
  std::vector<size_t> Order(N);
  for (size_t K = N; K >= 1; --K) {
    std::deque<size_t> &L = Lists[Hash[K - 1] & (S - 1)];
    if (L.empty())
      return Payload;
    Order[K - 1] = L.front();
    L.pop_front();
    if (ResizeBefore[K])
      for (auto &KV : Lists)
        std::reverse(KV.second.begin(), KV.second.end());
  }

  // Check by running the generator forward.
  std::vector<std::deque<size_t>> Buckets(64);
  auto Resize = [&](uint64_t NewSize) {
    std::vector<std::deque<size_t>> New(NewSize);
    for (auto &B : Buckets)
      for (size_t I : B)
        New[Hash[I] & (NewSize - 1)].push_front(I);
    Buckets = std::move(New);
  };
  for (size_t K = 1; K <= N; ++K) {
    if (4 * K >= 3 * Buckets.size())
      Resize(Buckets.size() * 2);
    size_t I = Order[K - 1];
    Buckets[Hash[I] & (Buckets.size() - 1)].push_front(I);
  }
  if (T != Buckets.size())
    Resize(T);
  size_t At = 0;
  for (auto &B : Buckets)
    for (size_t I : B)
      if (I != At++)
        return Payload;
  return Order;
}

IndexedMemProf inRoundTripOrder(const IndexedMemProf &P) {
  IndexedMemProf Out;
  Out.Frames = P.Frames;
  Out.CallStacks = P.CallStacks;
  for (size_t I : roundTripRecordOrder(P)) {
    const auto &KV = *(P.Records.begin() + I);
    Out.Records.insert({KV.first, KV.second});
  }
  return Out;
}

Error writeIndexedAsYAML(StringRef Buffer, raw_ostream &OS,
                         YAMLRecordOrder Order, bool *OrdersDiffer) {
  IndexedProfileInfo Info;
  std::optional<MemProfSummary> Stored;
  auto P = readIndexedProfile(Buffer, &Info, &Stored);
  if (!P)
    return P.takeError();
  if (Info.MemProfVersion == 0)
    return makeError(ErrorCode::Malformed,
                     "the indexed profile has no MemProf section");
  if (hasDataAccessProfile(Buffer))
    return makeError(ErrorCode::Incompatible,
                     "the MemProf V4 section holds a data-access profile, "
                     "which memprof does not model");
  writeMemProfSummaryYAML(OS, Stored ? *Stored : computeReaderSummary(*P));
  if (OrdersDiffer || Order == YAMLRecordOrder::RoundTrip) {
    std::vector<size_t> RT = roundTripRecordOrder(*P);
    bool Differ = !llvm::is_sorted(RT);
    if (OrdersDiffer)
      *OrdersDiffer = Differ;
    if (Order == YAMLRecordOrder::RoundTrip && Differ) {
      writeMemProfYAMLRecords(OS, inRoundTripOrder(*P), Info.Schema);
      return Error::success();
    }
  }
  writeMemProfYAMLRecords(OS, *P, Info.Schema);
  return Error::success();
}

namespace {

/// The first diagnostic of the YAML parser, kept as one line.
struct Diagnostic {
  bool Set = false;
  std::string Msg;
  uint64_t Offset = MemProfError::NoOffset;
};

void captureDiag(const SMDiagnostic &D, void *Ctx) {
  auto *Out = static_cast<std::pair<Diagnostic *, StringRef> *>(Ctx);
  Diagnostic &Diag = *Out->first;
  if (Diag.Set)
    return;
  Diag.Set = true;
  std::string Msg = D.getMessage().str();
  for (char &C : Msg)
    if (C == '\n' || C == '\r')
      C = ' ';
  Diag.Msg = ("line " + Twine(D.getLineNo()) + ", column " +
              Twine(D.getColumnNo() + 1) + ": " + Msg)
                 .str();
  const char *Loc = D.getLoc().getPointer();
  StringRef Buf = Out->second;
  if (Loc >= Buf.begin() && Loc <= Buf.end())
    Diag.Offset = uint64_t(Loc - Buf.begin());
}

Error diagError(const Diagnostic &D, StringRef Fallback) {
  if (!D.Set)
    return makeError(ErrorCode::Malformed, Fallback);
  return makeError(ErrorCode::Malformed, D.Msg, D.Offset);
}

/// Offset \p Off as "line L, column C: ".
std::string lineColumn(StringRef Buffer, uint64_t Off) {
  StringRef Before = Buffer.take_front(Off);
  size_t LineStart = Before.rfind('\n');
  uint64_t Column = Off - (LineStart == StringRef::npos ? 0 : LineStart + 1) + 1;
  return ("line " + Twine(Before.count('\n') + 1) + ", column " +
          Twine(Column) + ": ")
      .str();
}

/// Turns away a run of more than \p MaxRun commas with only blanks, line
/// breaks and comments between them. LLVM's parser eats each flow entry of
/// such a run by calling itself again (the collections' increment()), so
/// 30,000 commas exhausted the stack (found by the MemProfYAML fuzzer). The
/// scan sees every comma, wherever it stands (a quoted or plain scalar, a
/// comment), and skips at least what LLVM's scanner skips between two
/// tokens, so it never sees a shorter run than the parser would; a valid
/// file has no empty entry at all.
Error checkCommaRuns(StringRef Buffer, unsigned MaxRun) {
  const char *P = Buffer.begin(), *E = Buffer.end();
  while (P != E) {
    if (*P != ',') {
      ++P;
      continue;
    }
    const char *Start = P;
    unsigned Run = 0;
    while (P != E) {
      if (*P == ',') {
        if (++Run > MaxRun)
          return makeError(ErrorCode::Malformed,
                           lineColumn(Buffer, uint64_t(Start - Buffer.begin())) +
                               "more than " + Twine(MaxRun) +
                               " commas in a row (empty flow entries)",
                           uint64_t(Start - Buffer.begin()));
        ++P;
      } else if (*P == ' ' || *P == '\t' || *P == '\r' || *P == '\n') {
        ++P;
      } else if (*P == '#') {
        while (P != E && *P != '\n')
          ++P;
      } else if (E - P >= 3 && P[0] == '\xEF' && P[1] == '\xBB' &&
                 P[2] == '\xBF') {
        P += 3; // a byte order mark
      } else {
        break;
      }
    }
  }
  return Error::success();
}

/// Walks every document's node tree without recursion and fails when it
/// nests deeper than \p MaxDepth. LLVM's parser builds nodes lazily and
/// without recursion, but yaml::Input (and skip()) recurse once per level,
/// so a deeply nested text would exhaust the stack; it is turned away here.
Error checkNesting(StringRef Buffer, unsigned MaxDepth) {
  Diagnostic Diag;
  std::pair<Diagnostic *, StringRef> Ctx(&Diag, Buffer);
  SourceMgr SM;
  SM.setDiagHandler(captureDiag, &Ctx);
  yaml::Stream S(Buffer, SM, /*ShowColors=*/false);

  struct Item {
    yaml::Node *N = nullptr; // a node still to visit
    std::optional<yaml::SequenceNode::iterator> Seq;
    std::optional<yaml::MappingNode::iterator> Map;
    unsigned KVPhase = 0; // 0: visit key; 1: visit value; 2: next entry
    unsigned Depth = 0;
  };
  for (yaml::Document &D : S) {
    std::vector<Item> Stack;
    Item Root;
    Root.N = D.getRoot(); // null when the document did not parse
    if (Root.N)
      Stack.push_back(std::move(Root));
    while (!Stack.empty() && !S.failed()) {
      Item &Top = Stack.back();
      if (Top.N) {
        yaml::Node *N = Top.N;
        unsigned Depth = Top.Depth;
        Stack.pop_back();
        if (Depth > MaxDepth) {
          const char *At = N->getSourceRange().Start.getPointer();
          uint64_t Off = At >= Buffer.begin() && At <= Buffer.end()
                             ? uint64_t(At - Buffer.begin())
                             : 0;
          return makeError(ErrorCode::Malformed,
                           lineColumn(Buffer, Off) + "YAML nests deeper than " +
                               Twine(MaxDepth) + " levels",
                           Off);
        }
        Item C;
        C.Depth = Depth + 1;
        if (auto *SN = dyn_cast<yaml::SequenceNode>(N)) {
          C.Seq = SN->begin();
          Stack.push_back(std::move(C));
        } else if (auto *MN = dyn_cast<yaml::MappingNode>(N)) {
          C.Map = MN->begin();
          Stack.push_back(std::move(C));
        }
        continue;
      }
      unsigned ChildDepth = Top.Depth;
      if (Top.Seq) {
        yaml::SequenceNode::iterator &It = *Top.Seq;
        if (It == yaml::SequenceNode::iterator()) {
          Stack.pop_back();
          continue;
        }
        // Visit (and so exhaust) the entry before moving past it: ++It
        // would otherwise skip it recursively.
        if (Top.KVPhase == 0) {
          Top.KVPhase = 1;
          Item C;
          C.N = &*It;
          C.Depth = ChildDepth;
          Stack.push_back(std::move(C));
        } else {
          Top.KVPhase = 0;
          ++It;
        }
        continue;
      }
      if (!Top.Map) { // not reached: every item is a node or a collection
        Stack.pop_back();
        continue;
      }
      yaml::MappingNode::iterator &It = *Top.Map;
      if (It == yaml::MappingNode::iterator()) {
        Stack.pop_back();
        continue;
      }
      yaml::KeyValueNode &KV = *It;
      if (Top.KVPhase == 0) {
        Top.KVPhase = 1;
        yaml::Node *K = KV.getKey();
        Item C;
        C.N = K;
        C.Depth = ChildDepth;
        if (K)
          Stack.push_back(std::move(C));
      } else if (Top.KVPhase == 1) {
        Top.KVPhase = 2;
        yaml::Node *V = KV.getValue();
        Item C;
        C.N = V;
        C.Depth = ChildDepth;
        if (V)
          Stack.push_back(std::move(C));
      } else {
        Top.KVPhase = 0;
        ++It;
      }
    }
    if (S.failed())
      return diagError(Diag, "the YAML text is not well formed");
  }
  if (S.failed())
    return diagError(Diag, "the YAML text is not well formed");
  return Error::success();
}

} // namespace

Expected<YAMLProfile> readMemProfYAML(StringRef Buffer,
                                      const MemProfYAMLLimits &Limits) {
  if (Error E = checkCommaRuns(Buffer, Limits.MaxCommaRun))
    return std::move(E);
  if (Error E = checkNesting(Buffer, Limits.MaxDepth))
    return std::move(E);

  Diagnostic Diag;
  std::pair<Diagnostic *, StringRef> DiagCtx(&Diag, Buffer);
  YContext Ctx;
  YDocument Doc;
  yaml::Input Yin(Buffer, &Ctx, captureDiag, &DiagCtx);
  Yin >> Doc;
  if (Yin.error())
    return diagError(Diag, "the YAML text is not a MemProf profile");

  // LLVM's YAMLMemProfReader::parse: frames and stacks of every record are
  // added in document order, alloc sites before call sites; a repeated GUID
  // keeps the first record, but its frames and stacks stay in the tables.
  YAMLProfile Out;
  uint32_t Present = 0;
  auto AddStack = [&](const std::vector<YFrame> &Frames) {
    SmallVector<FrameId, 8> Ids;
    Ids.reserve(Frames.size());
    for (const YFrame &F : Frames)
      Ids.push_back(Out.Profile.addFrame(
          Frame{F.Function.Value, F.LineOffset, F.Column, F.IsInlineFrame}));
    return Out.Profile.addCallStackIds(Ids);
  };
  for (YRecord &Y : Doc.HeapProfileRecords) {
    IndexedRecord R;
    uint32_t RecordFields = 0;
    for (YAllocSite &A : Y.AllocSites) {
      CallStackId CS = AddStack(A.Callstack);
      R.AllocSites.push_back({CS, A.MemInfoBlock.Info});
      RecordFields |= A.MemInfoBlock.Fields;
    }
    for (YCallSite &C : Y.CallSites) {
      IndexedCallSite S;
      S.CSId = AddStack(C.Frames);
      for (GUIDHex G : C.CalleeGuids)
        S.CalleeGuids.push_back(G.Value);
      Out.HasCalleeGuids |= !S.CalleeGuids.empty();
      R.CallSites.push_back(std::move(S));
    }
    if (Out.Profile.Records.try_emplace(Y.GUID.Value, std::move(R)).second)
      Present |= RecordFields;
    else
      ++Out.DuplicateRecords;
  }
  for (unsigned Tag = 1; Tag <= NumMIBTags; ++Tag)
    if (Present & (1u << (Tag - 1)))
      Out.FieldsPresent.push_back(uint8_t(Tag));
  return std::move(Out);
}

} // namespace memprof
