//===- InstrProfTextFuzzer.cpp - Fuzz LLVM's counters text reader ---------===//
//
// Reads the bytes as counters text; what reads is written back with the
// round-trip comments and must read again to the same profile.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/Support/raw_ostream.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  (void)memprof::isInstrProfText(Buffer);
  std::vector<std::string> InValues;
  auto P = memprof::readInstrProfText(Buffer, &InValues);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (llvm::Error E = memprof::writeInstrProfText(*P, OS, /*RoundTrip=*/true)) {
    // Refused: a name the text form cannot hold where it would stand.
    llvm::consumeError(std::move(E));
    return 0;
  }
  auto Q = memprof::readInstrProfText(Text);
  if (!Q) {
    llvm::consumeError(Q.takeError());
    abort();
  }
  if (Q->Records.size() != P->Records.size() || Q->Variant != P->Variant ||
      Q->BinaryIds != P->BinaryIds || Q->Traces != P->Traces ||
      Q->VTableNames != P->VTableNames)
    abort();
  return 0;
}
