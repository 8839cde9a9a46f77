//===- Export.cpp - Weights, short names and frame labels -----------------===//
#include "memprof/ProfileData/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace memprof {

/// Text for XML character data and attribute values: the five special
/// characters as entities, control characters (which XML 1.0 forbids even
/// as references) as '?', invalid UTF-8 repaired, and U+FFFE/U+FFFF (not
/// XML characters either) as U+FFFD.
std::string xmlText(StringRef S) {
  std::string Fixed;
  if (!json::isUTF8(S)) {
    Fixed = json::fixUTF8(S);
    S = Fixed;
  }
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    switch (C) {
    case '&':
      Out += "&amp;";
      continue;
    case '<':
      Out += "&lt;";
      continue;
    case '>':
      Out += "&gt;";
      continue;
    case '"':
      Out += "&quot;";
      continue;
    case '\'':
      Out += "&#39;";
      continue;
    default:
      break;
    }
    if (static_cast<unsigned char>(C) < 0x20) {
      Out += '?';
      continue;
    }
    if (S.substr(I).starts_with("\xEF\xBF\xBE") ||
        S.substr(I).starts_with("\xEF\xBF\xBF")) {
      Out += "\xEF\xBF\xBD";
      I += 2;
      continue;
    }
    Out += C;
  }
  return Out;
}

static constexpr std::pair<Weight, StringLiteral> WeightNames[] = {
    {Weight::Bytes, "bytes"},
    {Weight::Count, "count"},
    {Weight::Accesses, "accesses"},
    {Weight::Lifetime, "lifetime"},
    {Weight::PeakBytes, "peak-bytes"},
    {Weight::PeakBlocks, "peak-blocks"},
    {Weight::LiveBytes, "live-bytes"},
    {Weight::LiveBlocks, "live-blocks"},
};

std::optional<Weight> parseWeight(StringRef Name) {
  for (const auto &[W, N] : WeightNames)
    if (Name == N)
      return W;
  return std::nullopt;
}

StringRef weightName(Weight W) {
  for (const auto &[K, N] : WeightNames)
    if (K == W)
      return N;
  return "bytes";
}

std::vector<std::string> weightNames() {
  std::vector<std::string> Names;
  for (const auto &[W, N] : WeightNames)
    Names.push_back(N.str());
  return Names;
}

bool isHeapWeight(Weight W) { return !weightField(W); }

std::optional<MIBTag> weightField(Weight W) {
  switch (W) {
  case Weight::Bytes:
    return MIBTag::TotalSize;
  case Weight::Count:
    return MIBTag::AllocCount;
  case Weight::Accesses:
    return MIBTag::TotalAccessCount;
  case Weight::Lifetime:
    return MIBTag::TotalLifetime;
  case Weight::PeakBytes:
  case Weight::PeakBlocks:
  case Weight::LiveBytes:
  case Weight::LiveBlocks:
    return std::nullopt;
  }
  return MIBTag::TotalSize;
}

std::string weightSource(Weight W) {
  switch (W) {
  case Weight::PeakBytes:
    return "bytes live at the peak";
  case Weight::PeakBlocks:
    return "blocks live at the peak";
  case Weight::LiveBytes:
    return "bytes live at the dump";
  case Weight::LiveBlocks:
    return "blocks live at the dump";
  default:
    return mibFieldName(unsigned(*weightField(W))).str();
  }
}

uint64_t weightOf(const ReportContext &C, Weight W) {
  switch (W) {
  case Weight::PeakBytes:
    return C.Heap.PeakBytes;
  case Weight::PeakBlocks:
    return C.Heap.PeakBlocks;
  case Weight::LiveBytes:
    return C.Heap.LiveBytes;
  case Weight::LiveBlocks:
    return C.Heap.LiveBlocks;
  default:
    return C.field(*weightField(W)).value_or(0);
  }
}

uint32_t knownFields(const Report &R) {
  uint32_t K = 0;
  for (const ReportContext &C : R.Contexts)
    K |= C.Known;
  return K;
}

//===----------------------------------------------------------------------===//
// Short names
//===----------------------------------------------------------------------===//

namespace {

/// The length of the operator's symbol at the start of \p S (what follows
/// the word "operator"): "()", "[]", "<<=", "->", "<", " new[]", ...; 0
/// for a conversion operator, whose type is an ordinary word.
size_t operatorSymbol(StringRef S) {
  static constexpr StringLiteral Symbols[] = {
      "()", "[]", "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "==",
      "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
      "^=", "->", "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<",
      ">", ",", " new[]", " delete[]", " new", " delete", "\"\" "};
  for (StringRef Sym : Symbols)
    if (S.starts_with(Sym))
      return Sym.size();
  return 0;
}

/// The index one past the bracket that closes the one at \p I (counting
/// <>, (), [] and {} alike); S.size() when unbalanced.
size_t skipGroup(StringRef S, size_t I) {
  int Depth = 0;
  for (size_t J = I; J < S.size(); ++J) {
    char C = S[J];
    if (C == '<' || C == '(' || C == '[' || C == '{') {
      ++Depth;
    } else if (C == '>' || C == ')' || C == ']' || C == '}') {
      if (C == '>' && J > 0 && S[J - 1] == '-') // "->"
        continue;
      if (--Depth == 0)
        return J + 1;
    }
  }
  return S.size();
}

void replaceAll(std::string &S, StringRef From, StringRef To) {
  for (size_t At = 0;
       (At = S.find(From.data(), At, From.size())) != std::string::npos;
       At += To.size())
    S.replace(At, From.size(), To.data(), To.size());
}

/// Template arguments as a reader writes them: in every nested argument
/// list, the trailing arguments that are the standard library's defaults
/// (an allocator, char_traits, less, hash, equal_to, default_delete) are
/// left out, as they are left out in source: std::vector<char*,
/// std::allocator<char*>> is std::vector<char*>. The first argument always
/// stays.
std::string withoutDefaultArguments(StringRef Args) {
  auto Simplify = [](StringRef Arg) {
    std::string Out;
    for (size_t I = 0; I < Arg.size();) {
      if (Arg[I] != '<') {
        Out += Arg[I++];
        continue;
      }
      size_t End = skipGroup(Arg, I);
      StringRef Inner = Arg.slice(I + 1, End > I + 1 ? End - 1 : End);
      Out += "<" + withoutDefaultArguments(Inner) + ">";
      I = End;
    }
    return Out;
  };
  std::vector<std::string> Parts;
  int Depth = 0;
  size_t From = 0;
  for (size_t I = 0; I <= Args.size(); ++I) {
    char C = I < Args.size() ? Args[I] : ',';
    if (C == '<' || C == '(' || C == '[' || C == '{')
      ++Depth;
    else if ((C == '>' && !(I > 0 && Args[I - 1] == '-')) || C == ')' ||
             C == ']' || C == '}')
      Depth = Depth > 0 ? Depth - 1 : 0;
    else if (C == ',' && Depth == 0) {
      Parts.push_back(Simplify(Args.slice(From, I).trim()));
      From = I + 1;
    }
  }
  static constexpr StringLiteral Defaults[] = {
      "std::allocator<", "std::char_traits<", "std::less<",
      "std::hash<",      "std::equal_to<",    "std::default_delete<"};
  while (Parts.size() > 1 && any_of(Defaults, [&](StringRef D) {
           return StringRef(Parts.back()).starts_with(D);
         }))
    Parts.pop_back();
  return join(Parts, ", ");
}

/// A short name and what it folded away, in its order: each "<>" with the
/// template arguments it stands for, and each place a parameter list was
/// dropped, with that list.
struct ShortForm {
  struct Slot {
    size_t At = 0;         // offset in Text: of the "<>", or of the list
    bool Template = false; // "<>" (else a parameter list)
    std::string Content;   // the arguments (without <>), or "(...)"
  };
  std::string Text;
  std::vector<Slot> Slots;

  /// Text with the slots in \p Mask restored (template arguments without
  /// their defaults, with \p Brief).
  std::string restore(const std::vector<bool> &Mask, bool Brief) const {
    std::string Out;
    size_t From = 0;
    for (size_t I = 0; I < Slots.size(); ++I) {
      if (!Mask[I])
        continue;
      const Slot &S = Slots[I];
      Out.append(Text, From, S.At - From);
      if (S.Template) {
        Out += "<" +
               (Brief ? withoutDefaultArguments(S.Content) : S.Content) + ">";
        From = S.At + 2;
      } else {
        Out += S.Content;
        From = S.At;
      }
    }
    Out.append(Text, From, std::string::npos);
    return Out;
  }
};

ShortForm shortForm(StringRef Demangled) {
  ShortForm F;
  // Not C++ (or not demangled): nothing to fold.
  if (!Demangled.contains('<') && !Demangled.contains('(') &&
      !Demangled.contains("[abi:")) {
    F.Text = Demangled.str();
    return F;
  }
  std::string S = Demangled.str();
  replaceAll(S,
             "std::__cxx11::basic_string<char, std::char_traits<char>, "
             "std::allocator<char> >",
             "std::string");
  replaceAll(S,
             "std::basic_string<char, std::char_traits<char>, "
             "std::allocator<char> >",
             "std::string");
  replaceAll(S, "std::__cxx11::", "std::");
  replaceAll(S, "std::__1::", "std::");
  // ABI tags: "[abi:cxx11]".
  for (size_t At; (At = S.find("[abi:")) != std::string::npos;) {
    size_t End = S.find(']', At);
    S.erase(At, End == std::string::npos ? std::string::npos : End - At + 1);
  }

  // Fold every top-level group of template arguments to "<>" and drop
  // every parameter list; lambdas' and anonymous namespaces' braces and
  // parentheses stay.
  std::string Out;
  std::vector<ShortForm::Slot> Slots;
  StringRef In(S);
  for (size_t I = 0; I < In.size();) {
    char C = In[I];
    // "operator<<", "operator()": the symbol is part of the name.
    if (In.substr(I).starts_with("operator") &&
        (I == 0 || !(isAlnum(In[I - 1]) || In[I - 1] == '_'))) {
      size_t Len = 8 + operatorSymbol(In.substr(I + 8));
      Out += In.substr(I, Len).str();
      I += Len;
      continue;
    }
    if (C == '{') { // {lambda(int)#1}, {unnamed type#1}
      size_t End = skipGroup(In, I);
      StringRef G = In.slice(I, End);
      if (G.starts_with("{lambda(")) {
        size_t Hash = G.rfind('#');
        Out += "{lambda()";
        Out += Hash == StringRef::npos ? "}" : G.drop_front(Hash).str();
      } else {
        Out += G.str();
      }
      I = End;
      continue;
    }
    if (C == '<' || C == '(') {
      if (In.substr(I).starts_with("(anonymous namespace)")) {
        Out += "(anonymous namespace)";
        I += StringRef("(anonymous namespace)").size();
        continue;
      }
      // Template arguments fold to "<>"; parameter lists go (as pprof's
      // short names: a frame's function, not a call).
      size_t End = skipGroup(In, I);
      if (C == '<') {
        Slots.push_back({Out.size(), true,
                         In.slice(I + 1, End > I + 1 ? End - 1 : End).str()});
        Out += "<>";
      } else {
        Slots.push_back({Out.size(), false, In.slice(I, End).str()});
      }
      I = End;
      continue;
    }
    Out += C;
    ++I;
  }

  // Trailing qualifiers of a member function: " const", " &", " &&".
  StringRef R(Out);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (StringRef Q : {" const", " volatile", " &&", " &", " noexcept"})
      if (R.ends_with(Q)) {
        R = R.drop_back(Q.size());
        Changed = true;
      }
  }
  // The return type of a function template: the text before the last
  // space outside brackets that does not follow "operator" (and is not
  // part of "(anonymous namespace)", which folding kept whole).
  size_t Cut = StringRef::npos;
  int Depth = 0;
  for (size_t I = 0; I < R.size(); ++I) {
    char C = R[I];
    if (C == '<' || C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == '>' || C == ')' || C == ']' || C == '}')
      Depth = Depth > 0 ? Depth - 1 : 0;
    else if (C == ' ' && Depth == 0 &&
             !R.substr(0, I).ends_with("operator") &&
             !R.substr(0, I).ends_with(","))
      Cut = I;
  }
  size_t Begin = 0;
  if (Cut != StringRef::npos && Cut + 1 < R.size()) {
    // "operator new" keeps its word; a conversion operator its type.
    Begin = Cut + 1;
  }
  F.Text = R.drop_front(Begin).str();
  // The slots of what is left: a list dropped before a trailing qualifier
  // sits at the end.
  for (ShortForm::Slot &Sl : Slots)
    if (Sl.At >= Begin && (Sl.Template ? Sl.At + 2 <= R.size()
                                       : Sl.At <= Out.size())) {
      Sl.At = std::min(Sl.At - Begin, F.Text.size());
      F.Slots.push_back(std::move(Sl));
    }
  return F;
}

} // namespace

std::string shortFunctionName(StringRef Demangled) {
  return shortForm(Demangled).Text;
}

std::string briefTypeName(StringRef Type) {
  std::string S = Type.str();
  replaceAll(S, "std::__cxx11::", "std::");
  replaceAll(S, "std::__1::", "std::");
  return withoutDefaultArguments(S);
}

std::map<std::string, std::string>
distinctShortNames(const std::set<std::string> &Names) {
  std::map<std::string, std::string> Labels;
  std::map<std::string, std::vector<std::pair<const std::string *, ShortForm>>>
      ByShort;
  for (const std::string &N : Names) {
    ShortForm F = shortForm(N);
    std::string Key = F.Text;
    ByShort[Key].push_back({&N, std::move(F)});
  }
  for (auto &[Short, Group] : ByShort) {
    if (Group.size() == 1) {
      Labels[*Group[0].first] = Short;
      continue;
    }
    // One short name, several functions. The slots line up when the names
    // have one shape (they share the short name, so they nearly always
    // do): restore those whose content differs, template arguments first
    // (without the standard's default arguments, then whole), then
    // parameter lists.
    const std::vector<ShortForm::Slot> &First = Group[0].second.Slots;
    bool Aligned = true;
    for (const auto &[Name, F] : Group) {
      Aligned &= F.Slots.size() == First.size();
      for (size_t I = 0; Aligned && I < First.size(); ++I)
        Aligned = F.Slots[I].At == First[I].At &&
                  F.Slots[I].Template == First[I].Template;
    }
    bool Done = false;
    if (Aligned) {
      // Template arguments without their defaults, then whole, then the
      // parameter lists too.
      std::vector<bool> Mask(First.size(), false);
      for (auto [Templates, Brief] :
           {std::pair{true, true}, {true, false}, {false, false}}) {
        for (size_t I = 0; I < First.size(); ++I)
          if (First[I].Template == Templates)
            for (const auto &[Name, F] : Group)
              Mask[I] = Mask[I] || F.Slots[I].Content != First[I].Content;
        std::set<std::string> Seen;
        std::vector<std::string> Restored;
        for (const auto &[Name, F] : Group) {
          Restored.push_back(F.restore(Mask, Brief));
          Seen.insert(Restored.back());
        }
        if (Seen.size() == Group.size()) {
          for (size_t I = 0; I < Group.size(); ++I)
            Labels[*Group[I].first] = Restored[I];
          Done = true;
          break;
        }
      }
    }
    // They differ in what the short form drops besides (a return type, a
    // qualifier, an ABI tag): whole names.
    if (!Done)
      for (const auto &[Name, F] : Group)
        Labels[*Name] = *Name;
  }
  return Labels;
}

std::string frameWhere(const ReportFrame &F, GroupBy G) {
  if (F.Gap) {
    std::string W = "(not symbolized: ";
    W += gapReasonText(F.Gap->Reason);
    if (!F.Gap->BuildId.empty() && !F.Gap->Path.empty())
      W += "; build id " + F.Gap->BuildId;
    return W + ")";
  }
  if (G == GroupBy::Function) // the function, at its declaration
    return F.File.empty() ? std::string("(no source location)")
                          : sourceLocationText(F.File, F.Line);
  if (F.File.empty())
    return "(no source location; line offset " + std::to_string(F.LineOffset) +
           ")";
  return sourceLocationText(F.File, F.Line, F.Column);
}

std::string frameLabel(const ReportFrame &F, bool FullNames,
                       const std::map<std::string, std::string> *Labels) {
  if (F.Gap) {
    const FrameGap &G = *F.Gap;
    std::string Where;
    if (G.Reason == GapReason::OutsideSegments)
      Where = hexValue(G.Offset);
    else
      Where = (G.Path.empty()
                   ? (G.BuildId.empty() ? std::string("a module without build id")
                                        : "module " + G.BuildId)
                   : G.Path) +
              "+" + hexValue(G.Offset);
    std::string Sym;
    if (!G.Symbol.empty())
      Sym = (FullNames ? G.Symbol : shortFunctionName(G.Symbol)) + " ";
    // Paths and symbols come from files: keep the label valid UTF-8.
    std::string L = "?? " + Sym + "at " + Where;
    return validUTF8(L);
  }
  if (F.Name.empty())
    return hexValue(F.Function);
  if (FullNames)
    return F.Name;
  if (Labels) {
    auto It = Labels->find(F.Name);
    if (It != Labels->end())
      return It->second;
  }
  return shortFunctionName(F.Name);
}

//===----------------------------------------------------------------------===//
// Frames by id
//===----------------------------------------------------------------------===//

ContextFrames::ContextFrames(const Report &R) : R(R) {
  Table.reserve(R.FrameTable.size());
  for (const ReportFrame &F : R.FrameTable)
    Table.push_back(&F);
  for (size_t I = 0; I < R.Contexts.size(); ++I) {
    const ReportContext &C = R.Contexts[I];
    if (C.Frames.empty())
      continue;
    Own.resize(R.Contexts.size());
    for (const ReportFrame &F : C.Frames) {
      Own[I].push_back(uint32_t(Table.size()));
      Table.push_back(&F);
    }
  }
}

ArrayRef<uint32_t> ContextFrames::of(size_t I) const {
  const ReportContext &C = R.Contexts[I];
  if (!C.FrameIds.empty() || Own.empty())
    return C.FrameIds;
  return Own[I];
}

FrameLabels::FrameLabels(const ContextFrames &Frames, bool FullNames)
    : Frames(Frames), FullNames(FullNames), Labels(Frames.size()),
      Done(Frames.size()) {}

const std::string &FrameLabels::operator[](uint32_t Id) {
  if (Done[Id])
    return Labels[Id];
  Done[Id] = true;
  const ReportFrame &F = Frames.frame(Id);
  // Named frames of one function share its short name.
  if (!FullNames && !F.Gap && !F.Name.empty()) {
    auto [It, New] = ShortNames.try_emplace(F.Name);
    if (New)
      It->second = shortFunctionName(F.Name);
    return Labels[Id] = It->second;
  }
  return Labels[Id] = frameLabel(F, FullNames);
}

} // namespace memprof
