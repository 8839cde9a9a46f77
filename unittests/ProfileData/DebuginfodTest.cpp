//===- DebuginfodTest.cpp - The debuginfod client against a real server ---===//
//
// The server is elfutils' debuginfod, started over a temporary directory by
// lit-tests/tools/debuginfod-server.py (the helper the lit tests use), with
// a watchdog that ends it even when this process dies first. Everything is
// written inside one temporary directory, removed at the end.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Debuginfod.h"
#include "memprof/ProfileData/Error.h"
#include "../RunCommand.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

using namespace llvm;
using namespace memprof;
using namespace memprof::test;

namespace {

// A build id of our choosing (the linker writes it), and one no server has.
constexpr const char *KnownId = "d1b9f0d5c0ffee00112233445566778899aabbcc";
constexpr const char *UnknownId = "d1b9f0d5deadbeef112233445566778899aabbcc";

std::string rawId(StringRef Hex) { return fromHex(Hex); }

std::string quote(StringRef S) {
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

std::string helper() {
  return "python3 " + quote(MEMPROF_DEBUGINFOD_SERVER_PY);
}

/// Sets or unsets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Saved)
      setenv(Name, Saved->c_str(), 1);
    else
      unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

/// A helper-run process (a debuginfod server or a dead peer), stopped by its
/// recorded pid when the test ends, however it ends.
class Peer {
public:
  explicit Peer(std::string StateDir) : StateDir(std::move(StateDir)) {}
  ~Peer() { runCommand(helper() + " stop " + quote(StateDir)); }
  Peer(const Peer &) = delete;
  Peer &operator=(const Peer &) = delete;

  /// The URL the helper printed; empty on failure, with its stderr in Log.
  std::string start(const std::string &Args) {
    std::string Err = StateDir + ".err";
    std::string Out = runCommand(helper() + " " + Args + " 2>" + quote(Err));
    if (auto Buf = MemoryBuffer::getFile(Err))
      Log = (*Buf)->getBuffer().str();
    return StringRef(Out).trim().str();
  }
  void stop() { runCommand(helper() + " stop " + quote(StateDir)); }

  std::string Log;

private:
  std::string StateDir;
};

class DebuginfodTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        sys::fs::createUniqueDirectory("memprof-debuginfod", TempDir));
    ServeDir = path("serve");
    CacheDir = path("cache");
    ASSERT_FALSE(sys::fs::create_directories(ServeDir));
  }
  void TearDown() override {
    // The peers are stopped by now (they live inside each test).
    sys::fs::remove_directories(TempDir);
  }

  std::string path(StringRef Name) const {
    SmallString<128> P(TempDir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  /// A server over ServeDir holding one small ELF file with KnownId (built
  /// with -g, so the server has it as an executable and as debug info).
  /// Fails the test, never skips it, without elfutils' debuginfod.
  std::string startServer(Peer &P) {
    if (StringRef(runCommand("command -v debuginfod")).trim().empty()) {
      ADD_FAILURE() << "elfutils' debuginfod is not installed; run "
                       "scripts/setup.sh";
      return "";
    }
    Program = path("serve/prog");
    std::string Build = runCommand(
        "echo 'int main(void) { return 0; }' | " +
        quote(MEMPROF_TEST_CC) + " -g -x c - -Wl,--build-id=0x" +
        std::string(KnownId) + " -o " + quote(Program) + " 2>&1; echo status=$?");
    if (!StringRef(Build).contains("status=0")) {
      ADD_FAILURE() << "cannot build the test program: " << Build;
      return "";
    }
    std::string Url = P.start("start --lifetime 120 --expect " +
                              std::string(KnownId) + "/executable " +
                              quote(ServeDir) + " " + quote(path("server")));
    if (!StringRef(Url).starts_with("http://127.0.0.1:")) {
      ADD_FAILURE() << "the debuginfod server did not start: " << P.Log;
      return "";
    }
    return Url;
  }

  std::string startDead(Peer &P, StringRef Mode, StringRef StateName) {
    std::string Url = P.start("dead " + Mode.str() + " --lifetime 60 " +
                              quote(path(StateName)));
    EXPECT_TRUE(StringRef(Url).starts_with("http://127.0.0.1:")) << P.Log;
    return Url;
  }

  std::unique_ptr<DebuginfodClient>
  client(std::vector<std::string> Urls,
         std::chrono::milliseconds Timeout = std::chrono::seconds(10)) {
    auto C = DebuginfodClient::create(std::move(Urls), CacheDir, Timeout);
    if (!C) {
      ADD_FAILURE() << toString(C.takeError());
      return nullptr;
    }
    return std::move(*C);
  }

  std::string programBytes() const {
    auto Buf = MemoryBuffer::getFile(Program);
    return Buf ? (*Buf)->getBuffer().str() : std::string();
  }

  /// The files in the cache directory, LLVM's temporaries included.
  unsigned cacheFiles() const {
    unsigned N = 0;
    std::error_code EC;
    for (sys::fs::directory_iterator I(CacheDir, EC), E; I != E && !EC;
         I.increment(EC))
      ++N;
    return N;
  }

  // curl honours http_proxy: the loopback peers must be reached directly.
  ScopedEnv NoProxy{"no_proxy", "127.0.0.1"};
  ScopedEnv NoProxyUpper{"NO_PROXY", "127.0.0.1"};
  SmallString<128> TempDir;
  std::string ServeDir, CacheDir, Program;
};

std::string fileBytes(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string("<unreadable>");
}

ErrorCode codeOf(Error E, std::string &Msg) {
  ErrorCode Code = ErrorCode::Empty;
  handleAllErrors(std::move(E), [&](const MemProfError &ME) {
    Code = ME.code();
    Msg = ME.detail();
  });
  return Code;
}

TEST_F(DebuginfodTest, FetchesByBuildIdThenServesFromCache) {
  Peer Server(path("server"));
  std::string Url = startServer(Server);
  ASSERT_FALSE(Url.empty());
  auto C = client({Url});
  ASSERT_TRUE(C);

  Expected<std::string> Exe =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  ASSERT_TRUE(bool(Exe)) << toString(Exe.takeError());
  EXPECT_TRUE(StringRef(*Exe).starts_with(CacheDir)) << *Exe;
  EXPECT_EQ(fileBytes(*Exe), programBytes());

  Expected<std::string> Dbg =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::DebugInfo);
  ASSERT_TRUE(bool(Dbg)) << toString(Dbg.takeError());
  EXPECT_NE(*Dbg, *Exe); // one cache entry per kind
  EXPECT_EQ(fileBytes(*Dbg), programBytes());

  // With the server gone, the cache answers, through the environment too.
  Server.stop();
  Expected<std::string> Again =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(*Again, *Exe);

  ScopedEnv Urls("DEBUGINFOD_URLS", Url.c_str());
  ScopedEnv Cache("DEBUGINFOD_CACHE_PATH", CacheDir.c_str());
  ScopedEnv Timeout("DEBUGINFOD_TIMEOUT", "2");
  auto FromEnv = DebuginfodClient::fromEnvironment();
  ASSERT_TRUE(FromEnv);
  EXPECT_EQ(FromEnv->cacheDirectory(), CacheDir);
  Expected<std::string> Cached =
      FromEnv->fetch(rawId(KnownId), DebuginfodClient::Kind::DebugInfo);
  ASSERT_TRUE(bool(Cached)) << toString(Cached.takeError());
  EXPECT_EQ(*Cached, *Dbg);
}

TEST_F(DebuginfodTest, UnknownBuildIdIsNotFoundAndCachesNothing) {
  Peer Server(path("server"));
  std::string Url = startServer(Server);
  ASSERT_FALSE(Url.empty());
  auto C = client({Url});
  ASSERT_TRUE(C);
  ASSERT_TRUE(bool(
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable)));
  unsigned Before = cacheFiles();

  Expected<std::string> Missing =
      C->fetch(rawId(UnknownId), DebuginfodClient::Kind::Executable);
  ASSERT_FALSE(bool(Missing));
  std::string Msg;
  EXPECT_EQ(codeOf(Missing.takeError(), Msg), ErrorCode::NotFound);
  EXPECT_NE(Msg.find(UnknownId), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("not found on " + Url), std::string::npos) << Msg;
  EXPECT_EQ(cacheFiles(), Before);
}

TEST_F(DebuginfodTest, DeadServersEndWithinTheTimeout) {
  Peer Refusing(path("refuse")), Silent(path("silent"));
  std::string RefuseUrl = startDead(Refusing, "refuse", "refuse");
  std::string SilentUrl = startDead(Silent, "silent", "silent");
  ASSERT_FALSE(RefuseUrl.empty() || SilentUrl.empty());

  // Nothing listening: refused at once.
  auto Start = std::chrono::steady_clock::now();
  auto C = client({RefuseUrl}, std::chrono::seconds(2));
  ASSERT_TRUE(C);
  Expected<std::string> R =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  ASSERT_FALSE(bool(R));
  std::string Msg;
  EXPECT_EQ(codeOf(R.takeError(), Msg), ErrorCode::IO);
  EXPECT_NE(Msg.find(RefuseUrl), std::string::npos) << Msg;
  EXPECT_LT(std::chrono::steady_clock::now() - Start, std::chrono::seconds(5));

  // Accepted, never answered: DEBUGINFOD_TIMEOUT=2 ends it.
  ScopedEnv Urls("DEBUGINFOD_URLS", SilentUrl.c_str());
  ScopedEnv Cache("DEBUGINFOD_CACHE_PATH", CacheDir.c_str());
  ScopedEnv Timeout("DEBUGINFOD_TIMEOUT", "2");
  auto FromEnv = DebuginfodClient::fromEnvironment();
  ASSERT_TRUE(FromEnv);
  EXPECT_EQ(FromEnv->timeout(), std::chrono::seconds(2));
  Start = std::chrono::steady_clock::now();
  Expected<std::string> S =
      FromEnv->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(codeOf(S.takeError(), Msg), ErrorCode::IO);
  EXPECT_NE(Msg.find("Timeout"), std::string::npos) << Msg;
  EXPECT_LT(Elapsed, std::chrono::seconds(15));
  EXPECT_GE(Elapsed, std::chrono::milliseconds(1900));
  std::cout << "[ info ] silent server gave up after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Elapsed)
                   .count()
            << " ms: " << Msg << "\n";
  EXPECT_EQ(cacheFiles(), 0u);
}

TEST_F(DebuginfodTest, TransferStalledHalfWayIsAnError) {
  Peer Stalling(path("stall"));
  std::string Url = startDead(Stalling, "stall", "stall");
  ASSERT_FALSE(Url.empty());
  auto C = client({Url}, std::chrono::seconds(2));
  ASSERT_TRUE(C);
  auto Start = std::chrono::steady_clock::now();
  Expected<std::string> R =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  ASSERT_FALSE(bool(R));
  std::string Msg;
  EXPECT_EQ(codeOf(R.takeError(), Msg), ErrorCode::IO) << Msg;
  EXPECT_NE(Msg.find("Timeout"), std::string::npos) << Msg;
  EXPECT_LT(Elapsed, std::chrono::seconds(15));
  EXPECT_EQ(cacheFiles(), 0u); // the temporary file is gone too
  // No partial file may be left for a later fetch to take as the module.
  Expected<std::string> Again =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  EXPECT_FALSE(bool(Again));
  consumeError(Again.takeError());
}

TEST_F(DebuginfodTest, DeadServerDoesNotHideTheNextOne) {
  Peer Server(path("server")), Silent(path("silent"));
  std::string Url = startServer(Server);
  ASSERT_FALSE(Url.empty());
  std::string SilentUrl = startDead(Silent, "silent", "silent");
  ASSERT_FALSE(SilentUrl.empty());
  auto C = client({SilentUrl, Url}, std::chrono::seconds(2));
  ASSERT_TRUE(C);
  Expected<std::string> Exe =
      C->fetch(rawId(KnownId), DebuginfodClient::Kind::Executable);
  ASSERT_TRUE(bool(Exe)) << toString(Exe.takeError());
  EXPECT_EQ(fileBytes(*Exe), programBytes());
}

TEST(Debuginfod, NoUrlsNoClient) {
  {
    ScopedEnv Urls("DEBUGINFOD_URLS", nullptr);
    EXPECT_FALSE(DebuginfodClient::fromEnvironment());
  }
  for (const char *Empty : {"", "   "}) {
    ScopedEnv Urls("DEBUGINFOD_URLS", Empty);
    EXPECT_FALSE(DebuginfodClient::fromEnvironment()) << '"' << Empty << '"';
  }
  ScopedEnv Urls("DEBUGINFOD_URLS", " http://a.invalid  http://b.invalid ");
  auto C = DebuginfodClient::fromEnvironment();
  ASSERT_TRUE(C);
  EXPECT_EQ(C->urls(),
            (std::vector<std::string>{"http://a.invalid", "http://b.invalid"}));
}

TEST(Debuginfod, TimeoutFromEnvironmentIsAlwaysBounded) {
  ScopedEnv Urls("DEBUGINFOD_URLS", "http://a.invalid");
  const std::pair<const char *, std::chrono::milliseconds> Cases[] = {
      {"5", std::chrono::seconds(5)},
      {" 7 ", std::chrono::seconds(7)},
      {"0", DebuginfodClient::DefaultTimeout},
      {"-3", DebuginfodClient::DefaultTimeout},
      {"2.5", DebuginfodClient::DefaultTimeout},
      {"soon", DebuginfodClient::DefaultTimeout},
      {"99999999999999999999", DebuginfodClient::DefaultTimeout},
  };
  for (const auto &[Value, Expected] : Cases) {
    ScopedEnv Timeout("DEBUGINFOD_TIMEOUT", Value);
    auto C = DebuginfodClient::fromEnvironment();
    ASSERT_TRUE(C);
    EXPECT_EQ(C->timeout(), Expected) << Value;
  }
  ScopedEnv Timeout("DEBUGINFOD_TIMEOUT", nullptr);
  EXPECT_EQ(DebuginfodClient::fromEnvironment()->timeout(),
            DebuginfodClient::DefaultTimeout);
}

TEST(Debuginfod, CreateRejectsUnboundedOrEmptySettings) {
  auto NoTimeout = DebuginfodClient::create({"http://a.invalid"}, "/tmp/x",
                                            std::chrono::milliseconds(0));
  EXPECT_FALSE(bool(NoTimeout));
  consumeError(NoTimeout.takeError());
  auto NoUrls = DebuginfodClient::create({}, "/tmp/x", std::chrono::seconds(1));
  EXPECT_FALSE(bool(NoUrls));
  consumeError(NoUrls.takeError());
}

} // namespace
