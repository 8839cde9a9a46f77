//===- MemProfData.h - Frames, call stacks and per-function records -*- C++ -*-===//
//
// The model LLVM's indexed MemProf format stores: frames identified by their
// BLAKE3 content hash, call stacks (leaf first) identified by the hash of
// their frame ids, and per-function records holding allocation sites and
// call sites. Spec sections 2.3-2.5.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MEMPROFDATA_H
#define MEMPROF_PROFILEDATA_MEMPROFDATA_H

#include "memprof/ProfileData/BoundedHashIndex.h"
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/ProfileData/U64IndexMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace memprof {

using GUID = uint64_t;

/// An insertion-ordered map for u64 keys that may come from a file. LLVM's
/// DenseMap reserves two key values (~0 and ~0-1) as sentinels, so a map
/// keyed by untrusted values must not be a DenseMap: its index is a
/// U64IndexMap, which takes every value and allocates nothing per key.
template <typename V>
using U64MapVector = llvm::MapVector<uint64_t, V, U64IndexMap>;
using FrameId = uint64_t;
using CallStackId = uint64_t;

struct Frame {
  GUID Function = 0;
  uint32_t LineOffset = 0;
  uint32_t Column = 0;
  bool IsInlineFrame = false;

  bool operator==(const Frame &O) const {
    return Function == O.Function && LineOffset == O.LineOffset &&
           Column == O.Column && IsInlineFrame == O.IsInlineFrame;
  }
  bool operator!=(const Frame &O) const { return !(*this == O); }
};

/// A frame as the key of a DenseMap: any Frame value may come from a file,
/// so the map's two reserved keys are told apart by a byte that no real key
/// sets. For the exports, which look up every frame of every context.
struct FrameKey {
  Frame F;
  uint8_t Reserved = 0; // 1 and 2: DenseMap's empty and tombstone keys

  bool operator==(const FrameKey &O) const {
    return F == O.F && Reserved == O.Reserved;
  }
};

/// On-disk size of a frame in MemProf V2-V4: u64, u32, u32, u8.
constexpr uint64_t FrameDiskSize = 17;

/// BLAKE3 of the frame's 17-byte serialized form, truncated to a LE u64.
FrameId hashFrame(const Frame &F);
/// BLAKE3 of the frame ids (leaf first), truncated to a LE u64.
CallStackId hashCallStack(llvm::ArrayRef<FrameId> Ids);

/// hashCallStack, memoized: a stack id is hashed once however often its
/// frame-id sequence recurs (BLAKE3 costs about 1,500 instructions per
/// stack). Keyed by a cheap hash of the sequence (a BoundedHashIndex:
/// sequences whose cheap hashes a hostile file makes collide cost a bounded
/// search and then a BLAKE3), verified by comparing the sequence itself,
/// which lives in an arena: no allocation per entry.
class CallStackIdCache {
public:
  using KeyFn = uint64_t (*)(llvm::ArrayRef<FrameId>);
  /// \p Key replaces the cheap hash (tests: a constant makes every
  /// sequence collide).
  explicit CallStackIdCache(KeyFn Key = nullptr) : Key(Key) {}
  CallStackId get(llvm::ArrayRef<FrameId> Ids);

private:
  struct Entry {
    uint64_t Key;
    CallStackId Id;
    llvm::ArrayRef<FrameId> Ids; // in Arena
  };
  KeyFn Key;
  std::vector<Entry> Entries;
  BoundedHashIndex Index; // of Entries, by Key
  llvm::BumpPtrAllocator Arena;
};

/// LLVM's function GUID: low 64 bits of MD5 of the canonical name (spec 2.3).
GUID functionGUID(llvm::StringRef LinkageName);
/// Strips ".llvm." and ".part." suffixes as LLVM's getCanonicalFnName does.
llvm::StringRef canonicalFunctionName(llvm::StringRef Name);

struct IndexedAllocSite {
  CallStackId CSId = 0;
  MemInfoBlock Info;
};

struct IndexedCallSite {
  CallStackId CSId = 0;
  llvm::SmallVector<GUID, 1> CalleeGuids;
};

struct IndexedRecord {
  std::vector<IndexedAllocSite> AllocSites;
  std::vector<IndexedCallSite> CallSites;
};

/// Everything the MemProf section of an indexed profile stores. Iteration
/// order of each map is the order the writer emits (spec 3.9).
struct IndexedMemProf {
  U64MapVector<IndexedRecord> Records;
  U64MapVector<Frame> Frames;
  U64MapVector<llvm::SmallVector<FrameId, 8>> CallStacks;

  /// Adds \p F if new; returns its id.
  FrameId addFrame(const Frame &F);
  /// Adds the stack of \p Frames (leaf first) if new; returns its id.
  CallStackId addCallStack(llvm::ArrayRef<Frame> Frames);
  /// \p Cache, if given, gives the id (a BLAKE3 only for a sequence it has
  /// not met): readers of many profiles pass one across them.
  CallStackId addCallStackIds(llvm::ArrayRef<FrameId> Ids,
                              CallStackIdCache *Cache = nullptr);
  /// Adds a stack whose frame ids and stack id are already computed, with
  /// its frames; a stack already there is left as it is (its frames came
  /// with it).
  void addKnownCallStack(llvm::ArrayRef<Frame> Frames,
                         llvm::ArrayRef<FrameId> Ids, CallStackId Id);
  /// Copies stack \p Id and its frames from \p From (no hashing).
  void copyCallStack(const IndexedMemProf &From, CallStackId Id);

  /// The frames of stack \p CS, leaf first; empty if unknown.
  llvm::SmallVector<Frame, 8> stackFrames(CallStackId CS) const;
  /// Calls \p Fn(FrameId, const Frame &) on stackFrames(CS)'s frames, leaf
  /// first, with no copy of the stack, while it returns true.
  template <typename FnT>
  void forEachStackFrame(CallStackId CS, FnT Fn) const {
    auto It = CallStacks.find(CS);
    if (It == CallStacks.end())
      return;
    for (FrameId Id : It->second) {
      auto FI = Frames.find(Id);
      if (FI != Frames.end() && !Fn(Id, FI->second))
        return;
    }
  }
  /// The function of stack \p CS's leaf frame (the allocation site's), with
  /// no copy of the stack; none if the stack or that frame is unknown.
  std::optional<GUID> leafFunction(CallStackId CS) const;
};

/// One allocation context of an indexed profile: its stack and its block.
struct IndexedContext {
  CallStackId Id = 0;
  MemInfoBlock Info;
};

/// Each allocation context of \p P exactly once, in the order the records
/// first hold them. LLVM's writers (llvm-profdata's and ours alike) attach a
/// context to the record of the function of every frame of its leading
/// inline chain (frames up to the first one not inlined), once per frame, so
/// a function that occurs twice in that chain (a template inlined twice,
/// inlined recursion) holds the same context twice, as consecutive copies.
/// The block is read from the record of the context's leaf function (else
/// the first record holding it; a pruned or foreign file) taking one entry of
/// each run of copies: two raw stacks that symbolized alike stay two entries
/// of their own and are summed by the cross-input rule. Entries that do not
/// come in runs of identical copies are all summed (a writer that attaches a
/// context once per function). Contexts whose stack is unknown are skipped.
std::vector<IndexedContext> indexedContexts(const IndexedMemProf &P);

/// How many frames of the leading inline chain of \p Frames (leaf first: the
/// frames up to and including the first one not inlined) belong to \p
/// Function: the number of copies of the context its record holds.
unsigned leadingChainCopies(llvm::ArrayRef<Frame> Frames, GUID Function);

} // namespace memprof

template <> struct llvm::DenseMapInfo<memprof::FrameKey> {
  static memprof::FrameKey getEmptyKey() { return {{}, 1}; }
  static memprof::FrameKey getTombstoneKey() { return {{}, 2}; }
  static unsigned getHashValue(const memprof::FrameKey &K) {
    return unsigned(llvm::hash_combine(K.F.Function, K.F.LineOffset,
                                       K.F.Column, K.F.IsInlineFrame,
                                       K.Reserved));
  }
  static bool isEqual(const memprof::FrameKey &A, const memprof::FrameKey &B) {
    return A == B;
  }
};

#endif
