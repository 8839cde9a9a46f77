//===- InstrProfText.cpp - LLVM's text form of PGO counters (.proftext) ---===//
//
// The writer is llvm-profdata 22's `merge --text` (InstrProfWriter::writeText,
// spec llvm-instrprof-formats.md 4.1), byte for byte. The reader reads what
// TextInstrProfReader reads (4.2), with every count bounded by the lines that
// remain. What the text cannot hold (binary ids, vtable names, the variant
// bits beyond its header flags, call targets and trace entries it cannot
// name) travels, when asked, in comment lines that start "# memprof:", which
// LLVM's reader skips like any other comment.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <numeric>

using namespace llvm;

namespace memprof {

namespace {

using namespace instrprof;

constexpr StringLiteral ExternalSymbol = "** External Symbol **";
constexpr StringLiteral Ours = "# memprof: ";
constexpr StringLiteral KindNames[NumValueKinds] = {
    "IPVK_IndirectCallTarget", "IPVK_MemOPSize", "IPVK_VTableTarget"};

bool namedKind(unsigned K) {
  return K == ValueKindIndirectCallTarget || K == ValueKindVTableTarget;
}

/// An insertion order of \p Hashes (distinct) from which LLVM's writer
/// iterates them in the order given: the order itself unless probing in a
/// full table moved some, then a search over the orders of a few records.
std::vector<size_t> insertionOrderFor(ArrayRef<uint64_t> Hashes) {
  std::vector<size_t> Order(Hashes.size());
  std::iota(Order.begin(), Order.end(), 0);
  auto Rebuilds = [&](ArrayRef<size_t> Try) {
    SmallVector<uint64_t, 8> H;
    for (size_t I : Try)
      H.push_back(Hashes[I]);
    std::vector<size_t> It = llvmRecordOrder(H);
    for (size_t K = 0; K < It.size(); ++K)
      if (Try[It[K]] != K)
        return false;
    return true;
  };
  if (Hashes.size() < 2 || Rebuilds(Order) || Hashes.size() > 7)
    return Order;
  std::vector<size_t> Try = Order;
  while (std::next_permutation(Try.begin(), Try.end()))
    if (Rebuilds(Try))
      return Try;
  return Order;
}

} // namespace

bool isInstrProfText(StringRef Buffer) {
  // TextInstrProfReader::hasFormat: the first eight bytes are printable or
  // white space. Then a look at the first line that is not blank or a
  // comment: a header flag, or a function name followed by its hash.
  StringRef Head = Buffer.take_front(8);
  if (!llvm::all_of(Head, [](char C) { return isPrint(C) || isSpace(C); }))
    return false;
  if (Buffer.starts_with("---"))
    return false; // MemProf YAML
  StringRef Rest = Buffer.take_front(1 << 16);
  bool SawOurs = false;
  while (!Rest.empty()) {
    StringRef L;
    std::tie(L, Rest) = Rest.split('\n');
    L = L.rtrim('\r');
    if (L.starts_with(Ours))
      SawOurs = true;
    if (L.empty() || L.starts_with("#"))
      continue;
    if (L.starts_with(":"))
      return true;
    // A front-end profile has no header: a name, then a hash.
    while (!Rest.empty()) {
      StringRef Next;
      std::tie(Next, Rest) = Rest.split('\n');
      Next = Next.rtrim('\r');
      if (Next.empty() || Next.starts_with("#"))
        continue;
      uint64_t Hash;
      return !Next.getAsInteger(0, Hash);
    }
    return false;
  }
  // Only comments: an empty profile if they are ours or LLVM's.
  return SawOurs || Buffer.contains("# Func Hash:") ||
         Buffer.contains("Instrumentation Flag");
}

Error writeInstrProfText(const CounterProfile &P, raw_ostream &OS,
                         bool RoundTrip) {
  for (const FunctionCounters &R : P.Records)
    if (R.Name.empty() || R.Name.find_first_of("\r\n") != std::string::npos)
      return makeError(ErrorCode::Usage,
                       "function name '" + R.Name +
                           "' cannot be a line of the text form");
  // What the writer's symbol table knows.
  DenseMap<uint64_t, StringRef> Known = counterNameTable(P);
  auto NameOf = [&](uint64_t Ref) -> StringRef {
    auto It = Known.find(Ref);
    return It == Known.end() ? StringRef() : It->second;
  };

  const uint64_t V = P.Variant;
  if (V & VariantIR)
    OS << (V & VariantCSIR ? "# CSIR level Instrumentation Flag\n:csir\n"
                           : "# IR level Instrumentation Flag\n:ir\n");
  if (V & VariantEntryFirst)
    OS << "# Always instrument the function entry block\n:entry_first\n";
  if (V & VariantLoopEntries)
    OS << "# Always instrument the loop entry blocks\n"
          ":instrument_loop_entries\n";
  if (V & VariantByteCoverage)
    OS << "# Instrument block coverage\n:single_byte_coverage\n";
  if (RoundTrip) {
    OS << Ours << "variant 0x" << utohexstr(V & ~VariantMemProf, true) << "\n";
    for (const std::string &Id : P.BinaryIds)
      OS << Ours << "binary id " << toHex(Id, /*LowerCase=*/true) << "\n";
    for (const std::string &N : P.VTableNames) {
      if (N.find_first_of("\r\n") != std::string::npos)
        return makeError(ErrorCode::Usage,
                         "vtable name '" + N +
                             "' cannot be a line of the text form");
      OS << Ours << "vtable name " << N << "\n";
    }
  }
  if (V & VariantTemporal) {
    OS << ":temporal_prof_traces\n";
    OS << "# Num Temporal Profile Traces:\n" << P.Traces.size() << "\n";
    OS << "# Temporal Profile Trace Stream Size:\n" << P.TraceStreamSize
       << "\n";
    for (const TemporalTrace &T : P.Traces) {
      OS << "# Weight:\n" << T.Weight << "\n";
      // A name the text cannot give back: none, one with a comma, or with
      // white space at an end (the reader trims it).
      if (RoundTrip && llvm::any_of(T.FunctionNameRefs, [&](uint64_t R) {
            StringRef N = NameOf(R);
            return N.empty() || N.contains(',') || N != N.trim();
          })) {
        OS << Ours << "trace ";
        ListSeparator Sep(",");
        for (uint64_t R : T.FunctionNameRefs)
          OS << Sep << R;
        OS << "\n";
      }
      for (uint64_t R : T.FunctionNameRefs)
        OS << NameOf(R) << ",";
      // LLVM writes an empty line for an empty trace, which its reader
      // skips (and then takes the next line for the names).
      if (RoundTrip && T.FunctionNameRefs.empty())
        OS << ",";
      OS << "\n";
    }
    OS << "\n";
  }

  // Records by name, then hash (LLVM's sort); with RoundTrip, the records
  // of one name in an order from which LLVM's writer rebuilds the table.
  std::vector<size_t> Order(P.Records.size());
  std::iota(Order.begin(), Order.end(), 0);
  if (!RoundTrip) {
    llvm::sort(Order, [&](size_t A, size_t B) {
      const FunctionCounters &X = P.Records[A], &Y = P.Records[B];
      if (int C = StringRef(X.Name).compare(Y.Name))
        return C < 0;
      return X.Hash < Y.Hash;
    });
  } else {
    // By name; the records of one name in their order in P.
    llvm::sort(Order, [&](size_t A, size_t B) {
      if (int C = StringRef(P.Records[A].Name).compare(P.Records[B].Name))
        return C < 0;
      return A < B;
    });
    for (size_t I = 0; I < Order.size();) {
      size_t J = I + 1;
      while (J < Order.size() &&
             P.Records[Order[J]].Name == P.Records[Order[I]].Name)
        ++J;
      if (J - I > 1) {
        SmallVector<uint64_t, 8> Hashes;
        for (size_t K = I; K < J; ++K)
          Hashes.push_back(P.Records[Order[K]].Hash);
        std::vector<size_t> Ins = insertionOrderFor(Hashes);
        std::vector<size_t> Group(Order.begin() + I, Order.begin() + J);
        for (size_t K = 0; K < Ins.size(); ++K)
          Order[I + K] = Group[Ins[K]];
      }
      I = J;
    }
  }

  for (size_t Idx : Order) {
    const FunctionCounters &R = P.Records[Idx];
    // Names LLVM's reader would take for something else: a header flag
    // (first record), a bitmap count or a number of value kinds (later).
    // LLVM writes them regardless; a text meant to be read back refuses.
    StringRef N(R.Name);
    uint64_t Num;
    if (RoundTrip &&
        (Idx == Order.front() ? N.starts_with(":")
                              : N.starts_with("$") || !N.getAsInteger(10, Num)))
      return makeError(ErrorCode::Usage,
                       "function name '" + R.Name +
                           "' would read back as another line of the text "
                           "form");
    OS << R.Name << "\n# Func Hash:\n" << R.Hash << "\n";
    OS << "# Num Counters:\n" << R.Counts.size() << "\n# Counter Values:\n";
    for (uint64_t C : R.Counts)
      OS << C << "\n";
    if (!R.Bitmap.empty()) {
      OS << "# Num Bitmap Bytes:\n$" << R.Bitmap.size()
         << "\n# Bitmap Byte Values:\n";
      for (uint8_t B : R.Bitmap)
        OS << "0x" << utohexstr(B, true) << "\n";
      OS << "\n";
    }
    unsigned NumKinds = 0;
    for (unsigned K = 0; K < NumValueKinds; ++K)
      NumKinds += !R.Sites[K].empty();
    if (NumKinds) {
      OS << "# Num Value Kinds:\n" << NumKinds << "\n";
      for (unsigned K = 0; K < NumValueKinds; ++K) {
        if (R.Sites[K].empty())
          continue;
        OS << "# ValueKind = " << KindNames[K] << ":\n" << K << "\n";
        OS << "# NumValueSites:\n" << R.Sites[K].size() << "\n";
        for (const InstrProfValueSite &S : R.Sites[K]) {
          OS << S.size() << "\n";
          for (const InstrProfValue &Val : S) {
            if (!namedKind(K)) {
              OS << Val.Value << ":" << Val.Count << "\n";
              continue;
            }
            StringRef N = NameOf(Val.Value);
            if (N.empty() && Val.Value && RoundTrip)
              OS << Ours << "value " << Val.Value << "\n";
            OS << (N.empty() ? StringRef(ExternalSymbol) : N) << ":"
               << Val.Count << "\n";
          }
        }
      }
    }
    OS << "\n";
  }
  return Error::success();
}

namespace {

/// TextInstrProfReader's view of the text: lines without their line break
/// ("\n" or "\r\n"), blank lines and comments skipped, the buffer ending at
/// its first NUL (llvm::line_iterator). Our "# memprof:" comments are kept
/// aside: the file-wide ones, and the one just before the current line.
class Lines {
public:
  explicit Lines(StringRef Text) : Rest(Text.take_until([](char C) {
                                     return C == '\0';
                                   })) {
    advance();
  }
  bool atEnd() const { return AtEnd; }
  StringRef operator*() const { return Cur; }
  size_t number() const { return LineNo; }
  /// The "# memprof: " comment right before the current line, if any.
  StringRef note() const { return Note; }
  void next() { advance(); }
  std::vector<StringRef> FileNotes; // variant, binary id, vtable name

private:
  void advance() {
    Note = StringRef();
    while (!Rest.empty()) {
      StringRef L;
      std::tie(L, Rest) = Rest.split('\n');
      ++Line;
      if (L.ends_with("\r"))
        L = L.drop_back();
      if (L.empty())
        continue;
      if (L.starts_with("#")) {
        if (L.consume_front(Ours)) {
          if (L.starts_with("value ") || L.starts_with("trace "))
            Note = L;
          else
            FileNotes.push_back(L);
        }
        continue;
      }
      Cur = L;
      LineNo = Line;
      return;
    }
    AtEnd = true;
    Cur = StringRef();
  }
  StringRef Rest, Cur, Note;
  size_t Line = 0, LineNo = 0;
  bool AtEnd = false;
};

Error textError(const Lines &L, const Twine &What) {
  if (L.atEnd())
    return makeError(ErrorCode::Truncated,
                     What + " (the text ends before it)");
  return makeError(ErrorCode::Malformed,
                   "line " + Twine(L.number()) + ": " + What);
}

template <typename T>
Error readNum(Lines &L, T &Out, unsigned Radix, const Twine &What) {
  if (L.atEnd() || (*L).getAsInteger(Radix, Out))
    return textError(L, What + " is not a valid integer");
  L.next();
  return Error::success();
}

Error readTraces(Lines &L, CounterProfile &P) {
  L.next(); // ":temporal_prof_traces"
  uint32_t NumTraces;
  if (Error E = readNum(L, NumTraces, 0, "the number of temporal traces"))
    return E;
  if (Error E = readNum(L, P.TraceStreamSize, 0, "the trace stream size"))
    return E;
  for (uint32_t I = 0; I < NumTraces; ++I) {
    TemporalTrace T;
    if (Error E = readNum(L, T.Weight, 0, "a trace weight"))
      return E;
    if (L.atEnd())
      return textError(L, "a temporal trace");
    StringRef Refs = L.note();
    if (Refs.consume_front("trace ")) {
      SmallVector<StringRef, 16> Parts;
      Refs.split(Parts, ',', -1, /*KeepEmpty=*/false);
      for (StringRef R : Parts) {
        uint64_t Ref;
        if (R.trim().getAsInteger(10, Ref))
          return textError(L, "a trace entry of the memprof comment is not "
                              "a valid integer");
        T.FunctionNameRefs.push_back(Ref);
      }
    } else {
      SmallVector<StringRef, 16> Names;
      (*L).split(Names, ',', -1, /*KeepEmpty=*/false);
      for (StringRef N : Names)
        T.FunctionNameRefs.push_back(instrProfNameRef(N.trim()));
    }
    L.next();
    P.Traces.push_back(std::move(T));
  }
  return Error::success();
}

Error readHeader(Lines &L, CounterProfile &P) {
  while (!L.atEnd() && (*L).starts_with(":")) {
    StringRef F = (*L).drop_front();
    if (F.equals_insensitive("ir"))
      P.Variant |= VariantIR;
    else if (F.equals_insensitive("fe"))
      ; // the absence of the IR bit
    else if (F.equals_insensitive("csir"))
      P.Variant |= VariantIR | VariantCSIR;
    else if (F.equals_insensitive("entry_first"))
      P.Variant |= VariantEntryFirst;
    else if (F.equals_insensitive("not_entry_first"))
      P.Variant &= ~VariantEntryFirst;
    else if (F.equals_insensitive("single_byte_coverage"))
      P.Variant |= VariantByteCoverage;
    else if (F.equals_insensitive("instrument_loop_entries"))
      P.Variant |= VariantLoopEntries;
    else if (F.equals_insensitive("temporal_prof_traces")) {
      P.Variant |= VariantTemporal;
      if (Error E = readTraces(L, P))
        return E;
      continue;
    } else
      return textError(L, "unknown header flag '" + *L +
                              "' (LLVM's text knows :ir, :fe, :csir, "
                              ":entry_first, :not_entry_first, "
                              ":single_byte_coverage, "
                              ":instrument_loop_entries and "
                              ":temporal_prof_traces)");
    L.next();
  }
  return Error::success();
}

Error readValues(Lines &L, FunctionCounters &R, StringSet<> &VTables,
                 std::vector<std::string> *VTableNamesInValues) {
  uint32_t NumKinds;
  // Value data follows only when the next line is a number (LLVM's rule).
  if (L.atEnd() || (*L).getAsInteger(10, NumKinds))
    return Error::success();
  if (NumKinds == 0 || NumKinds > NumValueKinds)
    return textError(L, "the number of value kinds is invalid");
  L.next();
  for (uint32_t I = 0; I < NumKinds; ++I) {
    uint32_t Kind, NumSites;
    if (Error E = readNum(L, Kind, 10, "a value kind"))
      return E;
    if (Kind >= NumValueKinds)
      return textError(L, "value kind " + Twine(Kind) + " is invalid");
    if (!R.Sites[Kind].empty())
      return textError(L, "value kind " + Twine(Kind) + " is given twice");
    if (Error E = readNum(L, NumSites, 10, "a number of value sites"))
      return E;
    for (uint32_t S = 0; S < NumSites; ++S) {
      uint32_t NumValues;
      if (Error E = readNum(L, NumValues, 10, "a number of values"))
        return E;
      InstrProfValueSite Site;
      for (uint32_t K = 0; K < NumValues; ++K) {
        if (L.atEnd())
          return textError(L, "a value");
        auto [Name, Count] = (*L).rsplit(':');
        InstrProfValue Val;
        StringRef Note = L.note();
        if (!namedKind(Kind)) {
          if (Name.getAsInteger(10, Val.Value))
            return textError(L, "a value is not a valid integer");
        } else if (Note.consume_front("value ")) {
          if (Note.trim().getAsInteger(10, Val.Value))
            return textError(L, "the value of the memprof comment is not a "
                                "valid integer");
        } else if (Name != ExternalSymbol) {
          Val.Value = instrProfNameRef(Name);
          if (Kind == ValueKindVTableTarget && VTableNamesInValues &&
              VTables.insert(Name).second)
            VTableNamesInValues->push_back(Name.str());
        }
        if (Count.getAsInteger(10, Val.Count))
          return textError(L, "a value count is not a valid integer");
        Site.push_back(Val);
        L.next();
      }
      R.Sites[Kind].push_back(std::move(Site));
    }
  }
  return Error::success();
}

} // namespace

Expected<CounterProfile>
readInstrProfText(StringRef Text,
                  std::vector<std::string> *VTableNamesInValues) {
  CounterProfile P;
  P.Present = true;
  Lines L(Text);
  if (Error E = readHeader(L, P))
    return std::move(E);
  StringSet<> VTables;
  while (!L.atEnd()) {
    FunctionCounters R;
    R.Name = (*L).str();
    L.next();
    if (Error E = readNum(L, R.Hash, 0, "the function hash of '" + R.Name + "'"))
      return std::move(E);
    uint64_t NumCounters;
    if (Error E = readNum(L, NumCounters, 10,
                          "the number of counters of '" + R.Name + "'"))
      return std::move(E);
    if (NumCounters == 0)
      return textError(L, "'" + R.Name + "' has no counters");
    // One line each: no reservation from the count itself.
    for (uint64_t I = 0; I < NumCounters; ++I) {
      uint64_t C;
      if (Error E = readNum(L, C, 10, "a counter of '" + R.Name + "'"))
        return std::move(E);
      R.Counts.push_back(C);
    }
    if (!L.atEnd() && (*L).starts_with("$")) {
      uint64_t NumBytes;
      if ((*L).drop_front().trim().getAsInteger(0, NumBytes))
        return textError(L, "the number of bitmap bytes of '" + R.Name +
                                "' is not a valid integer");
      L.next();
      // LLVM 22 reads at most 255 (a uint8_t loop counter); we read them all.
      for (uint64_t I = 0; I < NumBytes; ++I) {
        uint8_t B;
        if (Error E = readNum(L, B, 0, "a bitmap byte of '" + R.Name + "'"))
          return std::move(E);
        R.Bitmap.push_back(B);
      }
    }
    if (Error E = readValues(L, R, VTables, VTableNamesInValues))
      return std::move(E);
    P.Records.push_back(std::move(R));
  }
  // Our comments: what the text itself cannot hold.
  for (StringRef N : L.FileNotes) {
    if (N.consume_front("variant ")) {
      uint64_t V;
      if (N.trim().getAsInteger(0, V))
        return makeError(ErrorCode::Malformed,
                         "the variant of the memprof comment is not a valid "
                         "integer");
      P.Variant = V & ~VariantMemProf;
    } else if (N.consume_front("binary id ")) {
      std::string Bytes;
      if (!tryGetFromHex(N.trim(), Bytes) || Bytes.empty())
        return makeError(ErrorCode::Malformed,
                         "the binary id of a memprof comment is not hex");
      P.BinaryIds.push_back(std::move(Bytes));
    } else if (N.consume_front("vtable name ")) {
      P.VTableNames.push_back(N.str());
    }
  }
  return std::move(P);
}

} // namespace memprof
