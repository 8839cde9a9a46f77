//===- MemProfYAMLFuzzer.cpp - Fuzz the LLVM MemProf YAML reader ----------===//
//
// Any text: readMemProfYAML gives a profile or an error, never a crash. A
// profile is written as indexed V3, printed in round-trip order and read
// again; without repeated record GUIDs (whose stacks LLVM keeps but no text
// can show) the second write must give the same bytes.
//
// Seeds: fuzz/corpus/yaml (the spec's example, llvm-profdata's text of a
// real profile, a lit-tests/memprof-convert/Inputs/gen-yaml.py profile).
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/MemProfYAML.h"
#include "llvm/Support/raw_ostream.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace memprof;
  auto Y = readMemProfYAML(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!Y) {
    llvm::consumeError(Y.takeError());
    return 0;
  }
  IndexedWriterOptions O;
  O.FullSchema = Y->impliesFullSchema();
  llvm::SmallVector<char, 0> First, Second;
  auto W = writeIndexedProfile(Y->Profile, O, First);
  if (!W) { // e.g. a hash-table bucket too full for its u16 count
    llvm::consumeError(W.takeError());
    return 0;
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (llvm::Error E =
          writeIndexedAsYAML(llvm::StringRef(First.data(), First.size()), OS,
                             YAMLRecordOrder::RoundTrip))
    abort(); // our own output must read back
  auto Again = readMemProfYAML(Text);
  if (!Again)
    abort();
  if (!writeIndexedProfile(Again->Profile, O, Second))
    abort();
  if (Y->DuplicateRecords == 0 && First != Second)
    abort();
  return 0;
}
