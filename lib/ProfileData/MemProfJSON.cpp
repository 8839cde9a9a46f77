//===- MemProfJSON.cpp - An indexed MemProf profile as JSON ---------------===//
//
// GUIDs and context ids are strings ("0x…", as in LLVM's YAML) because they
// use all 64 bits, which JSON numbers in most parsers cannot hold exactly.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/MemProfJSON.h"
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
            J.attribute("line", int64_t(L.Line));
          }
        }
      });
  });
}

} // namespace

void writeMemProfJSON(raw_ostream &OS, const IndexedMemProf &P,
                      unsigned MemProfVersion, ArrayRef<uint8_t> Schema,
                      const MemProfSummary &S, const ProfileNames *Names) {
  // Field order, not schema order, as the YAML prints them.
  SmallVector<unsigned, NumMIBTags> Fields;
  const uint32_t Mask = schemaMask(Schema);
  for (unsigned T = 1; T <= NumMIBTags; ++T)
    if (Mask & (1u << (T - 1)))
      Fields.push_back(T);

  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("format", "memprof-json");
    J.attribute("format_version", int64_t(MemProfJSONVersion));
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
  });
  OS << "\n";
}

} // namespace memprof
