//===- Bundle.h - Profiles and the modules they need, in one directory -*- C++ -*-===//
//
// A bundle (docs/bundles.md) is a directory that holds raw profiles and a
// copy of every module they reference (the binary, or its separate debug
// file when that is what carries the DWARF), described by a JSON manifest,
// so that the profiles can be merged and shown on another machine with
// nothing else at hand. memprof-bundle writes one; memprof-merge and
// memprof-show read one with --bundle.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_BUNDLE_H
#define MEMPROF_PROFILEDATA_BUNDLE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace memprof {

/// The manifest's file name inside a bundle directory.
constexpr const char *BundleManifestName = "manifest.json";
constexpr unsigned BundleSchemaVersion = 1;

struct BundleModule {
  std::string BuildId; ///< lower-case hex
  /// Where memprof-bundle found the module's file (absolute), as given to
  /// it or recorded by the runtime; informative.
  std::string FoundAt;
  /// The copy in the bundle, relative to the manifest's directory; with
  /// --no-copy, FoundAt itself (absolute). Resolved to an absolute path by
  /// readBundle.
  std::string File;
  uint64_t Size = 0;                ///< bytes of File
  std::string Kind = "executable";  ///< "executable" or "debuginfo"
};

struct BundleManifest {
  unsigned SchemaVersion = BundleSchemaVersion;
  bool Copied = true; ///< false: --no-copy (files are the FoundAt paths)
  /// The profiles, relative to the manifest's directory (resolved to
  /// absolute paths by readBundle).
  std::vector<std::string> Profiles;
  std::vector<BundleModule> Modules;
  /// Build ids (hex) of modules the profiles reference that were not found.
  std::vector<std::string> Missing;
};

/// Reads and checks DIR/manifest.json: the schema version, every field's
/// type, relative paths that stay inside DIR (no "..", not absolute, no
/// symbolic link out of it) when Copied, files that exist with the size
/// recorded. Paths in the result are absolute. Errors name the manifest
/// and what is wrong.
llvm::Expected<BundleManifest> readBundle(llvm::StringRef Dir);

/// The same from the manifest's text (\p Dir only resolves the paths).
llvm::Expected<BundleManifest> parseBundleManifest(llvm::StringRef Text,
                                                   llvm::StringRef Dir);

/// The manifest's JSON text (stable key order, as memprof-bundle writes).
std::string writeBundleManifest(const BundleManifest &M);

/// The manifest's JSON schema (memprof-bundle --schema).
llvm::StringRef bundleManifestSchema();

} // namespace memprof

#endif
