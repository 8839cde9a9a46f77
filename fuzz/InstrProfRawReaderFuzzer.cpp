//===- InstrProfRawReaderFuzzer.cpp - Fuzz the raw InstrProf reader -------===//
#include "memprof/ProfileData/InstrProfData.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Buffer(reinterpret_cast<const char *>(Data), Size);
  (void)memprof::isRawInstrProf(Buffer);
  auto P = memprof::readRawInstrProf(Buffer);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  // Touch everything the reader returned.
  uint64_t Sum = P->Variant + P->TraceStreamSize;
  for (const memprof::FunctionCounters &F : P->Records) {
    Sum += F.Name.size() + F.Hash + F.Bitmap.size();
    for (uint64_t C : F.Counts)
      Sum += C;
    for (const auto &Sites : F.Sites)
      for (const auto &Site : Sites)
        for (const memprof::InstrProfValue &V : Site)
          Sum += V.Value ^ V.Count;
  }
  for (const std::string &Id : P->BinaryIds)
    Sum += Id.size();
  for (const memprof::TemporalTrace &T : P->Traces)
    Sum += T.Weight + T.FunctionNameRefs.size();
  for (const std::string &V : P->VTableNames)
    Sum += V.size();
  return Sum == 42 ? 0 : 0;
}
