//===- MemProfJSON.cpp - An indexed MemProf profile as JSON ---------------===//
//
// GUIDs and context ids are strings ("0x…", as in LLVM's YAML) because they
// use all 64 bits, which JSON numbers in most parsers cannot hold exactly.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/MemProfJSON.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include <unordered_map>

using namespace llvm;

namespace memprof {

namespace {

std::string hexGUID(uint64_t V) {
  std::string S;
  raw_string_ostream(S) << format("0x%" PRIx64, V);
  return S;
}

StringRef className(AllocClass C) {
  switch (C) {
  case AllocClass::Cold:
    return "cold";
  case AllocClass::Hot:
    return "hot";
  case AllocClass::NotCold:
    break;
  }
  return "notcold";
}

/// Names come from a file: JSON strings must be UTF-8.
json::Value str(StringRef S) {
  return json::isUTF8(S) ? json::Value(S.str()) : json::Value(json::fixUTF8(S));
}

void writeName(json::OStream &J, const ProfileNames *Names, GUID G) {
  if (!Names)
    return;
  if (const FunctionNameInfo *F = Names->function(G)) {
    J.attribute("name", str(F->LinkageName));
    J.attribute("demangled_name", str(F->DemangledName));
  }
}

/// The context's allocated type, where the names know it (left out when
/// unknown, as an unknown line is).
void writeType(json::OStream &J, const ProfileNames *Names, CallStackId CS) {
  if (!Names)
    return;
  StringRef T = Names->type(CS);
  if (!T.empty())
    J.attribute("type", str(T));
}

void writeFrames(json::OStream &J, const IndexedMemProf &P, CallStackId CS,
                 const ProfileNames *Names) {
  J.attributeArray("frames", [&] {
    for (const Frame &F : P.stackFrames(CS))
      J.object([&] {
        J.attribute("function", hexGUID(F.Function));
        J.attribute("line_offset", int64_t(F.LineOffset));
        J.attribute("column", int64_t(F.Column));
        J.attribute("inline", F.IsInlineFrame);
        writeName(J, Names, F.Function);
        if (Names) {
          SourceLocation L = Names->location(F.Function, F.LineOffset);
          if (L.known()) {
            J.attribute("file", str(L.File));
            if (L.Line) // 0: unknown (code of no one line)
              J.attribute("line", int64_t(L.Line));
          }
        }
      });
  });
}

} // namespace

namespace {

/// The MemInfoBlock fields of \p Schema in field order, as the YAML
/// prints them.
SmallVector<unsigned, NumMIBTags> fieldsOf(ArrayRef<uint8_t> Schema) {
  SmallVector<unsigned, NumMIBTags> Fields;
  const uint32_t Mask = schemaMask(Schema);
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    if (Mask & (1u << (T - 1)))
      Fields.push_back(T);
  return Fields;
}

/// The keys both versions begin with.
void writeHeaderKeys(json::OStream &J, ArrayRef<unsigned> Fields,
                     unsigned MemProfVersion, const MemProfSummary &S) {
  J.attribute("memprof_version", int64_t(MemProfVersion));
  J.attributeArray("schema", [&] {
    for (unsigned T : Fields)
      J.value(mibFieldName(T));
  });
  J.attributeObject("summary", [&] {
    J.attribute("contexts", S.NumContexts);
    J.attribute("cold_contexts", S.NumColdContexts);
    J.attribute("hot_contexts", S.NumHotContexts);
    J.attribute("max_cold_total_size", S.MaxColdTotalSize);
    J.attribute("max_warm_total_size", S.MaxWarmTotalSize);
    J.attribute("max_hot_total_size", S.MaxHotTotalSize);
  });
}

/// What the compiler would decide from the stored fields.
StringRef siteClass(const MemInfoBlock &I) {
  return className(classifyAllocation(I.TotalLifetimeAccessDensity,
                                      std::min<uint64_t>(I.AllocCount,
                                                         UINT32_MAX),
                                      I.TotalLifetime));
}

/// Version 1: every frame of every stack in full.
void writeMemProfKeysV1(json::OStream &J, const IndexedMemProf &P,
                        unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                        const MemProfSummary &S, const ProfileNames *Names,
                        function_ref<void(uint64_t, uint64_t)> Progress) {
  SmallVector<unsigned, NumMIBTags> Fields = fieldsOf(Schema);
  {
    writeHeaderKeys(J, Fields, MemProfVersion, S);
    uint64_t Done = 0;
    J.attributeArray("records", [&] {
      for (const auto &KV : P.Records)
        J.object([&] {
          if (Progress && ++Done % 1024 == 0)
            Progress(Done, P.Records.size());
          const GUID Guid = KV.first;
          const IndexedRecord &R = KV.second;
          J.attribute("guid", hexGUID(Guid));
          writeName(J, Names, Guid);
          J.attributeArray("alloc_sites", [&] {
            for (const IndexedAllocSite &A : R.AllocSites)
              J.object([&] {
                J.attribute("context_id", hexGUID(A.CSId));
                J.attribute("class", siteClass(A.Info));
                writeType(J, Names, A.CSId);
                writeFrames(J, P, A.CSId, Names);
                J.attributeObject("mib", [&] {
                  for (unsigned T : Fields)
                    J.attribute(mibFieldName(T), A.Info.get(T));
                });
              });
          });
          J.attributeArray("call_sites", [&] {
            for (const IndexedCallSite &C : R.CallSites)
              J.object([&] {
                writeFrames(J, P, C.CSId, Names);
                J.attributeArray("callee_guids", [&] {
                  for (GUID G : C.CalleeGuids)
                    J.value(hexGUID(G));
                });
              });
          });
        });
    });
  }
}

/// Version 2's tables: every file, function, frame and stack the records
/// use, once each, with ids from 1 in the order the records first use them
/// (an entry's id is its index plus 1).
///
/// Stacks are stored as LLVM's indexed format stores them, as a tree from
/// the root: an entry lists the frames it adds, allocation site first, to
/// the stack of its parent entry (the frames toward the root), so a prefix
/// that many stacks share near the root is written once. Every stack a
/// record refers to is an entry; so is every point where stacks branch.
class Tables {
public:
  Tables(const IndexedMemProf &P, const ProfileNames *Names)
      : P(P), Names(Names) {
    Trie.push_back({});
    for (const auto &[Guid, R] : P.Records) {
      function(Guid);
      for (const IndexedAllocSite &A : R.AllocSites)
        stack(A.CSId);
      for (const IndexedCallSite &C : R.CallSites) {
        stack(C.CSId);
        for (GUID G : C.CalleeGuids)
          function(G);
      }
    }
    numberStacks();
  }

  uint32_t functionId(GUID G) const { return FunctionIds.find(G)->second; }
  /// The stack entry of stack \p CS of the profile.
  uint32_t stackId(CallStackId CS) const {
    return Trie[StackNodes.find(CS)->second].Entry;
  }

  void writeFiles(json::OStream &J) const {
    J.attributeArray("files", [&] {
      for (StringRef F : Files)
        J.value(str(F));
    });
  }

  void writeFunctions(json::OStream &J) const {
    J.attributeArray("functions", [&] {
      for (size_t I = 0; I < Functions.size(); ++I)
        compact(J, [&](json::OStream &E) {
          GUID G = Functions[I];
          E.attribute("id", int64_t(I + 1));
          E.attribute("guid", hexGUID(G));
          if (const FunctionNameInfo *F = Names ? Names->function(G) : nullptr) {
            E.attribute("name", str(F->LinkageName));
            E.attribute("demangled_name", str(F->DemangledName));
            if (!F->DeclFile.empty()) {
              E.attribute("decl_file", int64_t(FileIds.find(F->DeclFile)->second));
              E.attribute("decl_line", int64_t(F->DeclLine));
            }
          }
        });
    });
  }

  void writeFrames(json::OStream &J) const {
    J.attributeArray("frames", [&] {
      for (size_t I = 0; I < Frames.size(); ++I)
        compact(J, [&](json::OStream &E) {
          const Frame &F = Frames[I];
          E.attribute("id", int64_t(I + 1));
          E.attribute("function", int64_t(functionId(F.Function)));
          E.attribute("line_offset", int64_t(F.LineOffset));
          E.attribute("column", int64_t(F.Column));
          E.attribute("inline", F.IsInlineFrame);
          if (Names) {
            SourceLocation L = Names->location(F.Function, F.LineOffset);
            if (L.known()) {
              E.attribute("file", int64_t(FileIds.find(L.File)->second));
              if (L.Line) // 0: unknown (code of no one line), as version 1
                E.attribute("line", int64_t(L.Line));
            }
          }
        });
    });
  }

  void writeStacks(json::OStream &J) const {
    J.attributeArray("stacks", [&] {
      for (size_t I = 0; I < Entries.size(); ++I)
        compact(J, [&](json::OStream &E) {
          E.attribute("id", int64_t(I + 1));
          // The frames from the entry's node up to (not including) the
          // nearest node that is an entry itself, allocation site first.
          uint32_t N = Entries[I];
          E.attributeArray("frames", [&] {
            while (N != 0) { // the root, the empty stack, has none
              E.value(int64_t(Trie[N].Frame));
              N = Trie[N].Parent;
              if (Trie[N].Entry)
                break;
            }
          });
          if (N != 0)
            E.attribute("parent", int64_t(Trie[N].Entry));
        });
    });
  }

  /// Writes one table entry on a line of its own, without spaces.
  template <typename Fn> static void compact(json::OStream &J, Fn &&Body) {
    J.rawValue([&](raw_ostream &OS) {
      json::OStream E(OS);
      E.object([&] { Body(E); });
    });
  }

private:
  struct Node {
    uint32_t Parent = 0;
    uint32_t Frame = 0;    // the frame's id; 0 at the root
    uint32_t Children = 0; // how many
    uint32_t Entry = 0;    // its stack entry's id, or 0
    bool Referenced = false;
  };

  const IndexedMemProf &P;
  const ProfileNames *Names;
  std::vector<GUID> Functions;
  std::unordered_map<GUID, uint32_t> FunctionIds;
  std::vector<StringRef> Files;
  DenseMap<StringRef, uint32_t> FileIds;
  std::vector<Frame> Frames;
  DenseMap<FrameKey, uint32_t> FrameIds;
  std::vector<Node> Trie; // node 0: the root, the empty stack
  DenseMap<std::pair<uint32_t, uint32_t>, uint32_t> Children; // (node, frame)
  std::unordered_map<CallStackId, uint32_t> StackNodes;
  std::vector<uint32_t> Entries; // the entries' nodes, by id - 1

  uint32_t function(GUID G) {
    auto [It, New] = FunctionIds.try_emplace(G, uint32_t(Functions.size() + 1));
    if (New) {
      Functions.push_back(G);
      if (const FunctionNameInfo *F = Names ? Names->function(G) : nullptr)
        if (!F->DeclFile.empty())
          file(F->DeclFile);
    }
    return It->second;
  }

  void file(StringRef F) {
    if (FileIds.try_emplace(F, uint32_t(Files.size() + 1)).second)
      Files.push_back(F);
  }

  uint32_t frame(const Frame &F) {
    auto [It, New] = FrameIds.try_emplace(FrameKey{F}, uint32_t(Frames.size() + 1));
    if (!New)
      return It->second;
    function(F.Function);
    if (Names) {
      SourceLocation L = Names->location(F.Function, F.LineOffset);
      if (L.known())
        file(L.File);
    }
    Frames.push_back(F);
    return It->second;
  }

  void stack(CallStackId CS) {
    auto [It, New] = StackNodes.try_emplace(CS, 0);
    if (!New)
      return;
    // As version 1 and the YAML show it: the frames the profile knows.
    // Frames are numbered in the order the stacks list them, allocation
    // site first; the tree grows from the root.
    SmallVector<Frame, 8> Fs = P.stackFrames(CS);
    SmallVector<uint32_t, 32> Ids;
    for (const Frame &F : Fs)
      Ids.push_back(frame(F));
    uint32_t At = 0;
    for (auto F = Ids.rbegin(); F != Ids.rend(); ++F) {
      uint32_t Id = *F;
      auto [Child, Added] =
          Children.try_emplace({At, Id}, uint32_t(Trie.size()));
      if (Added) {
        ++Trie[At].Children;
        Trie.push_back({At, Id, 0, 0, false});
      }
      At = Child->second;
    }
    Trie[At].Referenced = true;
    It->second = At;
  }

  /// Entries in the order their nodes were made, so that a parent comes
  /// before its children.
  void numberStacks() {
    for (uint32_t N = 0; N < Trie.size(); ++N)
      if (Trie[N].Referenced || (N != 0 && Trie[N].Children > 1)) {
        Entries.push_back(N);
        Trie[N].Entry = uint32_t(Entries.size());
      }
  }
};

/// Version 2: files, functions, frames and stacks once each; records refer
/// to them by id.
void writeMemProfKeysV2(json::OStream &J, const IndexedMemProf &P,
                        unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                        const MemProfSummary &S, const ProfileNames *Names,
                        function_ref<void(uint64_t, uint64_t)> Progress) {
  SmallVector<unsigned, NumMIBTags> Fields = fieldsOf(Schema);
  writeHeaderKeys(J, Fields, MemProfVersion, S);
  Tables T(P, Names);
  T.writeFiles(J);
  T.writeFunctions(J);
  T.writeFrames(J);
  T.writeStacks(J);
  uint64_t Done = 0;
  J.attributeArray("records", [&] {
    for (const auto &KV : P.Records) {
      const GUID Guid = KV.first; // not a structured binding: captured below
      const IndexedRecord &R = KV.second;
      if (Progress && ++Done % 1024 == 0)
        Progress(Done, P.Records.size());
      Tables::compact(J, [&](json::OStream &E) {
        E.attribute("function", int64_t(T.functionId(Guid)));
        E.attributeArray("alloc_sites", [&] {
          for (const IndexedAllocSite &A : R.AllocSites)
            E.object([&] {
              E.attribute("context_id", hexGUID(A.CSId));
              E.attribute("class", siteClass(A.Info));
              writeType(E, Names, A.CSId);
              E.attribute("stack", int64_t(T.stackId(A.CSId)));
              E.attributeArray("mib", [&] {
                for (unsigned F : Fields)
                  E.value(A.Info.get(F));
              });
            });
        });
        E.attributeArray("call_sites", [&] {
          for (const IndexedCallSite &C : R.CallSites)
            E.object([&] {
              E.attribute("stack", int64_t(T.stackId(C.CSId)));
              E.attributeArray("callees", [&] {
                for (GUID G : C.CalleeGuids)
                  E.value(int64_t(T.functionId(G)));
              });
            });
        });
      });
    }
  });
}

void writeSummary(json::OStream &J, const InstrProfSummary &S) {
  J.object([&] {
    J.attribute("functions", S.TotalNumFunctions);
    J.attribute("blocks", S.TotalNumBlocks);
    J.attribute("max_function_count", S.MaxFunctionCount);
    J.attribute("max_internal_block_count", S.MaxInternalBlockCount);
    J.attribute("max_block_count", S.MaxBlockCount);
    J.attribute("total_count", S.TotalBlockCount);
  });
}

void writeCounterKeys(json::OStream &J, const CounterProfile &C) {
  using namespace instrprof;
  // Names the profile itself holds: records and vtables.
  DenseMap<uint64_t, StringRef> Known = counterNameTable(C);
  auto NamedValue = [&](uint64_t V, uint64_t Count) {
    J.object([&] {
      J.attribute("value", hexGUID(V));
      auto It = Known.find(V);
      if (It != Known.end()) {
        J.attribute("name", str(It->second));
        J.attribute("demangled_name", str(demangledPGOName(It->second)));
      }
      J.attribute("count", Count);
    });
  };
  const uint64_t V = C.Variant;
  J.attributeObject("counters", [&] {
    J.attribute("kind", describeVariant(V & ~VariantMemProf));
    J.attribute("variant", hexGUID(V & ~VariantMemProf));
    J.attributeObject("flags", [&] {
      J.attribute("ir", bool(V & VariantIR));
      J.attribute("context_sensitive", bool(V & VariantCSIR));
      J.attribute("entry_first", bool(V & VariantEntryFirst));
      J.attribute("loop_entries", bool(V & VariantLoopEntries));
      J.attribute("block_coverage", bool(V & VariantByteCoverage));
      J.attribute("function_entry_only", bool(V & VariantFunctionEntryOnly));
      J.attribute("temporal", bool(V & VariantTemporal));
    });
    J.attributeBegin("summary");
    writeSummary(J, computeInstrProfSummary(C.Records, /*CS=*/false));
    J.attributeEnd();
    if (V & VariantCSIR) {
      J.attributeBegin("cs_summary");
      writeSummary(J, computeInstrProfSummary(C.Records, /*CS=*/true));
      J.attributeEnd();
    }
    J.attributeArray("binary_ids", [&] {
      for (const std::string &Id : C.BinaryIds)
        J.value(toHex(Id, /*LowerCase=*/true));
    });
    J.attributeArray("vtable_names", [&] {
      for (const std::string &N : C.VTableNames)
        J.value(str(N));
    });
    if (V & VariantTemporal)
      J.attributeObject("temporal_traces", [&] {
        J.attribute("stream_size", C.TraceStreamSize);
        J.attributeArray("traces", [&] {
          for (const TemporalTrace &T : C.Traces)
            J.object([&] {
              J.attribute("weight", T.Weight);
              J.attributeArray("functions", [&] {
                for (uint64_t R : T.FunctionNameRefs) {
                  auto It = Known.find(R);
                  J.value(It != Known.end() ? str(It->second)
                                            : json::Value(hexGUID(R)));
                }
              });
            });
        });
      });
    J.attributeArray("functions", [&] {
      for (const FunctionCounters &R : C.Records)
        J.object([&] {
          J.attribute("name", str(R.Name));
          J.attribute("demangled_name", str(demangledPGOName(R.Name)));
          J.attribute("hash", hexGUID(R.Hash));
          J.attribute("context_sensitive", R.isCS());
          J.attributeArray("counts", [&] {
            for (uint64_t N : R.Counts)
              J.value(N);
          });
          if (!R.Bitmap.empty())
            J.attributeArray("bitmap_bytes", [&] {
              for (uint8_t B : R.Bitmap)
                J.value(int64_t(B));
            });
          static constexpr const char *SiteKeys[NumValueKinds] = {
              "indirect_call_sites", "memop_size_sites", "vtable_sites"};
          for (unsigned K = 0; K < NumValueKinds; ++K) {
            if (R.Sites[K].empty())
              continue;
            J.attributeArray(SiteKeys[K], [&] {
              for (const InstrProfValueSite &Site : R.Sites[K])
                J.array([&] {
                  for (const InstrProfValue &Val : Site) {
                    if (K == ValueKindMemOPSize)
                      J.object([&] {
                        J.attribute("size", Val.Value);
                        J.attribute("count", Val.Count);
                      });
                    else
                      NamedValue(Val.Value, Val.Count);
                  }
                });
            });
          }
        });
    });
  });
}

/// The heap data: the runs' sums, every context's values by context id (as
/// alloc_sites name them), and the kept timeline.
void writeHeapKeys(json::OStream &J, const HeapProfile &H) {
  J.attributeObject("heap", [&] {
    J.attribute("runs", H.Summary.Runs);
    J.attribute("exit_runs", H.Summary.ExitRuns);
    J.attribute("peak_bytes", H.Summary.PeakBytes);
    J.attribute("peak_blocks", H.Summary.PeakBlocks);
    J.attributeArray("contexts", [&] {
      for (const auto &[Id, S] : H.Contexts)
        J.object([&, Id = Id, &S = S] {
          J.attribute("context_id", hexGUID(Id));
          J.attribute("live_bytes", S.LiveBytes);
          J.attribute("live_blocks", S.LiveBlocks);
          J.attribute("peak_bytes", S.PeakBytes);
          J.attribute("peak_blocks", S.PeakBlocks);
        });
    });
    J.attributeObject("timeline", [&] {
      J.attribute("peak_time_ms", H.Timeline.PeakTimeMs);
      J.attribute("peak_bytes", H.Timeline.PeakBytes);
      J.attributeArray("samples", [&] {
        for (const HeapSample &Sample : H.Timeline.Samples)
          J.object([&] {
            J.attribute("time_ms", Sample.TimeMs);
            J.attribute("total_bytes", Sample.TotalBytes);
            J.attributeArray("top", [&] {
              for (const HeapTopEntry &E : Sample.Top)
                J.object([&] {
                  J.attribute("context_id", hexGUID(E.Context));
                  J.attribute("bytes", E.Bytes);
                });
            });
          });
      });
    });
  });
}

} // namespace

void writeProfileJSON(raw_ostream &OS, const ProfileJSONParts &Parts) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("format", "memprof-json");
    J.attribute("format_version", int64_t(Parts.FormatVersion));
    if (Parts.MemProf && Parts.Summary) {
      auto Write = Parts.FormatVersion == 1 ? writeMemProfKeysV1
                                            : writeMemProfKeysV2;
      Write(J, *Parts.MemProf, Parts.MemProfVersion, Parts.Schema,
            *Parts.Summary, Parts.Names, Parts.Progress);
      if (Parts.Progress)
        Parts.Progress(Parts.MemProf->Records.size(),
                       Parts.MemProf->Records.size());
    }
    if (Parts.Heap && Parts.Heap->present())
      writeHeapKeys(J, *Parts.Heap);
    if (Parts.Counters)
      writeCounterKeys(J, *Parts.Counters);
  });
  OS << "\n";
}

void writeMemProfJSON(raw_ostream &OS, const IndexedMemProf &P,
                      unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                      const MemProfSummary &S, const ProfileNames *Names,
                      unsigned FormatVersion) {
  ProfileJSONParts Parts;
  Parts.MemProf = &P;
  Parts.MemProfVersion = MemProfVersion;
  Parts.Schema = Schema;
  Parts.Summary = &S;
  Parts.Names = Names;
  Parts.FormatVersion = FormatVersion;
  writeProfileJSON(OS, Parts);
}

} // namespace memprof
