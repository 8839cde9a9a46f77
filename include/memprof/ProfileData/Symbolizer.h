//===- Symbolizer.h - PCs of a profiled process to MemProf frames -*- C++ -*-===//
//
// Every executable segment of a raw profile carries its module's build id.
// A BinaryLocator finds a binary (or separate debug file) for a build id; a
// ModuleSymbolizer maps process addresses into that binary and turns each into
// the inline chain of Frames LLVM forms (spec section 2). Both are interfaces
// so that tests can fake them.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_SYMBOLIZER_H
#define MEMPROF_PROFILEDATA_SYMBOLIZER_H

#include "memprof/ProfileData/MemProfData.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <vector>

namespace memprof {

class DebuginfodClient;
class SymbolCache;

/// One executable segment of the profiled process (raw segment entry).
struct SegmentInfo {
  uint64_t Start = 0;
  uint64_t End = 0;
  uint64_t Offset = 0;  // the module's load bias, as the runtime records it
  std::string BuildId;  // raw bytes (not hex)
  /// Where the profiled process loaded the module from (memprof's runtime
  /// records it; clang's does not): a candidate file, used only when its
  /// build id is the module's. Empty when unknown.
  std::string Path = {};
};

/// Lower-case hex of raw build-id bytes.
std::string buildIdToHex(llvm::StringRef BuildId);

struct SymbolizedFrame {
  Frame F;
  std::string FunctionName; // linkage name as found (DWARF or symbol table)
  std::string FileName;     // absolute path; empty when unknown
  uint32_t Line = 0;        // source line (not the offset); 0 when unknown
  std::string DeclFileName; // the function's DW_AT_decl_file; may be empty
};

/// The result for one PC.
struct PCSymbols {
  enum Kind : uint8_t {
    Ok,          // Frames holds the inline chain, innermost first
    Runtime,     // a frame of the profiler runtime: dropped, not an error
    NoDebugInfo, // the module has debug info, but not for this address;
                 // Frames holds the symbol-table frame, if any, for reports
    Failed,      // nothing known about the address
  };
  Kind Status = Failed;
  std::vector<SymbolizedFrame> Frames;
};

/// Symbolizes addresses of one binary. Not thread safe: use one thread at a time.
class ModuleSymbolizer {
public:
  virtual ~ModuleSymbolizer();
  /// The file the symbols come from.
  virtual llvm::StringRef path() const = 0;
  /// Maps \p PC, which lies in process segment \p S, to the address the
  /// binary's own symbols and DWARF use (p_vaddr space): \p PC less an
  /// amount that depends on \p S alone (the merge computes it once per
  /// segment).
  virtual uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const = 0;
  /// Symbolizes a binary address. Matches LLVM's RawMemProfReader for
  /// addresses with DWARF; where the module has no DWARF at all, falls back
  /// to its symbol table (function, line offset 0, column 0).
  virtual PCSymbols symbolize(uint64_t BinaryAddress) = 0;
  /// The type of the objects the call at \p BinaryAddress allocates, as
  /// its DWARF call site says (DW_AT_LLVM_alloc_type, which clang -g emits
  /// for `new T`), normalized (normalizeTypeName). \p BinaryAddress is a
  /// frame's address as the raw profile gives it, the return address less
  /// one, so the call site is the one whose DW_AT_call_return_pc is
  /// BinaryAddress + 1. Empty when none says; none by default.
  virtual std::string allocatedType(uint64_t BinaryAddress) { return {}; }
};

/// Finds the binary of a build id.
class BinaryLocator {
public:
  virtual ~BinaryLocator();
  /// The symbolizer of the module with this build id (raw bytes), or null if
  /// no binary has it. The locator owns the result.
  virtual llvm::Expected<ModuleSymbolizer *> find(llvm::StringRef BuildId) = 0;
  /// The binaries the user named (path, raw build id), in the order given;
  /// none by default.
  virtual std::vector<std::pair<std::string, std::string>>
  profiledBinaries() const {
    return {};
  }
  /// \p Path is where a profiled process loaded the module with \p BuildId
  /// from (SegmentInfo::Path): a candidate for find(), after the profiled
  /// binaries. Ignored by default.
  virtual void addModulePath(llvm::StringRef BuildId, llvm::StringRef Path) {}
};

/// Where the tools look for the modules of raw profiles: their shared
/// options (docs/memprof-merge.md#symbolization).
struct ModuleSearch {
  std::vector<std::string> ProfiledBinaries; ///< --profiled-binary
  std::vector<std::string> DebugDirs;        ///< --debug-dir
  bool NoSystemDirs = false; ///< --no-system-dirs: nor recorded paths there
  bool NoDebuginfod = false; ///< --no-debuginfod
  /// --system-dwarf: modules found only in the system's directories are
  /// symbolized with their DWARF (inline chains, lines) too; by default
  /// their symbol tables name them.
  bool SystemDwarf = false;
  bool NoSymbolCache = false; ///< --no-symbol-cache
  /// --symbol-cache-dir; empty: SymbolCache::defaultDir().
  std::string SymbolCacheDir;
};

/// ELF binaries: the --profiled-binary files (indexed by their build ids up
/// front), the paths the profiles recorded (addModulePath), and search
/// directories, looked up lazily by build id in the `.build-id/ab/cdef….debug`
/// layout, then by scanning the ELF files there.
class ElfBinaryLocator : public BinaryLocator {
public:
  /// Fails on a profiled binary that is missing, not ELF, not x86-64 or has
  /// no build id. Of two with one build id (a stripped copy and one with
  /// debug info), the one with DWARF is used, with a note.
  static llvm::Expected<std::unique_ptr<ElfBinaryLocator>>
  create(const std::vector<std::string> &ProfiledBinaries,
         const std::vector<std::string> &SearchDirs);
  /// The same with a symbol cache (may be null): modules already
  /// symbolized in an earlier run take their frames from it, and
  /// saveSymbolCache() keeps this run's.
  static llvm::Expected<std::unique_ptr<ElfBinaryLocator>>
  create(const std::vector<std::string> &ProfiledBinaries,
         const std::vector<std::string> &SearchDirs,
         std::unique_ptr<SymbolCache> Cache);
  /// The same with the profiled binaries already in memory (tests, fuzzing);
  /// each buffer's identifier stands for its path in messages.
  static llvm::Expected<std::unique_ptr<ElfBinaryLocator>>
  create(std::vector<std::unique_ptr<llvm::MemoryBuffer>> ProfiledBinaries,
         const std::vector<std::string> &SearchDirs);
  /// As the tools search: \p S's binaries and directories, then the
  /// system's directories (or, with NoSystemDirs, no recorded path inside
  /// them), then the debuginfod servers of DEBUGINFOD_URLS unless
  /// NoDebuginfod; a module found in the system's directories only is
  /// named from its symbol table unless SystemDwarf. The symbol cache is
  /// SymbolCacheDir, else SymbolCache::defaultDir(), unless NoSymbolCache.
  static llvm::Expected<std::unique_ptr<ElfBinaryLocator>>
  create(const ModuleSearch &S);
  ~ElfBinaryLocator() override;
  llvm::Expected<ModuleSymbolizer *> find(llvm::StringRef BuildId) override;
  /// A file there is used only if its build id is the module's; one that
  /// holds another (the module was rebuilt or replaced after the run) is
  /// refused with a note. A path given after find() found nothing for the
  /// build id makes the next find() look again.
  void addModulePath(llvm::StringRef BuildId, llvm::StringRef Path) override;
  /// Asks \p Client's servers, last, for the modules nothing local
  /// provides, and for the debug info of those found without DWARF: the
  /// executable, then its separate debug file. What a server sends is used
  /// only if its build id is the module's. A server that cannot be asked
  /// (dead, slow) ends the fetching for the rest of the run, so one costs
  /// one timeout; notes() says which build ids no server had.
  void useDebuginfod(std::unique_ptr<DebuginfodClient> Client);
  /// Recorded paths in or under \p Dirs are not used (the tools'
  /// --no-system-dirs: what the machine has installed does not change the
  /// output).
  void excludeRecordedPathsUnder(std::vector<std::string> Dirs);

  /// The system's directories of shared libraries and debug files, as they
  /// exist here: /usr/lib/debug, then the dynamic linker's defaults
  /// (/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, ...), each
  /// once by its real path.
  static std::vector<std::string> systemDirs();
  /// Searches \p Dirs (systemDirs(), for the tools) after the profiled
  /// binaries and the search directories, for the modules they do not
  /// provide: by build-id layout, then among each directory's own files
  /// (not its subdirectories). A file is used only when its build id is
  /// the module's, so a profile from another machine is not misnamed.
  void searchSystemDirs(std::vector<std::string> Dirs);

  /// Problems that did not stop the lookup, one line each naming its file:
  /// candidate files skipped as unreadable or holding another build id, and
  /// recoverable DWARF errors (bounded per file); then what debuginfod could
  /// not provide. For a caller to print.
  std::vector<std::string> notes() const;
  /// Writes the frames of the modules that met new addresses into the
  /// symbol cache, if there is one; its problems join notes(). Call once
  /// symbolization is done (again later if more was symbolized).
  void saveSymbolCache();

  /// The build ids (raw bytes) of the profiled binaries, in the order given.
  std::vector<std::string> profiledBuildIds() const;
  std::vector<std::pair<std::string, std::string>>
  profiledBinaries() const override;

private:
  ElfBinaryLocator();
  struct Impl;
  std::unique_ptr<Impl> P;
};

class ProfileNames;

/// Adds the function names an ELF binary holds to \p Names: every function
/// of its symbol table (GUID = MD5 of the canonical linkage name) and, where
/// it has DWARF, every subprogram with its declaration file and line,
/// functions that exist only inlined included. For indexed profiles without
/// the names extension (llvm-profdata's). \p Notes collects recoverable
/// DWARF problems.
/// Only GUIDs \p Wanted accepts are added (all when it is null).
llvm::Error addBinaryNames(llvm::StringRef Path, ProfileNames &Names,
                           std::vector<std::string> *Notes = nullptr,
                           llvm::function_ref<bool(GUID)> Wanted = nullptr);
/// The same for an ELF image in memory.
llvm::Error addBinaryNames(std::unique_ptr<llvm::MemoryBuffer> Binary,
                           ProfileNames &Names,
                           std::vector<std::string> *Notes = nullptr,
                           llvm::function_ref<bool(GUID)> Wanted = nullptr);

} // namespace memprof

#endif
