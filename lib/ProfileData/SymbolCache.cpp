//===- SymbolCache.cpp - Symbolized frames kept across runs by build id ---===//
//
// Entries are untrusted input like any profile: read through the bounds-
// checked cursor, every count checked against the bytes that remain before
// anything is sized by it, every string index checked against the table, and
// the whole payload checked against its xxh3 checksum first. Writing goes
// through a unique temporary file renamed into place (atomic on POSIX), and
// LLVM's cache pruning bounds the directory.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/SymbolCache.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace memprof {

namespace {

// Layout, little-endian (docs/memprof-merge.md#symbol-cache):
//   header   magic[8] "MPSYMCAC", u32 version, u32 flags, u64 file size,
//            u32 build id bytes, u32 reserved (0), u64 payload bytes,
//            u64 xxh3 of the whole entry with these 8 bytes as zeros
//   build id
//   payload  u32 string count, each u32 length + bytes;
//            u32 address count, each u64 address (increasing), u8 status,
//              u32 frame count, each u64 GUID, u32 line offset, u32 column,
//              u8 inline (0/1), u32 function, u32 file, u32 line, u32 decl
//              file (function, file and decl file index the strings);
//            u32 type count, each u64 address (increasing), u32 string.
constexpr char Magic[8] = {'M', 'P', 'S', 'Y', 'M', 'C', 'A', 'C'};
constexpr uint32_t Version = 1;
constexpr uint64_t HeaderBytes = 48;
constexpr uint32_t FlagSymbolTableOnly = 1, FlagHasDwarf = 2;
constexpr uint32_t MaxBuildIdBytes = 64;
constexpr uint64_t FrameRecordBytes = 8 + 4 + 4 + 1 + 4 * 4;
constexpr uint64_t PCRecordMinBytes = 8 + 1 + 4;
constexpr uint64_t TypeRecordBytes = 8 + 4;
constexpr char EntryPrefix[] = "llvmcache-"; // what pruneCache considers
constexpr char TempPrefix[] = "tmp-";        // what it leaves alone
/// A temporary file older than this is left over from a writer that died.
constexpr auto StaleTempAge = std::chrono::hours(1);

/// xxh3 of the whole entry with its checksum field as zeros.
uint64_t checksum(StringRef Entry) {
  std::string All(Entry);
  std::memset(&All[40], 0, 8);
  return xxh3_64bits(All);
}

} // namespace

std::string writeSymbolCacheEntry(const SymbolCacheEntry &E) {
  SmallVector<char, 0> Payload;
  std::vector<StringRef> Strings;
  DenseMap<StringRef, uint32_t> Index; // keys point into E
  auto Intern = [&](StringRef S) -> uint32_t {
    auto [It, New] = Index.try_emplace(S, uint32_t(Strings.size()));
    if (New)
      Strings.push_back(S);
    return It->second;
  };
  SmallVector<char, 0> Records;
  write32(Records, uint32_t(E.PCs.size()));
  for (const auto &[Addr, S] : E.PCs) {
    write64(Records, Addr);
    write8(Records, uint8_t(S.Status));
    write32(Records, uint32_t(S.Frames.size()));
    for (const SymbolizedFrame &F : S.Frames) {
      write64(Records, F.F.Function);
      write32(Records, F.F.LineOffset);
      write32(Records, F.F.Column);
      write8(Records, F.F.IsInlineFrame ? 1 : 0);
      write32(Records, Intern(F.FunctionName));
      write32(Records, Intern(F.FileName));
      write32(Records, F.Line);
      write32(Records, Intern(F.DeclFileName));
    }
  }
  write32(Records, uint32_t(E.Types.size()));
  for (const auto &[Addr, T] : E.Types) {
    write64(Records, Addr);
    write32(Records, Intern(T));
  }
  write32(Payload, uint32_t(Strings.size()));
  for (StringRef S : Strings) {
    write32(Payload, uint32_t(S.size()));
    Payload.append(S.begin(), S.end());
  }
  Payload.append(Records.begin(), Records.end());

  StringRef P(Payload.data(), Payload.size());
  SmallVector<char, 0> Out;
  Out.append(std::begin(Magic), std::end(Magic));
  write32(Out, Version);
  write32(Out, (E.SymbolTableOnly ? FlagSymbolTableOnly : 0) |
                   (E.HasDwarf ? FlagHasDwarf : 0));
  write64(Out, E.FileSizeBytes);
  write32(Out, uint32_t(E.BuildId.size()));
  write32(Out, 0);
  write64(Out, P.size());
  write64(Out, 0); // the checksum, below
  Out.append(E.BuildId.begin(), E.BuildId.end());
  Out.append(P.begin(), P.end());
  std::string Bytes(Out.data(), Out.size());
  support::endian::write64le(&Bytes[40], checksum(Bytes));
  return Bytes;
}

Expected<SymbolCacheEntry> readSymbolCacheEntry(StringRef Bytes) {
  DataCursor C(Bytes);
  Expected<StringRef> M = C.readBytes(sizeof(Magic), "magic");
  if (!M)
    return M.takeError();
  if (*M != StringRef(Magic, sizeof(Magic)))
    return makeError(ErrorCode::BadMagic, "not a symbol cache entry", 0);
  uint32_t Ver = 0, Flags = 0, IdBytes = 0, Reserved = 0;
  uint64_t PayloadBytes = 0, Sum = 0;
  SymbolCacheEntry E;
  if (Error Err = C.readInto(Ver, "version"))
    return std::move(Err);
  if (Ver != Version)
    return makeError(ErrorCode::UnsupportedVersion,
                     "version " + Twine(Ver) + " (this build reads " +
                         Twine(Version) + ")",
                     8);
  // The rest of the header is fixed-size: checked once, read unchecked.
  if (Error Err = C.need(HeaderBytes - C.tell(), "header"))
    return std::move(Err);
  cantFail(C.readInto(Flags, "flags"));
  cantFail(C.readInto(E.FileSizeBytes, "file size"));
  cantFail(C.readInto(IdBytes, "build id size"));
  cantFail(C.readInto(Reserved, "reserved"));
  cantFail(C.readInto(PayloadBytes, "payload size"));
  cantFail(C.readInto(Sum, "checksum"));
  if (Flags & ~(FlagSymbolTableOnly | FlagHasDwarf))
    return makeError(ErrorCode::Malformed,
                     "unknown flags 0x" + utohexstr(Flags), 12);
  if (IdBytes == 0 || IdBytes > MaxBuildIdBytes || Reserved != 0)
    return makeError(ErrorCode::Malformed,
                     "build id size " + Twine(IdBytes) + " or reserved field " +
                         Twine(Reserved),
                     24);
  if (Bytes.size() < HeaderBytes + IdBytes ||
      PayloadBytes != Bytes.size() - HeaderBytes - IdBytes)
    return makeError(ErrorCode::Truncated,
                     "the header claims " + Twine(PayloadBytes) +
                         " payload bytes after a build id of " +
                         Twine(IdBytes) + ", the entry holds " +
                         Twine(Bytes.size()) + " bytes in all",
                     32);
  Expected<StringRef> Id = C.readBytes(IdBytes, "build id");
  if (!Id)
    return Id.takeError();
  E.BuildId = Id->str();
  StringRef Payload = Bytes.drop_front(HeaderBytes + IdBytes);
  if (checksum(Bytes) != Sum)
    return makeError(ErrorCode::Malformed, "checksum mismatch", 40);
  E.SymbolTableOnly = Flags & FlagSymbolTableOnly;
  E.HasDwarf = Flags & FlagHasDwarf;

  DataCursor P(Payload, HeaderBytes + IdBytes);
  uint32_t NumStrings = 0;
  if (Error Err = P.readInto(NumStrings, "string count"))
    return std::move(Err);
  if (Error Err = P.needItems(NumStrings, 4, "string"))
    return std::move(Err);
  // The table is canonical, as the writer makes it: each string once, in the
  // order the records first name them, none unnamed. An entry read is then
  // exactly the bytes writeSymbolCacheEntry gives for it (the fuzzer checks
  // this), and a table that is not is foreign: refused, then rewritten.
  std::vector<StringRef> Strings;
  Strings.reserve(NumStrings);
  DenseSet<StringRef> Seen;
  for (uint32_t I = 0; I < NumStrings; ++I) {
    uint32_t Len = 0;
    if (Error Err = P.readInto(Len, "string length"))
      return std::move(Err);
    Expected<StringRef> S = P.readBytes(Len, "string");
    if (!S)
      return S.takeError();
    if (!Seen.insert(*S).second)
      return makeError(ErrorCode::Malformed,
                       "string " + Twine(I) + " repeats an earlier one",
                       P.absoluteOffset() - Len);
    Strings.push_back(*S);
  }
  uint32_t NextNew = 0; // the index a string named for the first time has
  auto Str = [&](uint32_t I, std::string &Out) -> Error {
    if (I >= Strings.size())
      return makeError(ErrorCode::Malformed,
                       "string index " + Twine(I) + " of " +
                           Twine(Strings.size()),
                       P.absoluteOffset());
    if (I > NextNew)
      return makeError(ErrorCode::Malformed,
                       "string index " + Twine(I) +
                           " out of first-use order (the next new string is " +
                           Twine(NextNew) + ")",
                       P.absoluteOffset());
    if (I == NextNew)
      ++NextNew;
    Out = Strings[I].str();
    return Error::success();
  };
  auto Increasing = [&](bool First, uint64_t Prev, uint64_t Addr) -> Error {
    if (!First && Addr <= Prev)
      return makeError(ErrorCode::Malformed,
                       "address 0x" + utohexstr(Addr) + " not above 0x" +
                           utohexstr(Prev),
                       P.absoluteOffset());
    return Error::success();
  };
  uint32_t NumPCs = 0;
  if (Error Err = P.readInto(NumPCs, "address count"))
    return std::move(Err);
  if (Error Err = P.needItems(NumPCs, PCRecordMinBytes, "address"))
    return std::move(Err);
  E.PCs.reserve(NumPCs);
  for (uint32_t I = 0; I < NumPCs; ++I) {
    uint64_t Addr = 0;
    uint8_t Status = 0;
    uint32_t NumFrames = 0;
    if (Error Err = P.readInto(Addr, "address"))
      return std::move(Err);
    if (Error Err = Increasing(I == 0, I ? E.PCs.back().first : 0, Addr))
      return std::move(Err);
    if (Error Err = P.readInto(Status, "status"))
      return std::move(Err);
    if (Status > PCSymbols::Failed)
      return makeError(ErrorCode::Malformed, "status " + Twine(Status),
                       P.absoluteOffset() - 1);
    if (Error Err = P.readInto(NumFrames, "frame count"))
      return std::move(Err);
    if (Error Err = P.needItems(NumFrames, FrameRecordBytes, "frame"))
      return std::move(Err);
    PCSymbols S;
    S.Status = PCSymbols::Kind(Status);
    S.Frames.resize(NumFrames);
    for (SymbolizedFrame &F : S.Frames) {
      uint8_t Inline = 0;
      uint32_t Fn = 0, File = 0, Decl = 0;
      // needItems above checked that every frame record fits.
      cantFail(P.readInto(F.F.Function, "GUID"));
      cantFail(P.readInto(F.F.LineOffset, "line offset"));
      cantFail(P.readInto(F.F.Column, "column"));
      cantFail(P.readInto(Inline, "inline flag"));
      cantFail(P.readInto(Fn, "function name"));
      cantFail(P.readInto(File, "file name"));
      cantFail(P.readInto(F.Line, "line"));
      cantFail(P.readInto(Decl, "declaration file"));
      if (Inline > 1)
        return makeError(ErrorCode::Malformed,
                         "inline flag " + Twine(unsigned(Inline)),
                         P.absoluteOffset());
      F.F.IsInlineFrame = Inline;
      if (Error Err = Str(Fn, F.FunctionName))
        return std::move(Err);
      if (Error Err = Str(File, F.FileName))
        return std::move(Err);
      if (Error Err = Str(Decl, F.DeclFileName))
        return std::move(Err);
    }
    E.PCs.emplace_back(Addr, std::move(S));
  }
  uint32_t NumTypes = 0;
  if (Error Err = P.readInto(NumTypes, "type count"))
    return std::move(Err);
  if (Error Err = P.needItems(NumTypes, TypeRecordBytes, "type"))
    return std::move(Err);
  E.Types.reserve(NumTypes);
  for (uint32_t I = 0; I < NumTypes; ++I) {
    uint64_t Addr = 0;
    uint32_t Name = 0;
    if (Error Err = P.readInto(Addr, "address"))
      return std::move(Err);
    if (Error Err = Increasing(I == 0, I ? E.Types.back().first : 0, Addr))
      return std::move(Err);
    if (Error Err = P.readInto(Name, "type name"))
      return std::move(Err);
    std::string T;
    if (Error Err = Str(Name, T))
      return std::move(Err);
    E.Types.emplace_back(Addr, std::move(T));
  }
  if (!P.atEnd())
    return makeError(ErrorCode::Malformed,
                     Twine(P.remaining()) + " bytes after the last record",
                     P.absoluteOffset());
  if (NextNew != Strings.size())
    return makeError(ErrorCode::Malformed,
                     Twine(Strings.size() - NextNew) +
                         " strings that no record names",
                     P.absoluteOffset());
  return std::move(E);
}

std::string SymbolCache::defaultDir() {
  if (const char *Env = std::getenv("MEMPROF_SYMBOL_CACHE"); Env && *Env) {
    StringRef V(Env);
    if (V.equals_insensitive("off") || V == "0" || V.equals_insensitive("no"))
      return "";
    return V.str();
  }
  SmallString<256> Dir;
  if (const char *X = std::getenv("XDG_CACHE_HOME");
      X && *X && sys::path::is_absolute(X)) {
    Dir = X;
  } else if (const char *H = std::getenv("HOME"); H && *H) {
    Dir = H;
    sys::path::append(Dir, ".cache");
  } else {
    return "";
  }
  sys::path::append(Dir, "memprof");
  return std::string(Dir);
}

uint64_t SymbolCache::defaultMaxBytes() {
  uint64_t MiB = 0;
  if (const char *Env = std::getenv("MEMPROF_SYMBOL_CACHE_SIZE");
      Env && !StringRef(Env).getAsInteger(10, MiB) && MiB > 0 &&
      MiB < (1ULL << 40))
    return MiB << 20;
  return DefaultMaxBytes;
}

SymbolCache::SymbolCache(std::string Root, uint64_t MaxBytes)
    : MaxBytes(MaxBytes) {
  SmallString<256> D(Root);
  sys::path::append(D, "symbols-v1");
  Dir = std::string(D);
}

std::string SymbolCache::entryPath(StringRef Dir, StringRef BuildId,
                                   uint64_t FileSizeBytes,
                                   bool SymbolTableOnly) {
  SmallString<256> P(Dir);
  sys::path::append(P, Twine(EntryPrefix) + buildIdToHex(BuildId) + "-" +
                           Twine(FileSizeBytes) +
                           (SymbolTableOnly ? "-symtab" : "-dwarf"));
  return std::string(P);
}

std::optional<SymbolCacheEntry> SymbolCache::load(StringRef BuildId,
                                                  uint64_t FileSizeBytes,
                                                  bool SymbolTableOnly) {
  std::string Path = entryPath(Dir, BuildId, FileSizeBytes, SymbolTableOnly);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf) {
    if (Buf.getError() != std::errc::no_such_file_or_directory)
      Notes.push_back("symbol cache: cannot read " + Path + ": " +
                      Buf.getError().message() + "; symbolizing afresh");
    return std::nullopt;
  }
  Expected<SymbolCacheEntry> E = readSymbolCacheEntry((*Buf)->getBuffer());
  std::string Why;
  if (!E)
    Why = toString(E.takeError());
  else if (E->BuildId != BuildId)
    Why = "it holds build id " + buildIdToHex(E->BuildId);
  else if (E->FileSizeBytes != FileSizeBytes ||
           E->SymbolTableOnly != SymbolTableOnly)
    Why = "it describes another file of this build";
  if (!Why.empty()) {
    // Two files of one module (a library and its symlinked name) ask twice.
    if (Ignored.insert(Path).second)
      Notes.push_back("symbol cache: ignored " + Path + " (" + Why +
                      "); it is rewritten");
    return std::nullopt;
  }
  // Used now: the least recently used entries are evicted first, whatever
  // the file system's atime policy.
  if (Expected<sys::fs::file_t> F = sys::fs::openNativeFileForRead(Path)) {
    sys::TimePoint<> Now = std::chrono::system_clock::now();
    (void)sys::fs::setLastAccessAndModificationTime(*F, Now, Now);
    sys::fs::closeFile(*F);
  } else {
    consumeError(F.takeError());
  }
  return std::move(*E);
}

void SymbolCache::store(const SymbolCacheEntry &E) {
  std::string Bytes = writeSymbolCacheEntry(E);
  if (Bytes.size() > MaxBytes)
    return; // never kept: it would evict everything else
  auto Fail = [&](const Twine &What, std::error_code EC) {
    if (WriteFailed)
      return;
    WriteFailed = true;
    Notes.push_back(("symbol cache: cannot " + What + ": " + EC.message() +
                     "; symbolized frames are not kept for the next run")
                        .str());
  };
  // As the umask allows, like the entries: a cache that workers of several
  // users share must be readable by all of them.
  if (std::error_code EC =
          sys::fs::create_directories(Dir, /*IgnoreExisting=*/true,
                                      sys::fs::all_all))
    return Fail("create " + Dir, EC);
  std::string Final =
      entryPath(Dir, E.BuildId, E.FileSizeBytes, E.SymbolTableOnly);
  SmallString<256> Model(Dir);
  sys::path::append(Model, Twine(TempPrefix) + sys::path::filename(Final) +
                               "-%%%%%%%%");
  int FD = -1;
  SmallString<256> Temp;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Temp))
    return Fail("write in " + Dir, EC);
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Bytes;
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      sys::fs::remove(Temp);
      return Fail("write " + Temp, EC);
    }
  }
  if (std::error_code EC = sys::fs::rename(Temp, Final)) {
    sys::fs::remove(Temp);
    return Fail("rename " + Temp + " to " + Final, EC);
  }
  Stored = true;
}

void SymbolCache::prune() {
  if (Stored)
    evict();
  Stored = false;
}

void SymbolCache::evict() {
  CachePruningPolicy Policy;
  Policy.Interval = std::chrono::seconds(0); // the bound holds after each store
  Policy.Expiration = std::chrono::hours(30 * 24);
  Policy.MaxSizePercentageOfAvailableSpace = 0;
  Policy.MaxSizeBytes = MaxBytes;
  Policy.MaxSizeFiles = 100000;
  pruneCache(Dir, Policy);
  // Temporary files of writers that died before their rename.
  std::error_code EC;
  const auto Now = std::chrono::system_clock::now();
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!sys::path::filename(It->path()).starts_with(TempPrefix))
      continue;
    ErrorOr<sys::fs::basic_file_status> St = It->status();
    if (St && Now - St->getLastModificationTime() > StaleTempAge)
      sys::fs::remove(It->path());
  }
}

std::vector<std::string> SymbolCache::takeNotes() {
  std::vector<std::string> N = std::move(Notes);
  Notes.clear();
  return N;
}

} // namespace memprof
