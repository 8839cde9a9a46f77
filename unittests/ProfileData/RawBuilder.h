//===- RawBuilder.h - Builds raw MemProf bytes for tests ---------*- C++ -*-===//
//
// Written from the spec's layout independently of the reader: each dump is
// header, segments, MIBs (+ histograms), stacks, each section 8-aligned.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_UNITTESTS_RAWBUILDER_H
#define MEMPROF_UNITTESTS_RAWBUILDER_H

#include "memprof/ProfileData/MemInfoBlock.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memprof {
namespace test {

struct RawSeg {
  uint64_t Start, End, Offset;
  std::string BuildId;
  /// Written to the module-paths extension when not empty.
  std::string Path = {};
};
struct RawEntry {
  uint64_t StackId;
  MemInfoBlock Info;
  std::vector<uint64_t> Histogram;
};

/// memprof's heap section (docs/heap-data.md), written as given.
struct RawHeapSection {
  uint64_t Flags = 0, DumpTimeMs = 0, PeakTimeMs = 0;
  uint64_t PeakBytes = 0, PeakBlocks = 0;
  struct Context {
    uint64_t StackId, LiveBytes, LiveBlocks, PeakBytes, PeakBlocks;
  };
  struct Sample {
    uint64_t TimeMs, TotalBytes;
    std::vector<std::pair<uint64_t, uint64_t>> Top; // stack id, bytes
  };
  std::vector<Context> Contexts;
  std::vector<Sample> Samples;
};

class RawBuilder {
public:
  std::vector<RawSeg> Segs;
  std::vector<RawEntry> MIBs;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> Stacks;
  /// Written after the module paths when set.
  std::optional<RawHeapSection> Heap;

  std::string build(unsigned Version = 5) const {
    std::string Seg, Mib, Stk;
    put(Seg, Segs.size());
    for (const RawSeg &S : Segs) {
      put(Seg, S.Start);
      put(Seg, S.End);
      put(Seg, S.Offset);
      put(Seg, S.BuildId.size());
      std::string Id = S.BuildId;
      Id.resize(32, '\0');
      Seg += Id;
    }
    pad(Seg);
    put(Mib, MIBs.size());
    for (const RawEntry &E : MIBs) {
      put(Mib, E.StackId);
      unsigned Last = Version == 3 ? 25 : 27;
      for (unsigned T = 1; T <= Last; ++T) {
        uint64_t V = E.Info.get(T);
        if (T == 26)
          V = E.Histogram.size();
        if (T == 27)
          V = 0xdeadbeef; // a pointer in the profiled process
        put(Mib, V, mibFieldWidth(T));
      }
      if (Version >= 4)
        for (uint64_t H : E.Histogram)
          put(Mib, Version == 4 ? H : encode(H), Version == 4 ? 8 : 2);
    }
    pad(Mib);
    put(Stk, Stacks.size());
    for (const auto &S : Stacks) {
      put(Stk, S.first);
      put(Stk, S.second.size());
      for (uint64_t PC : S.second)
        put(Stk, PC);
    }
    pad(Stk);
    // memprof's module paths: magic "MPMODPTH", count, then per segment
    // with a path its index, size and bytes, each padded to 8.
    std::string Paths;
    uint64_t NumPaths = 0;
    for (size_t I = 0; I < Segs.size(); ++I) {
      if (Segs[I].Path.empty())
        continue;
      ++NumPaths;
      put(Paths, I);
      put(Paths, Segs[I].Path.size());
      Paths += Segs[I].Path;
      pad(Paths);
    }
    if (NumPaths) {
      std::string Head;
      Head += "MPMODPTH";
      put(Head, NumPaths);
      Stk += Head + Paths;
    }
    if (Heap) {
      // "MPHEAPV1", the header's seven words, the contexts, the samples.
      const RawHeapSection &HS = *Heap;
      Stk += "MPHEAPV1";
      for (uint64_t V : {HS.Flags, HS.DumpTimeMs, HS.PeakTimeMs, HS.PeakBytes,
                         HS.PeakBlocks, uint64_t(HS.Contexts.size()),
                         uint64_t(HS.Samples.size())})
        put(Stk, V);
      for (const auto &C : HS.Contexts)
        for (uint64_t V : {C.StackId, C.LiveBytes, C.LiveBlocks, C.PeakBytes,
                           C.PeakBlocks})
          put(Stk, V);
      for (const auto &S : HS.Samples) {
        put(Stk, S.TimeMs);
        put(Stk, S.TotalBytes);
        put(Stk, S.Top.size());
        for (const auto &[Id, Bytes] : S.Top) {
          put(Stk, Id);
          put(Stk, Bytes);
        }
      }
    }
    std::string H;
    uint64_t SegOff = 48, MibOff = SegOff + Seg.size(),
             StkOff = MibOff + Mib.size(), Total = StkOff + Stk.size();
    put(H, 0xFF6D70726F667281ULL);
    put(H, Version);
    put(H, Total);
    put(H, SegOff);
    put(H, MibOff);
    put(H, StkOff);
    return H + Seg + Mib + Stk;
  }

  static void put(std::string &S, uint64_t V, unsigned Width = 8) {
    for (unsigned I = 0; I < Width; ++I)
      S.push_back(char((V >> (8 * I)) & 0xff));
  }
  static void pad(std::string &S) {
    while (S.size() % 8)
      S.push_back('\0');
  }
  static uint16_t encode(uint64_t C) {
    if (C <= 4095)
      return uint16_t(C);
    uint64_t M = C;
    uint16_t E = 0;
    while (M > 4095) {
      M = (M + 1) >> 1;
      ++E;
    }
    return uint16_t((E << 12) | M);
  }
};

} // namespace test
} // namespace memprof

#endif
