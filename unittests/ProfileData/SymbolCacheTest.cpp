//===- SymbolCacheTest.cpp - The symbol cache's entries and directory -----===//
#include "memprof/ProfileData/SymbolCache.h"
#include <cstring>
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "gtest/gtest.h"

using namespace memprof;
using namespace llvm;

namespace {

SymbolCacheEntry sampleEntry() {
  SymbolCacheEntry E;
  E.BuildId = std::string("\x01\x02\x03\x04\xab\xcd", 6);
  E.FileSizeBytes = 123456;
  E.HasDwarf = true;
  PCSymbols Ok;
  Ok.Status = PCSymbols::Ok;
  SymbolizedFrame Inner{
      {0x1111, 3, 7, true}, "_Z5innerv", "/src/a.cpp", 12, "/src/a.h"};
  SymbolizedFrame Outer{{0x2222, 1, 0, false}, "main", "/src/a.cpp", 30, ""};
  Ok.Frames = {Inner, Outer};
  PCSymbols Runtime;
  Runtime.Status = PCSymbols::Runtime;
  PCSymbols NoDebug;
  NoDebug.Status = PCSymbols::NoDebugInfo;
  NoDebug.Frames = {
      SymbolizedFrame{{0x3333, 0, 0, false}, "helper", "", 0, ""}};
  E.PCs = {{0x1000, Ok}, {0x1010, Runtime}, {0x2000, NoDebug}, {0x3000, {}}};
  E.Types = {{0x1000, "std::string"}, {0x2000, ""}};
  return E;
}

bool samePCs(const SymbolCacheEntry &A, const SymbolCacheEntry &B) {
  if (A.PCs.size() != B.PCs.size())
    return false;
  for (size_t I = 0; I < A.PCs.size(); ++I) {
    const PCSymbols &X = A.PCs[I].second, &Y = B.PCs[I].second;
    if (A.PCs[I].first != B.PCs[I].first || X.Status != Y.Status ||
        X.Frames.size() != Y.Frames.size())
      return false;
    for (size_t J = 0; J < X.Frames.size(); ++J) {
      const SymbolizedFrame &F = X.Frames[J], &G = Y.Frames[J];
      if (F.F != G.F || F.FunctionName != G.FunctionName ||
          F.FileName != G.FileName || F.Line != G.Line ||
          F.DeclFileName != G.DeclFileName)
        return false;
    }
  }
  return true;
}

/// Rewrites the checksum so that the bytes behind it are what is checked.
void fixChecksum(std::string &Bytes) {
  support::endian::write64le(&Bytes[40], 0);
  support::endian::write64le(&Bytes[40], xxh3_64bits(Bytes));
}

TEST(SymbolCache, RoundTrip) {
  SymbolCacheEntry E = sampleEntry();
  std::string Bytes = writeSymbolCacheEntry(E);
  Expected<SymbolCacheEntry> Back = readSymbolCacheEntry(Bytes);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->BuildId, E.BuildId);
  EXPECT_EQ(Back->FileSizeBytes, E.FileSizeBytes);
  EXPECT_EQ(Back->HasDwarf, E.HasDwarf);
  EXPECT_EQ(Back->SymbolTableOnly, E.SymbolTableOnly);
  EXPECT_TRUE(samePCs(*Back, E));
  EXPECT_EQ(Back->Types, E.Types);
  EXPECT_EQ(writeSymbolCacheEntry(*Back), Bytes);
}

TEST(SymbolCache, RejectsEveryTruncation) {
  std::string Bytes = writeSymbolCacheEntry(sampleEntry());
  for (size_t N = 0; N < Bytes.size(); ++N) {
    Expected<SymbolCacheEntry> E =
        readSymbolCacheEntry(StringRef(Bytes).take_front(N));
    EXPECT_FALSE(bool(E)) << "accepted " << N << " of " << Bytes.size();
    consumeError(E.takeError());
  }
}

TEST(SymbolCache, RejectsEveryByteFlip) {
  std::string Bytes = writeSymbolCacheEntry(sampleEntry());
  for (size_t I = 0; I < Bytes.size(); ++I) {
    std::string Bad = Bytes;
    Bad[I] ^= 0x5a;
    Expected<SymbolCacheEntry> E = readSymbolCacheEntry(Bad);
    EXPECT_FALSE(bool(E)) << "accepted a flip at " << I;
    consumeError(E.takeError());
  }
}

TEST(SymbolCache, RejectsHostileCountsBehindAGoodChecksum) {
  std::string Bytes = writeSymbolCacheEntry(sampleEntry());
  const size_t Payload = 48 + 6;
  // The string count, then (past the table) the address count, each made
  // huge: rejected before anything is sized by them.
  for (uint32_t Count : {0xffffffffu, 0x10000000u}) {
    std::string Bad = Bytes;
    support::endian::write32le(&Bad[Payload], Count);
    fixChecksum(Bad);
    Expected<SymbolCacheEntry> E = readSymbolCacheEntry(Bad);
    ASSERT_FALSE(bool(E));
    EXPECT_NE(toString(E.takeError()).find("does not fit"), std::string::npos);
  }
  // A string index past the table: the first frame's function name.
  SymbolCacheEntry One;
  One.BuildId = "\x42";
  PCSymbols S;
  S.Status = PCSymbols::Ok;
  S.Frames = {SymbolizedFrame{{1, 0, 0, false}, "f", "", 0, ""}};
  One.PCs = {{0x10, S}};
  std::string B = writeSymbolCacheEntry(One);
  // Strings: "f" and "" (2 entries: 4 + 4+1 + 4+0 bytes), then the count
  // of addresses (4), address (8), status (1), frames (4), GUID (8), line
  // offset (4), column (4), inline (1): the function's index follows.
  size_t FnIndex = 48 + 1 + 4 + 5 + 4 + 4 + 8 + 1 + 4 + 8 + 4 + 4 + 1;
  support::endian::write32le(&B[FnIndex], 7);
  fixChecksum(B);
  Expected<SymbolCacheEntry> E = readSymbolCacheEntry(B);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(toString(E.takeError()).find("string index 7"), std::string::npos);
}

// The string table must be the writer's: each string once, in first-use
// order, every one named (the fuzzer found tables in another order read,
// then written back as other bytes).
TEST(SymbolCache, RejectsNonCanonicalStringTables) {
  SymbolCacheEntry One;
  One.BuildId = "\x42";
  PCSymbols S;
  S.Status = PCSymbols::Ok;
  S.Frames = {SymbolizedFrame{{1, 0, 0, false}, "aa", "bb", 0, "cc"}};
  One.PCs = {{0x10, S}};
  const std::string B = writeSymbolCacheEntry(One);
  ASSERT_TRUE(bool(readSymbolCacheEntry(B)));
  // Strings: count (4), then "aa", "bb", "cc" (4 + 2 each); the frame's
  // function, file and declaration file indexes after the address count
  // (4), address (8), status (1), frames (4), GUID (8), line offset (4),
  // column (4) and inline flag (1); the line (4) between file and decl.
  const size_t Str0 = 48 + 1 + 4 + 4, Str1 = Str0 + 6;
  const size_t Fn = 48 + 1 + 4 + 3 * 6 + 4 + 8 + 1 + 4 + 8 + 4 + 4 + 1;
  const size_t File = Fn + 4, Decl = File + 8;
  auto Reject = [](std::string Bad, StringRef Why) {
    fixChecksum(Bad);
    Expected<SymbolCacheEntry> E = readSymbolCacheEntry(Bad);
    ASSERT_FALSE(bool(E)) << Why.str();
    EXPECT_NE(toString(E.takeError()).find(Why.str()), std::string::npos);
  };
  // "bb" and "aa" swapped in the table and in the frame: the same names,
  // another order.
  std::string Swapped = B;
  std::memcpy(&Swapped[Str0], "bb", 2);
  std::memcpy(&Swapped[Str1], "aa", 2);
  support::endian::write32le(&Swapped[Fn], 1);
  support::endian::write32le(&Swapped[File], 0);
  Reject(Swapped, "out of first-use order");
  // A string twice.
  std::string Twice = B;
  std::memcpy(&Twice[Str1], "aa", 2);
  Reject(Twice, "repeats an earlier one");
  // The declaration file named by the function's index: "cc" unnamed.
  std::string Unnamed = B;
  support::endian::write32le(&Unnamed[Decl], 0);
  Reject(Unnamed, "1 strings that no record names");
}

TEST(SymbolCache, RejectsUnsortedAddresses) {
  SymbolCacheEntry E = sampleEntry();
  std::swap(E.PCs[0], E.PCs[1]);
  Expected<SymbolCacheEntry> Back =
      readSymbolCacheEntry(writeSymbolCacheEntry(E));
  EXPECT_FALSE(bool(Back));
  consumeError(Back.takeError());
}

struct TempDir {
  SmallString<128> Path;
  TempDir() { EXPECT_FALSE(sys::fs::createUniqueDirectory("symcache", Path)); }
  ~TempDir() { sys::fs::remove_directories(Path); }
};

TEST(SymbolCache, StoreLoadAndDamagedEntries) {
  TempDir D;
  SymbolCacheEntry E = sampleEntry();
  {
    SymbolCache C(std::string(D.Path));
    EXPECT_FALSE(C.load(E.BuildId, E.FileSizeBytes, false)); // cold
    C.store(E);
    EXPECT_TRUE(C.takeNotes().empty());
    std::optional<SymbolCacheEntry> L =
        C.load(E.BuildId, E.FileSizeBytes, false);
    ASSERT_TRUE(L);
    EXPECT_TRUE(samePCs(*L, E));
    // Another file of the build, or the same read another way: not this entry.
    EXPECT_FALSE(C.load(E.BuildId, E.FileSizeBytes + 1, false));
    EXPECT_FALSE(C.load(E.BuildId, E.FileSizeBytes, true));
    EXPECT_TRUE(C.takeNotes().empty());
  }
  SmallString<128> Dir(D.Path);
  sys::path::append(Dir, "symbols-v1");
  std::string Path =
      SymbolCache::entryPath(Dir, E.BuildId, E.FileSizeBytes, false);
  auto Damage = [&](StringRef Bytes) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Bytes;
  };
  std::string Good = writeSymbolCacheEntry(E);
  SymbolCacheEntry Foreign = E;
  Foreign.BuildId = "\x09\x09";
  for (const std::string &Bad :
       {Good.substr(0, Good.size() / 2), std::string("garbage"),
        writeSymbolCacheEntry(Foreign)}) {
    Damage(Bad);
    SymbolCache C(std::string(D.Path));
    EXPECT_FALSE(C.load(E.BuildId, E.FileSizeBytes, false));
    std::vector<std::string> Notes = C.takeNotes();
    ASSERT_EQ(Notes.size(), 1u);
    EXPECT_NE(Notes[0].find("it is rewritten"), std::string::npos) << Notes[0];
    C.store(E); // rewritten
    EXPECT_TRUE(C.load(E.BuildId, E.FileSizeBytes, false));
  }
}

TEST(SymbolCache, UnwritableDirectoryIsANote) {
  TempDir D;
  SmallString<128> File(D.Path);
  sys::path::append(File, "file");
  {
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
  }
  // A directory under a regular file cannot be made, root or not.
  SymbolCache C{std::string(File)};
  C.store(sampleEntry());
  C.store(sampleEntry());
  std::vector<std::string> Notes = C.takeNotes();
  ASSERT_EQ(Notes.size(), 1u); // said once
  EXPECT_NE(Notes[0].find("symbol cache: cannot create"), std::string::npos)
      << Notes[0];
}

TEST(SymbolCache, EvictsBeyondTheBound) {
  TempDir D;
  SymbolCacheEntry E = sampleEntry();
  const uint64_t OneBytes = writeSymbolCacheEntry(E).size();
  SymbolCache C(std::string(D.Path), /*MaxBytes=*/3 * OneBytes);
  for (int I = 0; I < 10; ++I) {
    E.BuildId[0] = char(I + 1);
    C.store(E);
    C.prune();
  }
  SmallString<128> Dir(D.Path);
  sys::path::append(Dir, "symbols-v1");
  uint64_t Total = 0;
  unsigned Files = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!sys::path::filename(It->path()).starts_with("llvmcache-"))
      continue;
    uint64_t Size = 0;
    ASSERT_FALSE(sys::fs::file_size(It->path(), Size));
    Total += Size;
    ++Files;
  }
  EXPECT_LE(Total, 3 * OneBytes);
  EXPECT_GE(Files, 1u);
  // The entry just written is kept.
  EXPECT_TRUE(C.load(E.BuildId, E.FileSizeBytes, false));
}

} // namespace
