//===- BundleTest.cpp - Bundle manifests: round trip and hostile input -----===//
//
// Each test works in a temporary directory of its own, removed at the end.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Bundle.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Vdso.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;
using namespace memprof;

namespace {

class BundleDir {
public:
  BundleDir() {
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("memprof-bundle-test", Path))
      ADD_FAILURE() << "createUniqueDirectory: " << EC.message();
  }
  ~BundleDir() { sys::fs::remove_directories(Path); }
  std::string path() const { return std::string(Path); }
  std::string at(StringRef Rel) const {
    SmallString<256> P(Path);
    sys::path::append(P, Rel);
    return std::string(P);
  }
  /// Writes \p Size bytes at \p Rel, creating its directories.
  void file(StringRef Rel, size_t Size) const {
    std::string P = at(Rel);
    ASSERT_FALSE(sys::fs::create_directories(sys::path::parent_path(P)));
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << std::string(Size, 'x');
  }

private:
  SmallString<256> Path;
};

/// A bundle whose files all exist: two profiles, two modules.
BundleManifest validManifest(const BundleDir &D) {
  D.file("profiles/0-run.memprofraw", 10);
  D.file("profiles/1-run.memprofraw", 20);
  D.file("modules/aabb/main", 1234);
  D.file("modules/ccddeeff/libdso.so", 99);
  BundleManifest M;
  M.Profiles = {"profiles/0-run.memprofraw", "profiles/1-run.memprofraw"};
  M.Modules.push_back({"aabb", "/build/main", "modules/aabb/main", 1234,
                       "executable"});
  M.Modules.push_back({"ccddeeff", "/usr/lib/debug/.build-id/cc/ddeeff.debug",
                       "modules/ccddeeff/libdso.so", 99, "debuginfo"});
  M.Missing = {"0123456789abcdef"};
  return M;
}

/// The error's text, or "" when there is none.
std::string errorText(Expected<BundleManifest> R) {
  if (R)
    return "";
  return toString(R.takeError());
}

ErrorCode errorCode(Expected<BundleManifest> R) {
  ErrorCode C = ErrorCode::Empty;
  if (R)
    return C;
  handleAllErrors(R.takeError(),
                  [&](const MemProfError &E) { C = E.code(); });
  return C;
}

/// The valid manifest's JSON with one edit applied.
std::string edited(const BundleDir &D,
                   function_ref<void(json::Object &)> Edit) {
  Expected<json::Value> V = json::parse(writeBundleManifest(validManifest(D)));
  EXPECT_TRUE(bool(V));
  json::Object &O = *V->getAsObject();
  Edit(O);
  std::string S;
  raw_string_ostream(S) << *V;
  return S;
}

json::Object &module0(json::Object &O) {
  return *(*O.getArray("modules"))[0].getAsObject();
}

TEST(Bundle, RoundTrip) {
  BundleDir D;
  BundleManifest M = validManifest(D);
  std::string Text = writeBundleManifest(M);
  EXPECT_NE(Text.find("\"created_by\": \"memprof-bundle\""), std::string::npos);
  auto R = parseBundleManifest(Text, D.path());
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->SchemaVersion, BundleSchemaVersion);
  EXPECT_TRUE(R->Copied);
  ASSERT_EQ(R->Profiles.size(), 2u);
  EXPECT_EQ(R->Profiles[0], D.at("profiles/0-run.memprofraw"));
  EXPECT_EQ(R->Profiles[1], D.at("profiles/1-run.memprofraw"));
  ASSERT_EQ(R->Modules.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    EXPECT_EQ(R->Modules[I].BuildId, M.Modules[I].BuildId);
    EXPECT_EQ(R->Modules[I].FoundAt, M.Modules[I].FoundAt);
    EXPECT_EQ(R->Modules[I].File, D.at(M.Modules[I].File));
    EXPECT_EQ(R->Modules[I].Size, M.Modules[I].Size);
    EXPECT_EQ(R->Modules[I].Kind, M.Modules[I].Kind);
  }
  EXPECT_EQ(R->Missing, M.Missing);

  // readBundle reads the same from the directory.
  {
    std::error_code EC;
    raw_fd_ostream OS(D.at(BundleManifestName), EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
  auto B = readBundle(D.path());
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(B->Modules[1].File, D.at("modules/ccddeeff/libdso.so"));
}

TEST(Bundle, NoCopyTakesAbsolutePaths) {
  BundleDir D;
  D.file("elsewhere/run.memprofraw", 5);
  D.file("elsewhere/main", 7);
  BundleManifest M;
  M.Copied = false;
  M.Profiles = {D.at("elsewhere/run.memprofraw")};
  M.Modules.push_back({"aabb", D.at("elsewhere/main"), D.at("elsewhere/main"),
                       7, "executable"});
  auto R = parseBundleManifest(writeBundleManifest(M), D.at("bundle"));
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_FALSE(R->Copied);
  EXPECT_EQ(R->Modules[0].File, D.at("elsewhere/main"));

  // Relative paths are refused there, and a file gone is named.
  M.Profiles = {"elsewhere/run.memprofraw"};
  EXPECT_NE(errorText(parseBundleManifest(writeBundleManifest(M), D.path()))
                .find("profiles[0]: 'elsewhere/run.memprofraw' is not absolute"),
            std::string::npos);
  M.Profiles = {D.at("elsewhere/run.memprofraw")};
  M.Modules[0].File = D.at("elsewhere/gone");
  std::string E = errorText(parseBundleManifest(writeBundleManifest(M), D.path()));
  EXPECT_NE(E.find("modules[0].file: " + D.at("elsewhere/gone") + ": cannot open"),
            std::string::npos)
      << E;
}

TEST(Bundle, ErrorsNameTheManifest) {
  BundleDir D;
  std::string E = errorText(parseBundleManifest("{", D.path()));
  EXPECT_NE(E.find(D.at("manifest.json") + ": not JSON"), std::string::npos) << E;
  EXPECT_EQ(errorCode(parseBundleManifest("{", D.path())), ErrorCode::Malformed);
}

struct Hostile {
  const char *Name;
  std::function<std::string(const BundleDir &)> Text;
  const char *Expected;
  ErrorCode Code;
};

TEST(Bundle, RefusesHostileManifests) {
  auto Edit = [](std::function<void(json::Object &)> F) {
    return [F](const BundleDir &D) { return edited(D, F); };
  };
  auto Raw = [](std::string S) {
    return [S](const BundleDir &) { return S; };
  };
  std::vector<Hostile> Cases = {
      {"not json", Raw("hello"), "not JSON", ErrorCode::Malformed},
      {"empty", Raw(""), "not JSON", ErrorCode::Malformed},
      {"array", Raw("[1, 2]"), "the top level is not an object",
       ErrorCode::Malformed},
      {"deep", Raw(std::string(100000, '[')), "nested deeper than 64 levels",
       ErrorCode::Malformed},
      {"no version", Edit([](json::Object &O) { O.erase("schema_version"); }),
       "schema_version: missing", ErrorCode::Malformed},
      {"string version",
       Edit([](json::Object &O) { O["schema_version"] = "1"; }),
       "schema_version: not an integer", ErrorCode::Malformed},
      {"version 2", Edit([](json::Object &O) { O["schema_version"] = 2; }),
       "schema_version: version 2 is not supported",
       ErrorCode::UnsupportedVersion},
      {"created_by", Edit([](json::Object &O) { O["created_by"] = 3; }),
       "created_by: not a string", ErrorCode::Malformed},
      {"no copied", Edit([](json::Object &O) { O.erase("copied"); }),
       "copied: missing", ErrorCode::Malformed},
      {"copied string", Edit([](json::Object &O) { O["copied"] = "yes"; }),
       "copied: not true or false", ErrorCode::Malformed},
      {"no profiles", Edit([](json::Object &O) { O.erase("profiles"); }),
       "profiles: missing", ErrorCode::Malformed},
      {"profiles object",
       Edit([](json::Object &O) { O["profiles"] = json::Object{}; }),
       "profiles: not an array", ErrorCode::Malformed},
      {"profile number",
       Edit([](json::Object &O) { O["profiles"] = json::Array{7}; }),
       "profiles[0]: not a string", ErrorCode::Malformed},
      {"profile absolute",
       Edit([](json::Object &O) {
         O["profiles"] = json::Array{"/etc/passwd"};
       }),
       "profiles[0]: '/etc/passwd' is absolute", ErrorCode::Malformed},
      {"profile dotdot",
       Edit([](json::Object &O) {
         O["profiles"] = json::Array{"profiles/../../x"};
       }),
       "profiles[0]: 'profiles/../../x' contains '..'", ErrorCode::Malformed},
      {"profile empty",
       Edit([](json::Object &O) { O["profiles"] = json::Array{""}; }),
       "profiles[0]: empty path", ErrorCode::Malformed},
      {"profile missing",
       Edit([](json::Object &O) {
         O["profiles"] = json::Array{"profiles/nope"};
       }),
       "profiles[0]: ", ErrorCode::NotFound},
      {"profile twice",
       Edit([](json::Object &O) {
         O["profiles"] = json::Array{"profiles/0-run.memprofraw",
                                     "./profiles/0-run.memprofraw"};
       }),
       "profiles[1]: './profiles/0-run.memprofraw' names a file already named",
       ErrorCode::Malformed},
      {"profile directory",
       Edit([](json::Object &O) { O["profiles"] = json::Array{"profiles"}; }),
       "is not a regular file", ErrorCode::Malformed},
      {"no modules", Edit([](json::Object &O) { O.erase("modules"); }),
       "modules: missing", ErrorCode::Malformed},
      {"module not object",
       Edit([](json::Object &O) { O["modules"] = json::Array{"aabb"}; }),
       "modules[0]: not an object", ErrorCode::Malformed},
      {"no build id",
       Edit([](json::Object &O) { module0(O).erase("build_id"); }),
       "modules[0].build_id: missing", ErrorCode::Malformed},
      {"build id number",
       Edit([](json::Object &O) { module0(O)["build_id"] = 12; }),
       "modules[0].build_id: not a string", ErrorCode::Malformed},
      {"build id upper",
       Edit([](json::Object &O) { module0(O)["build_id"] = "AABB"; }),
       "modules[0].build_id: 'AABB' is not a build id", ErrorCode::Malformed},
      {"build id short",
       Edit([](json::Object &O) { module0(O)["build_id"] = "a"; }),
       "modules[0].build_id: 'a' is not a build id", ErrorCode::Malformed},
      {"build id odd",
       Edit([](json::Object &O) { module0(O)["build_id"] = "abc"; }),
       "'abc' is not a build id", ErrorCode::Malformed},
      {"build id long",
       Edit([](json::Object &O) {
         module0(O)["build_id"] = std::string(66, 'a');
       }),
       "is not a build id", ErrorCode::Malformed},
      {"build id not hex",
       Edit([](json::Object &O) { module0(O)["build_id"] = "zz"; }),
       "'zz' is not a build id", ErrorCode::Malformed},
      {"duplicate build id",
       Edit([](json::Object &O) {
         (*(*O.getArray("modules"))[1].getAsObject())["build_id"] = "aabb";
       }),
       "modules[1].build_id: 'aabb' is also modules[0]'s build id",
       ErrorCode::Malformed},
      {"no found_at",
       Edit([](json::Object &O) { module0(O).erase("found_at"); }),
       "modules[0].found_at: missing", ErrorCode::Malformed},
      {"no file", Edit([](json::Object &O) { module0(O).erase("file"); }),
       "modules[0].file: missing", ErrorCode::Malformed},
      {"no size", Edit([](json::Object &O) { module0(O).erase("size"); }),
       "modules[0].size: missing", ErrorCode::Malformed},
      {"negative size", Edit([](json::Object &O) { module0(O)["size"] = -1; }),
       "modules[0].size: not a whole number of bytes", ErrorCode::Malformed},
      {"fractional size",
       Edit([](json::Object &O) { module0(O)["size"] = 1.5; }),
       "modules[0].size: not a whole number of bytes", ErrorCode::Malformed},
      {"no kind", Edit([](json::Object &O) { module0(O).erase("kind"); }),
       "modules[0].kind: missing", ErrorCode::Malformed},
      {"bad kind", Edit([](json::Object &O) { module0(O)["kind"] = "core"; }),
       "modules[0].kind: 'core' is neither", ErrorCode::Malformed},
      {"file absolute",
       Edit([](json::Object &O) { module0(O)["file"] = "/bin/sh"; }),
       "modules[0].file: '/bin/sh' is absolute", ErrorCode::Malformed},
      {"file dotdot",
       Edit([](json::Object &O) { module0(O)["file"] = "../main"; }),
       "modules[0].file: '../main' contains '..'", ErrorCode::Malformed},
      {"file missing",
       Edit([](json::Object &O) { module0(O)["file"] = "modules/aabb/gone"; }),
       "modules[0].file: ", ErrorCode::NotFound},
      {"size differs", Edit([](json::Object &O) { module0(O)["size"] = 1235; }),
       "modules[0].file: ", ErrorCode::Incompatible},
      {"no missing", Edit([](json::Object &O) { O.erase("missing"); }),
       "missing: missing", ErrorCode::Malformed},
      {"missing number",
       Edit([](json::Object &O) { O["missing"] = json::Array{1}; }),
       "missing[0]: not a string", ErrorCode::Malformed},
      {"missing bad id",
       Edit([](json::Object &O) { O["missing"] = json::Array{"xy"}; }),
       "missing[0]: 'xy' is not a build id", ErrorCode::Malformed},
      {"missing twice",
       Edit([](json::Object &O) { O["missing"] = json::Array{"ab", "ab"}; }),
       "missing[1]: 'ab' is listed twice", ErrorCode::Malformed},
      {"missing and found",
       Edit([](json::Object &O) { O["missing"] = json::Array{"aabb"}; }),
       "missing[0]: 'aabb' is also a module's build id",
       ErrorCode::Malformed},
  };
  for (const Hostile &C : Cases) {
    BundleDir D;
    std::string Text = C.Text(D);
    auto R = parseBundleManifest(Text, D.path());
    ASSERT_FALSE(bool(R)) << C.Name;
    ErrorCode Code = ErrorCode::Empty;
    std::string Msg;
    handleAllErrors(R.takeError(), [&](const MemProfError &E) {
      Code = E.code();
      Msg = E.detail();
    });
    EXPECT_NE(Msg.find(C.Expected), std::string::npos)
        << C.Name << ": " << Msg;
    EXPECT_EQ(Msg.rfind(D.at("manifest.json") + ": ", 0), 0u)
        << C.Name << ": " << Msg;
    EXPECT_EQ(Code, C.Code) << C.Name << ": " << Msg;
  }
}

TEST(Bundle, SizeMismatchSaysBoth) {
  BundleDir D;
  BundleManifest M = validManifest(D);
  M.Modules[0].Size = 1000;
  std::string E = errorText(parseBundleManifest(writeBundleManifest(M), D.path()));
  EXPECT_NE(E.find("modules[0].file: " + D.at("modules/aabb/main") +
                   " has 1234 bytes, the manifest says 1000"),
            std::string::npos)
      << E;
}

TEST(Bundle, MissingFileIsNamed) {
  BundleDir D;
  BundleManifest M = validManifest(D);
  ASSERT_FALSE(sys::fs::remove(D.at("modules/ccddeeff/libdso.so")));
  auto R = parseBundleManifest(writeBundleManifest(M), D.path());
  EXPECT_EQ(errorCode(parseBundleManifest(writeBundleManifest(M), D.path())),
            ErrorCode::NotFound);
  std::string E = errorText(std::move(R));
  EXPECT_NE(E.find("modules[1].file: " + D.at("modules/ccddeeff/libdso.so") +
                   ": cannot open"),
            std::string::npos)
      << E;
}

TEST(Bundle, RefusesSymlinksOutOfTheBundle) {
  BundleDir Outside;
  Outside.file("secret", 1234);
  BundleDir D;
  BundleManifest M = validManifest(D);
  // A module file that is a link to a file outside.
  ASSERT_FALSE(sys::fs::remove(D.at("modules/aabb/main")));
  ASSERT_FALSE(sys::fs::create_link(Outside.at("secret"), D.at("modules/aabb/main")));
  std::string E = errorText(parseBundleManifest(writeBundleManifest(M), D.path()));
  EXPECT_NE(E.find("modules[0].file: 'modules/aabb/main' resolves to"),
            std::string::npos)
      << E;
  EXPECT_NE(E.find("outside the bundle directory"), std::string::npos) << E;

  // A linked directory leads out as well.
  BundleDir D2;
  BundleManifest M2 = validManifest(D2);
  ASSERT_FALSE(sys::fs::create_link(Outside.path(), D2.at("out")));
  M2.Profiles = {"out/secret"};
  E = errorText(parseBundleManifest(writeBundleManifest(M2), D2.path()));
  EXPECT_NE(E.find("profiles[0]: 'out/secret' resolves to"), std::string::npos)
      << E;

  // A link inside the bundle, to a file inside it, is fine; and the bundle
  // directory itself may be reached through a link.
  BundleDir D3;
  BundleManifest M3 = validManifest(D3);
  ASSERT_FALSE(sys::fs::create_link(D3.at("profiles/0-run.memprofraw"),
                                    D3.at("profiles/alias")));
  M3.Profiles = {"profiles/alias"};
  ASSERT_FALSE(sys::fs::create_link(D3.path(), Outside.at("link-to-bundle")));
  auto R = parseBundleManifest(writeBundleManifest(M3),
                               Outside.at("link-to-bundle"));
  EXPECT_TRUE(bool(R)) << toString(R.takeError());
}

TEST(Bundle, ReadBundleNeedsADirectoryWithAManifest) {
  BundleDir D;
  std::string E = errorText(readBundle(D.at("nope")));
  EXPECT_NE(E.find("not a directory"), std::string::npos) << E;
  E = errorText(readBundle(D.path()));
  EXPECT_NE(E.find(D.at("manifest.json") + ": cannot read"), std::string::npos)
      << E;
}

TEST(Bundle, SchemaIsJSON) {
  Expected<json::Value> V = json::parse(bundleManifestSchema());
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  const json::Object *O = V->getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getString("$schema").value_or(""),
            "https://json-schema.org/draft/2020-12/schema");
}

} // namespace

//===----------------------------------------------------------------------===//
// The vDSO: the one module of a raw profile that no file holds
//===----------------------------------------------------------------------===//

namespace {

/// This process's [vdso] mapping, read through /proc (not getauxval).
std::string mappedVdso() {
  auto Maps = MemoryBuffer::getFileAsStream("/proc/self/maps");
  if (!Maps)
    return "";
  SmallVector<StringRef, 64> Lines;
  (*Maps)->getBuffer().split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.rtrim().ends_with("[vdso]"))
      continue;
    auto [Lo, Hi] = L.split(' ').first.split('-');
    uint64_t Begin = 0, End = 0;
    if (Lo.getAsInteger(16, Begin) || Hi.getAsInteger(16, End) || End <= Begin)
      return "";
    std::string Image(End - Begin, '\0');
    int Fd = ::open("/proc/self/mem", O_RDONLY);
    if (Fd < 0)
      return "";
    ssize_t N = ::pread(Fd, Image.data(), Image.size(), off_t(Begin));
    ::close(Fd);
    return N == ssize_t(Image.size()) ? Image : std::string();
  }
  return "";
}

SegmentInfo segment(uint64_t Start, uint64_t Size, uint64_t Bias,
                    std::string Id, std::string Path) {
  return SegmentInfo{Start, Start + Size, Bias, std::move(Id), std::move(Path)};
}

} // namespace

// The build id runningVdsoBuildId reads is the one LLVM's ELF reader finds
// in the image the kernel mapped.
TEST(Vdso, RunningBuildIdIsTheMappedImages) {
  std::string Image = mappedVdso();
  if (Image.empty())
    GTEST_SKIP() << "no [vdso] mapping readable here";
  auto Obj = object::ObjectFile::createELFObjectFile(
      MemoryBufferRef(Image, "vdso"));
  ASSERT_TRUE(bool(Obj)) << toString(Obj.takeError());
  auto *Elf = dyn_cast<object::ELF64LEObjectFile>(Obj->get());
  ASSERT_TRUE(Elf);
  std::string Oracle;
  auto Phdrs = Elf->getELFFile().program_headers();
  ASSERT_TRUE(bool(Phdrs));
  for (const auto &Ph : *Phdrs) {
    if (Ph.p_type != ELF::PT_NOTE)
      continue;
    Error E = Error::success();
    for (const auto &Note : Elf->getELFFile().notes(Ph, E))
      if (Note.getType() == ELF::NT_GNU_BUILD_ID && Note.getName() == "GNU")
        Oracle = toStringRef(Note.getDesc(Ph.p_align)).str();
    ASSERT_FALSE(bool(E));
  }
  ASSERT_FALSE(Oracle.empty());
  EXPECT_EQ(buildIdToHex(runningVdsoBuildId()), buildIdToHex(Oracle));
  EXPECT_EQ(vdsoBuildIdOf(reinterpret_cast<const uint8_t *>(Image.data()),
                          Image.size()),
            Oracle);
  // Any prefix of the image is read within its bounds.
  for (size_t N = 0; N < Image.size() && N < 4096; ++N) {
    std::string Id =
        vdsoBuildIdOf(reinterpret_cast<const uint8_t *>(Image.data()), N);
    EXPECT_TRUE(Id.empty() || Id == Oracle);
  }
}

TEST(Vdso, RecognizedByBuildIdOrLayout) {
  std::string Running(runningVdsoBuildId());
  const std::string Other("\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
  const std::string Lib("\xfe\xdc\xba\x98", 4);
  // This machine's vDSO, whatever its layout, with or without paths.
  if (!Running.empty()) {
    std::vector<SegmentInfo> Clang{segment(0x1000, 0x1000, 0, "\x11", ""),
                                   segment(0x7000, 0x800, 0x7000, Running, "")};
    EXPECT_TRUE(isVdsoSegment(Clang[1], Clang));
    EXPECT_FALSE(isVdsoSegment(Clang[0], Clang));
  }
  // Another kernel's: by layout, in a profile that records paths.
  std::vector<SegmentInfo> Ours{
      segment(0x401000, 0x2000, 0x400000, "\x11", "/bin/app"),
      segment(0x7000, 0x1522, 0x7000, Other, ""),
      segment(0x9000, 0x1000, 0x9000, Lib, "/lib/libsmall.so")};
  EXPECT_TRUE(isVdsoSegment(Ours[1], Ours));
  EXPECT_FALSE(isVdsoSegment(Ours[0], Ours));
  EXPECT_FALSE(isVdsoSegment(Ours[2], Ours)); // a path: a file holds it
  std::vector<SegmentInfo> Moved = Ours;
  Moved[1].Offset -= 0x1000; // not at its load bias
  EXPECT_FALSE(isVdsoSegment(Moved[1], Moved));
  std::vector<SegmentInfo> Large = Ours;
  Large[1].End = Large[1].Start + 0x10001;
  EXPECT_FALSE(isVdsoSegment(Large[1], Large));
  std::vector<SegmentInfo> Twice = Ours;
  Twice.push_back(segment(0xa000, 0x100, 0xa000, Other, ""));
  EXPECT_FALSE(isVdsoSegment(Twice[1], Twice)); // two executable segments
  // No paths at all (clang's runtime): the layout alone says nothing.
  std::vector<SegmentInfo> NoPaths = Ours;
  for (SegmentInfo &S : NoPaths)
    S.Path.clear();
  EXPECT_FALSE(isVdsoSegment(NoPaths[1], NoPaths));
  // Without a build id, nothing is recognized.
  std::vector<SegmentInfo> NoId = Ours;
  NoId[1].BuildId.clear();
  EXPECT_FALSE(isVdsoSegment(NoId[1], NoId));
}
