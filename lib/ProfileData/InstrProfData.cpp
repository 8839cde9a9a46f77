//===- InstrProfData.cpp - Names and variant text of the counter model ----===//
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"

using namespace llvm;

namespace memprof {

uint64_t instrProfNameRef(StringRef PGOName) {
  // IndexedInstrProf::ComputeHash: the first 8 digest bytes, little-endian.
  return MD5::hash(arrayRefFromStringRef(PGOName)).low();
}

std::string demangledPGOName(StringRef PGOName) {
  // IR locals are "file;name", front-end ones "file:name".
  StringRef N = PGOName;
  size_t Semi = N.rfind(';');
  if (Semi != StringRef::npos)
    N = N.drop_front(Semi + 1);
  else if (size_t Colon = N.rfind(':');
           Colon != StringRef::npos && Colon + 1 < N.size())
    N = N.drop_front(Colon + 1); // mangled names hold no ':'

  return demangleName(N);
}

DenseMap<uint64_t, StringRef> counterNameTable(const CounterProfile &P) {
  DenseMap<uint64_t, StringRef> Names;
  for (const FunctionCounters &R : P.Records)
    Names.try_emplace(instrProfNameRef(R.Name), R.Name);
  for (const std::string &V : P.VTableNames)
    Names.try_emplace(instrProfNameRef(V), V);
  return Names;
}

std::string describeVariant(uint64_t Variant) {
  using namespace instrprof;
  SmallVector<StringRef, 8> Parts;
  Parts.push_back(Variant & VariantIR ? "IR" : "front-end");
  if (Variant & VariantCSIR)
    Parts.push_back("context-sensitive");
  if (Variant & VariantEntryFirst)
    Parts.push_back("entry-first");
  if (Variant & VariantLoopEntries)
    Parts.push_back("loop entries");
  // Function-entry coverage sets the byte-coverage bit too, and says more.
  if (Variant & VariantFunctionEntryOnly)
    Parts.push_back("function entry coverage");
  else if (Variant & VariantByteCoverage)
    Parts.push_back("block coverage");
  if (Variant & VariantDebugCorrelate)
    Parts.push_back("correlated");
  if (Variant & VariantTemporal)
    Parts.push_back("temporal");
  if (Variant & VariantMemProf)
    Parts.push_back("MemProf");
  return join(Parts, ", ");
}

} // namespace memprof
