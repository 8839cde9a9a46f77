//===- Export.cpp - Weights, short names and frame labels -----------------===//
#include "memprof/ProfileData/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace memprof {

static constexpr std::pair<Weight, StringLiteral> WeightNames[] = {
    {Weight::Bytes, "bytes"},
    {Weight::Count, "count"},
    {Weight::Accesses, "accesses"},
    {Weight::Lifetime, "lifetime"},
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

MIBTag weightField(Weight W) {
  switch (W) {
  case Weight::Bytes:
    return MIBTag::TotalSize;
  case Weight::Count:
    return MIBTag::AllocCount;
  case Weight::Accesses:
    return MIBTag::TotalAccessCount;
  case Weight::Lifetime:
    return MIBTag::TotalLifetime;
  }
  return MIBTag::TotalSize;
}

uint64_t weightOf(const ReportContext &C, Weight W) {
  return C.field(weightField(W)).value_or(0);
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

} // namespace

std::string shortFunctionName(StringRef Demangled) {
  // Not C++ (or not demangled): nothing to fold.
  if (!Demangled.contains('<') && !Demangled.contains('(') &&
      !Demangled.contains("[abi:"))
    return Demangled.str();
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
      if (C == '<')
        Out += "<>";
      I = skipGroup(In, I);
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
  if (Cut != StringRef::npos) {
    StringRef Name = R.drop_front(Cut + 1);
    // "operator new" keeps its word; a conversion operator its type.
    if (!Name.empty())
      R = Name;
  }
  return R.str();
}

std::string frameLabel(const ReportFrame &F, bool FullNames) {
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
  return FullNames ? F.Name : shortFunctionName(F.Name);
}

} // namespace memprof
