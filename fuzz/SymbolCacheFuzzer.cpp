//===- SymbolCacheFuzzer.cpp - Fuzz the symbol cache entry reader
//----------===//
//
// Any bytes must give an entry or an error, never a crash, a hang or an
// allocation sized by an unchecked count. The checksum stops most mutations
// early, so an input is also read with its checksum made right: the harness
// recomputes it (xxh3 of the entry with the checksum as zeros) when the
// header is whole, so the payload checks behind it are reached too. Whatever
// is accepted must be written and read back to the same bytes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/SymbolCache.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/xxhash.h"
#include <cstdlib>
#include <string>

using namespace memprof;

static void check(llvm::StringRef Bytes) {
  auto E = readSymbolCacheEntry(Bytes);
  if (!E) {
    llvm::consumeError(E.takeError());
    return;
  }
  std::string Again = writeSymbolCacheEntry(*E);
  if (Again != Bytes)
    abort(); // an entry read is one this writer writes
  auto Back = readSymbolCacheEntry(Again);
  if (!Back) {
    llvm::consumeError(Back.takeError());
    abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  check(Bytes);
  // The same bytes with a checksum that matches (the header is 48 bytes,
  // the checksum at 40).
  constexpr size_t HeaderBytes = 48;
  if (Size < HeaderBytes)
    return 0;
  std::string Fixed(Bytes);
  llvm::support::endian::write64le(&Fixed[40], 0);
  llvm::support::endian::write64le(&Fixed[40], llvm::xxh3_64bits(Fixed));
  check(Fixed);
  return 0;
}
