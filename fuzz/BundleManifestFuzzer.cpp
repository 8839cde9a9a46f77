//===- BundleManifestFuzzer.cpp - Fuzz the bundle manifest reader ----------===//
//
// Any text must give a manifest or an error, never a crash. The bundle
// directory does not exist, so a copied bundle that names a file is always
// refused; nothing is created anywhere (the checks only look at files).
// Whatever is accepted must be written and read back unchanged.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Bundle.h"
#include <cstdlib>

using namespace memprof;

static bool sameManifest(const BundleManifest &A, const BundleManifest &B) {
  if (A.SchemaVersion != B.SchemaVersion || A.Copied != B.Copied ||
      A.Profiles != B.Profiles || A.Missing != B.Missing ||
      A.Modules.size() != B.Modules.size())
    return false;
  for (size_t I = 0; I < A.Modules.size(); ++I) {
    const BundleModule &X = A.Modules[I], &Y = B.Modules[I];
    if (X.BuildId != Y.BuildId || X.FoundAt != Y.FoundAt || X.File != Y.File ||
        X.Size != Y.Size || X.Kind != Y.Kind)
      return false;
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const char *Dir = "/nonexistent/memprof-bundle-fuzz";
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto M = parseBundleManifest(Text, Dir);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  // Accepted: only a --no-copy bundle (absolute paths) or an empty one, so
  // the paths read back are the paths written.
  auto Back = parseBundleManifest(writeBundleManifest(*M), Dir);
  if (!Back) {
    llvm::consumeError(Back.takeError());
    abort(); // anything read must be writable and readable again
  }
  if (!sameManifest(*M, *Back))
    abort();
  return 0;
}
