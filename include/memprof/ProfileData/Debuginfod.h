//===- Debuginfod.h - Modules fetched by build id from debuginfod servers -===//
//
// memprof-merge and memprof-show fetch the modules they cannot find locally
// (executables and separate debug info) from the servers in DEBUGINFOD_URLS,
// as gdb, perf and llvm-symbolizer do. The transfers are LLVM's HTTPClient
// (curl) and the cache is LLVM's layout (llvm/Debuginfod: same URL paths,
// same "llvmcache-<key>" files, same pruning), so a file llvm-symbolizer-22
// fetched once is found by memprof and the other way round. LLVM's
// getCachedOrDownloadArtifact() itself is not called: it aborts the process
// when a transfer fails half-way (Debuginfod.cpp says how).
//
// Nothing here checks what a server sends: the caller opens the file and
// compares its ELF build id with the one it asked for.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_DEBUGINFOD_H
#define MEMPROF_PROFILEDATA_DEBUGINFOD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace memprof {

class DebuginfodClient {
public:
  enum class Kind { Executable, DebugInfo };

  /// LLVM's default, which elfutils' client shares.
  static constexpr std::chrono::seconds DefaultTimeout{90};

  /// A client for the servers in DEBUGINFOD_URLS (separated by spaces); null
  /// when it is unset or names no server. The cache is DEBUGINFOD_CACHE_PATH,
  /// else LLVM's default (~/.cache/llvm-debuginfod/client). The timeout is
  /// DEBUGINFOD_TIMEOUT in whole seconds, else DefaultTimeout; unlike LLVM
  /// and elfutils, a value of 0, a negative or an unreadable one also gives
  /// DefaultTimeout, because both of them take 0 to mean "wait forever".
  static std::unique_ptr<DebuginfodClient> fromEnvironment();

  /// A client with everything explicit (for callers with their own options,
  /// and for tests). \p Timeout bounds each request to one server, connection
  /// included; it must be positive.
  static llvm::Expected<std::unique_ptr<DebuginfodClient>>
  create(std::vector<std::string> Urls, std::string CacheDir,
         std::chrono::milliseconds Timeout);

  /// The path of a local file in the cache holding the module with the raw
  /// build id bytes \p BuildId, downloaded first if it is not cached yet. The
  /// servers are asked in order and the first that has it wins; a server
  /// that cannot be reached or times out is passed over for the next one.
  /// Errors: ErrorCode::NotFound when every server answered and none has it,
  /// ErrorCode::IO when some server could not be asked (its reason is in
  /// the message), ErrorCode::Usage for an empty build id. Safe to call
  /// from several threads at once; a failed transfer leaves no file behind.
  /// With \p CacheOnly no server is asked: the cached file or NotFound.
  llvm::Expected<std::string> fetch(llvm::StringRef BuildId, Kind K,
                                    bool CacheOnly = false);

  const std::vector<std::string> &urls() const { return Urls; }
  /// Empty when no cache directory could be determined (fetch says why).
  const std::string &cacheDirectory() const { return CacheDir; }
  std::chrono::milliseconds timeout() const { return Timeout; }

private:
  DebuginfodClient(std::vector<std::string> Urls, std::string CacheDir,
                   std::chrono::milliseconds Timeout)
      : Urls(std::move(Urls)), CacheDir(std::move(CacheDir)),
        Timeout(Timeout) {}

  std::vector<std::string> Urls;
  std::string CacheDir;
  std::chrono::milliseconds Timeout;
};

llvm::StringRef debuginfodKindName(DebuginfodClient::Kind K);

} // namespace memprof

#endif
