//===- AllocTypes.cpp - Allocated types from standard-library frames ------===//
//
// Linkage names are read with LLVM's Itanium demangler into its AST: the
// enclosing class of a member function, its template arguments and the
// outermost namespace are nodes, printed one by one, never cut out of the
// demangled string.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/AllocTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/ItaniumDemangle.h"
#include "llvm/Support/Allocator.h"
#include <cstdlib>

using namespace llvm;
using namespace llvm::itanium_demangle;

namespace memprof {

namespace {

/// The node allocator ManglingParser needs, over a bump allocator.
class NodeAllocator {
public:
  void reset() { Alloc.Reset(); }
  template <typename T, typename... Args> T *makeNode(Args &&...As) {
    return new (Alloc.Allocate(sizeof(T), alignof(T)))
        T(std::forward<Args>(As)...);
  }
  void *allocateNodeArray(size_t N) {
    return Alloc.Allocate(sizeof(Node *) * N, alignof(Node *));
  }

private:
  BumpPtrAllocator Alloc;
};

using Parser = ManglingParser<NodeAllocator>;

std::string print(const Node *N) {
  OutputBuffer OB;
  N->print(OB);
  std::string S(OB.getBuffer() ? OB.getBuffer() : "", OB.getCurrentPosition());
  std::free(OB.getBuffer());
  return S;
}

const Node *unwrapAbiTags(const Node *N) {
  while (N && N->getKind() == Node::KAbiTagAttr)
    N = static_cast<const AbiTagAttr *>(N)->Base;
  return N;
}

/// The outermost scope of a (possibly nested, templated) name: "std" for
/// std::__cxx11::basic_string<...>::_M_create.
const Node *outermostScope(const Node *N) {
  for (unsigned Depth = 0; N && Depth < 256; ++Depth) {
    N = unwrapAbiTags(N);
    switch (N->getKind()) {
    case Node::KNestedName:
      N = static_cast<const NestedName *>(N)->Qual;
      continue;
    case Node::KNameWithTemplateArgs:
      N = static_cast<const NameWithTemplateArgs *>(N)->Name;
      continue;
    default:
      return N;
    }
  }
  return nullptr;
}

bool isLibraryScope(const Node *Scope) {
  if (!Scope || Scope->getKind() != Node::KNameType)
    return false;
  std::string_view Name = static_cast<const NameType *>(Scope)->getName();
  return Name == "std" || Name == "__gnu_cxx";
}

/// A class template name and its arguments.
struct TemplateId {
  std::string Name; // "std::__new_allocator"
  NodeArray Args;
};

std::optional<TemplateId> templateId(const Node *N) {
  N = unwrapAbiTags(N);
  if (!N || N->getKind() != Node::KNameWithTemplateArgs)
    return std::nullopt;
  const auto *T = static_cast<const NameWithTemplateArgs *>(N);
  if (!T->TemplateArgs || T->TemplateArgs->getKind() != Node::KTemplateArgs)
    return std::nullopt;
  return TemplateId{print(T->Name),
                    const_cast<TemplateArgs *>(
                        static_cast<const TemplateArgs *>(T->TemplateArgs))
                        ->getParams()};
}

bool isAllocatorTemplate(StringRef Name) {
  static const char *const Names[] = {
      "std::__new_allocator",       "__gnu_cxx::new_allocator",
      "std::allocator",             "std::__1::allocator",
      "__gnu_cxx::malloc_allocator", "__gnu_cxx::__pool_alloc",
      "__gnu_cxx::__mt_alloc",      "std::pmr::polymorphic_allocator",
      "std::__1::pmr::polymorphic_allocator"};
  return llvm::is_contained(Names, Name);
}

/// std::string and friends: the character type's name in the standard's
/// typedefs (std::string is basic_string<char, char_traits<char>,
/// allocator<char>>, and so on).
std::string stringName(const TemplateId &Class, StringRef Char) {
  static const std::pair<const char *, const char *> Typedefs[] = {
      {"char", "string"},       {"wchar_t", "wstring"},
      {"char8_t", "u8string"},  {"char16_t", "u16string"},
      {"char32_t", "u32string"}};
  const char *Typedef = nullptr;
  for (const auto &[C, T] : Typedefs)
    if (Char == C)
      Typedef = T;
  if (Typedef && Class.Args.size() == 3) {
    const std::string Traits = print(Class.Args[1]);
    const std::string Alloc = print(Class.Args[2]);
    const std::string Std = StringRef(Class.Name).starts_with("std::__1::")
                                ? "std::__1::"
                                : "std::";
    if (Traits == Std + "char_traits<" + Char.str() + ">") {
      if (Alloc == Std + "allocator<" + Char.str() + ">")
        return std::string("std::") + Typedef;
      if (Alloc == Std + "pmr::polymorphic_allocator<" + Char.str() + ">")
        return std::string("std::pmr::") + Typedef;
    }
  }
  // Another traits or allocator: the class as written.
  std::string S = Class.Name + "<";
  for (size_t I = 0; I < Class.Args.size(); ++I)
    S += (I ? ", " : "") + print(Class.Args[I]);
  return S + ">";
}

} // namespace

FrameTypeRole classifyFrameFunction(StringRef LinkageName) {
  FrameTypeRole R;
  if (!LinkageName.starts_with("_Z"))
    return R;
  Parser P(LinkageName.begin(), LinkageName.end());
  const Node *AST = P.parse();
  if (!AST)
    return R;
  if (AST->getKind() == Node::KDotSuffix)
    static_cast<const DotSuffix *>(AST)->match(
        [&](const Node *Prefix, std::string_view) { AST = Prefix; });
  if (AST->getKind() != Node::KFunctionEncoding)
    return R;
  const Node *Name = unwrapAbiTags(
      static_cast<const FunctionEncoding *>(AST)->getName());
  if (!Name || !isLibraryScope(outermostScope(Name)))
    return R;
  R.K = FrameTypeRole::Library;
  if (Name->getKind() != Node::KNestedName)
    return R;
  const auto *Nested = static_cast<const NestedName *>(Name);
  std::optional<TemplateId> Class = templateId(Nested->Qual);
  if (!Class || Class->Args.size() == 0)
    return R;
  const Node *Base = unwrapAbiTags(Nested->Name);
  if (Base && Base->getKind() == Node::KNameWithTemplateArgs)
    Base = static_cast<const NameWithTemplateArgs *>(Base)->Name;
  const bool Allocate = Base && Base->getBaseName() == "allocate";

  if (Allocate && isAllocatorTemplate(Class->Name)) {
    R.K = FrameTypeRole::Allocator;
    R.Type = print(Class->Args[0]);
    return R;
  }
  if (Allocate && (Class->Name == "std::allocator_traits" ||
                   Class->Name == "std::__1::allocator_traits")) {
    // allocator_traits<A>::allocate: A's element type, when A is a known
    // allocator (another one's value type is not in the name).
    std::optional<TemplateId> Alloc = templateId(Class->Args[0]);
    if (Alloc && Alloc->Args.size() > 0 && isAllocatorTemplate(Alloc->Name)) {
      R.K = FrameTypeRole::Allocator;
      R.Type = print(Alloc->Args[0]);
    }
    return R;
  }
  if (Class->Name == "std::__cxx11::basic_string" ||
      Class->Name == "std::basic_string" ||
      Class->Name == "std::__1::basic_string") {
    R.K = FrameTypeRole::String;
    R.CharType = print(Class->Args[0]);
    R.Type = stringName(*Class, R.CharType);
  }
  return R;
}

std::string typeFromFrames(ArrayRef<const FrameTypeRole *> LeafFirst) {
  const FrameTypeRole *Alloc = nullptr;
  for (const FrameTypeRole *R : LeafFirst) {
    switch (R->K) {
    case FrameTypeRole::Program:
      return Alloc ? Alloc->Type : std::string();
    case FrameTypeRole::Library:
      continue;
    case FrameTypeRole::Allocator:
      if (!Alloc)
        Alloc = R;
      continue;
    case FrameTypeRole::String:
      // The string's own characters: its name. An allocator of another
      // type below it is something the string called, of that type.
      if (!Alloc || Alloc->Type == R->CharType)
        return R->Type;
      return Alloc->Type;
    }
  }
  return Alloc ? Alloc->Type : std::string();
}

std::string normalizeTypeName(StringRef Name) {
  std::string S;
  S.reserve(Name.size());
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Name[I] == ' ' && !S.empty() && S.back() == '>' &&
        I + 1 < Name.size() && Name[I + 1] == '>')
      continue;
    S += Name[I];
  }
  return S;
}

} // namespace memprof
