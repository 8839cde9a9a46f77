//===- Debuginfod.cpp - Modules fetched by build id from debuginfod servers ===//
#include "memprof/ProfileData/Debuginfod.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Debuginfod/Debuginfod.h"
#include "llvm/Debuginfod/HTTPClient.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace memprof {

constexpr std::chrono::seconds DebuginfodClient::DefaultTimeout;

StringRef debuginfodKindName(DebuginfodClient::Kind K) {
  switch (K) {
  case DebuginfodClient::Kind::Executable:
    return "executable";
  case DebuginfodClient::Kind::DebugInfo:
    return "debuginfo";
  }
  return "artifact";
}

/// LLVM's getDefaultDebuginfodTimeout() takes "0" and negative values to
/// curl as 0, which curl reads as no limit at all; a fetch must never wait
/// without bound, so those fall back to the default here. A year in
/// seconds keeps the multiplication into milliseconds far from overflow.
static std::chrono::milliseconds timeoutFromEnvironment() {
  const char *Env = std::getenv("DEBUGINFOD_TIMEOUT");
  long long Seconds = 0;
  if (Env && to_integer(StringRef(Env).trim(), Seconds, 10) && Seconds > 0 &&
      Seconds <= 365LL * 24 * 3600)
    return std::chrono::seconds(Seconds);
  return DebuginfodClient::DefaultTimeout;
}

std::unique_ptr<DebuginfodClient> DebuginfodClient::fromEnvironment() {
  // Read here rather than through getDefaultDebuginfodUrls(), which caches
  // the first value it sees for the life of the process.
  const char *Env = std::getenv("DEBUGINFOD_URLS");
  if (!Env)
    return nullptr;
  SmallVector<StringRef, 4> Parts;
  StringRef(Env).split(Parts, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> Urls;
  for (StringRef P : Parts)
    if (!P.trim().empty())
      Urls.push_back(P.trim().str());
  if (Urls.empty())
    return nullptr;

  // Without a cache directory nothing can be fetched, but that is fetch's
  // error to report, where the caller can attach the module it looked for.
  std::string CacheDir;
  if (Expected<std::string> Dir = getDefaultDebuginfodCacheDirectory())
    CacheDir = std::move(*Dir);
  else
    consumeError(Dir.takeError());
  return std::unique_ptr<DebuginfodClient>(new DebuginfodClient(
      std::move(Urls), std::move(CacheDir), timeoutFromEnvironment()));
}

Expected<std::unique_ptr<DebuginfodClient>>
DebuginfodClient::create(std::vector<std::string> Urls, std::string CacheDir,
                         std::chrono::milliseconds Timeout) {
  if (Urls.empty())
    return makeError(ErrorCode::Usage, "debuginfod: no server URL given");
  if (CacheDir.empty())
    return makeError(ErrorCode::Usage, "debuginfod: no cache directory given");
  if (Timeout.count() <= 0)
    return makeError(ErrorCode::Usage,
                     "debuginfod: the timeout must be positive, not " +
                         Twine(Timeout.count()) + " ms");
  return std::unique_ptr<DebuginfodClient>(
      new DebuginfodClient(std::move(Urls), std::move(CacheDir), Timeout));
}

/// curl's global state is set up once, on first use rather than in main(),
/// so that the tools pay nothing when no module is missing. LLVM's
/// HTTPClient.cpp tears it down at exit through a static destructor.
static void initializeHTTPOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] { HTTPClient::initialize(); });
}

namespace {
/// Streams a 200 answer into a temporary file beside the cache entry.
///
/// LLVM's getCachedOrDownloadArtifact() is not used for the transfer: in
/// LLVM 22 its handler opens a CachedFileStream on the first body chunk and,
/// when the transfer then fails (a timeout half-way, a reset), destroys it
/// uncommitted, which is report_fatal_error("CachedFileStream was not
/// committed."): the whole tool aborts (DebuginfodTest's stalled server
/// shows it). Here a failed transfer only discards the temporary file.
class TempFileHandler : public HTTPResponseHandler {
public:
  TempFileHandler(HTTPClient &Client, raw_fd_ostream &OS)
      : Client(Client), OS(OS) {}

  Error handleBodyChunk(StringRef Chunk) override {
    // A 404's error page must not become the module. curl reports 0 for
    // schemes without status codes (file://), which LLVM accepts too.
    unsigned Code = Client.responseCode();
    if (Code && Code != 200)
      return Error::success();
    OS << Chunk;
    Bytes += Chunk.size();
    if (OS.has_error())
      return makeError(ErrorCode::IO, "cannot write the cache file: " +
                                          OS.error().message());
    return Error::success();
  }

  uint64_t Bytes = 0;

private:
  HTTPClient &Client;
  raw_fd_ostream &OS;
};
} // namespace

/// LLVM's messages end in a newline ("curl_easy_perform() failed: ...\n").
static std::string oneLine(Error E) {
  std::string Msg = toString(std::move(E));
  return StringRef(Msg).trim().str();
}

/// The extra request headers of DEBUGINFOD_HEADERS_FILE ("Name: value" a
/// line, for servers that want a token), read as LLVM's client reads them;
/// lines that are not headers are left out.
static std::vector<std::string> headersFromEnvironment() {
  std::vector<std::string> Headers;
  const char *File = std::getenv("DEBUGINFOD_HEADERS_FILE");
  if (!File)
    return Headers;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return Headers;
  for (StringRef Line : split((*Buf)->getBuffer(), '\n')) {
    Line = Line.rtrim('\r');
    auto [Name, Value] = Line.split(':');
    if (Name.empty() || Value.empty() ||
        !all_of(Name, [](char C) { return isPrint(C) && C != ' '; }) ||
        !all_of(Value, [](char C) { return isPrint(C) || C == '\t'; }))
      continue;
    Headers.push_back(Line.str());
  }
  return Headers;
}

Expected<std::string> DebuginfodClient::fetch(StringRef BuildId, Kind K,
                                              bool CacheOnly) {
  if (BuildId.empty())
    return makeError(ErrorCode::Usage, "debuginfod: empty build id");
  std::string Hex = toHex(BuildId, /*LowerCase=*/true);
  auto Fail = [&](ErrorCode Code, const Twine &Why) {
    return makeError(Code, "debuginfod: " + debuginfodKindName(K) +
                               " of build id " + Hex + ": " + Why);
  };
  if (CacheDir.empty())
    return Fail(ErrorCode::IO, "no cache directory (set "
                               "DEBUGINFOD_CACHE_PATH, or HOME)");

  object::BuildIDRef Id(reinterpret_cast<const uint8_t *>(BuildId.data()),
                        BuildId.size());
  // The URL path, the cache key and so the cache file are LLVM's own:
  // llvm-symbolizer and llvm-debuginfod-find share the cache with us.
  std::string UrlPath = K == Kind::Executable
                            ? getDebuginfodExecutableUrlPath(Id)
                            : getDebuginfodDebuginfoUrlPath(Id);
  SmallString<128> CachePath(CacheDir);
  sys::path::append(CachePath, "llvmcache-" + getDebuginfodCacheKey(UrlPath));
  if (sys::fs::exists(CachePath))
    return std::string(CachePath);
  if (CacheOnly)
    return Fail(ErrorCode::NotFound, "not in the cache " + CacheDir);

  if (!HTTPClient::isAvailable())
    return Fail(ErrorCode::IO, "LLVM was built without an HTTP client");
  if (std::error_code EC = sys::fs::create_directories(CacheDir))
    return Fail(ErrorCode::IO,
                "cannot create the cache " + CacheDir + ": " + EC.message());
  initializeHTTPOnce();

  HTTPClient Client;
  Client.setTimeout(Timeout);
  std::vector<std::string> Headers = headersFromEnvironment();
  // Every server is asked in turn: a dead mirror in front of a live one
  // must not hide it (LLVM's own loop stops at the first failure).
  std::vector<std::string> Problems;
  for (const std::string &Url : Urls) {
    SmallString<128> ArtifactUrl;
    sys::path::append(ArtifactUrl, sys::path::Style::posix, Url, UrlPath);
    Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(
        CachePath + "-%%%%%%.tmp", sys::fs::owner_read | sys::fs::owner_write);
    if (!Temp)
      return Fail(ErrorCode::IO, "cannot create a file in the cache " +
                                     CacheDir + ": " +
                                     oneLine(Temp.takeError()));
    unsigned Code = 0;
    uint64_t Bytes = 0;
    Error Err = Error::success();
    {
      raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
      TempFileHandler Handler(Client, OS);
      HTTPRequest Request(ArtifactUrl);
      Request.Headers.assign(Headers.begin(), Headers.end());
      Err = Client.perform(Request, Handler);
      Code = Client.responseCode();
      Bytes = Handler.Bytes;
      OS.flush();
      if (!Err && OS.has_error())
        Err = makeError(ErrorCode::IO, "cannot write the cache file: " +
                                           OS.error().message());
      OS.clear_error();
    }
    if (Err || (Code && Code != 200) || Bytes == 0) {
      consumeError(Temp->discard());
      if (Err)
        Problems.push_back(Url + ": " + oneLine(std::move(Err)));
      else if (Code != 404 && Code != 200)
        Problems.push_back(Url + ": HTTP status " + std::to_string(Code));
      else if (Code == 200)
        Problems.push_back(Url + ": empty response");
      continue;
    }
    // An atomic rename: a reader never sees half a module, and a file put
    // there meanwhile by another process is as good as ours.
    if (Error E = Temp->keep(CachePath))
      return Fail(ErrorCode::IO, "cannot store " + std::string(CachePath) +
                                     ": " + oneLine(std::move(E)));
    // LLVM's client prunes after each download; so do we, by its policy.
    if (Expected<CachePruningPolicy> Policy =
            parseCachePruningPolicy(std::getenv("DEBUGINFOD_CACHE_POLICY")))
      pruneCache(CacheDir, *Policy);
    else
      consumeError(Policy.takeError());
    return std::string(CachePath);
  }
  if (Problems.empty())
    return Fail(ErrorCode::NotFound,
                "not found on " + Twine(join(Urls, ", ")));
  return Fail(ErrorCode::IO, "not fetched: " + Twine(join(Problems, "; ")));
}

} // namespace memprof
