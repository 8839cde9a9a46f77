//===- HintsView.cpp - memprof-show --hints: clang-22's hint per site -----===//
#include "memprof/ProfileData/HintsView.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Export.h"
#include "memprof/ProfileData/HeapView.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

using namespace llvm;

namespace memprof {

/// Six significant digits: a float threshold reads back as the same float.
static std::string num(double V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

StringRef siteHintName(SiteHint H) {
  switch (H) {
  case SiteHint::Cold:
    return "cold";
  case SiteHint::Hot:
    return "hot";
  case SiteHint::Ambiguous:
    return "ambiguous";
  case SiteHint::NotCold:
    break;
  }
  return "notcold";
}

std::vector<std::string> hintsClangFlags(const AllocThresholds &T) {
  std::vector<std::string> F = {
      "-mllvm",
      "-memprof-ave-lifetime-cold-threshold=" +
          std::to_string(T.ColdLifetimeSec),
      "-mllvm",
      "-memprof-lifetime-access-density-cold-threshold=" + num(T.ColdDensity),
      "-mllvm",
      "-memprof-min-ave-lifetime-access-density-hot-threshold=" +
          std::to_string(T.HotDensity)};
  if (T.UseHotHints) {
    F.push_back("-mllvm");
    F.push_back("-memprof-use-hot-hints");
  }
  return F;
}

namespace {

constexpr uint32_t bit(MIBTag T) { return 1u << (unsigned(T) - 1); }
constexpr uint32_t NeededFields =
    bit(MIBTag::AllocCount) | bit(MIBTag::TotalSize) |
    bit(MIBTag::TotalLifetime) | bit(MIBTag::TotalLifetimeAccessDensity);

using SiteFrameKey = std::tuple<GUID, uint32_t, uint32_t>;
SiteFrameKey keyOf(const ReportFrame &F) {
  return {F.Function, F.LineOffset, F.Column};
}

/// The comparison that decided \p C's class, with its numbers.
std::string decidedBy(const HintsContext &C, const AllocThresholds &T) {
  std::string Life = formatv("lifetime {0:f3} s", C.LifetimeSec).str();
  std::string Dens = "density " + num(C.Density);
  std::string ColdDens = num(T.ColdDensity);
  switch (C.Class) {
  case AllocClass::Cold:
    return Life + " >= " + std::to_string(T.ColdLifetimeSec) + " s and " +
           Dens + " < " + ColdDens;
  case AllocClass::Hot:
    return Dens + " > " + std::to_string(T.HotDensity) + " (hot)";
  case AllocClass::NotCold:
    break;
  }
  // Lifetime compared as LLVM does: float ms against the unsigned product.
  bool ShortLived =
      !(float(C.LifetimeSec * 1000) >= float(T.ColdLifetimeSec * 1000u));
  std::string Why =
      ShortLived ? Life + " < " + std::to_string(T.ColdLifetimeSec) + " s"
                 : Dens + " >= " + ColdDens;
  if (T.UseHotHints)
    Why += ", " + Dens + " <= " + std::to_string(T.HotDensity) + " (not hot)";
  return Why;
}

/// CallStackTrie::buildMIBNodes fails (and clang falls back to notcold)
/// when, from the site, the frames shared by cold and not-cold contexts run
/// out along a single chain: no caller frame tells them apart.
bool indistinguishable(ArrayRef<HintsContext> Cs) {
  std::vector<const HintsContext *> Mixed;
  for (const HintsContext &C : Cs)
    Mixed.push_back(&C);
  for (size_t Depth = 1;; ++Depth) {
    // The callers at this depth of the contexts still sharing the chain.
    std::map<SiteFrameKey, uint8_t> Callers;
    bool Ended = false;
    for (const HintsContext *C : Mixed) {
      if (C->C.Frames.size() <= Depth) {
        Ended = true;
        continue;
      }
      Callers[keyOf(C->C.Frames[Depth])] |= 1u << unsigned(C->Class);
    }
    if (Callers.size() > 1)
      return false; // several callers: each gets an MIB node
    if (Callers.empty())
      return Ended;
    // One caller: its node holds the classes of the contexts through it.
    uint8_t Types = Callers.begin()->second;
    if ((Types & (Types - 1)) == 0)
      return false; // a single class: an MIB node
    SiteFrameKey K = Callers.begin()->first;
    std::vector<const HintsContext *> Next;
    for (const HintsContext *C : Mixed)
      if (C->C.Frames.size() > Depth && keyOf(C->C.Frames[Depth]) == K)
        Next.push_back(C);
    Mixed = std::move(Next);
  }
}

void decideSite(HintsSite &S) {
  uint8_t Types = 0;
  for (const HintsContext &C : S.Contexts)
    Types |= 1u << unsigned(C.Class);
  auto Single = [](uint8_t T) { return (T & (T - 1)) == 0; };
  auto Of = [](uint8_t T) {
    return T == (1u << unsigned(AllocClass::Cold))  ? SiteHint::Cold
           : T == (1u << unsigned(AllocClass::Hot)) ? SiteHint::Hot
                                                    : SiteHint::NotCold;
  };
  if (Single(Types)) {
    S.Hint = Of(Types);
    S.Why = S.Contexts.size() == 1
                ? "one context"
                : "every context " + siteHintName(S.Hint).str();
    return;
  }
  bool HadHot = Types & (1u << unsigned(AllocClass::Hot));
  if (HadHot) {
    // No cloning for hot contexts: clang makes them not cold first.
    Types &= ~(1u << unsigned(AllocClass::Hot));
    Types |= 1u << unsigned(AllocClass::NotCold);
    if (Single(Types)) {
      S.Hint = SiteHint::NotCold;
      S.Why = "hot and notcold contexts: hot counts as notcold at a site "
              "with several classes";
      return;
    }
  }
  // Cold and not cold: the trie's MIB nodes, unless no frame tells apart.
  std::vector<HintsContext> AsClang = S.Contexts;
  for (HintsContext &C : AsClang)
    if (C.Class == AllocClass::Hot)
      C.Class = AllocClass::NotCold;
  if (indistinguishable(AsClang)) {
    S.Hint = SiteHint::NotCold;
    S.Why = "cold and notcold contexts that no caller frame tells apart: "
            "notcold";
    return;
  }
  S.Hint = SiteHint::Ambiguous;
  S.Why = std::string("cold and notcold contexts") +
          (HadHot ? " (hot counts as notcold)" : "") +
          ": ambiguous without LTO (no attribute with "
          "-memprof-ambiguous-attributes=0; with ThinLTO context "
          "disambiguation each context keeps its own class)";
}

std::string frameName(const ReportFrame &F) {
  if (!F.Name.empty())
    return F.Name;
  return "0x" + utohexstr(F.Function);
}

std::string location(const ReportFrame &F) {
  std::string File = F.File.empty() ? "??" : F.File;
  return File + ":" + (F.Line ? std::to_string(F.Line) : "?") + ":" +
         std::to_string(F.Column);
}

} // namespace

Expected<HintsView> buildHintsView(const Report &R, const AllocThresholds &T) {
  HintsView V;
  V.Inputs = R.Inputs;
  V.Thresholds = T;
  std::map<SiteFrameKey, HintsSite> Sites;
  uint64_t Classified = 0;
  for (const ReportContext &C : R.Contexts) {
    if ((C.Known & NeededFields) != NeededFields || C.Frames.empty()) {
      ++V.Unclassified;
      continue;
    }
    ++Classified;
    HintsContext H;
    H.C = C;
    // LLVM holds AllocCount as a u32; classify the value a file stores.
    uint64_t AllocCount = std::min<uint64_t>(C.Info.AllocCount, UINT32_MAX);
    H.Class = classifyAllocation(C.Info.TotalLifetimeAccessDensity, AllocCount,
                                 C.Info.TotalLifetime, T);
    if (AllocCount) {
      H.LifetimeSec = double(C.Info.TotalLifetime) / double(AllocCount) / 1000;
      H.Density =
          double(C.Info.TotalLifetimeAccessDensity) / double(AllocCount) / 100;
    }
    H.DecidedBy = decidedBy(H, T);
    ++V.ContextCounts[unsigned(H.Class)];
    HintsSite &S = Sites[keyOf(C.Frames.front())];
    S.Site = C.Frames.front();
    S.Allocations += C.Info.AllocCount;
    S.Bytes += C.Info.TotalSize;
    S.Contexts.push_back(std::move(H));
  }
  if (!Classified)
    return makeError(
        ErrorCode::NotFound,
        R.Contexts.empty()
            ? Twine("no allocation contexts: nothing for clang to hint")
            : Twine("the profile lacks fields clang's hints read: each "
                    "context needs AllocCount, TotalSize, TotalLifetime and "
                    "TotalLifetimeAccessDensity (llvm-profdata's hot/cold "
                    "schema holds them; a hand-made schema may not)"));
  if (V.Unclassified)
    V.Notes.push_back(std::to_string(V.Unclassified) +
                      " contexts lack AllocCount, TotalSize, TotalLifetime or "
                      "TotalLifetimeAccessDensity and are left out");
  for (auto &KV : Sites) {
    HintsSite &S = KV.second;
    llvm::stable_sort(S.Contexts, [](const HintsContext &A,
                                     const HintsContext &B) {
      return std::make_tuple(
                 -int64_t(std::min<uint64_t>(A.C.Info.TotalSize, INT64_MAX)),
                 A.C.Id) <
             std::make_tuple(
                 -int64_t(std::min<uint64_t>(B.C.Info.TotalSize, INT64_MAX)),
                 B.C.Id);
    });
    decideSite(S);
    ++V.SiteCounts[unsigned(S.Hint)];
    V.Sites.push_back(std::move(S));
  }
  llvm::stable_sort(V.Sites, [](const HintsSite &A, const HintsSite &B) {
    return std::make_tuple(StringRef(A.Site.File), A.Site.Line, A.Site.Column,
                           StringRef(A.Site.Name), A.Site.Function) <
           std::make_tuple(StringRef(B.Site.File), B.Site.Line, B.Site.Column,
                           StringRef(B.Site.Name), B.Site.Function);
  });
  return V;
}

static std::string summaryLine(const HintsView &V) {
  const uint64_t *S = V.SiteCounts, *C = V.ContextCounts;
  return formatv("sites: {0} cold, {1} notcold, {2} hot, {3} ambiguous; "
                 "contexts: {4} cold, {5} notcold, {6} hot",
                 S[unsigned(SiteHint::Cold)], S[unsigned(SiteHint::NotCold)],
                 S[unsigned(SiteHint::Hot)], S[unsigned(SiteHint::Ambiguous)],
                 C[unsigned(AllocClass::Cold)],
                 C[unsigned(AllocClass::NotCold)], C[unsigned(AllocClass::Hot)])
      .str();
}

void printHintsText(const HintsView &V, raw_ostream &OS) {
  const AllocThresholds &T = V.Thresholds;
  OS << "Hints clang-22 -fmemory-profile-use gives without LTO\n"
     << formatv("thresholds: cold if lifetime >= {0} s and density < {1}; "
                "hot if density > {2} ({3})\n",
                T.ColdLifetimeSec, num(T.ColdDensity), T.HotDensity,
                T.UseHotHints ? "hot hints on" : "hot hints off: never hot")
     << "clang flags: " << join(hintsClangFlags(T), " ") << "\n"
     << "(lifetime: average, s; density: lifetime accesses per byte per "
        "second, average)\n";
  for (const std::string &N : V.Notes)
    OS << "note: " << N << "\n";
  for (const HintsSite &S : V.Sites) {
    OS << "\n"
       << location(S.Site) << " in " << shortFunctionName(frameName(S.Site))
       << ": " << siteHintName(S.Hint) << " (" << S.Why << ")\n";
    for (const HintsContext &C : S.Contexts) {
      OS << formatv("  {0,-7} lifetime {1:f3} s, density {2}, {3} allocations, "
                    "{4} bytes: {5}\n",
                    allocClassName(C.Class), C.LifetimeSec, num(C.Density),
                    thousands(C.C.Info.AllocCount),
                    thousands(C.C.Info.TotalSize), C.DecidedBy);
      OS << "          via";
      for (size_t I = 1; I < C.C.Frames.size(); ++I) {
        const ReportFrame &F = C.C.Frames[I];
        OS << (I > 1 ? " < " : " ") << shortFunctionName(frameName(F));
        if (F.Line)
          OS << ":" << F.Line;
      }
      if (C.C.Frames.size() < 2)
        OS << " (no caller)";
      OS << "\n";
    }
  }
  OS << "\n" << summaryLine(V) << "\n";
}

void printHintsJSON(const HintsView &V, raw_ostream &OS) {
  const AllocThresholds &T = V.Thresholds;
  json::OStream J(OS, 2);
  auto Frame = [&](const ReportFrame &F) {
    J.object([&] {
      J.attribute("function",
                  F.Name.empty() ? json::Value(nullptr) : json::Value(F.Name));
      J.attribute("guid", utohexstr(F.Function));
      J.attribute("file",
                  F.File.empty() ? json::Value(nullptr) : json::Value(F.File));
      J.attribute("line", F.Line ? json::Value(F.Line) : json::Value(nullptr));
      J.attribute("column", F.Column);
      J.attribute("line_offset", F.LineOffset);
      J.attribute("inline", F.IsInlineFrame);
    });
  };
  J.object([&] {
    J.attribute("schema_version", 1);
    J.attribute("view", "hints");
    J.attributeObject("thresholds", [&] {
      J.attribute("cold_lifetime_s", T.ColdLifetimeSec);
      J.attribute("cold_density", double(T.ColdDensity));
      J.attribute("hot_density", T.HotDensity);
      J.attribute("hot_hints", T.UseHotHints);
      J.attributeArray("clang_flags", [&] {
        for (const std::string &F : hintsClangFlags(T))
          J.value(F);
      });
    });
    J.attributeArray("notes", [&] {
      for (const std::string &N : V.Notes)
        J.value(N);
    });
    J.attributeArray("sites", [&] {
      for (const HintsSite &S : V.Sites)
        J.object([&] {
          J.attributeBegin("site");
          Frame(S.Site);
          J.attributeEnd();
          J.attribute("hint", siteHintName(S.Hint));
          J.attribute("why", S.Why);
          J.attribute("allocations", S.Allocations);
          J.attribute("bytes", S.Bytes);
          J.attributeArray("contexts", [&] {
            for (const HintsContext &C : S.Contexts)
              J.object([&] {
                J.attribute("id", utohexstr(C.C.Id));
                J.attribute("class", allocClassName(C.Class));
                J.attribute("average_lifetime_s", C.LifetimeSec);
                J.attribute("lifetime_access_density", C.Density);
                J.attribute("allocations", C.C.Info.AllocCount);
                J.attribute("bytes", C.C.Info.TotalSize);
                J.attribute("decided_by", C.DecidedBy);
                J.attributeArray("frames", [&] {
                  for (const ReportFrame &F : C.C.Frames)
                    Frame(F);
                });
              });
          });
        });
    });
    J.attributeObject("summary", [&] {
      J.attributeObject("sites", [&] {
        for (SiteHint H : {SiteHint::Cold, SiteHint::NotCold, SiteHint::Hot,
                           SiteHint::Ambiguous})
          J.attribute(siteHintName(H), V.SiteCounts[unsigned(H)]);
      });
      J.attributeObject("contexts", [&] {
        for (AllocClass C :
             {AllocClass::Cold, AllocClass::NotCold, AllocClass::Hot})
          J.attribute(allocClassName(C), V.ContextCounts[unsigned(C)]);
        J.attribute("unclassified", V.Unclassified);
      });
    });
  });
  OS << "\n";
}

} // namespace memprof
