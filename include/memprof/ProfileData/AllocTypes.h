//===- AllocTypes.h - The type an allocation context allocates -*- C++ -*-===//
//
// What the binary says about the objects an allocation call makes, in the
// order the merger asks (docs/memprof-merge.md, "Allocated types"):
//   1. the allocation call's DW_TAG_call_site carries DW_AT_LLVM_alloc_type
//      (clang -g emits it for each `new T` / `new T[n]`): the symbolizer's
//      ModuleSymbolizer::allocatedType;
//   2. else the standard library's frames between the allocation call and
//      the program's own code: an allocator's allocate() names its element
//      type in its template argument (std::__new_allocator<T>::allocate,
//      std::allocator_traits<std::allocator<T>>::allocate), and a
//      std::basic_string member that allocates its own characters is
//      named as the standard names it (std::string, std::wstring, ...).
// Everything else (a plain malloc, a custom allocator) has no type.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_ALLOCTYPES_H
#define MEMPROF_PROFILEDATA_ALLOCTYPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace memprof {

/// What one frame's function says about the type of an allocation made
/// below it, read from its linkage name through LLVM's Itanium demangler.
struct FrameTypeRole {
  enum Kind : uint8_t {
    /// Not the standard library's: code of the program (or of another
    /// library), where the search stops.
    Program,
    /// The standard library's (namespace std or __gnu_cxx), saying nothing.
    Library,
    /// An allocator's allocate(): Type is its element type.
    Allocator,
    /// A member of std::basic_string<C, ...>: Type is the string's name
    /// (std::string, ...), CharType its character type C.
    String,
  };
  Kind K = Program;
  std::string Type;
  std::string CharType;
};

/// The role of the function with linkage name \p LinkageName (a C name, or
/// one the demangler cannot read, is Program).
FrameTypeRole classifyFrameFunction(llvm::StringRef LinkageName);

/// The allocated type that the frames of a context say, from the leaf (the
/// allocation call's function) toward the root: walking the standard
/// library's frames until the first of the program, the nearest
/// allocator's element type, unless a std::basic_string member that
/// allocates that character type (or with no allocator frame before it)
/// calls it: then the string's name. Empty when none says.
std::string typeFromFrames(llvm::ArrayRef<const FrameTypeRole *> LeafFirst);

/// A type name as DWARF's type printer gives it, in the form the demangler
/// writes (C++11's ">>" for "> >"), so that one type has one name whatever
/// the source.
std::string normalizeTypeName(llvm::StringRef Name);

} // namespace memprof

#endif
