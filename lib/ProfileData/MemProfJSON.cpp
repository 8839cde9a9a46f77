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

void writeMemProfKeys(json::OStream &J, const IndexedMemProf &P,
                      unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                      const MemProfSummary &S, const ProfileNames *Names) {
  // Field order, not schema order, as the YAML prints them.
  SmallVector<unsigned, NumMIBTags> Fields;
  const uint32_t Mask = schemaMask(Schema);
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    if (Mask & (1u << (T - 1)))
      Fields.push_back(T);

  {
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
    J.attributeArray("records", [&] {
      for (const auto &KV : P.Records)
        J.object([&] {
          const GUID Guid = KV.first;
          const IndexedRecord &R = KV.second;
          J.attribute("guid", hexGUID(Guid));
          writeName(J, Names, Guid);
          J.attributeArray("alloc_sites", [&] {
            for (const IndexedAllocSite &A : R.AllocSites)
              J.object([&] {
                J.attribute("context_id", hexGUID(A.CSId));
                // What the compiler would decide from the stored fields.
                J.attribute(
                    "class",
                    className(classifyAllocation(
                        A.Info.TotalLifetimeAccessDensity,
                        std::min<uint64_t>(A.Info.AllocCount, UINT32_MAX),
                        A.Info.TotalLifetime)));
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

} // namespace

void writeProfileJSON(raw_ostream &OS, const ProfileJSONParts &Parts) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("format", "memprof-json");
    J.attribute("format_version", int64_t(MemProfJSONVersion));
    if (Parts.MemProf && Parts.Summary)
      writeMemProfKeys(J, *Parts.MemProf, Parts.MemProfVersion, Parts.Schema,
                       *Parts.Summary, Parts.Names);
    if (Parts.Counters)
      writeCounterKeys(J, *Parts.Counters);
  });
  OS << "\n";
}

void writeMemProfJSON(raw_ostream &OS, const IndexedMemProf &P,
                      unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                      const MemProfSummary &S, const ProfileNames *Names) {
  ProfileJSONParts Parts;
  Parts.MemProf = &P;
  Parts.MemProfVersion = MemProfVersion;
  Parts.Schema = Schema;
  Parts.Summary = &S;
  Parts.Names = Names;
  writeProfileJSON(OS, Parts);
}

} // namespace memprof
