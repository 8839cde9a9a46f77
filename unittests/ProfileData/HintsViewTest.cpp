//===- HintsViewTest.cpp - getAllocType's thresholds, a site's hint -------===//
#include "memprof/ProfileData/HintsView.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "gtest/gtest.h"
#include <cstdint>

using namespace llvm;
using namespace memprof;

namespace {

// Boundaries of LLVM 22's getAllocType (MemoryProfileInfo.cpp): cold when
// (float)TLAD / AC / 100 < ColdDensity and (float)TL / AC >= Sec * 1000u;
// hot when hot hints are on and the density > HotDensity.
TEST(Classification, ColdLifetimeBoundary) {
  AllocThresholds T;
  T.ColdLifetimeSec = 1;
  EXPECT_EQ(classifyAllocation(0, 1, 999, T), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(0, 1, 1000, T), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(0, 2, 1999, T), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(0, 2, 2000, T), AllocClass::Cold);
  T.ColdLifetimeSec = 0; // any lifetime, even none
  EXPECT_EQ(classifyAllocation(0, 1, 0, T), AllocClass::Cold);
  // LLVM's Sec * 1000 is unsigned: 4294968 s wraps to 704 ms.
  T.ColdLifetimeSec = 4294968;
  EXPECT_EQ(classifyAllocation(0, 1, 703, T), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(0, 1, 704, T), AllocClass::Cold);
}

TEST(Classification, ColdDensityBoundary) {
  AllocThresholds T;
  T.ColdLifetimeSec = 0;
  // Density equal to the threshold is not under it.
  EXPECT_EQ(classifyAllocation(4, 1, 0, T), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(5, 1, 0, T), AllocClass::NotCold);
  T.ColdDensity = 2.5f;
  EXPECT_EQ(classifyAllocation(499, 2, 0, T), AllocClass::Cold);
  EXPECT_EQ(classifyAllocation(500, 2, 0, T), AllocClass::NotCold);
}

TEST(Classification, HotBoundaryAndSwitch) {
  AllocThresholds T;
  EXPECT_EQ(classifyAllocation(~0ULL, 1, 0, T), AllocClass::NotCold)
      << "never hot without -memprof-use-hot-hints";
  T.UseHotHints = true;
  EXPECT_EQ(classifyAllocation(100000, 1, 0, T), AllocClass::NotCold)
      << "density equal to the hot threshold is not over it";
  EXPECT_EQ(classifyAllocation(100001, 1, 0, T), AllocClass::Hot);
  EXPECT_EQ(classifyAllocation(200002, 2, 0, T), AllocClass::Hot);
  T.HotDensity = 0;
  EXPECT_EQ(classifyAllocation(1, 1, 0, T), AllocClass::Hot);
  EXPECT_EQ(classifyAllocation(0, 1, 0, T), AllocClass::NotCold);
  // Cold is tested first: a density both under the cold threshold and over
  // the hot one is cold.
  T.ColdLifetimeSec = 0;
  T.ColdDensity = 2000;
  T.HotDensity = 1000;
  EXPECT_EQ(classifyAllocation(150000, 1, 0, T), AllocClass::Cold);
}

TEST(Classification, NoAllocations) {
  // LLVM's float quotients by 0: inf (numerator > 0) or NaN (0/0).
  AllocThresholds T;
  T.ColdLifetimeSec = 0;
  EXPECT_EQ(classifyAllocation(0, 0, 0, T), AllocClass::NotCold);
  EXPECT_EQ(classifyAllocation(0, 0, 5, T), AllocClass::NotCold);
  T.UseHotHints = true;
  EXPECT_EQ(classifyAllocation(1, 0, 0, T), AllocClass::Hot);
}

ReportContext context(CallStackId Id, std::vector<uint32_t> Callers,
                      uint64_t TLAD, uint64_t TL) {
  ReportContext C;
  C.Id = Id;
  ReportFrame Site;
  Site.Function = 0x51;
  Site.LineOffset = 1;
  Site.Column = 10;
  C.Frames.push_back(Site);
  for (uint32_t L : Callers) {
    ReportFrame F;
    F.Function = 0x60 + L;
    F.LineOffset = L;
    C.Frames.push_back(F);
  }
  C.Info.AllocCount = 1;
  C.Info.TotalSize = 100;
  C.Info.TotalLifetime = TL;
  C.Info.TotalLifetimeAccessDensity = TLAD;
  C.Known = AllMIBFields;
  return C;
}

SiteHint hintOf(std::vector<ReportContext> Cs, const AllocThresholds &T) {
  Report R;
  R.Contexts = std::move(Cs);
  Expected<HintsView> V = buildHintsView(R, T);
  EXPECT_TRUE(bool(V));
  if (!V) {
    consumeError(V.takeError());
    return SiteHint::NotCold;
  }
  EXPECT_EQ(V->Sites.size(), 1u);
  return V->Sites.front().Hint;
}

TEST(HintsView, SiteCombinesAsClang) {
  AllocThresholds T;
  T.ColdLifetimeSec = 0;
  T.UseHotHints = true;
  const uint64_t Idle = 0, Busy = 10000, Hot = 1000000;
  EXPECT_EQ(hintOf({context(1, {1}, Idle, 5)}, T), SiteHint::Cold);
  EXPECT_EQ(hintOf({context(1, {1}, Hot, 5)}, T), SiteHint::Hot);
  EXPECT_EQ(hintOf({context(1, {1}, Idle, 5), context(2, {2}, Busy, 5)}, T),
            SiteHint::Ambiguous);
  // Hot beside not cold is not cold; beside cold it counts as not cold.
  EXPECT_EQ(hintOf({context(1, {1}, Hot, 5), context(2, {2}, Busy, 5)}, T),
            SiteHint::NotCold);
  EXPECT_EQ(hintOf({context(1, {1}, Hot, 5), context(2, {2}, Idle, 5)}, T),
            SiteHint::Ambiguous);
  // A caller further up tells them apart ...
  EXPECT_EQ(
      hintOf({context(1, {1, 2}, Idle, 5), context(2, {1, 3}, Busy, 5)}, T),
      SiteHint::Ambiguous);
  // ... and so does a context that goes on where the other ends.
  EXPECT_EQ(hintOf({context(1, {1}, Idle, 5), context(2, {1, 3}, Busy, 5)}, T),
            SiteHint::Ambiguous);
  // No frame does: clang falls back to not cold.
  EXPECT_EQ(
      hintOf({context(1, {1, 2}, Idle, 5), context(2, {1, 2}, Busy, 5)}, T),
      SiteHint::NotCold);
}

TEST(HintsView, ExplainsMissingFields) {
  Report R;
  ReportContext C = context(1, {1}, 0, 5);
  C.Known = 1u << (unsigned(MIBTag::AllocCount) - 1);
  R.Contexts.push_back(C);
  Expected<HintsView> V = buildHintsView(R, AllocThresholds());
  ASSERT_FALSE(bool(V));
  EXPECT_NE(toString(V.takeError()).find("TotalLifetimeAccessDensity"),
            std::string::npos);
}

} // namespace
