//===- Bundle.cpp - Reading, checking and writing bundle manifests ---------===//
//
// The manifest comes from another machine and is checked as any input is:
// every field's type, every build id, every path (inside the bundle, after
// symbolic links), every file's presence and size. docs/bundles.md
// describes the format.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Bundle.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace memprof {

namespace {

/// Deeper than any manifest needs (it has three levels); llvm::json's
/// parser recurses once per level, so a hostile "[[[[..." must be refused
/// before it reaches it.
constexpr unsigned MaxNesting = 64;

bool isBuildIdHex(StringRef S) {
  return S.size() >= 2 && S.size() <= 64 && S.size() % 2 == 0 &&
         S.find_first_not_of("0123456789abcdef") == StringRef::npos;
}

/// Checks and resolves one manifest: Name is the manifest's path for
/// messages, AbsDir the bundle directory (absolute), RealDir its real path
/// (empty when it could not be resolved).
class ManifestChecker {
public:
  ManifestChecker(std::string Name, std::string AbsDir, std::string RealDir)
      : Name(std::move(Name)), AbsDir(std::move(AbsDir)),
        RealDir(std::move(RealDir)) {}

  Expected<BundleManifest> check(StringRef Text);

private:
  Error fail(ErrorCode C, const Twine &Field, const Twine &Msg) {
    return makeError(C, Name + ": " + Field + ": " + Msg);
  }
  Error checkNesting(StringRef Text);
  Expected<std::string> getString(const json::Object &O, StringRef Key,
                               const Twine &Where);
  /// Resolves a file the manifest names and checks that it is a regular
  /// file (of \p Size bytes when given) inside the bundle (when Copied).
  Expected<std::string> resolve(StringRef P, bool Copied, const Twine &Field,
                                const uint64_t *Size);

  std::string Name, AbsDir, RealDir;
  StringSet<> RealFiles; // every file named so far, by real path
};

Error ManifestChecker::checkNesting(StringRef Text) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxNesting)
        return makeError(ErrorCode::Malformed,
                         Name + ": not a bundle manifest: nested deeper than " +
                             Twine(MaxNesting) + " levels",
                         I);
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return Error::success();
}

Expected<std::string> ManifestChecker::getString(const json::Object &O,
                                              StringRef Key,
                                              const Twine &Where) {
  const json::Value *V = O.get(Key);
  if (!V)
    return fail(ErrorCode::Malformed, Where + Key, "missing");
  std::optional<StringRef> S = V->getAsString();
  if (!S)
    return fail(ErrorCode::Malformed, Where + Key, "not a string");
  return S->str();
}

Expected<std::string> ManifestChecker::resolve(StringRef P, bool Copied,
                                               const Twine &Field,
                                               const uint64_t *Size) {
  if (P.empty())
    return fail(ErrorCode::Malformed, Field, "empty path");
  if (P.contains('\0'))
    return fail(ErrorCode::Malformed, Field, "the path holds a NUL character");
  SmallString<256> Full;
  if (Copied) {
    if (sys::path::is_absolute(P))
      return fail(ErrorCode::Malformed, Field,
                  "'" + P + "' is absolute; a copied bundle's paths are "
                  "relative to its directory");
    for (auto I = sys::path::begin(P), E = sys::path::end(P); I != E; ++I)
      if (*I == "..")
        return fail(ErrorCode::Malformed, Field,
                    "'" + P + "' contains '..'; a copied bundle's paths stay "
                    "inside its directory");
    Full = AbsDir;
    sys::path::append(Full, P);
  } else {
    if (!sys::path::is_absolute(P))
      return fail(ErrorCode::Malformed, Field,
                  "'" + P + "' is not absolute; a --no-copy bundle names "
                  "files by absolute path");
    Full = P;
  }
  sys::path::remove_dots(Full, /*remove_dot_dot=*/false);
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Full, Real))
    return fail(ErrorCode::NotFound, Field,
                Full + ": cannot open: " + EC.message());
  if (Copied) {
    if (RealDir.empty())
      return fail(ErrorCode::NotFound, Field,
                  "the bundle directory " + AbsDir + " cannot be resolved");
    if (!StringRef(Real).starts_with(RealDir) ||
        Real.size() <= RealDir.size() || Real[RealDir.size()] != '/')
      return fail(ErrorCode::Malformed, Field,
                  "'" + P + "' resolves to " + Real +
                      ", outside the bundle directory (through a symbolic "
                      "link)");
  }
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Real, St))
    return fail(ErrorCode::NotFound, Field,
                Full + ": cannot open: " + EC.message());
  if (!sys::fs::is_regular_file(St))
    return fail(ErrorCode::Malformed, Field, Full + " is not a regular file");
  if (Size && St.getSize() != *Size)
    return fail(ErrorCode::Incompatible, Field,
                Full + " has " + Twine(St.getSize()) +
                    " bytes, the manifest says " + Twine(*Size) +
                    " (changed after the bundle was made)");
  if (!RealFiles.insert(Real).second)
    return fail(ErrorCode::Malformed, Field,
                "'" + P + "' names a file already named (" + Real + ")");
  return std::string(Full);
}

Expected<BundleManifest> ManifestChecker::check(StringRef Text) {
  if (Error E = checkNesting(Text))
    return std::move(E);
  Expected<json::Value> Parsed = json::parse(Text);
  if (!Parsed)
    return makeError(ErrorCode::Malformed,
                     Name + ": not JSON: " + toString(Parsed.takeError()));
  const json::Object *Top = Parsed->getAsObject();
  if (!Top)
    return makeError(ErrorCode::Malformed,
                     Name + ": not a bundle manifest: the top level is not "
                            "an object");
  BundleManifest M;

  const json::Value *V = Top->get("schema_version");
  if (!V)
    return fail(ErrorCode::Malformed, "schema_version", "missing");
  std::optional<int64_t> Version = V->getAsInteger();
  if (!Version)
    return fail(ErrorCode::Malformed, "schema_version", "not an integer");
  if (*Version != BundleSchemaVersion)
    return fail(ErrorCode::UnsupportedVersion, "schema_version",
                "version " + Twine(*Version) + " is not supported (this "
                "memprof reads version " + Twine(BundleSchemaVersion) + ")");
  M.SchemaVersion = BundleSchemaVersion;

  if (const json::Value *C = Top->get("created_by"))
    if (!C->getAsString())
      return fail(ErrorCode::Malformed, "created_by", "not a string");

  V = Top->get("copied");
  if (!V)
    return fail(ErrorCode::Malformed, "copied", "missing");
  std::optional<bool> Copied = V->getAsBoolean();
  if (!Copied)
    return fail(ErrorCode::Malformed, "copied", "not true or false");
  M.Copied = *Copied;

  auto array = [&](StringRef Key) -> Expected<const json::Array *> {
    const json::Value *A = Top->get(Key);
    if (!A)
      return fail(ErrorCode::Malformed, Key, "missing");
    if (!A->getAsArray())
      return fail(ErrorCode::Malformed, Key, "not an array");
    return A->getAsArray();
  };

  Expected<const json::Array *> Profiles = array("profiles");
  if (!Profiles)
    return Profiles.takeError();
  for (size_t I = 0; I < (*Profiles)->size(); ++I) {
    std::string Field = ("profiles[" + Twine(I) + "]").str();
    std::optional<StringRef> S = (**Profiles)[I].getAsString();
    if (!S)
      return fail(ErrorCode::Malformed, Field, "not a string");
    Expected<std::string> P = resolve(*S, M.Copied, Field, nullptr);
    if (!P)
      return P.takeError();
    M.Profiles.push_back(std::move(*P));
  }

  Expected<const json::Array *> Modules = array("modules");
  if (!Modules)
    return Modules.takeError();
  StringMap<size_t> Ids; // build id -> index in modules
  for (size_t I = 0; I < (*Modules)->size(); ++I) {
    std::string Where = ("modules[" + Twine(I) + "].").str();
    const json::Object *O = (**Modules)[I].getAsObject();
    if (!O)
      return fail(ErrorCode::Malformed, Where.substr(0, Where.size() - 1),
                  "not an object");
    BundleModule Mod;
    Expected<std::string> S = getString(*O, "build_id", Where);
    if (!S)
      return S.takeError();
    if (!isBuildIdHex(*S))
      return fail(ErrorCode::Malformed, Where + "build_id",
                  "'" + *S + "' is not a build id (lower-case hex, an even "
                  "number of 2 to 64 digits)");
    auto [It, New] = Ids.try_emplace(*S, I);
    if (!New)
      return fail(ErrorCode::Malformed, Where + "build_id",
                  "'" + *S + "' is also modules[" + Twine(It->second) +
                      "]'s build id");
    Mod.BuildId = std::move(*S);
    if (!(S = getString(*O, "found_at", Where)))
      return S.takeError();
    Mod.FoundAt = std::move(*S);
    if (!(S = getString(*O, "kind", Where)))
      return S.takeError();
    if (*S != "executable" && *S != "debuginfo")
      return fail(ErrorCode::Malformed, Where + "kind",
                  "'" + *S + "' is neither \"executable\" nor \"debuginfo\"");
    Mod.Kind = std::move(*S);
    const json::Value *SizeV = O->get("size");
    if (!SizeV)
      return fail(ErrorCode::Malformed, Where + "size", "missing");
    std::optional<uint64_t> Size = SizeV->getAsUINT64();
    if (!Size)
      return fail(ErrorCode::Malformed, Where + "size",
                  "not a whole number of bytes");
    Mod.Size = *Size;
    if (!(S = getString(*O, "file", Where)))
      return S.takeError();
    Expected<std::string> F = resolve(*S, M.Copied, Where + "file", &Mod.Size);
    if (!F)
      return F.takeError();
    Mod.File = std::move(*F);
    M.Modules.push_back(std::move(Mod));
  }

  Expected<const json::Array *> Missing = array("missing");
  if (!Missing)
    return Missing.takeError();
  StringSet<> MissingIds;
  for (size_t I = 0; I < (*Missing)->size(); ++I) {
    std::string Field = ("missing[" + Twine(I) + "]").str();
    std::optional<StringRef> S = (**Missing)[I].getAsString();
    if (!S)
      return fail(ErrorCode::Malformed, Field, "not a string");
    if (!isBuildIdHex(*S))
      return fail(ErrorCode::Malformed, Field,
                  "'" + *S + "' is not a build id (lower-case hex, an even "
                  "number of 2 to 64 digits)");
    if (Ids.count(*S))
      return fail(ErrorCode::Malformed, Field,
                  "'" + *S + "' is also a module's build id");
    if (!MissingIds.insert(*S).second)
      return fail(ErrorCode::Malformed, Field,
                  "'" + *S + "' is listed twice");
    M.Missing.push_back(S->str());
  }
  return M;
}

} // namespace

Expected<BundleManifest> parseBundleManifest(StringRef Text, StringRef Dir) {
  SmallString<256> AbsDir(Dir.empty() ? StringRef(".") : Dir);
  sys::fs::make_absolute(AbsDir);
  sys::path::remove_dots(AbsDir, /*remove_dot_dot=*/false);
  SmallString<256> RealDir;
  if (sys::fs::real_path(AbsDir, RealDir))
    RealDir.clear();
  SmallString<256> Name(Dir);
  sys::path::append(Name, BundleManifestName);
  ManifestChecker C{std::string(Name), std::string(AbsDir),
                    std::string(RealDir)};
  return C.check(Text);
}

Expected<BundleManifest> readBundle(StringRef Dir) {
  SmallString<256> Name(Dir);
  sys::path::append(Name, BundleManifestName);
  if (!sys::fs::is_directory(Dir))
    return makeError(sys::fs::exists(Dir) ? ErrorCode::IO : ErrorCode::NotFound,
                     Dir + ": not a bundle: not a directory");
  auto Buf = MemoryBuffer::getFile(Name, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError(ErrorCode::NotFound,
                     Name + ": cannot read: " + Buf.getError().message() +
                         " (not a bundle memprof-bundle wrote?)");
  return parseBundleManifest((*Buf)->getBuffer(), Dir);
}

std::string writeBundleManifest(const BundleManifest &M) {
  std::string S;
  raw_string_ostream OS(S);
  {
    json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("schema_version", int64_t(M.SchemaVersion));
      J.attribute("created_by", "memprof-bundle");
      J.attribute("copied", M.Copied);
      J.attributeArray("profiles", [&] {
        for (const std::string &P : M.Profiles)
          J.value(P);
      });
      J.attributeArray("modules", [&] {
        for (const BundleModule &Mod : M.Modules)
          J.object([&] {
            J.attribute("build_id", Mod.BuildId);
            J.attribute("found_at", Mod.FoundAt);
            J.attribute("file", Mod.File);
            J.attribute("size", Mod.Size);
            J.attribute("kind", Mod.Kind);
          });
      });
      J.attributeArray("missing", [&] {
        for (const std::string &Id : M.Missing)
          J.value(Id);
      });
    });
  }
  OS << "\n";
  return S;
}

StringRef bundleManifestSchema() {
  return R"schema({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://memprof.invalid/schemas/bundle-manifest-1.json",
  "title": "memprof bundle manifest (manifest.json), schema version 1",
  "description": "Raw MemProf profiles and the module files that symbolize them; see docs/bundles.md. Paths are relative to the manifest's directory when copied is true, absolute when it is false.",
  "type": "object",
  "required": ["schema_version", "copied", "profiles", "modules", "missing"],
  "properties": {
    "schema_version": {"const": 1},
    "created_by": {"type": "string"},
    "copied": {"type": "boolean"},
    "profiles": {
      "type": "array",
      "items": {"$ref": "#/$defs/path"}
    },
    "modules": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["build_id", "found_at", "file", "size", "kind"],
        "properties": {
          "build_id": {"$ref": "#/$defs/build_id"},
          "found_at": {"type": "string"},
          "file": {"$ref": "#/$defs/path"},
          "size": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615},
          "kind": {"enum": ["executable", "debuginfo"]}
        }
      }
    },
    "missing": {
      "type": "array",
      "uniqueItems": true,
      "items": {"$ref": "#/$defs/build_id"}
    }
  },
  "$defs": {
    "build_id": {
      "description": "Lower-case hex of the module's GNU build id bytes",
      "type": "string",
      "pattern": "^([0-9a-f]{2}){1,32}$"
    },
    "path": {
      "description": "Relative without '..' (copied bundles) or absolute (copied: false)",
      "type": "string",
      "minLength": 1
    }
  }
}
)schema";
}

} // namespace memprof
