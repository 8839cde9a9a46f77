//===- MemProfData.cpp - Frame and call-stack hashing, GUIDs ---------------===//
#include "memprof/ProfileData/MemProfData.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <unistd.h>

using namespace llvm;

namespace memprof {

static uint64_t blake3Low64(ArrayRef<uint8_t> Bytes) {
  auto H = BLAKE3::hash<8>(Bytes);
  return support::endian::read64le(H.data());
}

FrameId hashFrame(const Frame &F) {
  uint8_t Buf[FrameDiskSize];
  support::endian::write64le(Buf, F.Function);
  support::endian::write32le(Buf + 8, F.LineOffset);
  support::endian::write32le(Buf + 12, F.Column);
  Buf[16] = F.IsInlineFrame ? 1 : 0;
  return blake3Low64(Buf);
}

CallStackId hashCallStack(ArrayRef<FrameId> Ids) {
  SmallVector<uint8_t, 128> Buf(Ids.size() * 8);
  for (size_t I = 0; I < Ids.size(); ++I)
    support::endian::write64le(Buf.data() + 8 * I, Ids[I]);
  return blake3Low64(Buf);
}

uint64_t U64IndexMap::makeSeed() {
  uint64_t S = 0;
  // Without entropy: the stack's address and the time.
  if (getentropy(&S, sizeof(S)) != 0)
    S = uint64_t(reinterpret_cast<uintptr_t>(&S)) ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) *
            0x9E3779B97F4A7C15ULL;
  return S;
}

CallStackId CallStackIdCache::get(ArrayRef<FrameId> Ids) {
  uint64_t K = Key ? Key(Ids)
                   : xxh3_64bits(ArrayRef<uint8_t>(
                         reinterpret_cast<const uint8_t *>(Ids.data()),
                         Ids.size() * sizeof(FrameId)));
  uint32_t I =
      Index.find(K, [&](uint32_t I) { return Entries[I].Ids == Ids; });
  if (I != BoundedHashIndex::None)
    return Entries[I].Id;
  CallStackId Id = hashCallStack(Ids);
  if (Index.insert(K, uint32_t(Entries.size()),
                   [&](uint32_t I) { return Entries[I].Key; })) {
    FrameId *Copy = Ids.empty() ? nullptr : Arena.Allocate<FrameId>(Ids.size());
    std::copy(Ids.begin(), Ids.end(), Copy);
    Entries.push_back({K, Id, ArrayRef<FrameId>(Copy, Ids.size())});
  }
  return Id;
}

StringRef canonicalFunctionName(StringRef Name) {
  for (StringRef Suffix : {".llvm.", ".part."}) {
    size_t Pos = Name.rfind(Suffix);
    if (Pos == StringRef::npos)
      continue;
    // Strip only when the suffix's own final '.' is the last '.' of the name.
    if (Name.rfind('.') == Pos + Suffix.size() - 1)
      Name = Name.substr(0, Pos);
  }
  return Name;
}

GUID functionGUID(StringRef LinkageName) {
  return MD5Hash(canonicalFunctionName(LinkageName));
}

FrameId IndexedMemProf::addFrame(const Frame &F) {
  FrameId Id = hashFrame(F);
  Frames.try_emplace(Id, F);
  return Id;
}

CallStackId IndexedMemProf::addCallStack(ArrayRef<Frame> Fs) {
  SmallVector<FrameId, 8> Ids;
  for (const Frame &F : Fs)
    Ids.push_back(addFrame(F));
  return addCallStackIds(Ids);
}

CallStackId IndexedMemProf::addCallStackIds(ArrayRef<FrameId> Ids,
                                            CallStackIdCache *Cache) {
  CallStackId Id = Cache ? Cache->get(Ids) : hashCallStack(Ids);
  CallStacks.try_emplace(Id, SmallVector<FrameId, 8>(Ids.begin(), Ids.end()));
  return Id;
}

void IndexedMemProf::addKnownCallStack(ArrayRef<Frame> Fs,
                                       ArrayRef<FrameId> Ids, CallStackId Id) {
  auto [It, New] = CallStacks.try_emplace(Id);
  if (!New)
    return; // its frames came with it
  It->second.assign(Ids.begin(), Ids.end());
  for (size_t I = 0; I < Fs.size() && I < Ids.size(); ++I)
    Frames.try_emplace(Ids[I], Fs[I]);
}

/// One frame of a leading chain counted: false past the chain's end.
static bool countLeadingCopy(unsigned &N, const Frame &F, GUID Function) {
  N += F.Function == Function;
  return F.IsInlineFrame;
}

unsigned leadingChainCopies(ArrayRef<Frame> Frames, GUID Function) {
  unsigned N = 0;
  for (const Frame &F : Frames)
    if (!countLeadingCopy(N, F, Function))
      break;
  return N;
}

/// leadingChainCopies(P.stackFrames(Id), Function), without building the
/// stack's frame list: only its leading chain is looked at.
static unsigned leadingChainCopies(const IndexedMemProf &P, CallStackId Id,
                                   GUID Function) {
  unsigned N = 0;
  P.forEachStackFrame(Id, [&](FrameId, const Frame &F) {
    return countLeadingCopy(N, F, Function);
  });
  return N;
}

std::vector<IndexedContext> indexedContexts(const IndexedMemProf &P) {
  // Which record each context is read from: its leaf function's, else the
  // first holding it. Keys are stack ids from the file: no DenseMap.
  struct Source {
    GUID Record = 0;
    GUID Leaf = 0;
    bool FromLeaf = false;
    llvm::SmallVector<const MemInfoBlock *, 2> Entries;
  };
  U64MapVector<Source> Sources;
  for (const auto &[Guid, Rec] : P.Records)
    for (const IndexedAllocSite &AS : Rec.AllocSites) {
      auto It = Sources.find(AS.CSId);
      if (It == Sources.end()) {
        // The leaf, looked up once per stack id.
        std::optional<GUID> Leaf = P.leafFunction(AS.CSId);
        if (!Leaf)
          continue;
        It = Sources.insert({AS.CSId, Source{Guid, *Leaf, *Leaf == Guid, {}}})
                 .first;
      } else if (!It->second.FromLeaf && Guid == It->second.Leaf) {
        It->second.Record = Guid;
        It->second.FromLeaf = true;
      }
    }
  for (const auto &[Guid, Rec] : P.Records)
    for (const IndexedAllocSite &AS : Rec.AllocSites) {
      auto It = Sources.find(AS.CSId);
      if (It != Sources.end() && It->second.Record == Guid)
        It->second.Entries.push_back(&AS.Info);
    }

  std::vector<IndexedContext> Out;
  Out.reserve(Sources.size());
  for (const auto &[Id, S] : Sources) {
    const size_t N = S.Entries.size();
    size_t Copies = std::max(1u, leadingChainCopies(P, Id, S.Record));
    // Runs of identical copies, or else a writer of its own: sum them all.
    bool Runs = N % Copies == 0;
    for (size_t I = 0; Runs && I < N; ++I)
      Runs = *S.Entries[I] == *S.Entries[I - I % Copies];
    if (!Runs)
      Copies = 1;
    IndexedContext C{Id, *S.Entries[0]};
    for (size_t I = Copies; I < N; I += Copies)
      C.Info.mergeCross(*S.Entries[I]);
    Out.push_back(C);
  }
  return Out;
}

void IndexedMemProf::copyCallStack(const IndexedMemProf &From,
                                   CallStackId Id) {
  auto It = From.CallStacks.find(Id);
  if (It == From.CallStacks.end())
    return;
  for (FrameId F : It->second) {
    auto FI = From.Frames.find(F);
    if (FI != From.Frames.end())
      Frames.try_emplace(F, FI->second);
  }
  CallStacks.try_emplace(Id, It->second);
}

std::optional<GUID> IndexedMemProf::leafFunction(CallStackId CS) const {
  auto It = CallStacks.find(CS);
  if (It == CallStacks.end() || It->second.empty())
    return std::nullopt;
  auto FI = Frames.find(It->second.front());
  if (FI == Frames.end())
    return std::nullopt;
  return FI->second.Function;
}

SmallVector<Frame, 8> IndexedMemProf::stackFrames(CallStackId CS) const {
  SmallVector<Frame, 8> Out;
  forEachStackFrame(CS, [&](FrameId, const Frame &F) {
    Out.push_back(F);
    return true;
  });
  return Out;
}

} // namespace memprof
