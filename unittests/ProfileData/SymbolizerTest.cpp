//===- SymbolizerTest.cpp - Symbolizer against llvm-symbolizer-22 ---------===//
//
// The test binaries are built by unittests/CMakeLists.txt from
// ProfileData/Inputs. llvm-symbolizer-22 (--inlining --functions=linkage
// --no-demangle --output-style=JSON) is the oracle for DWARF frames.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Symbolizer.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include "../RunCommand.h"
#include <cstdio>
#include <map>
#include <random>

using namespace llvm;
using namespace memprof;

namespace {

// ---------------------------------------------------------------------------
// Fakes: the interfaces must be implementable outside the library.

class FakeModule : public ModuleSymbolizer {
public:
  StringRef path() const override { return "fake.so"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - S.Offset;
  }
  PCSymbols symbolize(uint64_t Addr) override {
    ++Calls;
    PCSymbols R;
    R.Status = PCSymbols::Ok;
    SymbolizedFrame F;
    F.F = Frame{functionGUID("fake"), uint32_t(Addr), 0, false};
    F.FunctionName = "fake";
    R.Frames.push_back(F);
    return R;
  }
  unsigned Calls = 0;
};

class FakeLocator : public BinaryLocator {
public:
  Expected<ModuleSymbolizer *> find(StringRef BuildId) override {
    if (BuildId == "id")
      return &M;
    return nullptr;
  }
  FakeModule M;
};

TEST(SymbolizerInterface, IsFakeable) {
  FakeLocator FL;
  BinaryLocator &L = FL;
  Expected<ModuleSymbolizer *> M = L.find("id");
  ASSERT_TRUE(bool(M));
  ASSERT_NE(*M, nullptr);
  EXPECT_EQ((*M)->path(), "fake.so");
  SegmentInfo S{0x1000, 0x2000, 0x1000, "id"};
  EXPECT_EQ((*M)->toBinaryAddress(S, 0x1234), 0x234u);
  PCSymbols R = (*M)->symbolize(7);
  EXPECT_EQ(R.Status, PCSymbols::Ok);
  EXPECT_EQ(R.Frames[0].F.LineOffset, 7u);
  Expected<ModuleSymbolizer *> None = L.find("other");
  ASSERT_TRUE(bool(None));
  EXPECT_EQ(*None, nullptr);
}

TEST(SymbolizerHex, BuildIdToHex) {
  EXPECT_EQ(buildIdToHex(StringRef("\x00\xab\x10\xff", 4)), "00ab10ff");
  EXPECT_EQ(buildIdToHex(""), "");
}

#ifdef MEMPROF_SYM_INPUTS

std::string input(StringRef Name) {
  SmallString<256> P(MEMPROF_SYM_INPUTS);
  sys::path::append(P, Name);
  return std::string(P);
}

std::string rawId(StringRef Hex) { return fromHex(Hex); }

// ---------------------------------------------------------------------------
// Facts about a test binary, read with LLVM's object library.

struct BinaryFacts {
  std::unique_ptr<MemoryBuffer> Buf;
  std::unique_ptr<object::ObjectFile> Obj;
  std::string BuildId;
  struct Seg {
    uint64_t VAddr, MemSz;
  };
  std::vector<Seg> ExecSegs;
  struct Func {
    std::string Name;
    uint64_t Addr, Size;
  };
  std::vector<Func> Funcs; // FUNC symbols with a size in executable sections

  const Func *func(StringRef Name) const {
    for (const Func &F : Funcs)
      if (F.Name == Name)
        return &F;
    return nullptr;
  }
};

BinaryFacts readFacts(const std::string &Path) {
  BinaryFacts B;
  auto BufOr = MemoryBuffer::getFile(Path);
  if (!BufOr) {
    ADD_FAILURE() << "cannot read " << Path;
    return B;
  }
  B.Buf = std::move(*BufOr);
  auto ObjOr = object::ObjectFile::createObjectFile(B.Buf->getMemBufferRef());
  if (!ObjOr) {
    ADD_FAILURE() << toString(ObjOr.takeError());
    return B;
  }
  B.Obj = std::move(*ObjOr);
  B.BuildId = std::string(toStringRef(object::getBuildID(B.Obj.get())));
  auto *Elf = cast<object::ELF64LEObjectFile>(B.Obj.get());
  for (const auto &P : cantFail(Elf->getELFFile().program_headers()))
    if (P.p_type == ELF::PT_LOAD && (P.p_flags & ELF::PF_X))
      B.ExecSegs.push_back({P.p_vaddr, P.p_memsz});
  for (const object::ELFSymbolRef &S : Elf->symbols()) {
    if (S.getELFType() != ELF::STT_FUNC || S.getSize() == 0)
      continue;
    auto Sec = cantFail(S.getSection());
    if (Sec == Elf->section_end() ||
        !(object::ELFSectionRef(*Sec).getFlags() & ELF::SHF_EXECINSTR))
      continue;
    B.Funcs.push_back(
        {cantFail(S.getName()).str(), cantFail(S.getAddress()), S.getSize()});
  }
  return B;
}

// ---------------------------------------------------------------------------
// The oracle.

struct OracleFrame {
  std::string FunctionName, FileName;
  uint32_t Line = 0, Column = 0, StartLine = 0;
};

/// llvm-symbolizer's frames for each address, innermost first.
std::map<uint64_t, std::vector<OracleFrame>>
runOracle(const std::string &Bin, const std::vector<uint64_t> &Addrs) {
  std::map<uint64_t, std::vector<OracleFrame>> Result;
  const size_t Chunk = 400;
  for (size_t Begin = 0; Begin < Addrs.size(); Begin += Chunk) {
    std::string Cmd = std::string(MEMPROF_LLVM_SYMBOLIZER) + " --obj='" + Bin +
                      "' --inlining --functions=linkage --no-demangle "
                      "--output-style=JSON";
    for (size_t I = Begin; I < std::min(Addrs.size(), Begin + Chunk); ++I)
      Cmd += " 0x" + utohexstr(Addrs[I]);
    std::string Out = memprof::test::runCommand(Cmd);
    // One JSON array for all command-line addresses (older tools: one per
    // line).
    SmallVector<StringRef, 0> Docs;
    Expected<json::Value> Whole = json::parse(Out);
    std::vector<json::Value> Values;
    if (Whole) {
      Values.push_back(std::move(*Whole));
    } else {
      consumeError(Whole.takeError());
      SmallVector<StringRef, 0> Lines;
      StringRef(Out).split(Lines, '\n', -1, false);
      for (StringRef L : Lines)
        if (Expected<json::Value> V = json::parse(L))
          Values.push_back(std::move(*V));
        else
          ADD_FAILURE() << toString(V.takeError());
    }
    for (const json::Value &V : Values) {
      const json::Array *Arr = V.getAsArray();
      if (!Arr)
        continue;
      for (const json::Value &E : *Arr) {
        const json::Object *O = E.getAsObject();
        uint64_t Addr = 0;
        StringRef(*O->getString("Address"))
            .drop_front(2)
            .getAsInteger(16, Addr);
        std::vector<OracleFrame> Frames;
        for (const json::Value &S : *O->getArray("Symbol")) {
          const json::Object *SO = S.getAsObject();
          OracleFrame F;
          F.FunctionName = SO->getString("FunctionName")->str();
          F.FileName = SO->getString("FileName")->str();
          F.Line = *SO->getInteger("Line");
          F.Column = *SO->getInteger("Column");
          F.StartLine = *SO->getInteger("StartLine");
          Frames.push_back(F);
        }
        Result[Addr] = std::move(Frames);
      }
    }
  }
  EXPECT_EQ(Result.size(),
            std::set<uint64_t>(Addrs.begin(), Addrs.end()).size())
      << "oracle output incomplete for " << Bin;
  return Result;
}

bool isRuntimeFile(StringRef Path) {
  StringRef N = sys::path::filename(Path);
  return N == "memprof_malloc_linux.cpp" || N == "memprof_interceptors.cpp" ||
         N == "memprof_new_delete.cpp";
}

struct CompareStats {
  unsigned Addresses = 0;
  unsigned DwarfAddresses = 0;
  unsigned InlineChains = 0;
  unsigned MaxDepth = 0;
  unsigned RuntimeFileAddresses = 0;
  unsigned SymbolTableAddresses = 0;
};

/// Symbolizes every byte of every function of \p Facts with \p M and
/// compares with llvm-symbolizer run on \p OracleBin.
CompareStats compareWithOracle(ModuleSymbolizer &M, const BinaryFacts &Facts,
                               const std::string &OracleBin) {
  CompareStats Stats;
  std::vector<uint64_t> Addrs;
  for (const auto &F : Facts.Funcs)
    for (uint64_t A = F.Addr; A < F.Addr + F.Size; ++A)
      Addrs.push_back(A);
  auto Oracle = runOracle(OracleBin, Addrs);
  for (uint64_t A : Addrs) {
    auto It = Oracle.find(A);
    if (It == Oracle.end())
      continue;
    const std::vector<OracleFrame> &Want = It->second;
    PCSymbols Got = M.symbolize(A);
    ++Stats.Addresses;
    SCOPED_TRACE("address 0x" + utohexstr(A) + " in " + OracleBin);
    if (Want.empty()) {
      ADD_FAILURE() << "oracle gave no frame";
      continue;
    }
    if (Want[0].FileName.empty()) {
      // No DWARF: LLVM's RawMemProfReader drops the PC.
      EXPECT_NE(Got.Status, PCSymbols::Ok);
      if (Got.Status == PCSymbols::NoDebugInfo && !Got.Frames.empty())
        EXPECT_EQ(Got.Frames[0].FunctionName, Want[0].FunctionName);
      ++Stats.SymbolTableAddresses;
      continue;
    }
    ++Stats.DwarfAddresses;
    if (isRuntimeFile(Want[0].FileName)) {
      EXPECT_EQ(Got.Status, PCSymbols::Runtime);
      ++Stats.RuntimeFileAddresses;
      continue;
    }
    EXPECT_EQ(Got.Status, PCSymbols::Ok);
    EXPECT_EQ(Got.Frames.size(), Want.size());
    if (Got.Status != PCSymbols::Ok || Got.Frames.size() != Want.size())
      continue;
    if (Want.size() > 1)
      ++Stats.InlineChains;
    Stats.MaxDepth = std::max<unsigned>(Stats.MaxDepth, Want.size());
    for (size_t I = 0; I < Want.size(); ++I) {
      const SymbolizedFrame &G = Got.Frames[I];
      const OracleFrame &W = Want[I];
      EXPECT_EQ(G.FunctionName, W.FunctionName) << "frame " << I;
      EXPECT_EQ(G.F.Function, functionGUID(W.FunctionName)) << "frame " << I;
      EXPECT_EQ(G.Line, W.Line) << "frame " << I;
      EXPECT_EQ(G.F.LineOffset, uint32_t(W.Line - W.StartLine))
          << "frame " << I;
      EXPECT_EQ(G.F.Column, W.Column) << "frame " << I;
      EXPECT_EQ(G.F.IsInlineFrame, I + 1 != Want.size()) << "frame " << I;
      // The oracle prints absolute paths, we keep the raw line-table name.
      EXPECT_EQ(sys::path::filename(G.FileName),
                sys::path::filename(W.FileName))
          << "frame " << I;
    }
  }
  return Stats;
}

ModuleSymbolizer *findModule(ElfBinaryLocator &L, StringRef BuildId) {
  Expected<ModuleSymbolizer *> M = L.find(BuildId);
  if (!M) {
    ADD_FAILURE() << toString(M.takeError());
    return nullptr;
  }
  return *M;
}

std::unique_ptr<ElfBinaryLocator>
makeLocator(const std::vector<std::string> &Bins,
            const std::vector<std::string> &Dirs) {
  auto LOr = ElfBinaryLocator::create(Bins, Dirs);
  if (!LOr) {
    ADD_FAILURE() << toString(LOr.takeError());
    return nullptr;
  }
  return std::move(*LOr);
}

void reportStats(StringRef What, const CompareStats &S) {
  // Printed so that the comparison's size is visible in the test log.
  outs() << "[oracle] " << What << ": " << S.Addresses << " addresses, "
         << S.DwarfAddresses << " with DWARF, " << S.InlineChains
         << " inline chains (max depth " << S.MaxDepth << "), "
         << S.RuntimeFileAddresses << " in runtime files, "
         << S.SymbolTableAddresses << " without DWARF\n";
}

// ---------------------------------------------------------------------------

class SymbolizerOracle : public ::testing::TestWithParam<const char *> {};

TEST_P(SymbolizerOracle, MatchesLLVMSymbolizer) {
  std::string Bin = input(GetParam());
  BinaryFacts Facts = readFacts(Bin);
  ASSERT_FALSE(Facts.BuildId.empty());
  auto L = makeLocator({Bin}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->path(), Bin);
  CompareStats S = compareWithOracle(*M, Facts, Bin);
  reportStats(GetParam(), S);
  EXPECT_GT(S.DwarfAddresses, 300u);
  EXPECT_GT(S.InlineChains, 10u);
  EXPECT_GE(S.MaxDepth, 3u); // initAlloc in checkedAlloc in makeBuffer
  EXPECT_GT(S.RuntimeFileAddresses, 0u);
  EXPECT_GT(S.SymbolTableAddresses, 0u);
}

// Named so that --gtest_filter='Symbol*' selects it.
INSTANTIATE_TEST_SUITE_P(Symbolizer, SymbolizerOracle,
                         ::testing::Values("sym-pie", "sym-nopie", "sym-seg2",
                                           "sym-pie-gz"));

TEST(Symbolizer, StatusOfFramesWithoutDwarf) {
  std::string Bin = input("sym-pie");
  BinaryFacts Facts = readFacts(Bin);
  auto L = makeLocator({Bin}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);

  const auto *Helper = Facts.func("nodebug_helper");
  ASSERT_NE(Helper, nullptr);
  PCSymbols R = M->symbolize(Helper->Addr + 1);
  EXPECT_EQ(R.Status, PCSymbols::NoDebugInfo);
  ASSERT_EQ(R.Frames.size(), 1u);
  EXPECT_EQ(R.Frames[0].FunctionName, "nodebug_helper");

  const auto *Fake = Facts.func("__interceptor_fake_alloc");
  ASSERT_NE(Fake, nullptr);
  EXPECT_EQ(M->symbolize(Fake->Addr + 1).Status, PCSymbols::Runtime);

  // DWARF whose file is a memprof runtime source: dropped like LLVM does.
  const auto *RtNew = Facts.func("_Z14fakeRuntimeNewm");
  ASSERT_NE(RtNew, nullptr);
  EXPECT_EQ(M->symbolize(RtNew->Addr + 1).Status, PCSymbols::Runtime);

  // Far outside any symbol.
  EXPECT_EQ(M->symbolize(0x7fffffff0000ULL).Status, PCSymbols::Failed);

  // Cached results are identical.
  const auto *Make = Facts.func("_Z10makeBufferm");
  ASSERT_NE(Make, nullptr);
  for (uint64_t A = Make->Addr; A < Make->Addr + Make->Size; ++A) {
    PCSymbols First = M->symbolize(A), Second = M->symbolize(A);
    ASSERT_EQ(First.Status, Second.Status);
    ASSERT_EQ(First.Frames.size(), Second.Frames.size());
    for (size_t I = 0; I < First.Frames.size(); ++I)
      EXPECT_EQ(First.Frames[I].F, Second.Frames[I].F);
  }
}

TEST(Symbolizer, StrippedBinaryFallsBackToSymbolTable) {
  std::string Bin = input("sym-stripped");
  BinaryFacts Facts = readFacts(Bin);
  auto L = makeLocator({Bin}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);

  std::vector<uint64_t> Addrs;
  for (const auto &F : Facts.Funcs)
    for (uint64_t A = F.Addr; A < F.Addr + F.Size; ++A)
      Addrs.push_back(A);
  auto Oracle = runOracle(Bin, Addrs);
  unsigned Compared = 0, Runtime = 0;
  for (const auto &F : Facts.Funcs) {
    for (uint64_t A = F.Addr; A < F.Addr + F.Size; ++A) {
      SCOPED_TRACE(F.Name + " +" + std::to_string(A - F.Addr));
      PCSymbols R = M->symbolize(A);
      if (F.Name == "__interceptor_fake_alloc") {
        EXPECT_EQ(R.Status, PCSymbols::Runtime);
        ++Runtime;
        continue;
      }
      ASSERT_EQ(R.Status, PCSymbols::Ok);
      ASSERT_EQ(R.Frames.size(), 1u);
      EXPECT_EQ(R.Frames[0].F, (Frame{functionGUID(F.Name), 0, 0, false}));
      EXPECT_EQ(R.Frames[0].FunctionName, F.Name);
      EXPECT_TRUE(R.Frames[0].FileName.empty());
      // llvm-symbolizer names the same symbol (from the symbol table).
      ASSERT_EQ(Oracle[A].size(), 1u);
      EXPECT_EQ(Oracle[A][0].FunctionName, F.Name);
      ++Compared;
    }
  }
  outs() << "[oracle] sym-stripped: " << Compared
         << " symbol-table addresses compared, " << Runtime << " runtime\n";
  EXPECT_GT(Compared, 300u);
  EXPECT_GT(Runtime, 0u);
  // Spot check GUIDs against the published values' function.
  ASSERT_NE(Facts.func("main"), nullptr);
  EXPECT_EQ(M->symbolize(Facts.func("main")->Addr).Frames[0].F.Function,
            0xDB956436E78DD5FAULL);
}

TEST(Symbolizer, SeparateDebugFileByBuildIdLayout) {
  std::string Id = rawId(MEMPROF_SYM_SPLIT_ID);
  std::string Hex = MEMPROF_SYM_SPLIT_ID;
  std::string DebugPath = input("debug-dir/.build-id/" + Hex.substr(0, 2) +
                                "/" + Hex.substr(2) + ".debug");
  BinaryFacts Facts = readFacts(input("sym-split"));
  ASSERT_EQ(Facts.BuildId, Id);

  // DIR/.build-id/ab/cdef….debug
  auto L = makeLocator({}, {input("debug-dir")});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Id);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->path(), DebugPath);
  CompareStats S = compareWithOracle(*M, Facts, input("sym-split"));
  reportStats("debug file vs sym-split", S);
  EXPECT_GT(S.DwarfAddresses, 300u);
  EXPECT_GE(S.MaxDepth, 3u);
  // The program headers of the debug file give the mapping.
  BinaryFacts DebugFacts = readFacts(DebugPath);
  ASSERT_EQ(DebugFacts.ExecSegs.size(), 1u);
  SegmentInfo Seg{0x560000000000ULL + Facts.ExecSegs[0].VAddr, 0,
                  0x560000000000ULL, Id};
  Seg.End = Seg.Start + Facts.ExecSegs[0].MemSz;
  EXPECT_EQ(M->toBinaryAddress(Seg, Seg.Start + 5),
            Facts.ExecSegs[0].VAddr + 5);

  // Found once, then cached.
  ModuleSymbolizer *Again = findModule(*L, Id);
  EXPECT_EQ(Again, M);

  // DIR is itself a .build-id directory: DIR/ab/cdef….debug.
  auto L2 = makeLocator({}, {input("debug-dir/.build-id")});
  ASSERT_TRUE(L2);
  ModuleSymbolizer *M2 = findModule(*L2, Id);
  ASSERT_NE(M2, nullptr);
  EXPECT_EQ(M2->path(), input("debug-dir/.build-id/" + Hex.substr(0, 2) + "/" +
                              Hex.substr(2) + ".debug"));

  // DIR/.build-id/ab/cdef… (no suffix) holding the unstripped binary.
  auto L3 = makeLocator({}, {input("binid-dir")});
  ASSERT_TRUE(L3);
  ModuleSymbolizer *M3 = findModule(*L3, Id);
  ASSERT_NE(M3, nullptr);
  EXPECT_EQ(M3->path(), input("binid-dir/.build-id/" + Hex.substr(0, 2) + "/" +
                              Hex.substr(2)));

  // A fully stripped profiled binary: the debug file with DWARF wins.
  auto L4 = makeLocator({input("sym-split.stripped")}, {input("debug-dir")});
  ASSERT_TRUE(L4);
  ModuleSymbolizer *M4 = findModule(*L4, Id);
  ASSERT_NE(M4, nullptr);
  EXPECT_EQ(M4->path(), DebugPath);

  // Without the search dir the stripped binary is all there is: it has no
  // symbol for the program's functions (only .dynsym), so nothing is known.
  auto L5 = makeLocator({input("sym-split.stripped")}, {});
  ASSERT_TRUE(L5);
  ModuleSymbolizer *M5 = findModule(*L5, Id);
  ASSERT_NE(M5, nullptr);
  EXPECT_EQ(M5->path(), input("sym-split.stripped"));
  EXPECT_EQ(M5->symbolize(Facts.func("main")->Addr).Status, PCSymbols::Failed);
}

TEST(Symbolizer, SearchDirectoryScan) {
  std::string Id = rawId(MEMPROF_SYM_SCAN_ID);
  auto L = makeLocator({}, {input("scan-dir")});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Id);
  ASSERT_NE(M, nullptr);
  // The stripped twin (scan-dir/aaa/…) is found first, but the debug file
  // has DWARF.
  EXPECT_EQ(M->path(), input("scan-dir/nested/a/b/sym-scan.dbg"));
  BinaryFacts Facts = readFacts(input("sym-scan"));
  CompareStats S = compareWithOracle(*M, Facts, input("sym-scan"));
  reportStats("scanned debug file vs sym-scan", S);
  EXPECT_GT(S.DwarfAddresses, 300u);
  // The truncated ELF file was skipped with a note.
  bool NotedBroken = false;
  for (const std::string &N : L->notes())
    NotedBroken |= StringRef(N).contains("broken.elf");
  EXPECT_TRUE(NotedBroken);

  // Unknown build id.
  Expected<ModuleSymbolizer *> None = L->find(rawId("0123456789"));
  ASSERT_TRUE(bool(None));
  EXPECT_EQ(*None, nullptr);
  Expected<ModuleSymbolizer *> Empty = L->find("");
  ASSERT_TRUE(bool(Empty));
  EXPECT_EQ(*Empty, nullptr);
  // A missing search directory is not an error.
  auto L2 = makeLocator({}, {input("no-such-dir")});
  ASSERT_TRUE(L2);
  Expected<ModuleSymbolizer *> Missing = L2->find(Id);
  ASSERT_TRUE(bool(Missing));
  EXPECT_EQ(*Missing, nullptr);
}

TEST(Symbolizer, SystemDirectoriesSearchedLastAndFlat) {
  // A system directory's own files are indexed through their program
  // headers' build-id note; its subdirectories are not searched.
  SmallString<256> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-sysdir", Dir));
  SmallString<256> Copy(Dir), SubDir(Dir), Hidden;
  sys::path::append(Copy, "libsym.so.1");
  sys::path::append(SubDir, "sub");
  ASSERT_FALSE(sys::fs::copy_file(input("sym-pie"), Copy));
  ASSERT_FALSE(sys::fs::create_directory(SubDir));
  Hidden = SubDir;
  sys::path::append(Hidden, "libnopie.so");
  ASSERT_FALSE(sys::fs::copy_file(input("sym-nopie"), Hidden));
  const std::string PieId = readFacts(input("sym-pie")).BuildId;
  const std::string NopieId = readFacts(input("sym-nopie")).BuildId;
  ASSERT_NE(PieId, NopieId);

  auto L = makeLocator({}, {});
  ASSERT_TRUE(L);
  L->searchSystemDirs({std::string(Dir)});
  ModuleSymbolizer *M = findModule(*L, PieId);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->path(), std::string(Copy));
  EXPECT_EQ(findModule(*L, NopieId), nullptr);
  // Searched after the search directories: scan-dir's debug file wins
  // over a system directory holding its stripped twin.
  std::string ScanId = rawId(MEMPROF_SYM_SCAN_ID);
  SmallString<256> Twin(Dir);
  sys::path::append(Twin, "sym-scan");
  ASSERT_FALSE(sys::fs::copy_file(input("sym-scan"), Twin));
  auto L2 = makeLocator({}, {input("scan-dir")});
  ASSERT_TRUE(L2);
  L2->searchSystemDirs({std::string(Dir)});
  M = findModule(*L2, ScanId);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->path(), input("scan-dir/nested/a/b/sym-scan.dbg"));
  // Without the search directory, the system directory's copy is found.
  auto L3 = makeLocator({}, {});
  ASSERT_TRUE(L3);
  L3->searchSystemDirs({std::string(Dir)});
  M = findModule(*L3, ScanId);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->path(), std::string(Twin));
  sys::fs::remove_directories(Dir);
}

TEST(Symbolizer, SystemDirectoriesHoldThisProcessesLibc) {
  // The default directories exist, once each by real path, and hold the
  // libc this test runs with (or its detached debug file).
  std::vector<std::string> Dirs = ElfBinaryLocator::systemDirs();
  ASSERT_FALSE(Dirs.empty());
  for (size_t I = 0; I < Dirs.size(); ++I) {
    SmallString<256> Real;
    ASSERT_FALSE(sys::fs::real_path(Dirs[I], Real));
    EXPECT_EQ(Dirs[I], std::string(Real));
    for (size_t J = 0; J < I; ++J)
      EXPECT_NE(Dirs[I], Dirs[J]);
  }
  std::string Libc;
  for (const char *Cand : {"/lib/x86_64-linux-gnu/libc.so.6",
                           "/usr/lib/x86_64-linux-gnu/libc.so.6"})
    if (sys::fs::exists(Cand)) {
      Libc = Cand;
      break;
    }
  if (Libc.empty())
    GTEST_SKIP() << "no libc.so.6 in Debian's place";
  const std::string Id = readFacts(Libc).BuildId;
  ASSERT_FALSE(Id.empty());
  auto L = makeLocator({}, {});
  ASSERT_TRUE(L);
  L->searchSystemDirs(Dirs);
  ModuleSymbolizer *M = findModule(*L, Id);
  ASSERT_NE(M, nullptr);
  SmallString<256> Found, Want;
  ASSERT_FALSE(sys::fs::real_path(M->path(), Found));
  ASSERT_FALSE(sys::fs::real_path(Libc, Want));
  EXPECT_TRUE(Found == Want || StringRef(Found).starts_with("/usr/lib/debug/"))
      << Found.str().str();
}

TEST(Symbolizer, ToBinaryAddressSingleSegment) {
  for (const char *Name : {"sym-pie", "sym-nopie"}) {
    SCOPED_TRACE(Name);
    std::string Bin = input(Name);
    BinaryFacts Facts = readFacts(Bin);
    ASSERT_EQ(Facts.ExecSegs.size(), 1u);
    auto L = makeLocator({Bin}, {});
    ASSERT_TRUE(L);
    ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
    ASSERT_NE(M, nullptr);
    const auto &E = Facts.ExecSegs[0];
    bool Pie = StringRef(Name) == "sym-pie";
    uint64_t Bias = Pie ? 0x55A64E609000ULL : 0;
    if (!Pie)
      EXPECT_GE(E.VAddr, 0x400000u);
    SegmentInfo S{Bias + E.VAddr, Bias + E.VAddr + E.MemSz, Bias,
                  Facts.BuildId};
    for (uint64_t Delta : {uint64_t(1), uint64_t(0x40), E.MemSz}) {
      uint64_t PC = S.Start + Delta;
      // LLVM's formula (spec 2.1).
      uint64_t Llvm = PC + E.VAddr - S.Start;
      EXPECT_EQ(M->toBinaryAddress(S, PC), Llvm);
      EXPECT_EQ(M->toBinaryAddress(S, PC), E.VAddr + Delta);
    }
    // LLVM ignores Offset; so do we for a single executable segment.
    SegmentInfo NoOffset = S;
    NoOffset.Offset = 0x1234;
    EXPECT_EQ(M->toBinaryAddress(NoOffset, S.Start + 3), E.VAddr + 3);
    // The mapped address symbolizes like the binary address.
    const auto *Main = Facts.func("main");
    ASSERT_NE(Main, nullptr);
    uint64_t PC = Bias + Main->Addr + 4;
    PCSymbols R = M->symbolize(M->toBinaryAddress(S, PC));
    ASSERT_EQ(R.Status, PCSymbols::Ok);
    EXPECT_EQ(R.Frames.back().FunctionName, "main");
  }
}

TEST(Symbolizer, ToBinaryAddressTwoExecutableSegments) {
  std::string Bin = input("sym-seg2");
  BinaryFacts Facts = readFacts(Bin);
  ASSERT_EQ(Facts.ExecSegs.size(), 2u)
      << "the linker did not make two executable segments";
  ASSERT_NE(Facts.ExecSegs[0].MemSz, Facts.ExecSegs[1].MemSz);
  auto L = makeLocator({Bin}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);
  const uint64_t Bias = 0x7F1234000000ULL;
  for (const auto &E : Facts.ExecSegs) {
    SegmentInfo S{Bias + E.VAddr, Bias + E.VAddr + E.MemSz, Bias,
                  Facts.BuildId};
    EXPECT_EQ(M->toBinaryAddress(S, S.Start + 2), E.VAddr + 2);
    // Chosen by size when Offset is not the bias.
    SegmentInfo Odd = S;
    Odd.Offset = 0;
    EXPECT_EQ(M->toBinaryAddress(Odd, S.Start + 2), E.VAddr + 2);
  }
  // farFunction lives in the second segment.
  const auto *Far = Facts.func("_Z11farFunctioni");
  ASSERT_NE(Far, nullptr);
  const auto &E2 = Far->Addr >= Facts.ExecSegs[1].VAddr ? Facts.ExecSegs[1]
                                                        : Facts.ExecSegs[0];
  ASSERT_TRUE(Far->Addr >= E2.VAddr && Far->Addr < E2.VAddr + E2.MemSz);
  SegmentInfo S2{Bias + E2.VAddr, Bias + E2.VAddr + E2.MemSz, Bias,
                 Facts.BuildId};
  PCSymbols R = M->symbolize(M->toBinaryAddress(S2, Bias + Far->Addr + 1));
  ASSERT_EQ(R.Status, PCSymbols::Ok);
  EXPECT_EQ(R.Frames.back().FunctionName, "_Z11farFunctioni");
  // No executable segment of that size: fall back to PC - Offset.
  SegmentInfo Unknown{Bias + 0x1000, Bias + 0x1001, Bias, Facts.BuildId};
  EXPECT_EQ(M->toBinaryAddress(Unknown, Bias + 0x1000), 0x1000u);
  // A bias that is not page aligned is not a match either.
  const auto &E1 = Facts.ExecSegs[0];
  SegmentInfo Skewed{Bias + E1.VAddr + 8, Bias + E1.VAddr + 8 + E1.MemSz, Bias,
                     Facts.BuildId};
  EXPECT_EQ(M->toBinaryAddress(Skewed, Skewed.Start), E1.VAddr + 8);
}

void expectLocatorError(const std::vector<std::string> &Bins,
                        StringRef Contains, ErrorCode Code) {
  auto LOr = ElfBinaryLocator::create(Bins, {});
  ASSERT_FALSE(bool(LOr)) << "expected: " << Contains.str();
  bool Matched = false;
  std::string Msg;
  handleAllErrors(LOr.takeError(), [&](const MemProfError &E) {
    Matched = E.code() == Code;
    Msg = E.detail();
  });
  EXPECT_TRUE(Matched) << Msg;
  EXPECT_TRUE(StringRef(Msg).contains(Contains)) << Msg;
  EXPECT_TRUE(StringRef(Msg).contains(Bins.back())) << Msg;
}

TEST(ElfBinaryLocator, Errors) {
  expectLocatorError({input("no-such-binary")}, "cannot open", ErrorCode::IO);
  expectLocatorError({MEMPROF_SYM_INPUTS}, "not a regular file", ErrorCode::IO);
  expectLocatorError(
      {std::string(MEMPROF_SYM_SOURCE_DIR) + "/SymbolizerTiny.c"},
      "not an ELF file", ErrorCode::Symbolization);
  expectLocatorError({input("tiny-i386.o")}, "unsupported target",
                     ErrorCode::Symbolization);
  expectLocatorError({input("tiny-aarch64.o")}, "unsupported target",
                     ErrorCode::Symbolization);
  expectLocatorError({input("sym-nobuildid")}, "no build id found in binary",
                     ErrorCode::Symbolization);
  expectLocatorError({input("scan-dir/broken.elf")}, "malformed",
                     ErrorCode::Symbolization);
  BinaryFacts Facts = readFacts(input("sym-pie"));
  // Different ids are fine.
  auto L = makeLocator({input("sym-pie"), input("sym-nopie")}, {});
  ASSERT_TRUE(L);
  EXPECT_NE(findModule(*L, Facts.BuildId), nullptr);
  EXPECT_NE(findModule(*L, readFacts(input("sym-nopie")).BuildId), nullptr);
}

// sym-stripped is sym-pie without DWARF: the same build id. Given both, in
// either order, the locator uses the copy with debug info and says so.
TEST(ElfBinaryLocator, SameBuildIdPrefersDebugInfo) {
  BinaryFacts Facts = readFacts(input("sym-pie"));
  const auto *Make = Facts.func("_Z10makeBufferm");
  ASSERT_NE(Make, nullptr);
  for (bool StrippedFirst : {false, true}) {
    SCOPED_TRACE(StrippedFirst ? "stripped first" : "debug first");
    std::vector<std::string> Bins = {input("sym-pie"), input("sym-stripped")};
    if (StrippedFirst)
      std::swap(Bins[0], Bins[1]);
    auto L = ElfBinaryLocator::create(Bins, {});
    ASSERT_TRUE(bool(L)) << toString(L.takeError());
    ModuleSymbolizer *M = findModule(**L, Facts.BuildId);
    ASSERT_NE(M, nullptr);
    EXPECT_EQ(M->path(), input("sym-pie"));
    // DWARF: a line offset and a file, which the symbol table lacks.
    PCSymbols R = M->symbolize(Make->Addr + 8);
    ASSERT_EQ(R.Status, PCSymbols::Ok);
    EXPECT_FALSE(R.Frames.back().FileName.empty());
    ASSERT_EQ((*L)->notes().size(), 1u);
    EXPECT_EQ((*L)->notes()[0],
              input("sym-stripped") + ": the same build id as " +
                  input("sym-pie") + " (" + buildIdToHex(Facts.BuildId) +
                  "); using " + input("sym-pie") + ", which has debug info");
    EXPECT_EQ((*L)->profiledBinaries().size(), 2u);
  }
}

/// Copies \p Src, overwrites random bytes inside [Begin, End) and writes it
/// to \p Dst.
void writeCorrupted(StringRef Src, StringRef Dst, std::mt19937_64 &Rng,
                    uint64_t Begin, uint64_t End, unsigned Count) {
  auto Buf = MemoryBuffer::getFile(Src);
  ASSERT_TRUE(bool(Buf));
  std::string Bytes = (*Buf)->getBuffer().str();
  End = std::min<uint64_t>(End, Bytes.size());
  ASSERT_LT(Begin, End);
  for (unsigned I = 0; I < Count; ++I)
    Bytes[Begin + Rng() % (End - Begin)] = char(Rng());
  std::error_code EC;
  raw_fd_ostream OS(Dst, EC);
  ASSERT_FALSE(EC);
  OS << Bytes;
}

TEST(Symbolizer, CorruptedDwarfDoesNotCrash) {
  std::string Bin = input("sym-pie");
  BinaryFacts Facts = readFacts(Bin);
  std::vector<std::pair<uint64_t, uint64_t>> Ranges; // file offsets
  for (const object::SectionRef &Sec : Facts.Obj->sections()) {
    StringRef Name = cantFail(Sec.getName());
    if (Name == ".debug_info" || Name == ".debug_line" ||
        Name == ".debug_abbrev" || Name == ".debug_str_offsets") {
      StringRef Data = cantFail(Sec.getContents());
      uint64_t Off = Data.data() - Facts.Buf->getBufferStart();
      Ranges.push_back({Off, Off + Data.size()});
    }
  }
  ASSERT_GE(Ranges.size(), 2u);
  SmallString<256> Tmp;
  ASSERT_FALSE(sys::fs::createTemporaryFile("memprof-corrupt", "elf", Tmp));
  std::vector<uint64_t> Addrs;
  for (const auto &F : Facts.Funcs)
    for (uint64_t A = F.Addr; A < F.Addr + F.Size; A += 3)
      Addrs.push_back(A);
  std::mt19937_64 Rng(20240522);
  unsigned Opened = 0, Symbolized = 0, Ok = 0;
  for (unsigned Round = 0; Round < 300; ++Round) {
    const auto &R = Ranges[Round % Ranges.size()];
    writeCorrupted(Bin, Tmp, Rng, R.first, R.second, 1 + Round % 40);
    auto LOr = ElfBinaryLocator::create({std::string(Tmp)}, {});
    if (!LOr) {
      consumeError(LOr.takeError());
      continue;
    }
    ++Opened;
    Expected<ModuleSymbolizer *> M = (*LOr)->find(Facts.BuildId);
    ASSERT_TRUE(bool(M));
    ASSERT_NE(*M, nullptr);
    for (uint64_t A : Addrs) {
      PCSymbols Res = (*M)->symbolize(A);
      ++Symbolized;
      Ok += Res.Status == PCSymbols::Ok;
    }
  }
  sys::fs::remove(Tmp);
  outs() << "[corrupt-dwarf] " << Opened << " corrupted files, " << Symbolized
         << " lookups, " << Ok << " ok\n";
  EXPECT_GT(Opened, 250u);
}

TEST(Symbolizer, CorruptedElfDoesNotCrash) {
  std::string Bin = input("sym-pie");
  BinaryFacts Facts = readFacts(Bin);
  SmallString<256> Tmp;
  ASSERT_FALSE(sys::fs::createTemporaryFile("memprof-corrupt", "elf", Tmp));
  std::mt19937_64 Rng(7);
  unsigned Opened = 0, Rejected = 0;
  for (unsigned Round = 0; Round < 200; ++Round) {
    // Half the rounds hit the headers (ELF, program and section headers).
    uint64_t End = Round % 2 ? 0x400 : Facts.Buf->getBufferSize();
    writeCorrupted(Bin, Tmp, Rng, 0, End, 1 + Round % 16);
    auto LOr = ElfBinaryLocator::create({std::string(Tmp)}, {std::string(Tmp)});
    if (!LOr) {
      consumeError(LOr.takeError());
      ++Rejected;
      continue;
    }
    ++Opened;
    Expected<ModuleSymbolizer *> M = (*LOr)->find(Facts.BuildId);
    if (!M) {
      consumeError(M.takeError());
      continue;
    }
    if (!*M)
      continue; // the build id itself was hit
    for (const auto &F : Facts.Funcs)
      for (uint64_t A = F.Addr; A < F.Addr + F.Size; A += 7)
        (void)(*M)->symbolize(A);
  }
  sys::fs::remove(Tmp);
  outs() << "[corrupt-elf] " << Opened << " opened, " << Rejected
         << " rejected\n";
  EXPECT_EQ(Opened + Rejected, 200u);
}

TEST(ElfBinaryLocator, CorruptCandidateInSearchDirIsSkipped) {
  // A search dir whose .build-id file is garbage: skipped with a note.
  SmallString<256> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("memprof-sym", Dir));
  std::string Hex = MEMPROF_SYM_SPLIT_ID;
  SmallString<256> Sub(Dir);
  sys::path::append(Sub, ".build-id", Hex.substr(0, 2));
  ASSERT_FALSE(sys::fs::create_directories(Sub));
  SmallString<256> File(Sub);
  sys::path::append(File, Hex.substr(2) + ".debug");
  std::mt19937_64 Rng(3);
  writeCorrupted(input("debug-dir/.build-id/" + Hex.substr(0, 2) + "/" +
                       Hex.substr(2) + ".debug"),
                 File, Rng, 0, 64, 40); // the ELF header
  auto L = makeLocator({}, {std::string(Dir)});
  ASSERT_TRUE(L);
  Expected<ModuleSymbolizer *> M = L->find(rawId(Hex));
  ASSERT_TRUE(bool(M));
  // Either rejected (most likely) or, if the header survived, usable.
  if (!*M) {
    ASSERT_FALSE(L->notes().empty());
    EXPECT_TRUE(StringRef(L->notes()[0]).contains(File)) << L->notes()[0];
  }
  sys::fs::remove_directories(Dir);
}

/// A copy of \p Src with \p Patch applied, in a temporary file.
std::string
patchedCopy(StringRef Src,
            function_ref<void(BinaryFacts &, std::string &)> Patch) {
  BinaryFacts Facts = readFacts(std::string(Src));
  std::string Bytes = Facts.Buf->getBuffer().str();
  Patch(Facts, Bytes);
  SmallString<256> Tmp;
  EXPECT_FALSE(sys::fs::createTemporaryFile("memprof-patched", "elf", Tmp));
  std::error_code EC;
  raw_fd_ostream OS(Tmp, EC);
  EXPECT_FALSE(EC);
  OS << Bytes;
  return std::string(Tmp);
}

uint64_t sectionFileOffset(BinaryFacts &F, StringRef Name) {
  for (const object::SectionRef &Sec : F.Obj->sections())
    if (cantFail(Sec.getName()) == Name)
      return cantFail(Sec.getContents()).data() - F.Buf->getBufferStart();
  ADD_FAILURE() << "no section " << Name.str();
  return 0;
}

uint64_t sectionHeaderOffset(BinaryFacts &F, StringRef Name) {
  auto *Elf = cast<object::ELF64LEObjectFile>(F.Obj.get());
  const auto &EF = Elf->getELFFile();
  for (const auto &Shdr : cantFail(EF.sections()))
    if (cantFail(EF.getSectionName(Shdr)) == Name)
      return reinterpret_cast<const char *>(&Shdr) - F.Buf->getBufferStart();
  ADD_FAILURE() << "no section " << Name.str();
  return 0;
}

bool notesContain(const ElfBinaryLocator &L, StringRef Text) {
  for (const std::string &N : L.notes())
    if (StringRef(N).contains(Text))
      return true;
  return false;
}

// LLVM 22's line-table parser hands an unknown DWARF 5 entry-format form to
// llvm_unreachable (llvm-symbolizer-22 and llvm-dwarfdump-22 crash on this
// file). The DWARF is then ignored; the symbol table still names functions.
TEST(Symbolizer, UnknownLineTableFormIgnoresDwarf) {
  std::string Bad =
      patchedCopy(input("sym-pie"), [](BinaryFacts &F, std::string &Bytes) {
        uint64_t Line = sectionFileOffset(F, ".debug_line");
        ASSERT_EQ(uint8_t(Bytes[Line + 4]), 5); // version 5, DWARF32
        uint8_t OpcodeBase = Bytes[Line + 17];
        uint64_t DirFormat = Line + 18 + OpcodeBase - 1;
        ASSERT_EQ(uint8_t(Bytes[DirFormat]), 1);     // one descriptor
        ASSERT_EQ(uint8_t(Bytes[DirFormat + 1]), 1); // DW_LNCT_path
        Bytes[DirFormat + 2] = 0x7f;                 // not a form
      });
  BinaryFacts Facts = readFacts(input("sym-pie"));
  auto L = makeLocator({Bad}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);
  EXPECT_TRUE(notesContain(*L, "unsupported form 0x7f"))
      << (L->notes().empty() ? "" : L->notes()[0]);
  const auto *Main = Facts.func("main");
  ASSERT_NE(Main, nullptr);
  PCSymbols R = M->symbolize(Main->Addr + 2);
  ASSERT_EQ(R.Status, PCSymbols::Ok);
  ASSERT_EQ(R.Frames.size(), 1u);
  EXPECT_EQ(R.Frames[0].F, (Frame{functionGUID("main"), 0, 0, false}));
  sys::fs::remove(Bad);
}

// DWARFContext inflates compressed sections to the size their header
// claims; an absurd size would abort the process on allocation.
TEST(Symbolizer, ImplausibleCompressedSizeIgnoresDwarf) {
  std::string Bad =
      patchedCopy(input("sym-pie-gz"), [](BinaryFacts &F, std::string &Bytes) {
        uint64_t Info = sectionFileOffset(F, ".debug_info");
        // Elf64_Chdr.ch_size
        for (unsigned I = 0; I < 8; ++I)
          Bytes[Info + 8 + I] = I == 7 ? 0x40 : 0;
      });
  BinaryFacts Facts = readFacts(input("sym-pie-gz"));
  auto L = makeLocator({Bad}, {});
  ASSERT_TRUE(L);
  ModuleSymbolizer *M = findModule(*L, Facts.BuildId);
  ASSERT_NE(M, nullptr);
  EXPECT_TRUE(notesContain(*L, "implausible uncompressed size"));
  const auto *Main = Facts.func("main");
  ASSERT_NE(Main, nullptr);
  EXPECT_EQ(M->symbolize(Main->Addr + 2).Status, PCSymbols::Ok);
  sys::fs::remove(Bad);
}

// ELFObjectFile's symbol accessors call report_fatal_error on a symbol
// table with a wrong entry size: such a file is rejected up front.
TEST(ElfBinaryLocator, RejectsUnreadableSymbolTable) {
  std::string Bad =
      patchedCopy(input("sym-pie"), [](BinaryFacts &F, std::string &Bytes) {
        uint64_t Shdr = sectionHeaderOffset(F, ".symtab");
        Bytes[Shdr + 56] = 10; // sh_entsize
      });
  auto LOr = ElfBinaryLocator::create({Bad}, {});
  ASSERT_FALSE(bool(LOr));
  std::string Msg = toString(LOr.takeError());
  EXPECT_TRUE(StringRef(Msg).contains("malformed ELF file")) << Msg;
  EXPECT_TRUE(StringRef(Msg).contains(Bad)) << Msg;
  sys::fs::remove(Bad);
}

// A binary without DWARF still names its functions from its symbol table.
// (The table is built lazily; the names walk used to see it empty unless a
// lookup had needed it first.) The in-memory overload agrees with the file one.
TEST(Symbolizer, AddBinaryNamesOfStrippedBinaryUsesSymbolTable) {
  std::string Bin = input("sym-stripped");
  BinaryFacts Facts = readFacts(Bin);
  ASSERT_GT(Facts.Funcs.size(), 3u);
  ProfileNames FromFile, FromMemory;
  ASSERT_FALSE(bool(addBinaryNames(Bin, FromFile)));
  auto Buf = MemoryBuffer::getFile(Bin, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(Buf));
  ASSERT_FALSE(bool(addBinaryNames(std::move(*Buf), FromMemory)));
  for (const auto &F : Facts.Funcs) {
    SCOPED_TRACE(F.Name);
    const FunctionNameInfo *N = FromFile.function(functionGUID(F.Name));
    ASSERT_NE(N, nullptr);
    EXPECT_EQ(N->LinkageName, F.Name);
    EXPECT_TRUE(N->DeclFile.empty());
  }
  EXPECT_EQ(FromFile.functions().size(), FromMemory.functions().size());
}

// A locator over binaries in memory finds them by build id, as over files.
TEST(ElfBinaryLocator, InMemoryBinaries) {
  std::string Bin = input("sym-pie");
  BinaryFacts Facts = readFacts(Bin);
  auto Buf = MemoryBuffer::getFile(Bin, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(Buf));
  std::vector<std::unique_ptr<MemoryBuffer>> Bufs;
  Bufs.push_back(std::move(*Buf));
  auto LOr = ElfBinaryLocator::create(std::move(Bufs), {});
  ASSERT_TRUE(bool(LOr)) << toString(LOr.takeError());
  EXPECT_EQ((*LOr)->profiledBuildIds(), std::vector<std::string>{Facts.BuildId});
  auto FileL = makeLocator({Bin}, {});
  ASSERT_TRUE(FileL);
  ModuleSymbolizer *A = findModule(**LOr, Facts.BuildId);
  ModuleSymbolizer *B = findModule(*FileL, Facts.BuildId);
  ASSERT_NE(A, nullptr);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(A->path(), Bin); // the buffer's identifier
  const BinaryFacts::Func *Main = Facts.func("main");
  ASSERT_NE(Main, nullptr);
  for (uint64_t Addr = Main->Addr; Addr < Main->Addr + Main->Size; ++Addr) {
    PCSymbols RA = A->symbolize(Addr), RB = B->symbolize(Addr);
    ASSERT_EQ(RA.Status, RB.Status);
    ASSERT_EQ(RA.Frames.size(), RB.Frames.size());
    for (size_t I = 0; I < RA.Frames.size(); ++I)
      EXPECT_EQ(RA.Frames[I].F, RB.Frames[I].F);
  }
}

#endif // MEMPROF_SYM_INPUTS

// Found by the symbolizer fuzz target: a DIE whose attribute sizes carry the
// offset past its unit made LLVM 22's DIE extraction read far outside
// .debug_info (SEGV in DataExtractor::getULEB128 from extractFast). The
// module must open with its DWARF ignored and a note saying why, and every
// DIE walk must stay out of LLVM's extractor.
TEST(Symbolizer, DieRunningPastItsUnitIgnoresDwarf) {
  std::string Path =
      std::string(MEMPROF_FUZZ_CORPUS_DIR) + "/elf/crash-die-offset-past-unit.elf";
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(Buf)) << Path;
  std::vector<std::unique_ptr<MemoryBuffer>> Bufs;
  Bufs.push_back(std::move(*Buf));
  auto LOr = ElfBinaryLocator::create(std::move(Bufs), {});
  ASSERT_TRUE(bool(LOr)) << toString(LOr.takeError());
  std::vector<std::string> Ids = (*LOr)->profiledBuildIds();
  ASSERT_EQ(Ids.size(), 1u);
  Expected<ModuleSymbolizer *> M = (*LOr)->find(Ids[0]);
  ASSERT_TRUE(bool(M));
  ASSERT_NE(*M, nullptr);
  bool Noted = false;
  for (const std::string &N : (*LOr)->notes())
    Noted |= StringRef(N).contains("DWARF ignored: the DIE at offset") &&
             StringRef(N).contains("runs past the end of its unit");
  EXPECT_TRUE(Noted);
  for (uint64_t Addr = 0; Addr < 0x3000; Addr += 7)
    (*M)->symbolize(Addr); // no crash, whatever the result
  ProfileNames Names;
  std::vector<std::string> Notes;
  EXPECT_FALSE(bool(addBinaryNames(Path, Names, &Notes)));
}

} // namespace
