//===- ProfileNames.h - Function names and source locations of a profile -*- C++ -*-===//
//
// LLVM's indexed MemProf format identifies functions by GUID (MD5 of the
// linkage name) and frames by a line offset from the function's declaration.
// ProfileNames keeps what turns those back into something readable: per GUID
// the linkage and demangled names, the declaration file and line and the
// module; per frame (GUID, line offset) the source file and line. memprof
// stores it in an extension after the LLVM-defined bytes of an indexed file
// (docs/names-extension.md), which LLVM's readers ignore.
//
// Observations merge deterministically, whatever their order: where two
// disagree, the smallest (as defined below) wins.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_PROFILENAMES_H
#define MEMPROF_PROFILEDATA_PROFILENAMES_H

#include "memprof/ProfileData/MemProfData.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

namespace memprof {

struct HeapProfile;

/// What one observation says about a function. The strings are owned by the
/// ProfileNames they were added to (or by the caller until then).
struct FunctionNameInfo {
  llvm::StringRef LinkageName;   // as found; GUID = functionGUID(LinkageName)
  llvm::StringRef DemangledName; // llvm::demangle(LinkageName)
  llvm::StringRef DeclFile;      // DW_AT_decl_file; empty when unknown
  uint32_t DeclLine = 0;         // DW_AT_decl_line; 0 when unknown
  llvm::StringRef BuildId;       // raw bytes of its module; empty if unknown

  /// The merge order: by linkage name, then demangled name, then a known
  /// declaration file before an unknown one, then file, line and build id.
  bool operator<(const FunctionNameInfo &O) const;
  bool operator==(const FunctionNameInfo &O) const;
};

/// A source position. File empty means unknown (Line is then 0).
struct SourceLocation {
  llvm::StringRef File;
  uint32_t Line = 0;

  bool known() const { return !File.empty(); }
  bool operator<(const SourceLocation &O) const {
    return std::tie(File, Line) < std::tie(O.File, O.Line);
  }
  bool operator==(const SourceLocation &O) const {
    return File == O.File && Line == O.Line;
  }
  bool operator!=(const SourceLocation &O) const { return !(*this == O); }
};

class ProfileNames {
public:
  ProfileNames();
  ProfileNames(ProfileNames &&) = default;
  ProfileNames &operator=(ProfileNames &&) = default;
  ProfileNames(const ProfileNames &O);
  ProfileNames &operator=(const ProfileNames &O);

  /// Records an observation of function \p G. Ignored unless \p N's linkage
  /// name hashes to \p G. Among several, the smallest FunctionNameInfo wins.
  void addFunction(GUID G, const FunctionNameInfo &N);
  /// Records that frames of function \p G at \p LineOffset lie at \p L.
  /// Unknown locations are ignored; among several, the smallest wins.
  void addLocation(GUID G, uint32_t LineOffset, SourceLocation L);
  /// Sets the location of frames (G, LineOffset) outright, an unknown one
  /// included (the frame's location is then not derived). For readers.
  void setLocation(GUID G, uint32_t LineOffset, SourceLocation L);
  /// Records that the module with \p BuildId (raw bytes) was loaded from
  /// \p Path, as a profile recorded it. Among several, the smallest wins,
  /// so neither the order of the inputs nor the way they are split into
  /// partial merges matters. Empty ones are ignored.
  void addModulePath(llvm::StringRef BuildId, llvm::StringRef Path);
  /// The path of the module with \p BuildId; empty when unknown.
  llvm::StringRef modulePath(llvm::StringRef BuildId) const;
  /// Records that the allocation site of context \p Id lies in the module
  /// with \p BuildId (raw bytes): the module whose code made the call, which
  /// the leaf function's module does not tell where two programs share the
  /// function (an inlined template, main). Among several, the smallest wins.
  void addSiteModule(CallStackId Id, llvm::StringRef BuildId);
  /// The module recorded for context \p Id's allocation site; empty when
  /// none was (a file stores it only where it is not the leaf function's).
  llvm::StringRef siteModule(CallStackId Id) const;
  /// The module of the allocation site of context \p Id whose leaf frame is
  /// in function \p Leaf: the recorded one, else the leaf function's; empty
  /// when unknown.
  llvm::StringRef contextModule(CallStackId Id, GUID Leaf) const;
  /// Records that a merged input profiled the program whose main executable
  /// has \p BuildId (raw bytes). Empty ones are ignored.
  void addProgram(llvm::StringRef BuildId);
  /// Every recorded site module, by context id.
  const std::unordered_map<CallStackId, llvm::StringRef> &siteModules() const {
    return SiteModules;
  }
  /// The programs merged, by build id (raw bytes).
  const std::set<llvm::StringRef> &programs() const { return Programs; }
  /// Records that context \p Id allocates objects of type \p Type (as
  /// source writes it: "Foo", "std::string"). Among several, the smallest
  /// name wins (bytewise), so neither the inputs' order nor partial merges
  /// matter. Empty ones are ignored.
  void addType(CallStackId Id, llvm::StringRef Type);
  /// The allocated type of context \p Id; empty when unknown.
  llvm::StringRef type(CallStackId Id) const;
  /// Every context's known allocated type, by context id.
  const std::unordered_map<CallStackId, llvm::StringRef> &types() const {
    return Types;
  }
  /// Forgets every context's type (pruning rebuilds them for the contexts
  /// it makes).
  void clearTypes() {
    Types.clear();
    TypeEntryOffsets.clear();
  }
  /// Where the reader found each type entry (file offsets), for
  /// checkNamesContexts; empty for names not read from a file.
  const std::unordered_map<CallStackId, uint64_t> &typeEntryOffsets() const {
    return TypeEntryOffsets;
  }
  void noteTypeEntryOffset(CallStackId Id, uint64_t Offset) {
    TypeEntryOffsets[Id] = Offset;
  }
  /// Adds every observation of \p O.
  void merge(const ProfileNames &O);
  /// Marks every frame of \p P that has a named function but no observed
  /// location as explicitly unknown, so that a written file never claims a
  /// location nobody observed (derived from another input's declaration).
  void markUnobservedFrames(const IndexedMemProf &P);

  const FunctionNameInfo *function(GUID G) const;
  /// The observed location of frames (G, LineOffset); else the function's
  /// declaration file with line DeclLine + LineOffset (LLVM's LineOffset is
  /// Line - DeclLine, mod 2^32); else unknown.
  SourceLocation location(GUID G, uint32_t LineOffset) const;
  /// The location the function's declaration implies for \p LineOffset.
  SourceLocation derivedLocation(GUID G, uint32_t LineOffset) const;
  /// The observed location only.
  std::optional<SourceLocation> observedLocation(GUID G,
                                                 uint32_t LineOffset) const;

  bool empty() const { return Functions.empty(); }
  const std::map<GUID, FunctionNameInfo> &functions() const {
    return Functions;
  }
  const std::map<std::pair<GUID, uint32_t>, SourceLocation> &
  locations() const {
    return Locations;
  }

  /// Copies \p S into this object's string pool.
  llvm::StringRef save(llvm::StringRef S);
  /// Bytes held by the string pool (for the reader's budget).
  size_t pooledBytes() const { return PoolBytes; }

private:
  struct Pool {
    llvm::BumpPtrAllocator Alloc;
    llvm::UniqueStringSaver Saver{Alloc};
  };
  std::unique_ptr<Pool> Strings;
  size_t PoolBytes = 0;
  std::map<GUID, FunctionNameInfo> Functions;
  std::map<std::pair<GUID, uint32_t>, SourceLocation> Locations;
  std::map<llvm::StringRef, llvm::StringRef> ModulePaths; // build id -> path
  std::unordered_map<CallStackId, llvm::StringRef> SiteModules;
  std::set<llvm::StringRef> Programs;
  std::unordered_map<CallStackId, llvm::StringRef> Types;
  std::unordered_map<CallStackId, uint64_t> TypeEntryOffsets;
};

/// llvm::demangle of \p LinkageName (the name itself when not mangled).
std::string demangleName(llvm::StringRef LinkageName);

/// \p S as valid UTF-8 (invalid bytes become U+FFFD): names and paths come
/// from files, and every report, picture and JSON written must stay valid.
std::string validUTF8(llvm::StringRef S);

/// "0x" and the lower-case hex digits of \p V: how GUIDs, context ids and
/// offsets are printed in reports and pictures alike.
std::string hexValue(uint64_t V);

/// "FILE:LINE" (then ":COLUMN" when \p Column is given), as every text
/// prints a frame's place; "FILE:?" when the line is 0, which DWARF gives
/// code of no one line (compiler-generated, or merged from several lines):
/// unknown, never line 0 (its column means nothing then either).
std::string sourceLocationText(llvm::StringRef File, uint32_t Line,
                               std::optional<uint32_t> Column = std::nullopt);

/// Sizes of a written extension, for reports.
struct NamesExtensionStats {
  uint64_t TotalBytes = 0; // header, sections, padding and footer
  uint64_t StringTableBytes = 0;    // as stored (compressed or not)
  uint64_t StringTableRawBytes = 0; // before compression
  uint64_t ModuleTableBytes = 0;
  uint64_t FileTableBytes = 0;
  uint64_t FunctionTableBytes = 0;
  uint64_t FrameTableBytes = 0;
  uint64_t ProgramTableBytes = 0;
  uint64_t SiteModuleTableBytes = 0;
  uint64_t HeapTableBytes = 0;
  uint64_t TypeTableBytes = 0;
  uint64_t NumFunctions = 0;
  uint64_t NumFileNodes = 0;
  uint64_t NumFrameEntries = 0;
  uint64_t NumSiteEntries = 0;
  uint64_t NumTypeEntries = 0;
};

/// Appends the names extension to \p Out, which holds a complete LLVM
/// indexed profile (a multiple of 8 bytes) whose MemProf data is \p P. Only
/// functions of P (frames, records and callee GUIDs) and frames of P are
/// described; the heap table holds \p Heap when it is present (its
/// contexts must be allocation contexts of P). Nothing is appended when
/// \p Names knows none of P's functions and there is no heap data.
llvm::Expected<NamesExtensionStats>
appendNamesExtension(llvm::SmallVectorImpl<char> &Out, const IndexedMemProf &P,
                     const ProfileNames &Names,
                     const HeapProfile *Heap = nullptr);

/// Where an extension lies in a file.
struct NamesExtensionInfo {
  bool Present = false;
  uint64_t Offset = 0; // of its header = size of the LLVM part
  uint64_t Size = 0;   // up to the end of the file
};

/// True when \p Buffer ends with the extension's footer magic.
bool hasNamesExtension(llvm::StringRef Buffer);

/// Reads the extension at the end of \p Buffer. A buffer without one gives
/// empty names. Every offset, count, string reference and parent link is
/// checked; a bad extension is an error naming the offset. The heap table,
/// when there is one, is checked too, and read into \p Heap if given (else
/// \p Heap is left without heap data); its contexts are checked against
/// the LLVM part by checkHeapContexts (HeapData.h).
llvm::Expected<ProfileNames> readNamesExtension(llvm::StringRef Buffer,
                                                NamesExtensionInfo *Info =
                                                    nullptr,
                                                HeapProfile *Heap = nullptr);

/// Checks what the extension says about contexts against the LLVM part it
/// was read with: every type entry must name a context (an allocation
/// site's call stack) of \p P. The error names the entry's offset.
llvm::Error checkNamesContexts(const ProfileNames &Names,
                               const IndexedMemProf &P);

/// Records, for every frame of \p P whose function \p From names, the
/// function and the frame's known location into \p Into, and \p From's
/// programs and the site modules and types of P's contexts: how names read
/// from an indexed file join a merge.
void observeNames(const IndexedMemProf &P, const ProfileNames &From,
                  ProfileNames &Into);

} // namespace memprof

#endif
