//===- RawTextFuzzer.cpp - Fuzz the raw text compiler and decompiler ------===//
//
// As bytes: the text writeRawText gives must compile back to exactly those
// bytes. As text: compileRawText gives bytes or an error naming a line, and
// the bytes it gives round-trip the same way.
//
// Seeds: fuzz/corpus/rawtext (lit-tests/memprof-convert/Inputs/small.rawtext,
// a real profile's text); the raw corpus serves as bytes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/RawText.h"
#include "llvm/Support/raw_ostream.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>

static void checkIdentity(llvm::StringRef Bytes) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  memprof::writeRawText(Bytes, OS);
  auto Back = memprof::compileRawText(Text);
  if (!Back || *Back != Bytes)
    abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  checkIdentity(In);
  memprof::RawTextLimits L;
  L.MaxOutputBytes = 1 << 22;
  auto B = memprof::compileRawText(In, L);
  if (!B) {
    llvm::consumeError(B.takeError());
    return 0;
  }
  checkIdentity(*B);
  return 0;
}
