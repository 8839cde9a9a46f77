//===- RawReader.h - LLVM raw MemProf profiles (v3, v4, v5) -----*- C++ -*-===//
//
// Reads a raw profile file: one or more dumps back to back. Every count,
// offset and size is checked against the bytes that remain before use, so a
// malformed file yields an error naming the field and offset, never a crash,
// a hang or an allocation sized by an unchecked count.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_RAWREADER_H
#define MEMPROF_PROFILEDATA_RAWREADER_H

#include "memprof/ProfileData/HeapData.h"
#include "memprof/ProfileData/MemInfoBlock.h"
#include "memprof/ProfileData/MemProfData.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "memprof/ProfileData/U64IndexMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <vector>

namespace memprof {

struct RawMIB {
  MemInfoBlock Info;
  /// Access counts per 8-byte granule (raw v4/v5); never stored in indexed files.
  std::vector<uint64_t> Histogram;
  /// Where its stack is in RawProfile::Stacks.Entries (the reader finds it
  /// once, when it checks that every MIB has a stack).
  uint64_t StackIndex = 0;
};

/// One dump's heap section (docs/heap-data.md), checked: contexts and top
/// entries name MIBs of the dump.
struct RawHeapDump {
  bool ExitDump = false;
  uint64_t DumpTimeMs = 0, PeakTimeMs = 0;
  uint64_t PeakBytes = 0, PeakBlocks = 0;
  /// By raw stack id, strictly increasing.
  std::vector<std::pair<uint64_t, HeapStats>> Contexts;
  /// Top entries by raw stack id.
  std::vector<HeapSample> Samples;
};

/// Raw stack id -> PCs, leaf first, cut at the first zero PC. A raw profile
/// holds thousands of short stacks: their PCs share one array, and an index
/// finds an id's entry, so reading one costs a few allocations, not two per
/// stack.
struct RawStacks {
  struct Entry {
    uint64_t Id;
    uint64_t Begin; ///< index of the first PC in PCs, or in Words if InPlace
    uint64_t Size;
    bool InPlace = false;
  };
  /// Each id once, in the order the file first gives them.
  std::vector<Entry> Entries;
  llvm::SmallVector<uint64_t, 0> PCs;
  /// The file's bytes as 8-byte words, when its stacks' PCs were read in
  /// place (readRawProfile's PCsInPlace): entries may then point into it.
  const uint64_t *Words = nullptr;
  /// Id -> its position in Entries. The reader leaves it empty when the
  /// file has one dump whose stacks follow its MIBs one for one (as both
  /// runtimes write them: each MIB's StackIndex is then its own position),
  /// and find() scans the entries instead.
  U64IndexMap Index;

  /// The PCs of stack \p Id; none when no stack has that id.
  std::optional<llvm::ArrayRef<uint64_t>> find(uint64_t Id) const;
  /// The index in Entries of stack \p Id; none when no stack has that id.
  std::optional<size_t> indexOf(uint64_t Id) const;
  bool contains(uint64_t Id) const { return find(Id).has_value(); }
  size_t size() const { return Entries.size(); }
  llvm::ArrayRef<uint64_t> pcs(const Entry &E) const {
    if (E.InPlace)
      return llvm::ArrayRef<uint64_t>(Words + E.Begin, E.Size);
    return llvm::ArrayRef<uint64_t>(PCs).slice(E.Begin, E.Size);
  }
};

struct RawProfile {
  uint64_t Version = 0; // of the first dump; all dumps are v3-v5
  unsigned NumDumps = 0;
  std::vector<SegmentInfo> Segments;
  /// Stack id -> MIB, in order of first appearance; blocks of one stack id in
  /// several dumps are merged with LLVM's rule (MemInfoBlock::mergeDump).
  U64MapVector<RawMIB> MIBs;
  RawStacks Stacks;
  /// The heap sections of the dumps that have one, in file order: each is
  /// a run (a dump without one recorded no heap data).
  std::vector<RawHeapDump> HeapDumps;
};

/// True when \p Buffer starts with the raw MemProf magic.
bool isRawProfile(llvm::StringRef Buffer);

/// Parses a whole raw profile file. With \p PCsInPlace, stacks' PCs are not
/// copied but read where they lie in \p Buffer (on a little-endian host,
/// where the buffer and the PCs are 8-byte aligned, as a file mapped or
/// read whole is): \p Buffer must then outlive the profile, unchanged.
llvm::Expected<RawProfile> readRawProfile(llvm::StringRef Buffer,
                                          bool PCsInPlace = false);

} // namespace memprof

#endif
