//===- Merge.h - Merge raw and indexed MemProf inputs exactly ---*- C++ -*-===//
//
// An allocation context is its symbolized call stack (leaf first). Inputs
// contribute contexts; blocks of one context combine by the cross-input rule
// of MIBFields.def, which is commutative and associative, so the result does
// not depend on input order or on how a batch was split into partial merges.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_MERGE_H
#define MEMPROF_PROFILEDATA_MERGE_H

#include "memprof/ProfileData/AllocTypes.h"
#include "memprof/ProfileData/BoundedHashIndex.h"
#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Allocator.h"
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace memprof {

/// What could not be symbolized, per module, so that it can be reported.
struct UnsymbolizedModule {
  std::string Reason; // "no binary with this build id", "no debug info", ...
  uint64_t PCs = 0;   // distinct addresses
  /// The vDSO (isVdsoSegment), which has no file: no binary is missing.
  bool Vdso = false;
};

/// Why a frame of a raw profile could not be symbolized.
enum class GapReason : uint8_t {
  NoBinary,        ///< no binary with the module's build id was found
  NoBuildId,       ///< the module has no build id, so no binary can match
  NoDebugInfo,     ///< the binary has DWARF, but not for this address
  NotInBinary,     ///< neither DWARF nor a symbol covers the address
  OutsideSegments, ///< in no executable segment: the walk left the code
};
const char *gapReasonText(GapReason R);
/// A stable identifier ("no-binary", ...) for JSON.
const char *gapReasonKey(GapReason R);

/// A frame that could not be symbolized, kept in its place in the context
/// by ProfileMerger::keepGaps (memprof-show), under a synthetic GUID.
struct FrameGap {
  std::string BuildId; ///< hex; "" outside every segment or without one
  std::string Path;    ///< the module's file, recorded or found; may be ""
  /// The address in the module as its binary numbers it (the PC less the
  /// load bias); outside every segment, the PC itself.
  uint64_t Offset = 0;
  GapReason Reason = GapReason::NoBinary;
  std::string Symbol; ///< the symbol-table name, where one covers it
};

struct MergeStats {
  uint64_t RawInputs = 0;
  uint64_t IndexedInputs = 0;
  uint64_t RuntimeFramesDropped = 0;
  /// Contexts whose every frame was dropped, and what they held.
  uint64_t DroppedContexts = 0;
  uint64_t DroppedAllocations = 0;
  uint64_t DroppedBytes = 0;
  /// Keyed by build id in hex ("" for a module without one).
  std::map<std::string, UnsymbolizedModule> Unsymbolized;
  /// Distinct addresses outside every executable segment of their profile.
  uint64_t OutsideSegmentPCs = 0;
  /// Contexts cut at such an address: the walk that recorded them left the
  /// code there (a saved frame pointer through code built without them), so
  /// that address and every frame after it are dropped.
  uint64_t ContextsCut = 0;
  /// The build ids (raw bytes) of every module of every raw input.
  std::set<std::string> InputModules;
  uint64_t DistinctPCsSymbolized = 0;
  /// Every module a PC fell into, by build id in hex: the file that
  /// symbolized it, or "" when no binary was found.
  std::map<std::string, std::string> Modules;
  /// Where the profiled processes loaded each module from (the first path
  /// given), by build id in hex; memprof's runtime records them.
  std::map<std::string, std::string> RecordedPaths;
};

enum class RecordOrder {
  /// LLVM's order for one raw input: first appearance (byte identity with
  /// llvm-profdata).
  FirstAppearance,
  /// Records by GUID, sites by call-stack id: the same bytes for the same
  /// content, whatever the order or grouping of the inputs.
  Canonical,
};

/// Context pruning (see docs/memprof-merge.md, "Pruning"). Zero disables a
/// threshold.
struct PruneOptions {
  uint64_t MinBytes = 0; // fold contexts with TotalSize below this
  uint64_t MinCount = 0; // fold contexts with AllocCount below this
  bool Trim = false;     // trim to the shortest suffix that separates classes
  uint64_t MaxDepth = 0; // keep at most this many frames (whole PC chains)
};

struct PruneStats {
  uint64_t ContextsBefore = 0, ContextsAfter = 0;
  uint64_t Folded = 0;             // contexts folded into site remainders
  uint64_t FoldedAllocations = 0;  // what they held
  uint64_t FoldedBytes = 0;
  uint64_t Trimmed = 0;            // contexts shortened by trimming
  uint64_t DepthCut = 0;           // contexts shortened by MaxDepth
  uint64_t FramesBefore = 0, FramesAfter = 0;
};

/// An allocation context with counters at their maximum.
struct SaturatedSite {
  CallStackId Id = 0;
  llvm::SmallVector<Frame, 8> Frames; // leaf first
  uint32_t Fields = 0;                // bit T-1 for tag T
};

/// The allocation contexts of \p P (each once, by call-stack id) whose
/// fields in schema \p Schema are at or beyond what their on-disk width
/// holds (saturatedFields): what a merge reports as counter_overflow.
std::vector<SaturatedSite> findSaturatedSites(const IndexedMemProf &P,
                                              llvm::ArrayRef<uint8_t> Schema);

class ProfileMerger {
public:
  /// \p Locator may be null when only indexed inputs are merged.
  explicit ProfileMerger(BinaryLocator *Locator) : Locator(Locator) {}

  /// From now on, every frame of a raw input that cannot be symbolized is
  /// kept in its place as a gap frame (gaps()), so no context is dropped
  /// and none is cut short without a trace: for reports, not for indexed
  /// output (whose readers know no such frames).
  void keepGaps(bool On = true) { KeepGaps = On; }
  bool keepsGaps() const { return KeepGaps; }
  /// The gap frames met so far, by their synthetic GUID.
  const std::map<GUID, FrameGap> &gaps() const { return Gaps; }
  const FrameGap *gap(GUID G) const {
    auto It = Gaps.find(G);
    return It == Gaps.end() ? nullptr : &It->second;
  }

  /// Symbolizes and adds one raw profile. Fails when the profile has
  /// allocation contexts but none of them keeps a symbolized frame.
  /// \p Weight (at least 1) counts the profile that many times: every block
  /// is scaled as MemInfoBlock::scale does, after the profile's own dumps
  /// are merged. Each dump's heap section is a run (docs/heap-data.md):
  /// its values join the contexts its stacks symbolize to, \p Weight times.
  llvm::Error addRaw(const RawProfile &P, uint64_t Weight = 1);

  /// Adds the MemProf data of an indexed profile whose blocks hold only the
  /// fields of \p Schema, and the names it carries, if any, and its heap
  /// data (whose contexts checkHeapContexts has found in \p P; others are
  /// ignored), \p Weight times.
  void addIndexed(const IndexedMemProf &P, llvm::ArrayRef<uint8_t> Schema,
                  const ProfileNames *Names = nullptr, uint64_t Weight = 1,
                  const HeapProfile *Heap = nullptr);

  /// Adds the PGO counters of one input (raw or indexed) counted \p Weight
  /// times; see CounterMerger::add.
  llvm::Error addCounters(const CounterProfile &P, uint64_t Weight,
                          std::vector<CounterWarning> &Warnings) {
    return Counters.add(P, Weight, Warnings);
  }
  /// The counter half of the merge.
  const CounterMerger &counters() const { return Counters; }

  /// Prunes the merged contexts (implemented in Prune.cpp). Totals over all
  /// contexts are preserved; the result depends only on the merged content.
  PruneStats prune(const PruneOptions &Opts);

  /// The merged profile as the indexed writer takes it.
  IndexedMemProf build(RecordOrder Order) const;

  const MergeStats &stats() const { return Stats; }

  /// Whether some input's run recorded heap data.
  bool hasHeap() const { return HeapSum.Runs != 0; }
  /// The merged heap data: the sums over runs, every context with a value
  /// (and those the timeline names), the kept timeline in merged contexts.
  HeapProfile heap() const;
  /// The heap values of merged context \p Id (zero when it has none).
  HeapStats heapStats(CallStackId Id) const;
  /// Warnings about what the merge made of the profiled binaries and the
  /// raw inputs' stacks, one line each, for the tools to print: binaries
  /// that match no module of any raw input (rebuilt since the run?), and
  /// contexts cut where their stack walk left the code.
  std::vector<std::string> symbolizationWarnings() const;
  size_t numContexts() const { return Contexts.size(); }

  /// Names of every function and frame symbolized or read so far. Where
  /// observations disagree the smallest wins (ProfileNames), so the result
  /// does not depend on input order.
  const ProfileNames &names() const { return Names; }
  ProfileNames &names() { return Names; }

  /// Calls \p Fn for each merged context (frames leaf first, the merged
  /// block, the mask of fields some input supplied), in insertion order.
  void forEachContext(
      llvm::function_ref<void(CallStackId, llvm::ArrayRef<Frame>,
                              const MemInfoBlock &, uint32_t Known)>
          Fn) const;

private:
  /// A merged context. Its frames and frame ids live in Arena and never
  /// change: the context stays small (Contexts' growth moves it) and its
  /// frames are not one allocation each.
  struct Context {
    llvm::ArrayRef<Frame> Frames;
    llvm::ArrayRef<FrameId> Ids; // hashFrame of each frame
    MemInfoBlock Info;
    uint32_t Known = AllMIBFields; // fields some input actually supplied
    HeapStats Heap;                // summed over the runs that had some
  };
  struct CallSite {
    llvm::SmallVector<Frame, 4> Frames;
    llvm::SmallVector<GUID, 1> Callees;
  };

  CallStackId addContext(llvm::ArrayRef<Frame> Frames,
                         const MemInfoBlock &Info, uint32_t Known);
  /// \p Id must be hashCallStack(\p Ids): build() takes it for the
  /// context's call-stack id.
  void addContext(CallStackId Id, llvm::ArrayRef<Frame> Frames,
                  llvm::ArrayRef<FrameId> Ids, const MemInfoBlock &Info,
                  uint32_t Known);
  /// Merges \p Info (whose fields \p Known an input supplied) into \p C.
  static void mergeInto(Context &C, const MemInfoBlock &Info, uint32_t Known);
  IndexedMemProf buildLLVMExact() const;
  /// Adds one run's heap totals and offers its timeline, whose top entries
  /// name merged contexts through \p Map (entries it does not map are
  /// dropped with their context).
  void addHeapRun(const HeapSummary &S, const HeapTimeline &T,
                  llvm::function_ref<std::optional<CallStackId>(uint64_t)> Map);
  void observeFrame(const SymbolizedFrame &SF, llvm::StringRef BuildId);
  /// The type the allocation call at \p PC (in \p Seg) makes, as its
  /// module's DWARF says; empty when unknown. Cached per module address.
  const std::string &allocatedType(const SegmentInfo &Seg, uint64_t PC);
  /// What a frame's function says about allocated types, once per GUID.
  const FrameTypeRole &frameRole(const SymbolizedFrame &SF);
  /// The segment of \p P holding \p PC (Start < PC <= End), or null.
  static const SegmentInfo *findSegment(const RawProfile &P,
                                        llvm::ArrayRef<size_t> SortedSegs,
                                        uint64_t PC);
  /// Sets \p Outside when \p PC lies in no segment of \p P, else \p Seg
  /// to its segment.
  const PCSymbols *symbolizePC(bool &Outside, const SegmentInfo *&Seg,
                               const RawProfile &P,
                               llvm::ArrayRef<size_t> SortedSegs, uint64_t PC);
  /// The gap frame of \p PC (in \p Seg, null outside every segment),
  /// registered in Gaps.
  Frame gapFrame(const SegmentInfo *Seg, const PCSymbols *S, uint64_t PC);

  BinaryLocator *Locator;
  MergeStats Stats;
  CounterMerger Counters;
  ProfileNames Names;
  U64MapVector<Context> Contexts;
  /// The frames and frame ids of Contexts and the keys of KnownContexts, in
  /// 64 KiB slabs: kept until the merger goes (after a prune, the old
  /// contexts' too: at most one more copy of them).
  llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 65536> Arena;
  template <typename T> llvm::ArrayRef<T> keep(llvm::ArrayRef<T> A) {
    if (A.empty())
      return {};
    T *Copy = Arena.Allocate<T>(A.size());
    std::uninitialized_copy(A.begin(), A.end(), Copy);
    return {Copy, A.size()};
  }
  /// Stack ids of the frame-id sequences met so far (hashed once each).
  CallStackIdCache StackIds;
  /// Call sites read from indexed inputs, per function (they may carry callee
  /// GUIDs that contexts cannot reproduce).
  std::map<GUID, U64MapVector<CallSite>> ExtraCallSites;
  /// Symbolization cache across inputs: (module, binary address) -> result.
  /// A node-based map: addRaw keeps pointers to its values across later
  /// insertions, which a DenseMap would move when it grows.
  std::map<std::pair<ModuleSymbolizer *, uint64_t>, PCSymbols> Cache;
  /// Frame ids of each cached result, computed once (Cache values are stable).
  std::unordered_map<const PCSymbols *, llvm::SmallVector<FrameId, 2>> FrameIds;
  /// With one raw input, what llvm-profdata keeps: one entry per raw stack id
  /// in file order (two stack ids that symbolize alike stay two entries), and
  /// each entry's PC chains identified by PC (see buildLLVMExact).
  struct RawEntry {
    CallStackId Id;
    // Exact-size vectors: one entry per raw stack, often thousands.
    std::vector<Frame> Frames;
    std::vector<FrameId> Ids; ///< hashFrame of each frame
    MemInfoBlock Info;
    std::vector<std::pair<uint64_t, unsigned>> Chains; // PC, frames
  };
  std::vector<RawEntry> RawEntries;
  /// Build id -> module (null when no binary has it), looked up once.
  std::map<std::string, ModuleSymbolizer *> Modules;
  /// Where a raw PC lies: its module's build id (the key of its Modules
  /// node) and the binary address. All that addRaw makes of a PC in a
  /// module that was found depends on this alone.
  struct PCKey {
    const std::string *BuildId;
    uint64_t Addr;
    bool operator==(const PCKey &O) const {
      return BuildId == O.BuildId && Addr == O.Addr;
    }
  };
  static_assert(std::has_unique_object_representations_v<PCKey>,
                "findKnown compares PCKeys as bytes");
  /// Raw contexts merged before whose every PC lay in a found module and
  /// symbolized (or was a runtime frame), by their PCKeys: a later input's
  /// context with the same keys is the same merged context, so it is merged
  /// without symbolizing or hashing its frames again (the 50 inputs of one
  /// program repeat most contexts). Cleared when contexts are rebuilt.
  struct KnownContext {
    llvm::ArrayRef<PCKey> Keys; ///< in Arena
    uint64_t Hash;
    CallStackId Id;
    size_t Index;           ///< of its context in Contexts
    uint64_t RuntimeFrames; ///< runtime frames the context dropped
  };
  std::vector<KnownContext> KnownContexts;
  /// KnownContexts by the keys' hash: a lookup or insert visits at most
  /// BoundedHashIndex::MaxProbes slots, so keys that a hostile file makes
  /// collide under the cheap hash cost a bounded search, then the full path.
  BoundedHashIndex KnownIndex;
  const KnownContext *findKnown(uint64_t Hash,
                                llvm::ArrayRef<PCKey> Keys) const;
  void addKnown(uint64_t Hash, llvm::ArrayRef<PCKey> Keys, CallStackId Id,
                uint64_t RuntimeFrames);
  void clearKnown();
  bool KeepGaps = false;
  std::map<GUID, FrameGap> Gaps;
  /// Allocated types by (module, binary address) of allocation calls.
  std::map<std::pair<ModuleSymbolizer *, uint64_t>, std::string> TypeCache;
  /// classifyFrameFunction of each function met, by GUID (node-based:
  /// TypeWalk points into it).
  std::unordered_map<GUID, FrameTypeRole> FrameRoles;
  std::vector<const FrameTypeRole *> TypeWalk; // addRaw's, reused
  /// Heap data: the sums over runs and the timeline kept so far.
  HeapSummary HeapSum;
  std::optional<HeapTimeline> Timeline;
};

} // namespace memprof

#endif
