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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace memprof {

struct RawMIB {
  MemInfoBlock Info;
  /// Access counts per 8-byte granule (raw v4/v5); never stored in indexed files.
  std::vector<uint64_t> Histogram;
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

struct RawProfile {
  uint64_t Version = 0; // of the first dump; all dumps are v3-v5
  unsigned NumDumps = 0;
  std::vector<SegmentInfo> Segments;
  /// Stack id -> MIB, in order of first appearance; blocks of one stack id in
  /// several dumps are merged with LLVM's rule (MemInfoBlock::mergeDump).
  U64MapVector<RawMIB> MIBs;
  /// Stack id -> PCs, leaf first, cut at the first zero PC.
  std::unordered_map<uint64_t, std::vector<uint64_t>> Stacks;
  /// The heap sections of the dumps that have one, in file order: each is
  /// a run (a dump without one recorded no heap data).
  std::vector<RawHeapDump> HeapDumps;
};

/// True when \p Buffer starts with the raw MemProf magic.
bool isRawProfile(llvm::StringRef Buffer);

/// Parses a whole raw profile file.
llvm::Expected<RawProfile> readRawProfile(llvm::StringRef Buffer);

} // namespace memprof

#endif
