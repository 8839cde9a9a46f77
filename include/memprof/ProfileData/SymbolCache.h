//===- SymbolCache.h - Symbolized frames kept across runs by build id -*- C++
//-*-===//
//
// Naming a module's addresses is done once per build: the symbolizer keeps,
// for each module it used, the frames of the addresses it met in a file of
// its own under a cache directory, and the next run (memprof-merge,
// memprof-show, memprof-convert, a fleet worker) reads them back instead of
// reading the module's DWARF again. An entry is keyed by the build id, the
// size of the file that was symbolized (a stripped copy and its debug file
// share a build id but not their frames) and whether DWARF was read. Entries
// are written to a temporary file and renamed into place, so readers and
// concurrent writers see whole entries only; every entry read is checked
// (magic, version, build id, sizes, checksum) before anything in it is used.
// docs/memprof-merge.md#symbol-cache describes the directory and its bound.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_SYMBOLCACHE_H
#define MEMPROF_PROFILEDATA_SYMBOLCACHE_H

#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memprof {

/// What one module's entry holds.
struct SymbolCacheEntry {
  std::string BuildId;          ///< raw bytes
  uint64_t FileSizeBytes = 0;   ///< of the file the frames came from
  bool SymbolTableOnly = false; ///< DWARF not read (a system module)
  bool HasDwarf = false;        ///< the file's DWARF was usable
  /// Binary address -> its symbols, by increasing address.
  std::vector<std::pair<uint64_t, PCSymbols>> PCs;
  /// Binary address -> the allocated type its call site names (may be
  /// empty: none says), by increasing address.
  std::vector<std::pair<uint64_t, std::string>> Types;
};

/// The bytes of \p E on disk (docs/memprof-merge.md#symbol-cache).
std::string writeSymbolCacheEntry(const SymbolCacheEntry &E);
/// Parses and checks an entry: magic, version, sizes, checksum, every count
/// against the bytes that remain and every string index against the table.
llvm::Expected<SymbolCacheEntry> readSymbolCacheEntry(llvm::StringRef Bytes);

/// A cache directory. Failures to read or write it are notes, never errors:
/// the cache only saves time.
class SymbolCache {
public:
  /// 256 MiB of entries at most by default; MEMPROF_SYMBOL_CACHE_SIZE (in
  /// MiB) sets another bound.
  static constexpr uint64_t DefaultMaxBytes = 256ULL << 20;
  /// No entry holds more addresses than this (more are not kept).
  static constexpr size_t MaxAddressesPerEntry = 1u << 20;

  /// The directory the tools use unless told otherwise, or empty when the
  /// cache is off: MEMPROF_SYMBOL_CACHE (`off`, `0` or `no` turn it off;
  /// anything else is the directory), else $XDG_CACHE_HOME/memprof, else
  /// $HOME/.cache/memprof.
  static std::string defaultDir();
  /// The size bound the environment sets, else DefaultMaxBytes.
  static uint64_t defaultMaxBytes();

  explicit SymbolCache(std::string Dir, uint64_t MaxBytes = DefaultMaxBytes);

  /// The entry of the module with \p BuildId whose file has \p FileSizeBytes,
  /// read with or without DWARF, if the cache holds a sound one. A damaged
  /// or foreign entry is ignored with a note (and replaced by the next
  /// store()).
  std::optional<SymbolCacheEntry>
  load(llvm::StringRef BuildId, uint64_t FileSizeBytes, bool SymbolTableOnly);
  /// Writes \p E atomically (a temporary file renamed into place).
  void store(const SymbolCacheEntry &E);
  /// After the stores of a run: evicts the least recently used entries
  /// while the directory holds more than the bound (once a run, not once
  /// an entry: the directory is listed each time).
  void prune();

  llvm::StringRef dir() const { return Dir; }
  /// Problems met (damaged entries, a directory that cannot be written),
  /// one line each, for a caller to print; each kind of write failure once.
  std::vector<std::string> takeNotes();

  /// The path of an entry in \p Dir.
  static std::string entryPath(llvm::StringRef Dir, llvm::StringRef BuildId,
                               uint64_t FileSizeBytes, bool SymbolTableOnly);

private:
  void evict();

  std::string Dir; // <dir>/symbols-v1
  uint64_t MaxBytes;
  std::vector<std::string> Notes;
  std::set<std::string> Ignored; // entries noted as ignored, each once
  bool WriteFailed = false;
  bool Stored = false; // since the last prune()
};

} // namespace memprof

#endif
