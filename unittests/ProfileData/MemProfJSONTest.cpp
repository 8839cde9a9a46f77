//===- MemProfJSONTest.cpp - --to-json's tables against the profile -------===//
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/MemProfJSON.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <random>

using namespace memprof;
using namespace llvm;

namespace {

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

std::string write(const IndexedMemProf &P, const ProfileNames *Names,
                  unsigned Version) {
  std::string S;
  raw_string_ostream OS(S);
  MIBSchema Schema = hotColdSchema();
  writeMemProfJSON(OS, P, 3, Schema, computeSummary(P), Names, Version);
  return S;
}

/// A version 2 document's stacks in full (frame ids, allocation site
/// first), checking the table as it goes: ids are indexes plus 1, a parent
/// precedes its child, and no two entries are the same stack.
std::vector<std::vector<int64_t>> stacks(const json::Object &Doc) {
  std::vector<std::vector<int64_t>> Full{{}};
  std::set<std::vector<int64_t>> Seen;
  const json::Array &T = *Doc.getArray("stacks");
  for (size_t I = 0; I < T.size(); ++I) {
    const json::Object &S = *T[I].getAsObject();
    EXPECT_EQ(*S.getInteger("id"), int64_t(I + 1));
    std::vector<int64_t> F;
    for (const json::Value &V : *S.getArray("frames"))
      F.push_back(*V.getAsInteger());
    if (std::optional<int64_t> Parent = S.getInteger("parent")) {
      EXPECT_GE(*Parent, 1);
      EXPECT_LE(*Parent, int64_t(I)) << "a parent follows its child";
      if (*Parent >= 1 && *Parent <= int64_t(I))
        F.insert(F.end(), Full[*Parent].begin(), Full[*Parent].end());
    }
    EXPECT_TRUE(Seen.insert(F).second) << "stack " << I + 1 << " twice";
    Full.push_back(std::move(F));
  }
  return Full;
}

/// Random profiles whose stacks share their root-side frames, are suffixes
/// of one another, repeat across records, are empty or unknown: version 2's
/// tables give back every site's frames, block and callees, as version 1
/// lists them.
TEST(MemProfJSON, Version2TablesHoldEveryStack) {
  std::mt19937_64 Rng(33);
  for (int Round = 0; Round < 60; ++Round) {
    IndexedMemProf P;
    ProfileNames Names;
    std::vector<GUID> Funcs;
    for (int K = 0; K < 6; ++K) {
      std::string Name = "f" + std::to_string(K);
      Funcs.push_back(functionGUID(Name));
      if (Round % 2 && K % 2) {
        Names.addFunction(Funcs.back(), {Names.save(Name), Names.save(Name),
                                         "/src/a.cpp", uint32_t(10 * K), ""});
        Names.addLocation(Funcs.back(), 1,
                          {Names.save("/src/b.h"), uint32_t(K + 100)});
      }
    }
    auto RandomFrame = [&] {
      return Frame{Funcs[Rng() % Funcs.size()], uint32_t(Rng() % 3),
                   uint32_t(Rng() % 2), Rng() % 4 == 0};
    };
    std::vector<std::vector<Frame>> Stacks{{}};
    for (int S = 0, N = 1 + Rng() % 12; S < N; ++S) {
      // A suffix (toward the root) of an earlier stack, with new frames on
      // its leaf side; sometimes nothing new (a stack that ends another).
      std::vector<Frame> Base = Stacks[Rng() % Stacks.size()];
      Base.erase(Base.begin(), Base.begin() + Rng() % (Base.size() + 1));
      std::vector<Frame> New;
      for (int K = 0, L = Rng() % 4; K < L; ++K)
        New.push_back(RandomFrame());
      New.insert(New.end(), Base.begin(), Base.end());
      Stacks.push_back(New);
    }
    for (int R = 0, N = 1 + Rng() % 5; R < N; ++R) {
      IndexedRecord &Rec = P.Records[Funcs[Rng() % Funcs.size()]];
      for (int A = 0, M = Rng() % 4; A < M; ++A) {
        MemInfoBlock I;
        I.AllocCount = Rng() % 100;
        I.TotalSize = Rng();
        I.TotalLifetime = Rng() % 1000000;
        I.TotalLifetimeAccessDensity = Rng() % 10;
        CallStackId Id = Rng() % 8 == 0
                             ? CallStackId(Rng()) // a stack the file lacks
                             : P.addCallStack(Stacks[Rng() % Stacks.size()]);
        Rec.AllocSites.push_back({Id, I});
      }
      for (int C = 0, M = Rng() % 3; C < M; ++C) {
        IndexedCallSite S;
        S.CSId = P.addCallStack(Stacks[Rng() % Stacks.size()]);
        for (int K = 0, L = Rng() % 3; K < L; ++K)
          S.CalleeGuids.push_back(Rng() % 2 ? Funcs[Rng() % Funcs.size()]
                                            : GUID(Rng()));
        Rec.CallSites.push_back(S);
      }
    }
    const ProfileNames *N = Round % 2 ? &Names : nullptr;
    Expected<json::Value> V2 = json::parse(write(P, N, 2));
    Expected<json::Value> V1 = json::parse(write(P, N, 1));
    ASSERT_TRUE(bool(V2)) << toString(V2.takeError());
    ASSERT_TRUE(bool(V1)) << toString(V1.takeError());
    const json::Object &D2 = *V2->getAsObject(), &D1 = *V1->getAsObject();
    EXPECT_EQ(*D2.getInteger("format_version"), 2);
    EXPECT_EQ(*D1.getInteger("format_version"), 1);

    const json::Array &Fns = *D2.getArray("functions");
    const json::Array &Frs = *D2.getArray("frames");
    const json::Array &Files = *D2.getArray("files");
    std::vector<std::vector<int64_t>> Full = stacks(D2);
    // A v2 frame id as version 1 writes the frame.
    auto AsV1 = [&](int64_t Id) {
      const json::Object &F = *Frs[Id - 1].getAsObject();
      const json::Object &Fn = *Fns[*F.getInteger("function") - 1].getAsObject();
      json::Object O{{"function", *Fn.getString("guid")},
                     {"line_offset", *F.getInteger("line_offset")},
                     {"column", *F.getInteger("column")},
                     {"inline", *F.getBoolean("inline")}};
      if (auto Name = Fn.getString("name")) {
        O["name"] = *Name;
        O["demangled_name"] = *Fn.getString("demangled_name");
      }
      if (auto File = F.getInteger("file")) {
        O["file"] = *Files[*File - 1].getAsString();
        O["line"] = *F.getInteger("line");
      }
      return json::Value(std::move(O));
    };
    auto Resolve = [&](int64_t Stack) {
      json::Array A;
      for (int64_t F : Full[Stack])
        A.push_back(AsV1(F));
      return json::Value(std::move(A));
    };

    const json::Array &R2 = *D2.getArray("records");
    const json::Array &R1 = *D1.getArray("records");
    ASSERT_EQ(R2.size(), P.Records.size());
    ASSERT_EQ(R1.size(), P.Records.size());
    size_t RI = 0;
    for (const auto &[Guid, Rec] : P.Records) {
      const json::Object &A = *R2[RI].getAsObject(), &B = *R1[RI].getAsObject();
      ++RI;
      EXPECT_EQ(*Fns[*A.getInteger("function") - 1].getAsObject()->getString("guid"),
                hex(Guid));
      const json::Array &AS2 = *A.getArray("alloc_sites");
      const json::Array &AS1 = *B.getArray("alloc_sites");
      ASSERT_EQ(AS2.size(), Rec.AllocSites.size());
      for (size_t K = 0; K < AS2.size(); ++K) {
        const json::Object &S2 = *AS2[K].getAsObject();
        const json::Object &S1 = *AS1[K].getAsObject();
        EXPECT_EQ(Resolve(*S2.getInteger("stack")), *S1.get("frames"));
        EXPECT_EQ(Full[*S2.getInteger("stack")].size(),
                  P.stackFrames(Rec.AllocSites[K].CSId).size());
        EXPECT_EQ(*S2.getString("context_id"), *S1.getString("context_id"));
        EXPECT_EQ(*S2.getString("class"), *S1.getString("class"));
        const json::Array &Mib = *S2.getArray("mib");
        const MemInfoBlock &I = Rec.AllocSites[K].Info;
        ASSERT_EQ(Mib.size(), 4u);
        EXPECT_EQ(Mib[0].getAsUINT64(), std::optional<uint64_t>(I.AllocCount));
        EXPECT_EQ(Mib[1].getAsUINT64(), std::optional<uint64_t>(I.TotalSize));
        EXPECT_EQ(*S1.getObject("mib")->get("TotalSize"), Mib[1]);
      }
      const json::Array &CS2 = *A.getArray("call_sites");
      const json::Array &CS1 = *B.getArray("call_sites");
      ASSERT_EQ(CS2.size(), Rec.CallSites.size());
      for (size_t K = 0; K < CS2.size(); ++K) {
        const json::Object &S2 = *CS2[K].getAsObject();
        const json::Object &S1 = *CS1[K].getAsObject();
        EXPECT_EQ(Resolve(*S2.getInteger("stack")), *S1.get("frames"));
        json::Array Callees;
        for (const json::Value &G : *S2.getArray("callees"))
          Callees.push_back(*Fns[*G.getAsInteger() - 1].getAsObject()->getString("guid"));
        EXPECT_EQ(json::Value(std::move(Callees)), *S1.get("callee_guids"));
      }
    }
  }
}

} // namespace
