//===- ProfileNames.cpp - Names of a profile and their on-disk extension ---===//
//
// The extension (docs/names-extension.md) sits after the last LLVM-defined
// byte, so LLVM's readers never see it. It is found from the end of the file
// (a 16-byte footer), and everything in it is untrusted: sections must tile
// the extension exactly, varints stay inside their section, string offsets
// inside the string table, file-tree parents precede their children (so no
// cycle can exist), and the bytes materialized are bounded by the file size.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/ProfileNames.h"
#include "NamesSection.h"
#include "memprof/ProfileData/ByteWriter.h"
#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/format/NamesFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LEB128.h"
#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_set>
#include <vector>

using namespace llvm;

namespace memprof {

//===----------------------------------------------------------------------===//
// The in-memory model
//===----------------------------------------------------------------------===//

static auto orderKey(const FunctionNameInfo &N) {
  return std::make_tuple(N.LinkageName, N.DemangledName, N.DeclFile.empty(),
                         N.DeclFile, N.DeclLine, N.BuildId.empty(), N.BuildId);
}

bool FunctionNameInfo::operator<(const FunctionNameInfo &O) const {
  return orderKey(*this) < orderKey(O);
}

bool FunctionNameInfo::operator==(const FunctionNameInfo &O) const {
  return orderKey(*this) == orderKey(O);
}

std::string demangleName(StringRef LinkageName) {
  return llvm::demangle(std::string_view(LinkageName.data(), LinkageName.size()));
}

ProfileNames::ProfileNames() : Strings(std::make_unique<Pool>()) {}

ProfileNames::ProfileNames(const ProfileNames &O) : ProfileNames() {
  merge(O);
  // merge() drops explicit unknowns; copy them too.
  for (const auto &[Key, L] : O.Locations)
    if (!L.known())
      Locations.try_emplace(Key, SourceLocation());
}

ProfileNames &ProfileNames::operator=(const ProfileNames &O) {
  if (this != &O) {
    ProfileNames Copy(O);
    *this = std::move(Copy);
  }
  return *this;
}

std::string validUTF8(StringRef S) {
  return json::isUTF8(S) ? S.str() : json::fixUTF8(S);
}

std::string hexValue(uint64_t V) {
  return "0x" + utohexstr(V, /*LowerCase=*/true);
}

std::string sourceLocationText(StringRef File, uint32_t Line,
                               std::optional<uint32_t> Column) {
  if (Line == 0)
    return (File + ":?").str();
  std::string S = (File + ":" + Twine(Line)).str();
  if (Column)
    S += ":" + std::to_string(*Column);
  return S;
}

StringRef ProfileNames::save(StringRef S) {
  if (S.empty())
    return StringRef();
  if (!Strings)
    Strings = std::make_unique<Pool>();
  size_t Before = Strings->Alloc.getBytesAllocated();
  StringRef R = Strings->Saver.save(S);
  PoolBytes += Strings->Alloc.getBytesAllocated() - Before;
  return R;
}

void ProfileNames::addFunction(GUID G, const FunctionNameInfo &N) {
  if (N.LinkageName.empty() || functionGUID(N.LinkageName) != G)
    return;
  auto It = Functions.find(G);
  if (It != Functions.end() && !(N < It->second))
    return;
  FunctionNameInfo Saved;
  Saved.LinkageName = save(N.LinkageName);
  Saved.DemangledName = save(N.DemangledName);
  Saved.DeclFile = save(N.DeclFile);
  Saved.DeclLine = N.DeclLine;
  Saved.BuildId = save(N.BuildId);
  Functions[G] = Saved;
}

void ProfileNames::addLocation(GUID G, uint32_t LineOffset, SourceLocation L) {
  if (!L.known())
    return;
  auto [It, New] = Locations.try_emplace({G, LineOffset});
  if (!New && It->second.known() && !(L < It->second))
    return;
  It->second = {save(L.File), L.Line};
}

void ProfileNames::setLocation(GUID G, uint32_t LineOffset, SourceLocation L) {
  Locations[{G, LineOffset}] =
      L.known() ? SourceLocation{save(L.File), L.Line} : SourceLocation();
}

void ProfileNames::merge(const ProfileNames &O) {
  for (const auto &[G, N] : O.Functions)
    addFunction(G, N);
  for (const auto &[Key, L] : O.Locations)
    addLocation(Key.first, Key.second, L);
  for (const auto &[Id, Path] : O.ModulePaths)
    addModulePath(Id, Path);
  for (const auto &[Id, Module] : O.SiteModules)
    addSiteModule(Id, Module);
  for (StringRef P : O.Programs)
    addProgram(P);
  for (const auto &[Id, Type] : O.Types)
    addType(Id, Type);
}

void ProfileNames::addType(CallStackId Id, StringRef Type) {
  if (Type.empty())
    return;
  auto [It, New] = Types.try_emplace(Id);
  if (New || Type < It->second)
    It->second = save(Type);
}

StringRef ProfileNames::type(CallStackId Id) const {
  auto It = Types.find(Id);
  return It == Types.end() ? StringRef() : It->second;
}

void ProfileNames::addSiteModule(CallStackId Id, StringRef BuildId) {
  if (BuildId.empty())
    return;
  auto [It, New] = SiteModules.try_emplace(Id);
  if (New || BuildId < It->second)
    It->second = save(BuildId);
}

StringRef ProfileNames::siteModule(CallStackId Id) const {
  auto It = SiteModules.find(Id);
  return It == SiteModules.end() ? StringRef() : It->second;
}

StringRef ProfileNames::contextModule(CallStackId Id, GUID Leaf) const {
  StringRef M = siteModule(Id);
  if (M.empty())
    if (const FunctionNameInfo *N = function(Leaf))
      M = N->BuildId;
  return M;
}

void ProfileNames::addProgram(StringRef BuildId) {
  if (!BuildId.empty() && !Programs.count(BuildId))
    Programs.insert(save(BuildId));
}

void ProfileNames::addModulePath(StringRef BuildId, StringRef Path) {
  if (BuildId.empty() || Path.empty())
    return;
  auto It = ModulePaths.find(BuildId);
  if (It == ModulePaths.end())
    ModulePaths.emplace(save(BuildId), save(Path));
  else if (Path < It->second)
    It->second = save(Path);
}

StringRef ProfileNames::modulePath(StringRef BuildId) const {
  auto It = ModulePaths.find(BuildId);
  return It == ModulePaths.end() ? StringRef() : It->second;
}

const FunctionNameInfo *ProfileNames::function(GUID G) const {
  auto It = Functions.find(G);
  return It == Functions.end() ? nullptr : &It->second;
}

SourceLocation ProfileNames::derivedLocation(GUID G,
                                             uint32_t LineOffset) const {
  const FunctionNameInfo *N = function(G);
  if (!N || N->DeclFile.empty())
    return {};
  return {N->DeclFile, N->DeclLine + LineOffset};
}

std::optional<SourceLocation>
ProfileNames::observedLocation(GUID G, uint32_t LineOffset) const {
  auto It = Locations.find({G, LineOffset});
  if (It == Locations.end())
    return std::nullopt;
  return It->second;
}

SourceLocation ProfileNames::location(GUID G, uint32_t LineOffset) const {
  if (auto L = observedLocation(G, LineOffset))
    return *L;
  return derivedLocation(G, LineOffset);
}

void ProfileNames::markUnobservedFrames(const IndexedMemProf &P) {
  for (const auto &KV : P.Frames) {
    const Frame &F = KV.second;
    if (Functions.count(F.Function))
      Locations.try_emplace({F.Function, F.LineOffset}, SourceLocation());
  }
}

void observeNames(const IndexedMemProf &P, const ProfileNames &From,
                  ProfileNames &Into) {
  std::set<GUID> Seen;
  auto Add = [&](GUID G) {
    if (const FunctionNameInfo *N = From.function(G))
      if (Seen.insert(G).second) {
        Into.addFunction(G, *N);
        Into.addModulePath(N->BuildId, From.modulePath(N->BuildId));
      }
  };
  for (const auto &KV : P.Records) {
    Add(KV.first);
    for (const IndexedCallSite &CS : KV.second.CallSites)
      for (GUID G : CS.CalleeGuids)
        Add(G);
  }
  for (const auto &KV : P.Frames) {
    const Frame &F = KV.second;
    if (!From.function(F.Function))
      continue;
    Add(F.Function);
    SourceLocation L = From.location(F.Function, F.LineOffset);
    if (L.known())
      Into.addLocation(F.Function, F.LineOffset, L);
  }
  // Each context's site module explicitly: the leaf function's module may
  // be another in the merge (the smallest of several programs' wins).
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &AS : KV.second.AllocSites)
      if (P.leafFunction(AS.CSId) == KV.first) {
        Into.addSiteModule(AS.CSId, From.contextModule(AS.CSId, KV.first));
        Into.addType(AS.CSId, From.type(AS.CSId));
      }
  for (StringRef Program : From.programs()) {
    Into.addProgram(Program);
    Into.addModulePath(Program, From.modulePath(Program));
  }
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {

/// A string table with tail merging: a string that ends another is stored
/// once, inside it. The layout depends only on the set of strings.
class StringTableWriter {
public:
  void add(StringRef S) { Set.insert(S); }

  Error finish() {
    std::vector<StringRef> Sorted(Set.begin(), Set.end());
    // By reversed content: a string that is a suffix of another sorts
    // immediately before some string that ends with it.
    llvm::sort(Sorted, [](StringRef A, StringRef B) {
      return std::lexicographical_compare(A.rbegin(), A.rend(), B.rbegin(),
                                          B.rend());
    });
    for (size_t I = Sorted.size(); I-- > 0;) {
      StringRef S = Sorted[I];
      if (S.contains('\0'))
        return makeError(ErrorCode::Malformed,
                         "name contains a NUL byte: " + S.substr(0, 64));
      if (I + 1 < Sorted.size() && Sorted[I + 1].ends_with(S)) {
        StringRef Next = Sorted[I + 1];
        Offsets[S] = Offsets[Next] + Next.size() - S.size();
        continue;
      }
      Offsets[S] = Bytes.size();
      Bytes.append(S.begin(), S.end());
      Bytes.push_back('\0');
    }
    if (Bytes.size() > UINT32_MAX)
      return makeError(ErrorCode::TooLarge,
                       "names string table exceeds 4 GiB");
    return Error::success();
  }

  uint64_t offset(StringRef S) const { return Offsets.find(S)->second; }
  const SmallVector<char, 0> &bytes() const { return Bytes; }

private:
  std::set<StringRef> Set;
  std::map<StringRef, uint64_t> Offsets;
  SmallVector<char, 0> Bytes;
};

/// The reverse prefix tree of file paths: one node per distinct directory
/// prefix and file, each a name plus a link to its parent.
class FileTreeWriter {
public:
  void add(StringRef Path) {
    if (!Path.empty())
      Paths.insert(Path);
  }

  /// Builds nodes in the order a walk of the sorted paths creates them, so
  /// every parent precedes its children.
  void finish(StringTableWriter &Strings) {
    for (StringRef Path : Paths) {
      SmallVector<StringRef, 16> Parts;
      Path.split(Parts, '/');
      uint64_t Parent = 0; // 0: none; else node index + 1
      for (StringRef Part : Parts) {
        auto [It, New] = Index.try_emplace({Parent, Part}, Nodes.size() + 1);
        if (New) {
          Nodes.push_back({Part, Parent});
          Strings.add(Part);
        }
        Parent = It->second;
      }
      Ref[Path] = Parent;
    }
  }

  /// Node index + 1 of \p Path, 0 for an empty path.
  uint64_t ref(StringRef Path) const {
    return Path.empty() ? 0 : Ref.find(Path)->second;
  }

  void emit(SmallVectorImpl<char> &Out, const StringTableWriter &Strings) const {
    writeULEB(Out, Nodes.size());
    for (const Node &N : Nodes) {
      writeULEB(Out, Strings.offset(N.Name));
      writeULEB(Out, N.Parent);
    }
  }
  size_t size() const { return Nodes.size(); }

private:
  struct Node {
    StringRef Name;
    uint64_t Parent;
  };
  std::set<StringRef> Paths;
  std::map<std::pair<uint64_t, StringRef>, uint64_t> Index;
  std::map<StringRef, uint64_t> Ref;
  std::vector<Node> Nodes;
};

} // namespace

Expected<NamesExtensionStats>
appendNamesExtension(SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                     const ProfileNames &Names, const HeapProfile *Heap) {
  NamesExtensionStats Stats;
  if (Out.size() % 8 != 0)
    return makeError(ErrorCode::Malformed,
                     "the LLVM part is not a multiple of 8 bytes");

  // The functions P mentions that have names, by GUID.
  std::set<GUID> Wanted;
  for (const auto &KV : P.Records) {
    Wanted.insert(KV.first);
    for (const IndexedCallSite &CS : KV.second.CallSites)
      Wanted.insert(CS.CalleeGuids.begin(), CS.CalleeGuids.end());
  }
  for (const auto &KV : P.Frames)
    Wanted.insert(KV.second.Function);
  std::vector<std::pair<GUID, const FunctionNameInfo *>> Funcs;
  std::map<GUID, uint64_t> FuncIndex;
  for (GUID G : Wanted)
    if (const FunctionNameInfo *N = Names.function(G)) {
      FuncIndex[G] = Funcs.size();
      Funcs.push_back({G, N});
    }
  // Tables after the last names table, each with its own 8-byte header
  // after the header (and the sites header), in this order.
  struct TrailingTable {
    uint32_t Flag;
    SmallVector<char, 0> Bytes;
  };
  SmallVector<TrailingTable, 2> Trailing;
  if (Heap && Heap->present()) {
    Trailing.push_back({names::FlagHeap, {}});
    writeHeapTable(Trailing.back().Bytes, *Heap);
  }
  if (Funcs.empty() && Trailing.empty())
    return Stats;

  // Frames whose location the function's declaration does not imply.
  struct FrameEntry {
    uint64_t Func;
    uint32_t LineOffset;
    SourceLocation Loc;
  };
  std::map<std::pair<uint64_t, uint32_t>, SourceLocation> Exceptions;
  for (const auto &KV : P.Frames) {
    const Frame &F = KV.second;
    auto FI = FuncIndex.find(F.Function);
    if (FI == FuncIndex.end())
      continue;
    SourceLocation Want = Names.location(F.Function, F.LineOffset);
    if (!Want.known())
      Want = SourceLocation();
    if (Want != Names.derivedLocation(F.Function, F.LineOffset))
      Exceptions[{FI->second, F.LineOffset}] = Want;
  }

  StringTableWriter Strings;
  FileTreeWriter Files;
  std::set<StringRef> Modules;
  for (const auto &[G, N] : Funcs) {
    Strings.add(N->LinkageName);
    Strings.add(N->DemangledName);
    Files.add(N->DeclFile);
    if (!N->BuildId.empty()) {
      if (N->BuildId.size() > names::MaxBuildIdBytes)
        return makeError(ErrorCode::Malformed,
                         "build id of " + Twine(N->BuildId.size()) +
                             " bytes is too long for the names extension");
      Modules.insert(N->BuildId);
    }
  }
  for (const auto &KV : Exceptions)
    Files.add(KV.second.File);
  // Contexts whose allocation site lies in another module than their leaf
  // function's (a function two programs share), by context id.
  std::map<CallStackId, StringRef> Sites;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &AS : KV.second.AllocSites) {
      StringRef M = Names.siteModule(AS.CSId);
      std::optional<GUID> Leaf = P.leafFunction(AS.CSId);
      if (M.empty() || !Leaf || Sites.count(AS.CSId))
        continue;
      const FunctionNameInfo *N = Names.function(*Leaf);
      if (!N || N->BuildId != M)
        Sites[AS.CSId] = M;
    }
  // The allocated type of each context that has one, by context id.
  std::map<CallStackId, StringRef> Types;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &AS : KV.second.AllocSites) {
      StringRef T = Names.type(AS.CSId);
      if (!T.empty()) {
        Types.try_emplace(AS.CSId, T);
        Strings.add(T);
      }
    }
  const std::set<StringRef> &Programs = Names.programs();
  for (StringRef M : Programs)
    Modules.insert(M);
  for (const auto &KV : Sites)
    Modules.insert(KV.second);
  for (StringRef M : Modules)
    if (M.size() > names::MaxBuildIdBytes)
      return makeError(ErrorCode::Malformed,
                       "build id of " + Twine(M.size()) +
                           " bytes is too long for the names extension");
  // The modules' paths, when some is known (memprof-show prints them beside
  // the build ids; the runtime records them).
  const bool WithPaths = llvm::any_of(
      Modules, [&](StringRef M) { return !Names.modulePath(M).empty(); });
  if (WithPaths) {
    Strings.add("");
    for (StringRef M : Modules)
      Strings.add(Names.modulePath(M));
  }
  Files.finish(Strings);
  if (Error E = Strings.finish())
    return std::move(E);
  std::map<StringRef, uint64_t> ModuleRef;
  for (StringRef M : Modules)
    ModuleRef[M] = ModuleRef.size() + 1;

  SmallVector<char, 0> ModuleBytes, FileBytes, FuncBytes, FrameBytes;
  writeULEB(ModuleBytes, Modules.size());
  for (StringRef M : Modules) {
    writeULEB(ModuleBytes, M.size());
    ModuleBytes.append(M.begin(), M.end());
    if (WithPaths)
      writeULEB(ModuleBytes, Strings.offset(Names.modulePath(M)));
  }
  Files.emit(FileBytes, Strings);
  writeULEB(FuncBytes, Funcs.size());
  // No GUIDs: each is the MD5 of its linkage name, which the reader
  // recomputes (and finds in increasing order).
  for (const auto &[G, N] : Funcs) {
    writeULEB(FuncBytes, Strings.offset(N->LinkageName));
    writeULEB(FuncBytes, Strings.offset(N->DemangledName));
    writeULEB(FuncBytes, Files.ref(N->DeclFile));
    writeULEB(FuncBytes, N->DeclLine);
    writeULEB(FuncBytes, N->BuildId.empty() ? 0 : ModuleRef[N->BuildId]);
  }
  writeULEB(FrameBytes, Exceptions.size());
  uint64_t PrevFunc = 0;
  for (const auto &[Key, Loc] : Exceptions) {
    writeULEB(FrameBytes, Key.first - PrevFunc);
    PrevFunc = Key.first;
    writeULEB(FrameBytes, Key.second);
    writeULEB(FrameBytes, Files.ref(Loc.File));
    writeULEB(FrameBytes, Loc.known() ? Loc.Line : 0);
  }
  // The programs merged and the site exceptions, when there is something
  // to say: a file of one program's runs holds one program.
  const bool WithSites = !Programs.empty() || !Sites.empty();
  SmallVector<char, 0> ProgramBytes, SiteBytes;
  if (WithSites) {
    writeULEB(ProgramBytes, Programs.size());
    for (StringRef M : Programs)
      writeULEB(ProgramBytes, ModuleRef[M]);
    writeULEB(SiteBytes, Sites.size());
    for (const auto &[Id, M] : Sites) {
      write64(SiteBytes, Id);
      writeULEB(SiteBytes, ModuleRef[M]);
    }
  }
  // The types, when some context has one: a file without is what it was
  // before the flag existed.
  // (A trailing table, after the heap table.)
  if (!Types.empty()) {
    SmallVector<char, 0> TypeBytes;
    writeULEB(TypeBytes, Types.size());
    for (const auto &[Id, T] : Types) {
      write64(TypeBytes, Id);
      writeULEB(TypeBytes, Strings.offset(T));
    }
    Trailing.push_back({names::FlagTypes, std::move(TypeBytes)});
  }
  for (const auto *Section : {&ModuleBytes, &FileBytes, &FuncBytes, &FrameBytes,
                              &ProgramBytes, &SiteBytes})
    if (Section->size() > UINT32_MAX)
      return makeError(ErrorCode::TooLarge,
                       "a names extension section exceeds 4 GiB");
  for (const TrailingTable &T : Trailing)
    if (T.Bytes.size() > UINT32_MAX)
      return makeError(ErrorCode::TooLarge,
                       "a names extension section exceeds 4 GiB");

  // Names, demangled C++ names above all, repeat themselves: deflate the
  // string table when that makes it smaller.
  ArrayRef<uint8_t> RawStrings(
      reinterpret_cast<const uint8_t *>(Strings.bytes().data()),
      Strings.bytes().size());
  SmallVector<uint8_t, 0> Zipped;
  uint32_t Flags = (WithPaths ? names::FlagModulePaths : 0) |
                   (WithSites ? names::FlagSites : 0);
  for (const TrailingTable &T : Trailing)
    Flags |= T.Flag;
  if (compression::zlib::isAvailable() && !RawStrings.empty()) {
    compression::zlib::compress(RawStrings, Zipped,
                                compression::zlib::BestSizeCompression);
    if (Zipped.size() < RawStrings.size())
      Flags |= names::FlagStringsZlib;
  }
  ArrayRef<uint8_t> StoredStrings =
      (Flags & names::FlagStringsZlib) ? ArrayRef<uint8_t>(Zipped) : RawStrings;

  const uint64_t Start = Out.size();
  write64(Out, names::HeaderMagic);
  write32(Out, names::Version);
  write32(Out, Flags);
  write64(Out, Start);
  write32(Out, uint32_t(StoredStrings.size()));
  write32(Out, uint32_t(ModuleBytes.size()));
  write32(Out, uint32_t(FileBytes.size()));
  write32(Out, uint32_t(FuncBytes.size()));
  write32(Out, uint32_t(FrameBytes.size()));
  write32(Out, (Flags & names::FlagStringsZlib) ? uint32_t(RawStrings.size())
                                                : 0);
  if (WithSites) {
    write32(Out, uint32_t(ProgramBytes.size()));
    write32(Out, uint32_t(SiteBytes.size()));
  }
  for (const TrailingTable &T : Trailing) {
    write32(Out, uint32_t(T.Bytes.size()));
    write32(Out, 0);
  }
  Out.append(StoredStrings.begin(), StoredStrings.end());
  Out.append(ModuleBytes.begin(), ModuleBytes.end());
  Out.append(FileBytes.begin(), FileBytes.end());
  Out.append(FuncBytes.begin(), FuncBytes.end());
  Out.append(FrameBytes.begin(), FrameBytes.end());
  Out.append(ProgramBytes.begin(), ProgramBytes.end());
  Out.append(SiteBytes.begin(), SiteBytes.end());
  for (const TrailingTable &T : Trailing)
    Out.append(T.Bytes.begin(), T.Bytes.end());
  while (Out.size() % 8 != 0)
    Out.push_back(0);
  const uint64_t Size = Out.size() + names::FooterSize - Start;
  write64(Out, Size);
  write64(Out, names::FooterMagic);

  Stats.TotalBytes = Size;
  Stats.StringTableBytes = StoredStrings.size();
  Stats.StringTableRawBytes = RawStrings.size();
  Stats.ModuleTableBytes = ModuleBytes.size();
  Stats.FileTableBytes = FileBytes.size();
  Stats.FunctionTableBytes = FuncBytes.size();
  Stats.FrameTableBytes = FrameBytes.size();
  Stats.ProgramTableBytes = ProgramBytes.size();
  Stats.SiteModuleTableBytes = SiteBytes.size();
  for (const TrailingTable &T : Trailing) {
    if (T.Flag == names::FlagHeap)
      Stats.HeapTableBytes = T.Bytes.size();
    if (T.Flag == names::FlagTypes)
      Stats.TypeTableBytes = T.Bytes.size();
  }
  Stats.NumSiteEntries = Sites.size();
  Stats.NumTypeEntries = Types.size();
  Stats.NumFunctions = Funcs.size();
  Stats.NumFileNodes = Files.size();
  Stats.NumFrameEntries = Exceptions.size();
  return Stats;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {

/// \p S for a message: at most 80 bytes, anything but printable ASCII as
/// \xx escapes.
std::string printable(StringRef S) {
  std::string Out;
  raw_string_ostream OS(Out);
  printEscapedString(S.take_front(80), OS);
  return Out;
}

struct ExtensionReader {
  StringRef Buffer;
  uint64_t Start = 0, ExtSize = 0;
  uint64_t Budget = 0;
  ProfileNames Names;
  StringRef StringTable;
  SmallVector<uint8_t, 0> Inflated;
  std::vector<StringRef> ModuleIds;
  struct Node {
    StringRef Name;
    uint64_t Parent; // index + 1, 0 for a root
    uint64_t Length; // of the whole path
  };
  std::vector<Node> Nodes;
  std::vector<std::optional<StringRef>> Paths;
  std::vector<GUID> FuncGuids;
  uint32_t Flags = 0; // the header's
  HeapProfile Heap;

  Error spend() {
    if (Names.pooledBytes() > Budget)
      return makeError(ErrorCode::TooLarge,
                       "names extension: names expand to more than " +
                           Twine(Budget) + " bytes",
                       Start);
    return Error::success();
  }

  Expected<StringRef> string(uint64_t Offset, const Twine &What,
                             uint64_t At) {
    if (Offset >= StringTable.size())
      return namesMalformed(What + " string offset " + Twine(Offset) +
                           " is outside the string table of " +
                           Twine(StringTable.size()) + " bytes",
                       At);
    StringRef S = StringTable.substr(Offset);
    S = S.take_until([](char C) { return C == '\0'; });
    StringRef Saved = Names.save(S);
    if (Error E = spend())
      return std::move(E);
    return Saved;
  }

  Expected<StringRef> path(uint64_t Ref, const Twine &What, uint64_t At) {
    if (Ref == 0)
      return StringRef();
    if (Ref > Nodes.size())
      return namesMalformed(What + " file " + Twine(Ref) + " is not a node of the " +
                           Twine(Nodes.size()) + "-node file table",
                       At);
    const size_t I = Ref - 1;
    if (Paths[I])
      return *Paths[I];
    std::string S(Nodes[I].Length, '\0');
    size_t End = S.size();
    // Parents precede children, so this walk ends within I steps.
    for (uint64_t N = Ref; N != 0; N = Nodes[N - 1].Parent) {
      const Node &Cur = Nodes[N - 1];
      End -= Cur.Name.size();
      memcpy(&S[End], Cur.Name.data(), Cur.Name.size());
      if (Cur.Parent != 0)
        S[--End] = '/';
    }
    Paths[I] = Names.save(S);
    if (Error E = spend())
      return std::move(E);
    return *Paths[I];
  }

  Error readModules(SectionCursor &S) {
    auto N = S.count(1, "module");
    if (!N)
      return N.takeError();
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto Len = S.uleb("build id length");
      if (!Len)
        return Len.takeError();
      if (*Len > names::MaxBuildIdBytes)
        return namesMalformed("module " + Twine(I) + " build id length " +
                             Twine(*Len) + " exceeds " +
                             Twine(names::MaxBuildIdBytes),
                         At);
      auto Bytes = S.C.readBytes(*Len, "build id");
      if (!Bytes)
        return Bytes.takeError();
      ModuleIds.push_back(Names.save(*Bytes));
      if (!(Flags & names::FlagModulePaths))
        continue;
      const uint64_t PathAt = S.C.absoluteOffset();
      auto Ref = S.uleb("module path");
      if (!Ref)
        return Ref.takeError();
      auto Path = string(*Ref, "module " + Twine(I) + " path", PathAt);
      if (!Path)
        return Path.takeError();
      Names.addModulePath(ModuleIds.back(), *Path);
    }
    return S.finish();
  }

  Error readFiles(SectionCursor &S) {
    auto N = S.count(2, "file node");
    if (!N)
      return N.takeError();
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto NameOff = S.uleb("file node name");
      if (!NameOff)
        return NameOff.takeError();
      auto Parent = S.uleb("file node parent");
      if (!Parent)
        return Parent.takeError();
      // Each link points at an earlier node: the tree cannot hold a cycle.
      if (*Parent > I)
        return namesMalformed("file node " + Twine(I) + " parent " +
                             Twine(*Parent) + " does not precede it",
                         At);
      if (*NameOff >= StringTable.size())
        return namesMalformed("file node " + Twine(I) + " string offset " +
                             Twine(*NameOff) +
                             " is outside the string table of " +
                             Twine(StringTable.size()) + " bytes",
                         At);
      StringRef Name = StringTable.substr(*NameOff).take_until(
          [](char C) { return C == '\0'; });
      uint64_t Len = Name.size();
      if (*Parent)
        Len += Nodes[*Parent - 1].Length + 1;
      if (Len > names::MaxPathBytes)
        return namesMalformed("file node " + Twine(I) + " path of " + Twine(Len) +
                             " bytes exceeds " + Twine(names::MaxPathBytes),
                         At);
      Nodes.push_back({Name, *Parent, Len});
    }
    Paths.resize(Nodes.size());
    return S.finish();
  }

  Error readFunctions(SectionCursor &S) {
    auto N = S.count(5, "function");
    if (!N)
      return N.takeError();
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto Linkage = S.uleb("linkage name");
      if (!Linkage)
        return Linkage.takeError();
      auto Demangled = S.uleb("demangled name");
      if (!Demangled)
        return Demangled.takeError();
      auto File = S.uleb("declaration file");
      if (!File)
        return File.takeError();
      auto Line = S.uleb32("declaration line");
      if (!Line)
        return Line.takeError();
      auto Module = S.uleb("module");
      if (!Module)
        return Module.takeError();

      FunctionNameInfo Info;
      auto L = string(*Linkage, "function " + Twine(I) + " linkage name", At);
      if (!L)
        return L.takeError();
      Info.LinkageName = *L;
      if (Info.LinkageName.empty())
        return namesMalformed("function " + Twine(I) + " has an empty linkage name",
                         At);
      // The GUID is the linkage name's; functions come in GUID order.
      const GUID G = functionGUID(Info.LinkageName);
      if (!FuncGuids.empty() && G <= FuncGuids.back())
        return namesMalformed("function " + Twine(I) + " '" +
                             printable(Info.LinkageName) + "' has GUID 0x" +
                             Twine::utohexstr(G) +
                             ", not above the previous function's 0x" +
                             Twine::utohexstr(FuncGuids.back()),
                         At);
      auto D = string(*Demangled, "function " + Twine(I) + " demangled name",
                      At);
      if (!D)
        return D.takeError();
      Info.DemangledName = *D;
      auto P = path(*File, "function " + Twine(I), At);
      if (!P)
        return P.takeError();
      Info.DeclFile = *P;
      Info.DeclLine = *Line;
      if (*Module > ModuleIds.size())
        return namesMalformed("function " + Twine(I) + " module " + Twine(*Module) +
                             " is not one of the " + Twine(ModuleIds.size()) +
                             " modules",
                         At);
      if (*Module)
        Info.BuildId = ModuleIds[*Module - 1];
      Names.addFunction(G, Info);
      FuncGuids.push_back(G);
    }
    return S.finish();
  }

  Error readFrames(SectionCursor &S) {
    auto N = S.count(4, "frame");
    if (!N)
      return N.takeError();
    uint64_t Func = 0;
    std::optional<std::pair<uint64_t, uint32_t>> Prev;
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto Delta = S.uleb("frame function delta");
      if (!Delta)
        return Delta.takeError();
      if (*Delta >= FuncGuids.size() - Func)
        return namesMalformed("frame " + Twine(I) + " function index " +
                             Twine(Func) + " + " + Twine(*Delta) +
                             " is not one of the " + Twine(FuncGuids.size()) +
                             " functions",
                         At);
      Func += *Delta;
      auto Offset = S.uleb32("frame line offset");
      if (!Offset)
        return Offset.takeError();
      auto File = S.uleb("frame file");
      if (!File)
        return File.takeError();
      auto Line = S.uleb32("frame line");
      if (!Line)
        return Line.takeError();
      std::pair<uint64_t, uint32_t> Key{Func, *Offset};
      if (Prev && !(*Prev < Key))
        return namesMalformed("frame " + Twine(I) +
                             " is not ordered after the previous frame",
                         At);
      Prev = Key;
      if (*File == 0 && *Line != 0)
        return namesMalformed("frame " + Twine(I) + " has line " + Twine(*Line) +
                             " but no file",
                         At);
      auto P = path(*File, "frame " + Twine(I), At);
      if (!P)
        return P.takeError();
      Names.setLocation(FuncGuids[Func], *Offset, {*P, *Line});
    }
    return S.finish();
  }

  Error read(NamesExtensionInfo &Info) {
    const uint64_t Size = Buffer.size();
    const uint64_t FooterAt = Size - names::FooterSize;
    ExtSize = support::endian::read64le(Buffer.data() + FooterAt);
    if (ExtSize < names::HeaderSize + names::FooterSize || ExtSize > Size)
      return namesMalformed("extension size " + Twine(ExtSize) +
                           " does not fit the file of " + Twine(Size) +
                           " bytes",
                       FooterAt);
    Start = Size - ExtSize;
    if (Start % 8 != 0)
      return namesMalformed("extension starts at " + Twine(Start) +
                           ", which is not 8-byte aligned",
                       FooterAt);
    Budget = (16ULL << 20) + 64 * ExtSize;
    Info = {true, Start, ExtSize};

    DataCursor H(Buffer.substr(Start, names::HeaderSize), Start);
    auto Magic = H.read<uint64_t>("names header magic");
    if (!Magic)
      return Magic.takeError();
    if (*Magic != names::HeaderMagic)
      return makeError(ErrorCode::BadMagic,
                       "names extension: no header magic where the footer "
                       "says the extension starts",
                       Start);
    auto Version = H.read<uint32_t>("names version");
    if (!Version)
      return Version.takeError();
    if (*Version != names::Version)
      return makeError(ErrorCode::UnsupportedVersion,
                       "names extension version " + Twine(*Version) +
                           "; this tool reads version " +
                           Twine(names::Version),
                       Start + 8);
    auto Flags = H.read<uint32_t>("names flags");
    if (!Flags)
      return Flags.takeError();
    if (*Flags & ~(names::FlagStringsZlib | names::FlagModulePaths |
                   names::FlagSites | names::FlagHeap | names::FlagTypes))
      return makeError(ErrorCode::UnsupportedVersion,
                       "names extension flags 0x" + Twine::utohexstr(*Flags) +
                           " are not supported",
                       Start + 12);
    this->Flags = *Flags;
    auto LLVMSize = H.read<uint64_t>("names LLVM part size");
    if (!LLVMSize)
      return LLVMSize.takeError();
    if (*LLVMSize != Start)
      return namesMalformed("LLVM part size " + Twine(*LLVMSize) +
                           " is not the extension's offset " + Twine(Start),
                       Start + 16);
    uint32_t Sizes[8] = {};
    uint64_t Sum = 0;
    for (unsigned I = 0; I < 5; ++I) {
      if (Error E = H.readInto(Sizes[I], "names section size"))
        return E;
      Sum += Sizes[I];
    }
    auto RawSize = H.read<uint32_t>("names string table raw size");
    if (!RawSize)
      return RawSize.takeError();
    uint64_t HeadersSize = names::HeaderSize;
    if (*Flags & names::FlagSites) {
      if (ExtSize < names::HeaderSize + names::SitesHeaderSize +
                        names::FooterSize)
        return namesMalformed("extension of " + Twine(ExtSize) +
                             " bytes has no room for its sites header",
                         Start);
      DataCursor SH(Buffer.substr(Start + names::HeaderSize,
                                  names::SitesHeaderSize),
                    Start + names::HeaderSize);
      for (unsigned I = 5; I < 7; ++I) {
        if (Error E = SH.readInto(Sizes[I], "names section size"))
          return E;
        Sum += Sizes[I];
      }
      HeadersSize += names::SitesHeaderSize;
    }
    // The tables after the last names table, each announced by a flag and
    // sized by an 8-byte header of its own, in this order.
    struct TrailingTable {
      uint32_t Flag;
      const char *Name;
      uint32_t Size = 0;
    };
    TrailingTable Trailing[] = {{names::FlagHeap, "heap"},
                                {names::FlagTypes, "types"}};
    for (TrailingTable &T : Trailing) {
      if (!(*Flags & T.Flag))
        continue;
      if (ExtSize - names::FooterSize < HeadersSize + 8)
        return namesMalformed("extension of " + Twine(ExtSize) +
                             " bytes has no room for its " + T.Name +
                             " header",
                         Start);
      DataCursor TH(Buffer.substr(Start + HeadersSize, 8),
                    Start + HeadersSize);
      uint32_t Reserved = 0;
      if (Error E = TH.readInto(T.Size, Twine(T.Name) + " table size"))
        return E;
      if (Error E = TH.readInto(Reserved, Twine(T.Name) + " header"))
        return E;
      if (Reserved != 0)
        return namesMalformed(Twine(T.Name) + " header's reserved word is " +
                             Twine(Reserved) + ", not 0",
                         Start + HeadersSize + 4);
      Sum += T.Size;
      HeadersSize += 8;
    }
    const bool Zipped = *Flags & names::FlagStringsZlib;
    if (!Zipped && *RawSize != 0)
      return namesMalformed("string table raw size is " + Twine(*RawSize) +
                           " but the table is not compressed",
                       Start + 44);
    const uint64_t Body = ExtSize - HeadersSize - names::FooterSize;
    if (Sum > Body || Body - Sum >= 8)
      return namesMalformed("section sizes add up to " + Twine(Sum) +
                           " bytes but the extension holds " + Twine(Body),
                       Start + 24);
    uint64_t Pos = Start + HeadersSize;
    for (uint64_t I = Pos + Sum; I < FooterAt; ++I)
      if (Buffer[I] != 0)
        return namesMalformed("padding byte is not zero", I);

    StringTable = Buffer.substr(Pos, Sizes[0]);
    if (Zipped) {
      if (*RawSize > names::MaxInflateRatio * Sizes[0] + 64)
        return namesMalformed("string table of " + Twine(Sizes[0]) +
                             " compressed bytes claims to inflate to " +
                             Twine(*RawSize),
                         Start + 44);
      if (!compression::zlib::isAvailable())
        return makeError(ErrorCode::UnsupportedVersion,
                         "names extension: the string table is "
                         "zlib-compressed and this build has no zlib",
                         Pos);
      if (Error E = compression::zlib::decompress(
              arrayRefFromStringRef(StringTable), Inflated, *RawSize)) {
        std::string Why = toString(std::move(E));
        return namesMalformed("string table does not inflate: " + Why, Pos);
      }
      if (Inflated.size() != *RawSize)
        return namesMalformed("string table inflates to " +
                             Twine(Inflated.size()) + " bytes, not " +
                             Twine(*RawSize),
                         Pos);
      StringTable = toStringRef(Inflated);
    }
    if (!StringTable.empty() && StringTable.back() != '\0')
      return namesMalformed("string table does not end with a NUL byte",
                       Zipped ? Pos : Pos + Sizes[0] - 1);
    Pos += Sizes[0];
    // The sections after the string table, in file order.
    using SectionReader = Error (ExtensionReader::*)(SectionCursor &);
    static const std::pair<const char *, SectionReader> Sections[] = {
        {"module table", &ExtensionReader::readModules},
        {"file table", &ExtensionReader::readFiles},
        {"function table", &ExtensionReader::readFunctions},
        {"frame table", &ExtensionReader::readFrames},
        {"program table", &ExtensionReader::readPrograms},
        {"site module table", &ExtensionReader::readSites}};
    const unsigned NumSections = (*Flags & names::FlagSites) ? 6 : 4;
    for (unsigned I = 0; I < NumSections; ++I) {
      SectionCursor C(Buffer.substr(Pos, Sizes[I + 1]), Pos, Sections[I].first);
      if (Error E = (this->*Sections[I].second)(C))
        return E;
      Pos += Sizes[I + 1];
    }
    for (const TrailingTable &T : Trailing) {
      if (!(*Flags & T.Flag))
        continue;
      if (T.Flag == names::FlagHeap) {
        auto H = readHeapTable(Buffer.substr(Pos, T.Size), Pos);
        if (!H)
          return H.takeError();
        Heap = std::move(*H);
      } else if (T.Flag == names::FlagTypes) {
        SectionCursor C(Buffer.substr(Pos, T.Size), Pos, "type table");
        if (Error E = readTypes(C))
          return E;
      }
      Pos += T.Size;
    }
    return Error::success();
  }

  /// A module reference (1-based) that must name a module.
  Expected<StringRef> moduleRef(SectionCursor &S, const Twine &What) {
    const uint64_t At = S.C.absoluteOffset();
    auto Ref = S.uleb(What + " module");
    if (!Ref)
      return Ref.takeError();
    if (*Ref == 0 || *Ref > ModuleIds.size())
      return namesMalformed(What + " module " + Twine(*Ref) +
                           " is not one of the " + Twine(ModuleIds.size()) +
                           " modules",
                       At);
    return ModuleIds[*Ref - 1];
  }

  Error readPrograms(SectionCursor &S) {
    auto N = S.count(1, "program");
    if (!N)
      return N.takeError();
    StringRef Prev;
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto M = moduleRef(S, "program " + Twine(I));
      if (!M)
        return M.takeError();
      // Modules are sorted, so increasing references are increasing ids.
      if (I && !(Prev < *M))
        return namesMalformed("program " + Twine(I) +
                             " is not ordered after the previous program",
                         At);
      Prev = *M;
      Names.addProgram(*M);
    }
    return S.finish();
  }

  Error readTypes(SectionCursor &S) {
    auto N = S.count(9, "type");
    if (!N)
      return N.takeError();
    std::optional<uint64_t> Prev;
    for (uint64_t I = 0; I < *N; ++I) {
      const uint64_t At = S.C.absoluteOffset();
      auto IdOr = S.increasingId(I, Prev, "type", "context id");
      if (!IdOr)
        return IdOr.takeError();
      const uint64_t Id = *IdOr;
      Prev = Id;
      const uint64_t NameAt = S.C.absoluteOffset();
      auto Ref = S.uleb("type name");
      if (!Ref)
        return Ref.takeError();
      auto Name = string(*Ref, "type " + Twine(I) + " name", NameAt);
      if (!Name)
        return Name.takeError();
      if (Name->empty())
        return namesMalformed("type " + Twine(I) + " has an empty name", NameAt);
      Names.addType(Id, *Name);
      Names.noteTypeEntryOffset(Id, At);
    }
    return S.finish();
  }

  Error readSites(SectionCursor &S) {
    auto N = S.count(9, "site module");
    if (!N)
      return N.takeError();
    std::optional<uint64_t> Prev;
    for (uint64_t I = 0; I < *N; ++I) {
      auto IdOr = S.increasingId(I, Prev, "site module", "context id");
      if (!IdOr)
        return IdOr.takeError();
      const uint64_t Id = *IdOr;
      Prev = Id;
      auto M = moduleRef(S, "site " + Twine(I));
      if (!M)
        return M.takeError();
      Names.addSiteModule(Id, *M);
    }
    return S.finish();
  }
};

} // namespace

Error checkNamesContexts(const ProfileNames &Names, const IndexedMemProf &P) {
  if (Names.typeEntryOffsets().empty())
    return Error::success();
  std::unordered_set<CallStackId> Contexts;
  for (const auto &KV : P.Records)
    for (const IndexedAllocSite &AS : KV.second.AllocSites)
      Contexts.insert(AS.CSId);
  // The first offending entry in file order, whatever the map's order.
  std::optional<std::pair<uint64_t, CallStackId>> Bad;
  for (const auto &[Id, At] : Names.typeEntryOffsets())
    if (!Contexts.count(Id) && (!Bad || At < Bad->first))
      Bad = {At, Id};
  if (Bad)
    return namesMalformed("type of context 0x" + Twine::utohexstr(Bad->second) +
                         ", which is no allocation context of the LLVM part",
                     Bad->first);
  return Error::success();
}

bool hasNamesExtension(StringRef Buffer) {
  return Buffer.size() >= names::FooterSize &&
         support::endian::read64le(Buffer.data() + Buffer.size() - 8) ==
             names::FooterMagic;
}

Expected<ProfileNames> readNamesExtension(StringRef Buffer,
                                          NamesExtensionInfo *InfoOut,
                                          HeapProfile *HeapOut) {
  NamesExtensionInfo Info;
  if (HeapOut)
    *HeapOut = HeapProfile();
  if (!hasNamesExtension(Buffer)) {
    if (InfoOut)
      *InfoOut = Info;
    return ProfileNames();
  }
  ExtensionReader R;
  R.Buffer = Buffer;
  if (Error E = R.read(Info))
    return std::move(E);
  if (InfoOut)
    *InfoOut = Info;
  if (HeapOut)
    *HeapOut = std::move(R.Heap);
  return std::move(R.Names);
}

} // namespace memprof
