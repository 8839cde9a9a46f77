//===- ProfileNamesTest.cpp - Names model and the names extension ---------===//
//
// The extension's exact bytes on a small profile (golden), round trips,
// order-independent merging, names gathered by the merger from symbolized
// frames, and hostile extensions: every byte corrupted, specific lies.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/ProfileNames.h"
#include "RawBuilder.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Merge.h"
#include "memprof/format/NamesFormat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"
#include <functional>
#include <random>
#include <set>

using namespace memprof;
using namespace llvm;

namespace {

const GUID Main = 0xdb956436e78dd5faULL; // functionGUID("main")
const GUID Foo = 0x7f8d88fcc70a347bULL;  // functionGUID("_Z3foov")

/// main at /src/a.c:10 calls foo (declared /src/b.c:20), whose frame at
/// line offset 1 lies in a header (an exception to foo's declaration file).
struct Small {
  IndexedMemProf P;
  ProfileNames N;
  Small() {
    P.addCallStack({Frame{Foo, 1, 5, false}, Frame{Main, 2, 3, false}});
    P.Records[Foo].AllocSites.push_back({P.CallStacks.begin()->first, {}});
    N.addFunction(Main, {"main", "main", "/src/a.c", 10, "\x01\x02"});
    N.addFunction(Foo, {"_Z3foov", "foo()", "/src/b.c", 20, "\x01\x02"});
    N.addLocation(Main, 2, {"/src/a.c", 12});
    N.addLocation(Foo, 1, {"/src/inc/c.h", 7});
  }
};

std::string hexOf(ArrayRef<char> B) {
  return toHex(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(B.data()),
                                 B.size()),
               /*LowerCase=*/true);
}

std::optional<ErrorCode> codeOf(Error E) {
  std::optional<ErrorCode> C;
  handleAllErrors(std::move(E), [&](const MemProfError &M) {
    C = M.code();
    EXPECT_NE(M.offset(), MemProfError::NoOffset) << M.detail();
  });
  return C;
}

TEST(ProfileNames, GoldenBytes) {
  Small S;
  SmallVector<char, 0> Out(16, 0); // stands for an LLVM part of 16 bytes
  auto Stats = appendNamesExtension(Out, S.P, S.N);
  ASSERT_TRUE(bool(Stats)) << toString(Stats.takeError());
  // Header: magic, version 1, flags 0, LLVM part size 16, section sizes
  // (strings 39, modules 4, files 13, functions 11, frames 5), reserved 0.
  std::string Want =
      "ff6d706e616d6581" "01000000" "00000000" "1000000000000000"
      "27000000" "04000000" "0d000000" "0b000000" "05000000" "00000000"
      // Strings, tail-merged, in descending order of their reversed text:
      // "_Z3foov" 0, "main" 8, "c.h" 13, "src" 17, "inc" 21, "b.c" 25,
      // "a.c" 29, "foo()" 33, and "" = the NUL at 38.
      + toHex(StringRef("_Z3foov\0main\0c.h\0src\0inc\0b.c\0a.c\0foo()\0", 39),
              true) +
      // Modules: 1, of 2 bytes 01 02.
      "01020102"
      // Files: 6 nodes (name, parent+1): "" root, src, a.c, b.c, inc, c.h.
      "06" "2600" "1101" "1d02" "1902" "1502" "0d05"
      // Functions in GUID order, without GUIDs (MD5 of the linkage name):
      // foo 0x7f8d... (names 0/33, file b.c = node 3 -> 4, line 20, module
      // 1), main 0xdb95... (names 8/8, file a.c = node 2 -> 3, line 10).
      "02" "00" "21" "04" "14" "01"
      "08" "08" "03" "0a" "01"
      // Frames: 1 exception: function 0, offset 1, file c.h (node 5 -> 6),
      // line 7. main's frame is where its declaration puts it.
      "01" "00" "01" "06" "07"
      // Footer: extension size 136, magic.
      "8800000000000000" "ff6d706e656e6481";
  EXPECT_EQ(hexOf(ArrayRef<char>(Out).drop_front(16)), Want);
  EXPECT_EQ(Stats->TotalBytes, 136u);
  EXPECT_EQ(Stats->NumFunctions, 2u);
  EXPECT_EQ(Stats->NumFileNodes, 6u);
  EXPECT_EQ(Stats->NumFrameEntries, 1u);
}

TEST(ProfileNames, RoundTrip) {
  Small S;
  SmallVector<char, 0> Out(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  NamesExtensionInfo Info;
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()), &Info);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_TRUE(Info.Present);
  EXPECT_EQ(Info.Offset, 24u);
  EXPECT_EQ(Info.Size, Out.size() - 24);
  ASSERT_EQ(Back->functions().size(), 2u);
  for (GUID G : {Main, Foo})
    EXPECT_EQ(*Back->function(G), *S.N.function(G));
  for (const auto &KV : S.P.Frames) {
    const Frame &F = KV.second;
    EXPECT_EQ(Back->location(F.Function, F.LineOffset),
              S.N.location(F.Function, F.LineOffset));
  }
  EXPECT_EQ(Back->location(Foo, 1).File, "/src/inc/c.h");
  EXPECT_EQ(Back->location(Main, 2).Line, 12u);

  // Writing what was read gives the same bytes.
  SmallVector<char, 0> Again(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Again, S.P, *Back)));
  EXPECT_EQ(hexOf(Out), hexOf(Again));
}

TEST(ProfileNames, UnknownLocationsSurvive) {
  Small S;
  // A frame of a named function that nobody located.
  S.P.addCallStack({Frame{Main, 7, 1, false}});
  S.N.markUnobservedFrames(S.P);
  EXPECT_FALSE(S.N.location(Main, 7).known());
  SmallVector<char, 0> Out;
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()));
  ASSERT_TRUE(bool(Back));
  EXPECT_FALSE(Back->location(Main, 7).known());
  EXPECT_EQ(Back->location(Main, 2).Line, 12u);
  // Observing the file's names adds no location for that frame.
  ProfileNames Into;
  observeNames(S.P, *Back, Into);
  EXPECT_FALSE(Into.observedLocation(Main, 7).has_value());
  EXPECT_EQ(Into.observedLocation(Main, 2)->Line, 12u);
}

TEST(ProfileNames, NothingToNameWritesNothing) {
  IndexedMemProf P;
  P.addCallStack({Frame{0x1234, 0, 0, false}});
  ProfileNames N;
  N.addFunction(Main, {"main", "main", "", 0, ""});
  SmallVector<char, 0> Out(8, 0);
  auto Stats = appendNamesExtension(Out, P, N);
  ASSERT_TRUE(bool(Stats));
  EXPECT_EQ(Stats->TotalBytes, 0u);
  EXPECT_EQ(Out.size(), 8u);
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()));
  ASSERT_TRUE(bool(Back));
  EXPECT_TRUE(Back->empty());
}

TEST(ProfileNames, MergeKeepsTheSmallestWhateverTheOrder) {
  // Two builds named one GUID differently (ThinLTO suffixes) and declared
  // it on different lines.
  FunctionNameInfo A{"foo.llvm.2", "foo.llvm.2", "/x.c", 5, ""};
  FunctionNameInfo B{"foo.llvm.1", "foo.llvm.1", "/x.c", 9, ""};
  FunctionNameInfo NoFile{"foo.llvm.1", "foo.llvm.1", "", 0, ""};
  const GUID G = functionGUID("foo");
  ASSERT_EQ(functionGUID("foo.llvm.1"), G);
  ProfileNames X, Y;
  X.addFunction(G, A);
  X.addFunction(G, NoFile);
  X.addFunction(G, B);
  Y.addFunction(G, B);
  Y.addFunction(G, A);
  Y.addFunction(G, NoFile);
  EXPECT_EQ(X.function(G)->LinkageName, "foo.llvm.1");
  EXPECT_EQ(X.function(G)->DeclLine, 9u); // a known file beats none
  EXPECT_EQ(*X.function(G), *Y.function(G));
  // A name that does not hash to the GUID is ignored.
  X.addFunction(G, {"bar", "bar", "", 0, ""});
  EXPECT_EQ(X.function(G)->LinkageName, "foo.llvm.1");

  X.addLocation(G, 3, {"/z.h", 4});
  X.addLocation(G, 3, {"/a.h", 8});
  Y.addLocation(G, 3, {"/a.h", 8});
  Y.addLocation(G, 3, {"/z.h", 4});
  EXPECT_EQ(X.location(G, 3), Y.location(G, 3));
  EXPECT_EQ(X.location(G, 3).File, "/a.h");
  // Without an observation the declaration gives the location.
  EXPECT_EQ(X.location(G, 4).File, "/x.c");
  EXPECT_EQ(X.location(G, 4).Line, 13u);

  ProfileNames Z;
  Z.merge(Y);
  ProfileNames Copy = Z;
  EXPECT_EQ(*Copy.function(G), *X.function(G));
}

// A module whose frames carry names, files and lines like the ELF
// symbolizer's: LineOffset = Line - DeclLine.
class NamedModule : public ModuleSymbolizer {
public:
  StringRef path() const override { return "named"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - S.Start;
  }
  PCSymbols symbolize(uint64_t Addr) override {
    PCSymbols S;
    S.Status = PCSymbols::Ok;
    auto Add = [&](StringRef Name, StringRef File, uint32_t Line,
                   uint32_t Decl, bool Inline) {
      SymbolizedFrame F;
      F.F = Frame{functionGUID(Name), Line - Decl, 1, Inline};
      F.FunctionName = Name.str();
      F.FileName = File.str();
      F.Line = Line;
      F.DeclFileName = "/src/main.cpp";
      S.Frames.push_back(F);
    };
    if (Addr == 0x10) { // an inlined helper from a header
      Add("_ZL4makem", "/src/make.h", 3, 2, true);
      Add("_Z5outerm", "/src/main.cpp", 8, 7, false);
    } else {
      Add("main", "/src/main.cpp", 13, 10, false);
    }
    return S;
  }
};

class OneLocator : public BinaryLocator {
public:
  NamedModule M;
  Expected<ModuleSymbolizer *> find(StringRef) override { return &M; }
};

TEST(ProfileNames, MergerCollectsNamesOfSymbolizedFrames) {
  test::RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0x1000, "\xab\xcd"});
  MemInfoBlock I = MemInfoBlock::forAllocation(32, 1, 1, 2, 0, 0);
  B.MIBs.push_back({1, I, {}});
  B.Stacks.push_back({1, {0x1010, 0x1020}});
  auto Raw = readRawProfile(B.build());
  ASSERT_TRUE(bool(Raw)) << toString(Raw.takeError());
  OneLocator L;
  ProfileMerger M(&L);
  ASSERT_FALSE(bool(M.addRaw(*Raw)));
  const ProfileNames &N = M.names();
  const FunctionNameInfo *Make = N.function(functionGUID("_ZL4makem"));
  ASSERT_TRUE(Make);
  EXPECT_EQ(Make->DemangledName, "make(unsigned long)");
  EXPECT_EQ(Make->DeclLine, 2u);
  EXPECT_EQ(Make->BuildId, "\xab\xcd");
  EXPECT_EQ(N.location(functionGUID("_ZL4makem"), 1).File, "/src/make.h");
  EXPECT_EQ(N.location(functionGUID("_Z5outerm"), 1).Line, 8u);
  EXPECT_EQ(N.location(functionGUID("main"), 3).Line, 13u);
  EXPECT_EQ(M.stats().Modules.at("abcd"), "named");

  // Through the extension and back into another merger: the same names.
  IndexedMemProf P = M.build(RecordOrder::Canonical);
  SmallVector<char, 0> Out;
  ASSERT_TRUE(bool(writeIndexedProfile(P, {}, Out)));
  const size_t LLVMSize = Out.size();
  ASSERT_TRUE(bool(appendNamesExtension(Out, P, N)));
  StringRef File(Out.data(), Out.size());
  NamesExtensionInfo Info;
  auto Back = readNamesExtension(File, &Info);
  ASSERT_TRUE(bool(Back));
  EXPECT_EQ(Info.Offset, LLVMSize);
  auto Indexed = readIndexedProfile(File.take_front(Info.Offset));
  ASSERT_TRUE(bool(Indexed));
  ProfileMerger M2(nullptr);
  M2.addIndexed(*Indexed, hotColdSchema(), &*Back);
  for (const auto &KV : P.Frames) {
    const Frame &F = KV.second;
    EXPECT_EQ(M2.names().location(F.Function, F.LineOffset),
              N.location(F.Function, F.LineOffset));
    EXPECT_EQ(*M2.names().function(F.Function), *N.function(F.Function));
  }
}

/// Many long, repetitive C++ names: the string table is worth deflating.
struct Templated {
  IndexedMemProf P;
  ProfileNames N;
  Templated() {
    for (int I = 0; I < 40; ++I) {
      std::string Linkage = "_ZN5outer5inner" + std::to_string(I) + "fooEv";
      std::string Demangled = "outer::inner" + std::to_string(I) +
                              "<std::vector<std::pair<unsigned int, "
                              "std::basic_string<char>>>>::foo()";
      GUID G = functionGUID(Linkage);
      P.addCallStack({Frame{G, uint32_t(I), 1, false}});
      N.addFunction(G, {Linkage, Demangled, "/usr/include/c++/12/bits/x.h",
                        uint32_t(100 + I), "\x07"});
    }
  }
};

TEST(ProfileNames, CompressedStringTableRoundTrip) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "no zlib";
  Templated T;
  SmallVector<char, 0> Out;
  auto Stats = appendNamesExtension(Out, T.P, T.N);
  ASSERT_TRUE(bool(Stats));
  EXPECT_LT(Stats->StringTableBytes * 4, Stats->StringTableRawBytes);
  const size_t H = 0;
  EXPECT_EQ(support::endian::read32le(Out.data() + H + 12),
            names::FlagStringsZlib);
  EXPECT_EQ(support::endian::read32le(Out.data() + H + 44),
            Stats->StringTableRawBytes);
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  for (const auto &[G, F] : T.N.functions())
    EXPECT_EQ(*Back->function(G), F);

  // Lies about the inflated size, and a damaged stream.
  std::string B(Out.data(), Out.size());
  support::endian::write32le(&B[44], uint32_t(Stats->StringTableRawBytes + 1));
  auto R = readNamesExtension(B);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(toString(R.takeError()).find("inflates to"), std::string::npos);
  support::endian::write32le(&B[44], 0x7fffffff);
  R = readNamesExtension(B);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(toString(R.takeError()).find("claims to inflate"),
            std::string::npos);
  B.assign(Out.data(), Out.size());
  B[48 + 10] ^= 0x55;
  R = readNamesExtension(B);
  if (!R)
    consumeError(R.takeError());
}

//===----------------------------------------------------------------------===//
// Hostile extensions
//===----------------------------------------------------------------------===//

std::string smallFile() {
  Small S;
  SmallVector<char, 0> Out(16, 0);
  auto Stats = appendNamesExtension(Out, S.P, S.N);
  EXPECT_TRUE(bool(Stats));
  return std::string(Out.data(), Out.size());
}

TEST(ProfileNames, EveryCorruptionIsAcceptedOrRejectedCleanly) {
  const std::string Good = smallFile();
  std::mt19937 Rng(7);
  unsigned Rejected = 0;
  for (size_t I = 16; I < Good.size(); ++I)
    for (uint8_t Xor : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff),
                        uint8_t(Rng() | 1)}) {
      std::string Bad = Good;
      Bad[I] = char(uint8_t(Bad[I]) ^ Xor);
      auto R = readNamesExtension(Bad);
      if (R)
        continue; // e.g. a changed line, or a footer no longer ours
      ++Rejected;
      auto C = codeOf(R.takeError());
      ASSERT_TRUE(C.has_value());
    }
  EXPECT_GT(Rejected, 100u);
}

TEST(ProfileNames, EveryCorruptionOfACompressedTableIsHandled) {
  Templated T;
  SmallVector<char, 0> Out;
  ASSERT_TRUE(bool(appendNamesExtension(Out, T.P, T.N)));
  const std::string Good(Out.data(), Out.size());
  unsigned Rejected = 0;
  for (size_t I = 0; I < Good.size(); ++I) {
    std::string Bad = Good;
    Bad[I] = char(uint8_t(Bad[I]) ^ 0xff);
    auto R = readNamesExtension(Bad);
    if (R)
      continue;
    ++Rejected;
    ASSERT_TRUE(codeOf(R.takeError()).has_value());
  }
  EXPECT_GT(Rejected, Good.size() / 2);
}

TEST(ProfileNames, PrefixesHaveNoExtensionOrAreRejected) {
  const std::string Good = smallFile();
  for (size_t N = 0; N < Good.size(); ++N) {
    NamesExtensionInfo Info;
    auto R = readNamesExtension(StringRef(Good).take_front(N), &Info);
    if (R)
      EXPECT_FALSE(Info.Present);
    else
      consumeError(R.takeError());
  }
}

void put32(std::string &B, size_t Off, uint32_t V) {
  support::endian::write32le(&B[Off], V);
}

std::string rejectMessage(const std::string &B) {
  auto R = readNamesExtension(B);
  if (R)
    return "accepted";
  std::string Msg;
  handleAllErrors(R.takeError(), [&](const MemProfError &E) {
    Msg = (errorCodeName(E.code()) + ": " + E.detail() + " @" +
           Twine(E.offset()))
              .str();
  });
  return Msg;
}

TEST(ProfileNames, SpecificLies) {
  const std::string Good = smallFile();
  const size_t H = 16; // header offset
  const size_t Strings = H + 48, Modules = Strings + 39, Files = Modules + 4,
               Funcs = Files + 13, Frames = Funcs + 11;
  {
    std::string B = Good;
    put32(B, H + 16, 8); // LLVM part size
    EXPECT_EQ(rejectMessage(B), "malformed: names extension: LLVM part size 8 "
                                "is not the extension's offset 16 @32");
  }
  {
    std::string B = Good;
    put32(B, H + 8, 2); // version
    EXPECT_EQ(rejectMessage(B),
              "unsupported_version: names extension version 2; this tool "
              "reads version 1 @24");
  }
  {
    std::string B = Good;
    put32(B, H + 24, 40); // string table one byte longer
    EXPECT_EQ(rejectMessage(B).substr(0, 60),
              "malformed: names extension: section sizes add up to 73 bytes");
  }
  {
    // Node 1 ("src") made its own parent: a cycle is a forward link.
    std::string B = Good;
    B[Files + 4] = 2;
    EXPECT_EQ(rejectMessage(B), "malformed: names extension: file node 1 "
                                "parent 2 does not precede it @" +
                                    std::to_string(Files + 3));
  }
  {
    // A node name offset past the string table.
    std::string B = Good;
    B[Files + 1] = 0x7f;
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: file node 0 string offset 127 is "
              "outside the string table of 39 bytes @" +
                  std::to_string(Files + 1));
  }
  {
    // foo's linkage name offset moved to "main": two functions of one
    // GUID (the order is GUID order, strictly).
    std::string B = Good;
    B[Funcs + 1] = 8;
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: function 1 'main' has GUID "
              "0xdb956436e78dd5fa, not above the previous function's "
              "0xdb956436e78dd5fa @" +
                  std::to_string(Funcs + 6));
  }
  {
    // A frame of function index 2 (there are two functions).
    std::string B = Good;
    B[Frames + 1] = 2;
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: frame 0 function index 0 + 2 is "
              "not one of the 2 functions @" +
                  std::to_string(Frames + 1));
  }
  {
    // A varint that runs past its section.
    std::string B = Good;
    B[Frames + 4] = char(0x87);
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: frame table frame line: malformed "
              "uleb128, extends past end @" +
                  std::to_string(Frames + 4));
  }
  {
    std::string B = Good;
    support::endian::write64le(&B[B.size() - 16], 1u << 20);
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: extension size 1048576 does not "
              "fit the file of 152 bytes @136");
  }
}

} // namespace

TEST(ProfileNames, ModulePathsRoundTrip) {
  Small S;
  // Among several recorded paths the smallest, whatever the order.
  S.N.addModulePath("\x01\x02", "/opt/app/bin/b");
  S.N.addModulePath("\x01\x02", "/opt/app/bin/a");
  S.N.addModulePath("\x01\x02", "/opt/app/bin/c");
  S.N.addModulePath("\x01\x02", "");
  EXPECT_EQ(S.N.modulePath("\x01\x02"), "/opt/app/bin/a");
  SmallVector<char, 0> Out(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  // The flag says the module table holds paths.
  EXPECT_EQ(support::endian::read32le(Out.data() + 24 + 12) &
                names::FlagModulePaths,
            names::FlagModulePaths);
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->modulePath("\x01\x02"), "/opt/app/bin/a");
  EXPECT_EQ(Back->modulePath("\x03"), "");
  SmallVector<char, 0> Again(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Again, S.P, *Back)));
  EXPECT_EQ(hexOf(Out), hexOf(Again));

  // Without paths the file is what it was before paths existed (the
  // golden bytes): no flag, no path offsets.
  Small Plain;
  SmallVector<char, 0> NoPaths(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(NoPaths, Plain.P, Plain.N)));
  EXPECT_EQ(support::endian::read32le(NoPaths.data() + 24 + 12) &
                names::FlagModulePaths,
            0u);

  // Every corruption of the file with paths is read or refused cleanly.
  const std::string Good(Out.begin(), Out.end());
  for (size_t I = 24; I < Good.size(); ++I) {
    std::string Bad = Good;
    Bad[I] = char(uint8_t(Bad[I]) ^ 0xff);
    auto R = readNamesExtension(Bad);
    if (!R)
      ASSERT_TRUE(codeOf(R.takeError()).has_value());
  }
}

TEST(ProfileNames, ProgramsAndSiteModulesRoundTrip) {
  // Two programs share Foo: the context's site is in the other program's
  // module than Foo's recorded one (the smallest of the two).
  Small S;
  const CallStackId Ctx = S.P.CallStacks.begin()->first;
  S.N.addFunction(Foo, {"_Z3foov", "foo()", "/src/b.c", 20, "\x05"});
  ASSERT_EQ(S.N.function(Foo)->BuildId, "\x01\x02"); // the smallest
  S.N.addProgram("\x05");
  S.N.addProgram("\x01\x02");
  S.N.addProgram("");
  S.N.addSiteModule(Ctx, "\x05");
  S.N.addSiteModule(Ctx, "\x06"); // a larger one loses
  S.N.addSiteModule(Ctx, "");
  EXPECT_EQ(S.N.contextModule(Ctx, Foo), "\x05");
  EXPECT_EQ(S.N.contextModule(Ctx + 1, Foo), "\x01\x02");
  SmallVector<char, 0> Out(24, 0);
  auto St = appendNamesExtension(Out, S.P, S.N);
  ASSERT_TRUE(bool(St));
  EXPECT_EQ(St->NumSiteEntries, 1u);
  EXPECT_EQ(support::endian::read32le(Out.data() + 24 + 12) & names::FlagSites,
            names::FlagSites);
  auto Back = readNamesExtension(StringRef(Out.data(), Out.size()));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->contextModule(Ctx, Foo), "\x05");
  std::vector<std::string> Programs(Back->programs().begin(),
                                    Back->programs().end());
  EXPECT_EQ(Programs, (std::vector<std::string>{"\x01\x02", "\x05"}));
  SmallVector<char, 0> Again(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Again, S.P, *Back)));
  EXPECT_EQ(hexOf(Out), hexOf(Again));

  // A site in its leaf function's own module needs no entry; without
  // programs the file is what it was before the flag (the golden bytes).
  Small Plain;
  Plain.N.addSiteModule(Ctx, "\x01\x02");
  SmallVector<char, 0> NoSites(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(NoSites, Plain.P, Plain.N)));
  EXPECT_EQ(support::endian::read32le(NoSites.data() + 24 + 12) &
                names::FlagSites,
            0u);

  // Every corruption of the file is read or refused cleanly.
  const std::string Good(Out.begin(), Out.end());
  for (size_t I = 24; I < Good.size(); ++I)
    for (uint8_t Mask : {0xffu, 0x01u, 0x80u}) {
      std::string Bad = Good;
      Bad[I] = char(uint8_t(Bad[I]) ^ Mask);
      auto R = readNamesExtension(Bad);
      if (!R)
        ASSERT_TRUE(codeOf(R.takeError()).has_value());
    }
  // Hostile values: a site module reference past the modules, programs out
  // of order, a site count larger than the section.
  const uint32_t Sizes5 = support::endian::read32le(Good.data() + 24 + 48);
  const uint32_t Sizes6 = support::endian::read32le(Good.data() + 24 + 52);
  size_t End = 24 + 48 + 8;
  for (unsigned I = 0; I < 5; ++I)
    End += support::endian::read32le(Good.data() + 24 + 24 + 4 * I);
  const size_t ProgramsAt = End, SiteAt = End + Sizes5;
  ASSERT_EQ(Sizes5, 3u); // count 2, two one-byte references
  ASSERT_EQ(Sizes6, 1u + 8 + 1);
  {
    std::string Bad = Good;
    Bad[SiteAt + 9] = 0x7f; // module 127 of 3
    auto R = readNamesExtension(Bad);
    ASSERT_FALSE(bool(R));
    EXPECT_NE(toString(R.takeError()).find("site 0 module 127 is not one of"),
              std::string::npos);
  }
  {
    std::string Bad = Good;
    std::swap(Bad[ProgramsAt + 1], Bad[ProgramsAt + 2]);
    auto R = readNamesExtension(Bad);
    ASSERT_FALSE(bool(R));
    EXPECT_NE(toString(R.takeError()).find("program 1 is not ordered"),
              std::string::npos);
  }
  {
    std::string Bad = Good;
    Bad[SiteAt] = 0x7f; // 127 entries of at least 9 bytes in 10
    auto R = readNamesExtension(Bad);
    ASSERT_FALSE(bool(R));
    EXPECT_NE(toString(R.takeError()).find("site module count 127 does not fit"),
              std::string::npos);
  }
}

TEST(ProfileNames, ModulePathOutsideTheStringTable) {
  Small S;
  S.N.addModulePath("\x01\x02", "/p");
  SmallVector<char, 0> Out(16, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  std::string B(Out.begin(), Out.end());
  // The module table follows the header and the string table: one module
  // (count 1, length 2, the id, then its path's offset).
  const uint32_t StringsSize = support::endian::read32le(B.data() + 16 + 24);
  ASSERT_EQ(support::endian::read32le(B.data() + 16 + 12) &
                names::FlagStringsZlib,
            0u);
  const size_t PathRef = 16 + 48 + StringsSize + 4;
  B[PathRef] = 0x7f; // past the table (a one-byte varint)
  auto R = readNamesExtension(B);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(toString(R.takeError()).find("module 0 path string offset 127 is "
                                         "outside the string table"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Allocated types (FlagTypes)
//===----------------------------------------------------------------------===//

namespace {

/// Small, with a second context (main's own allocation) and both typed.
struct Typed : Small {
  CallStackId FooCtx = 0, MainCtx = 0;
  Typed() {
    FooCtx = P.CallStacks.begin()->first;
    MainCtx = P.addCallStack({Frame{Main, 3, 1, false}});
    P.Records[Main].AllocSites.push_back({MainCtx, {}});
    N.addType(FooCtx, "std::string");
    N.addType(MainCtx, "Foo");
  }
};

/// Offset of the type table in an extension written at \p H (the last
/// table: header sizes tell where it starts).
size_t typeTableAt(StringRef B, size_t H, uint32_t *Size = nullptr) {
  const uint32_t Flags = support::endian::read32le(B.data() + H + 12);
  size_t Headers = 48 + ((Flags & names::FlagSites) ? 8 : 0);
  size_t At = H + Headers + 8;
  for (unsigned I = 0; I < 5; ++I)
    At += support::endian::read32le(B.data() + H + 24 + 4 * I);
  if (Flags & names::FlagSites)
    for (unsigned I = 0; I < 2; ++I)
      At += support::endian::read32le(B.data() + H + 48 + 4 * I);
  if (Size)
    *Size = support::endian::read32le(B.data() + H + Headers);
  return At;
}

} // namespace

TEST(ProfileNames, TypesRoundTrip) {
  Typed S;
  SmallVector<char, 0> Out(24, 0);
  auto St = appendNamesExtension(Out, S.P, S.N);
  ASSERT_TRUE(bool(St)) << toString(St.takeError());
  EXPECT_EQ(St->NumTypeEntries, 2u);
  StringRef B(Out.data(), Out.size());
  EXPECT_EQ(support::endian::read32le(B.data() + 24 + 12),
            names::FlagTypes); // no sites, no paths, no zlib
  // The types header right after the header: the table's size, then 0.
  uint32_t Size = 0;
  const size_t At = typeTableAt(B, 24, &Size);
  EXPECT_EQ(support::endian::read32le(B.data() + 24 + 52), 0u);
  // count 2, then (u64 id, one-byte offset) in increasing id order.
  ASSERT_EQ(Size, 1u + 2 * 9);
  EXPECT_EQ(uint8_t(B[At]), 2u);
  const uint64_t Id0 = support::endian::read64le(B.data() + At + 1);
  const uint64_t Id1 = support::endian::read64le(B.data() + At + 10);
  EXPECT_EQ(Id0, std::min(S.FooCtx, S.MainCtx));
  EXPECT_EQ(Id1, std::max(S.FooCtx, S.MainCtx));
  // The type table ends the tables: then padding to 8, then the footer.
  EXPECT_LE(B.size() - 16 - (At + Size), 7u);

  auto Back = readNamesExtension(B);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->type(S.FooCtx), "std::string");
  EXPECT_EQ(Back->type(S.MainCtx), "Foo");
  EXPECT_EQ(Back->type(S.MainCtx + 1), "");
  EXPECT_FALSE(bool(checkNamesContexts(*Back, S.P)));
  SmallVector<char, 0> Again(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Again, S.P, *Back)));
  EXPECT_EQ(hexOf(Out), hexOf(Again));

  // Types ride behind the other optional headers and tables.
  S.N.addProgram("\x01\x02");
  S.N.addModulePath("\x01\x02", "/bin/a");
  SmallVector<char, 0> All(24, 0);
  ASSERT_TRUE(bool(appendNamesExtension(All, S.P, S.N)));
  auto Back2 = readNamesExtension(StringRef(All.data(), All.size()));
  ASSERT_TRUE(bool(Back2)) << toString(Back2.takeError());
  EXPECT_EQ(Back2->type(S.FooCtx), "std::string");
  EXPECT_EQ(Back2->programs().size(), 1u);

  // A context that is not in the profile is not written.
  S.N.addType(0x1234, "Unused");
  SmallVector<char, 0> Filtered(24, 0);
  auto St3 = appendNamesExtension(Filtered, S.P, S.N);
  ASSERT_TRUE(bool(St3));
  EXPECT_EQ(St3->NumTypeEntries, 2u);
}

TEST(ProfileNames, NoTypesNoFlag) {
  // Without a type the bytes are the golden ones (no flag, no header).
  Small S;
  S.N.addType(S.P.CallStacks.begin()->first, ""); // ignored
  SmallVector<char, 0> Out(16, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  const std::string Golden = smallFile();
  EXPECT_EQ(StringRef(Out.data(), Out.size()), StringRef(Golden));
}

TEST(ProfileNames, TypesMergeToTheSmallestWhateverTheOrder) {
  const CallStackId C = 42;
  const std::vector<std::string> Seen = {"int", "Foo", "std::string", "Bar"};
  std::vector<size_t> Order = {0, 1, 2, 3};
  std::string First;
  do {
    ProfileNames N;
    for (size_t I : Order)
      N.addType(C, Seen[I]);
    if (First.empty())
      First = N.type(C).str();
    EXPECT_EQ(N.type(C), First);
    // Partial merges: the first two and the last two, merged either way.
    ProfileNames A, B, AB, BA;
    A.addType(C, Seen[Order[0]]);
    A.addType(C, Seen[Order[1]]);
    B.addType(C, Seen[Order[2]]);
    B.addType(C, Seen[Order[3]]);
    AB.merge(A);
    AB.merge(B);
    BA.merge(B);
    BA.merge(A);
    EXPECT_EQ(AB.type(C), First);
    EXPECT_EQ(BA.type(C), First);
  } while (std::next_permutation(Order.begin(), Order.end()));
  EXPECT_EQ(First, "Bar"); // bytewise: upper case before lower
}

TEST(ProfileNames, TypeTableCorruptionsAreRejectedCleanly) {
  Typed S;
  SmallVector<char, 0> Out(16, 0);
  ASSERT_TRUE(bool(appendNamesExtension(Out, S.P, S.N)));
  const std::string Good(Out.begin(), Out.end());
  // Every single-byte corruption is read or refused cleanly, and a file
  // read back holds only types of contexts it names (or is refused by
  // checkNamesContexts).
  unsigned Rejected = 0;
  for (size_t I = 16; I < Good.size(); ++I)
    for (uint8_t Mask : {0xffu, 0x01u, 0x80u, 0x10u}) {
      std::string Bad = Good;
      Bad[I] = char(uint8_t(Bad[I]) ^ Mask);
      auto R = readNamesExtension(Bad);
      if (!R) {
        ++Rejected;
        ASSERT_TRUE(codeOf(R.takeError()).has_value());
        continue;
      }
      if (Error E = checkNamesContexts(*R, S.P)) {
        ++Rejected;
        ASSERT_TRUE(codeOf(std::move(E)).has_value());
        continue;
      }
      for (const auto &KV : R->types())
        EXPECT_TRUE(KV.first == S.FooCtx || KV.first == S.MainCtx);
    }
  EXPECT_GT(Rejected, 100u);

  uint32_t Size = 0;
  const size_t At = typeTableAt(Good, 16, &Size);
  const size_t TypesHeader = 16 + 48;
  {
    std::string B = Good;
    put32(B, TypesHeader + 4, 1); // the reserved field
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: types header's reserved word is "
              "1, not 0 @" +
                  std::to_string(TypesHeader + 4));
  }
  {
    std::string B = Good; // ids out of order
    std::string First = B.substr(At + 1, 9);
    B.replace(At + 1, 9, B.substr(At + 10, 9));
    B.replace(At + 10, 9, First);
    EXPECT_NE(rejectMessage(B).find("type 1 context id 0x"),
              std::string::npos);
    EXPECT_NE(rejectMessage(B).find("is not above the previous one @" +
                                    std::to_string(At + 10)),
              std::string::npos);
  }
  {
    std::string B = Good; // a name offset past the string table
    B[At + 9] = 0x7f;
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: type 0 name string offset 127 is "
              "outside the string table of " +
                  std::to_string(support::endian::read32le(B.data() + 16 + 24)) +
                  " bytes @" + std::to_string(At + 9));
  }
  {
    std::string B = Good; // 127 entries of at least 9 bytes in 18
    B[At] = 0x7f;
    EXPECT_NE(rejectMessage(B).find("type table type count 127 does not fit"),
              std::string::npos);
  }
  {
    std::string B = Good; // the empty string (every string's final NUL)
    const uint32_t StringsSize = support::endian::read32le(B.data() + 16 + 24);
    B[At + 9] = char(StringsSize - 1);
    EXPECT_EQ(rejectMessage(B),
              "malformed: names extension: type 0 has an empty name @" +
                  std::to_string(At + 9));
  }
  {
    // A type of a context the LLVM part does not have.
    std::string B = Good;
    support::endian::write64le(&B[At + 10], ~0ULL);
    auto R = readNamesExtension(B);
    ASSERT_TRUE(bool(R));
    Error E = checkNamesContexts(*R, S.P);
    ASSERT_TRUE(bool(E));
    std::string Msg;
    handleAllErrors(std::move(E), [&](const MemProfError &M) {
      Msg = (M.detail() + " @" + Twine(M.offset())).str();
    });
    EXPECT_EQ(Msg, "names extension: type of context 0xffffffffffffffff, "
                   "which is no allocation context of the LLVM part @" +
                       std::to_string(At + 10));
  }
  {
    // An older reader's view: the flag unknown is refused, not misread.
    std::string B = Good;
    put32(B, 16 + 12, names::FlagTypes | 0x100);
    EXPECT_EQ(rejectMessage(B).substr(0, 50),
              "unsupported_version: names extension flags 0x110 a");
  }
}

TEST(ProfileNames, TypesJoinAMergeFromIndexedInputs) {
  // Two files typing one context differently, merged in both orders and
  // through a partial merge: the smallest name, and the same bytes.
  Typed A;
  Typed B;
  B.N = ProfileNames();
  B.N.addFunction(Main, {"main", "main", "/src/a.c", 10, "\x01\x02"});
  B.N.addFunction(Foo, {"_Z3foov", "foo()", "/src/b.c", 20, "\x01\x02"});
  B.N.addType(B.FooCtx, "std::basic_string<char>"); // 'b' < 's': it wins
  B.N.addType(B.MainCtx, "Bar");
  auto Write = [](const IndexedMemProf &P, const ProfileNames &N) {
    SmallVector<char, 0> Out;
    EXPECT_FALSE(bool(writeIndexedProfile(P, {}, Out).takeError()));
    EXPECT_TRUE(bool(appendNamesExtension(Out, P, N)));
    return std::string(Out.begin(), Out.end());
  };
  auto Merge = [&](std::vector<std::string> Files) {
    ProfileMerger M(nullptr);
    for (const std::string &F : Files) {
      auto N = readNamesExtension(F);
      EXPECT_TRUE(bool(N));
      NamesExtensionInfo Info;
      consumeError(readNamesExtension(F, &Info).takeError());
      auto P = readIndexedProfile(StringRef(F).take_front(Info.Offset));
      EXPECT_TRUE(bool(P));
      EXPECT_FALSE(bool(checkNamesContexts(*N, *P)));
      M.addIndexed(*P, hotColdSchema(), &*N);
    }
    IndexedMemProf P = M.build(RecordOrder::Canonical);
    return Write(P, M.names());
  };
  const std::string FA = Write(A.P, A.N), FB = Write(B.P, B.N);
  const std::string AB = Merge({FA, FB}), BA = Merge({FB, FA});
  EXPECT_EQ(AB, BA);
  const std::string Partial = Merge({Merge({FA}), Merge({FB})});
  EXPECT_EQ(AB, Partial);
  auto N = readNamesExtension(AB);
  ASSERT_TRUE(bool(N));
  EXPECT_EQ(N->type(A.MainCtx), "Bar");
  EXPECT_EQ(N->type(A.FooCtx), "std::basic_string<char>");
}

namespace {

/// Two builds of one program: the same frames (so the same contexts), but
/// each build's DWARF types the allocation call differently (the program's
/// struct was renamed), and a vector's growth typed by its allocator frame.
class TypedModule : public ModuleSymbolizer {
public:
  explicit TypedModule(std::string NewType) : NewType(std::move(NewType)) {}
  StringRef path() const override { return "typed"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - S.Start;
  }
  PCSymbols symbolize(uint64_t Addr) override {
    PCSymbols S;
    S.Status = PCSymbols::Ok;
    auto Add = [&](StringRef Name, bool Inline) {
      SymbolizedFrame F;
      F.F = Frame{functionGUID(Name), 1, 1, Inline};
      F.FunctionName = Name.str();
      S.Frames.push_back(F);
    };
    if (Addr == 0x10) { // new T in make()
      Add("_Z4makev", false);
    } else if (Addr == 0x20) { // vector<Bar> growth, inlined into grow()
      Add("_ZNSt15__new_allocatorI3BarE8allocateEmPKv", true);
      Add("_ZNSt6vectorI3BarSaIS0_EE9push_backEOS0_", true);
      Add("_Z4growv", false);
    } else {
      Add("main", false);
    }
    return S;
  }
  std::string allocatedType(uint64_t Addr) override {
    return Addr == 0x10 ? NewType : std::string();
  }
  std::string NewType;
};

class TwoBuilds : public BinaryLocator {
public:
  TypedModule A{"Foo"}, B{"Bar"};
  Expected<ModuleSymbolizer *> find(StringRef Id) override {
    return Id == "\x0a" ? &A : &B;
  }
};

std::string rawRun(StringRef BuildId) {
  test::RawBuilder B;
  B.Segs.push_back({0x1000, 0x2000, 0x1000, BuildId.str()});
  B.MIBs.push_back({1, MemInfoBlock::forAllocation(40, 1, 1, 2, 0, 0), {}});
  B.MIBs.push_back({2, MemInfoBlock::forAllocation(64, 1, 1, 2, 0, 0), {}});
  B.Stacks.push_back({1, {0x1010, 0x1030}});
  B.Stacks.push_back({2, {0x1020, 0x1030}});
  return B.build();
}

} // namespace

TEST(ProfileNames, RawTypesMergeDeterministically) {
  const std::string RunA = rawRun("\x0a"), RunB = rawRun("\x0b");
  // Merges raw inputs (in order) and earlier outputs; returns the file.
  std::function<std::string(std::vector<std::string>)> Merge =
      [&](std::vector<std::string> Files) {
        TwoBuilds L;
        ProfileMerger M(&L);
        for (const std::string &F : Files) {
          if (auto R = readRawProfile(F)) {
            EXPECT_FALSE(bool(M.addRaw(*R)));
            continue;
          } else {
            consumeError(R.takeError());
          }
          NamesExtensionInfo Info;
          auto N = readNamesExtension(F, &Info);
          EXPECT_TRUE(bool(N));
          auto P = readIndexedProfile(StringRef(F).take_front(Info.Offset));
          EXPECT_TRUE(bool(P));
          M.addIndexed(*P, hotColdSchema(), &*N);
        }
        IndexedMemProf P = M.build(RecordOrder::Canonical);
        SmallVector<char, 0> Out;
        EXPECT_FALSE(bool(writeIndexedProfile(P, {}, Out).takeError()));
        EXPECT_TRUE(bool(appendNamesExtension(Out, P, M.names())));
        return std::string(Out.begin(), Out.end());
      };
  const std::string AB = Merge({RunA, RunB});
  EXPECT_EQ(Merge({RunB, RunA}), AB);
  EXPECT_EQ(Merge({Merge({RunA}), Merge({RunB})}), AB);
  EXPECT_EQ(Merge({Merge({RunB}), RunA}), AB);
  auto N = readNamesExtension(AB);
  ASSERT_TRUE(bool(N));
  std::set<std::string> Types;
  for (const auto &KV : N->types())
    Types.insert(KV.second.str());
  // "Bar" < "Foo": the smallest of the two builds' DWARF types; the
  // vector's growth is Bar by its allocator in both.
  EXPECT_EQ(Types, (std::set<std::string>{"Bar"}));
  EXPECT_EQ(N->types().size(), 2u);
  // One build alone: its own DWARF type.
  auto One = readNamesExtension(Merge({RunA}));
  ASSERT_TRUE(bool(One));
  Types.clear();
  for (const auto &KV : One->types())
    Types.insert(KV.second.str());
  EXPECT_EQ(Types, (std::set<std::string>{"Bar", "Foo"}));
}
