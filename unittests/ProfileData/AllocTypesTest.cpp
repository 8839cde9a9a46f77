//===- AllocTypesTest.cpp - Allocated types from frames' names -------------===//
//
// The roles the demangler's AST gives standard-library functions (libstdc++
// and libc++ manglings, as clang-22 and GCC 12 emit them), and the walk
// from a context's leaf that turns them into a type.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/AllocTypes.h"
#include "gtest/gtest.h"

using namespace memprof;

namespace {

std::string roleOf(llvm::StringRef Linkage) {
  FrameTypeRole R = classifyFrameFunction(Linkage);
  switch (R.K) {
  case FrameTypeRole::Program:
    return "program";
  case FrameTypeRole::Library:
    return "library";
  case FrameTypeRole::Allocator:
    return "allocator " + R.Type;
  case FrameTypeRole::String:
    return "string " + R.Type + " of " + R.CharType;
  }
  return "?";
}

TEST(AllocTypes, ClassifiesStandardLibraryFrames) {
  // Allocators name their element type.
  EXPECT_EQ(roleOf("_ZNSt15__new_allocatorI3BarE8allocateEmPKv"),
            "allocator Bar");
  EXPECT_EQ(roleOf("_ZNSt16allocator_traitsISaIN2ns3BoxIiEEEE8allocateERS3_m"),
            "allocator ns::Box<int>");
  EXPECT_EQ(roleOf("_ZNSt15__new_allocatorISt6vectorIcSaIcEEE8allocateEmPKv"),
            "allocator std::vector<char, std::allocator<char>>");
  EXPECT_EQ(roleOf("_ZN9__gnu_cxx13new_allocatorIiE8allocateEmPKv"),
            "allocator int");
  // libc++, whose allocate carries an ABI tag.
  EXPECT_EQ(roleOf("_ZNSt3__19allocatorIcE8allocateB8ne200100Em"),
            "allocator char");
  // Another member of an allocator says nothing.
  EXPECT_EQ(roleOf("_ZNSt15__new_allocatorI3BarE10deallocateEPS0_m"),
            "library");
  // Strings are named as the standard names them.
  EXPECT_EQ(roleOf("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_"
                   "M_createERmm"),
            "string std::string of char");
  EXPECT_EQ(roleOf("_ZNSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE12_"
                   "M_constructEmw"),
            "string std::wstring of wchar_t");
  EXPECT_EQ(roleOf("_ZNSt7__cxx1112basic_stringIDiSt11char_traitsIDiESaIDiEE9_"
                   "M_createERmm"),
            "string std::u32string of char32_t");
  // Other standard-library code, then the program's, a C function and a
  // name the demangler cannot read.
  EXPECT_EQ(roleOf("_ZNSt6vectorI3BarSaIS0_EE17_M_realloc_insertIJS0_EEEvN9__"
                   "gnu_cxx17__normal_iteratorIPS0_S2_EEDpOT_"),
            "library");
  EXPECT_EQ(roleOf("_ZN3app5Table4growEm"), "program");
  EXPECT_EQ(roleOf("_Z5mkfoov"), "program");
  EXPECT_EQ(roleOf("main"), "program");
  EXPECT_EQ(roleOf("_ZNSt15__new_allocatorI3Bar"), "program");
  EXPECT_EQ(roleOf(""), "program");
  // A clone's suffix does not hide the function.
  EXPECT_EQ(roleOf("_ZNSt15__new_allocatorI3BarE8allocateEmPKv.cold"),
            "allocator Bar");
}

TEST(AllocTypes, WalksFromTheLeafUpToTheProgram) {
  FrameTypeRole Program, Library{FrameTypeRole::Library, "", ""};
  FrameTypeRole AllocBar{FrameTypeRole::Allocator, "Bar", ""};
  FrameTypeRole AllocChar{FrameTypeRole::Allocator, "char", ""};
  FrameTypeRole AllocNode{FrameTypeRole::Allocator, "Node", ""};
  FrameTypeRole Str{FrameTypeRole::String, "std::string", "char"};
  // vector<Bar> growth: the allocator, then vector's members, then main.
  EXPECT_EQ(typeFromFrames({&AllocBar, &Library, &Library, &Program}), "Bar");
  // A string's buffer: its allocator of char, then the string.
  EXPECT_EQ(typeFromFrames({&AllocChar, &Library, &Str, &Program}),
            "std::string");
  // libstdc++ without debug info: the string member is the leaf.
  EXPECT_EQ(typeFromFrames({&Str, &Str, &Program}), "std::string");
  // A string that called something allocating another type (a node).
  EXPECT_EQ(typeFromFrames({&AllocNode, &Str, &Program}), "Node");
  // The nearest allocator wins.
  EXPECT_EQ(typeFromFrames({&AllocBar, &AllocNode, &Program}), "Bar");
  // The program's own call (a malloc, a new the DWARF did not type), and
  // what lies beyond it, say nothing.
  EXPECT_EQ(typeFromFrames({&Program, &AllocBar}), "");
  EXPECT_EQ(typeFromFrames({&Library, &Program}), "");
  EXPECT_EQ(typeFromFrames({}), "");
  // A walk cut short (an unknown frame) keeps what it found.
  EXPECT_EQ(typeFromFrames({&AllocBar, &Library}), "Bar");
}

TEST(AllocTypes, NormalizesDwarfTemplateNames) {
  EXPECT_EQ(normalizeTypeName("std::vector<Bar, std::allocator<Bar> >"),
            "std::vector<Bar, std::allocator<Bar>>");
  EXPECT_EQ(normalizeTypeName("a<b<c<d> > >"), "a<b<c<d>>>");
  EXPECT_EQ(normalizeTypeName("Foo"), "Foo");
  EXPECT_EQ(normalizeTypeName("x > y"), "x > y");
}

} // namespace
