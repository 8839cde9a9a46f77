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

#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include <map>
#include <string>

namespace memprof {

/// What could not be symbolized, per module, so that it can be reported.
struct UnsymbolizedModule {
  std::string Reason; // "no binary with this build id", "no debug info", ...
  uint64_t PCs = 0;   // distinct addresses
};

struct MergeStats {
  uint64_t RawInputs = 0;
  uint64_t IndexedInputs = 0;
  uint64_t RuntimeFramesDropped = 0;
  /// Contexts whose every frame was dropped, and what they held.
  uint64_t DroppedContexts = 0;
  uint64_t DroppedAllocations = 0;
  uint64_t DroppedBytes = 0;
  /// Keyed by build id in hex ("" for addresses outside every segment).
  std::map<std::string, UnsymbolizedModule> Unsymbolized;
  uint64_t DistinctPCsSymbolized = 0;
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

class ProfileMerger {
public:
  /// \p Locator may be null when only indexed inputs are merged.
  explicit ProfileMerger(BinaryLocator *Locator) : Locator(Locator) {}

  /// Symbolizes and adds one raw profile. Fails when the profile has
  /// allocation contexts but none of them keeps a symbolized frame.
  llvm::Error addRaw(const RawProfile &P);

  /// Adds the MemProf data of an indexed profile whose blocks hold only the
  /// fields of \p Schema.
  void addIndexed(const IndexedMemProf &P, llvm::ArrayRef<uint8_t> Schema);

  /// Prunes the merged contexts (implemented in Prune.cpp). Totals over all
  /// contexts are preserved; the result depends only on the merged content.
  PruneStats prune(const PruneOptions &Opts);

  /// The merged profile as the indexed writer takes it.
  IndexedMemProf build(RecordOrder Order) const;

  const MergeStats &stats() const { return Stats; }
  size_t numContexts() const { return Contexts.size(); }

private:
  struct Context {
    llvm::SmallVector<Frame, 8> Frames;
    MemInfoBlock Info;
    uint32_t Known = AllMIBFields; // fields some input actually supplied
  };
  struct CallSite {
    llvm::SmallVector<Frame, 4> Frames;
    llvm::SmallVector<GUID, 1> Callees;
  };

  void addContext(llvm::ArrayRef<Frame> Frames, const MemInfoBlock &Info,
                  uint32_t Known);
  const PCSymbols *symbolizePC(const RawProfile &P,
                               llvm::ArrayRef<size_t> SortedSegs, uint64_t PC);

  BinaryLocator *Locator;
  MergeStats Stats;
  U64MapVector<Context> Contexts;
  /// Call sites read from indexed inputs, per function (they may carry callee
  /// GUIDs that contexts cannot reproduce).
  std::map<GUID, U64MapVector<CallSite>> ExtraCallSites;
  /// Symbolization cache across inputs: (module, binary address) -> result.
  llvm::DenseMap<std::pair<ModuleSymbolizer *, uint64_t>, PCSymbols> Cache;
  /// Build id -> module (null when no binary has it), looked up once.
  std::map<std::string, ModuleSymbolizer *> Modules;
};

} // namespace memprof

#endif
