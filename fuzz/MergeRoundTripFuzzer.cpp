//===- MergeRoundTripFuzzer.cpp - raw -> indexed -> read back -> equal -----===//
//
// A differential check: whatever raw profile the reader accepts, merged with
// a fake symbolizer (each PC its own frame, some inline chains naming a
// function twice) and written in every MemProf version, reads back to the
// same records, and merged again to the same records; and merged with a
// weight W it equals W copies merged. Its heap data, written into the names
// extension, reads back unchanged, names contexts of the LLVM part and
// re-merges to itself; weighted, it equals the copies' too.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/Merge.h"
#include "memprof/ProfileData/RawReader.h"
#include <cstdlib>

using namespace memprof;

namespace {
class PCModule : public ModuleSymbolizer {
public:
  llvm::StringRef path() const override { return "fuzz"; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override {
    return PC - S.Start;
  }
  PCSymbols symbolize(uint64_t Addr) override {
    PCSymbols S;
    if (Addr % 7 == 0)
      return S; // some addresses fail
    S.Status = PCSymbols::Ok;
    // Every third address is an inlined call inside another function.
    if (Addr % 3 == 0)
      S.Frames.push_back({{Addr * 31, uint32_t(Addr), 1, true}, "", "", 0, ""});
    // Every fifth, an inline chain that names one function twice (a
    // template inlined twice, inlined recursion): its record holds the
    // context twice.
    if (Addr % 5 == 0) {
      S.Frames.push_back({{Addr, uint32_t(Addr >> 2), 3, true}, "", "", 0, ""});
      S.Frames.push_back({{Addr * 7, 0, 4, true}, "", "", 0, ""});
    }
    S.Frames.push_back({{Addr, uint32_t(Addr >> 3), 2, false}, "", "", 0, ""});
    return S;
  }
};
class AnyLocator : public BinaryLocator {
public:
  PCModule M;
  llvm::Expected<ModuleSymbolizer *> find(llvm::StringRef) override {
    return &M;
  }
};

bool sameContent(const IndexedMemProf &A, const IndexedMemProf &B,
                 llvm::ArrayRef<uint8_t> Schema) {
  if (A.Records.size() != B.Records.size())
    return false;
  for (const auto &[G, R] : A.Records) {
    auto It = B.Records.find(G);
    if (It == B.Records.end())
      return false;
    const IndexedRecord &S = It->second;
    if (R.AllocSites.size() != S.AllocSites.size() ||
        R.CallSites.size() != S.CallSites.size())
      return false;
    for (size_t I = 0; I < R.AllocSites.size(); ++I) {
      if (A.stackFrames(R.AllocSites[I].CSId) !=
          B.stackFrames(S.AllocSites[I].CSId))
        return false;
      for (uint8_t T : Schema) {
        uint64_t X = R.AllocSites[I].Info.get(T);
        if (mibFieldWidth(T) == 4 && X > UINT32_MAX)
          X = UINT32_MAX;
        if (T != uint8_t(MIBTag::AccessHistogram) &&
            X != S.AllocSites[I].Info.get(T))
          return false;
      }
    }
    for (size_t I = 0; I < R.CallSites.size(); ++I)
      if (A.stackFrames(R.CallSites[I].CSId) !=
          B.stackFrames(S.CallSites[I].CSId))
        return false;
  }
  return true;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto P = readRawProfile(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  AnyLocator L;
  ProfileMerger M(&L);
  if (llvm::Error E = M.addRaw(*P)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  IndexedMemProf Merged = M.build(RecordOrder::Canonical);
  for (unsigned V : {2u, 3u, 4u})
    for (bool Full : {false, true}) {
      IndexedWriterOptions O;
      O.MemProfVersion = V;
      O.FullSchema = Full;
      llvm::SmallVector<char, 0> Bytes;
      auto W = writeIndexedProfile(Merged, O, Bytes);
      if (!W)
        abort(); // the writer must accept anything the merger builds
      IndexedProfileInfo Info;
      auto Back = readIndexedProfile(llvm::StringRef(Bytes.data(), Bytes.size()), &Info);
      if (!Back)
        abort(); // and the reader must accept anything the writer writes
      if (!sameContent(Merged, *Back, Full ? fullSchema() : hotColdSchema()))
        abort();
      // Merged again, the file gives its own contexts with its own totals:
      // each once, however often its inline chains name a function.
      ProfileMerger Re(nullptr);
      Re.addIndexed(*Back, Info.Schema);
      if (!sameContent(Merged, Re.build(RecordOrder::Canonical),
                       Full ? fullSchema() : hotColdSchema()))
        abort();
    }

  // A weight W is W copies of the input (T9), saturation included: every
  // field of every context agrees.
  const uint64_t W = 2 + Size % 3;
  ProfileMerger Weighted(&L), Copies(&L);
  if (Weighted.addRaw(*P, W))
    abort(); // the same input was accepted above
  for (uint64_t I = 0; I < W; ++I)
    if (Copies.addRaw(*P))
      abort();
  IndexedMemProf A = Weighted.build(RecordOrder::Canonical);
  IndexedMemProf B = Copies.build(RecordOrder::Canonical);
  // Same records, sites and stacks (no schema: both sides are in memory,
  // unclamped), then every field exactly.
  if (!sameContent(A, B, {}))
    abort();
  for (const auto &[G, R] : A.Records)
    for (size_t I = 0; I < R.AllocSites.size(); ++I)
      if (R.AllocSites[I].Info != B.Records.find(G)->second.AllocSites[I].Info)
        abort();
  if (!(Weighted.heap() == Copies.heap()))
    abort();

  HeapProfile H = M.heap();
  llvm::SmallVector<char, 0> Bytes;
  if (!writeIndexedProfile(Merged, IndexedWriterOptions(), Bytes))
    abort();
  if (!appendNamesExtension(Bytes, Merged, M.names(), &H))
    abort();
  llvm::StringRef File(Bytes.data(), Bytes.size());
  NamesExtensionInfo NI;
  HeapProfile HeapBack;
  auto Names = readNamesExtension(File, &NI, &HeapBack);
  if (!Names || !(HeapBack == H))
    abort(); // what the merge wrote reads back as it was
  IndexedProfileInfo Info;
  auto Back = readIndexedProfile(NI.Present ? File.take_front(NI.Offset) : File,
                                 &Info);
  if (!Back)
    abort();
  if (llvm::Error E = checkHeapContexts(HeapBack, *Back)) {
    llvm::consumeError(std::move(E));
    abort(); // its contexts are the LLVM part's
  }
  ProfileMerger Re(nullptr);
  Re.addIndexed(*Back, Info.Schema, &*Names, 1, &HeapBack);
  if (!(Re.heap() == H))
    abort();
  size_t Saturated = findSaturatedSites(A, fullSchema()).size();
  return Saturated == size_t(-1) ? 0 : 0;
}
