//===- HeapViewTest.cpp - The peak and leaks views' pieces -----------------===//
//
// Units and ranking of memprof-show's heap views on hand-made reports; the
// views' numbers against a truth are in lit-tests/memprof-show/heap-views.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/HeapView.h"
#include "gtest/gtest.h"

using namespace memprof;

namespace {

TEST(HeapView, Units) {
  EXPECT_EQ(humanBytes(0), "0 B");
  EXPECT_EQ(humanBytes(1023), "1023 B");
  EXPECT_EQ(humanBytes(1024), "1.0 KiB");
  EXPECT_EQ(humanBytes(1536), "1.5 KiB");
  // Rounded before the unit is chosen: never "1024.0 KiB".
  EXPECT_EQ(humanBytes(1024 * 1024 - 1), "1.0 MiB");
  EXPECT_EQ(humanBytes(uint64_t(10.2 * 1024 * 1024)), "10.2 MiB");
  EXPECT_EQ(humanBytes(~uint64_t(0)), "16.0 EiB");
  EXPECT_EQ(thousands(0), "0");
  EXPECT_EQ(thousands(999), "999");
  EXPECT_EQ(thousands(1234), "1,234");
  EXPECT_EQ(thousands(1234567), "1,234,567");
}

Report reportOf(std::vector<std::pair<CallStackId, HeapStats>> Rows) {
  Report R;
  R.Heap = HeapSummary{1, 1, 1000, 10};
  R.Timeline.PeakTimeMs = 1520;
  R.Timeline.PeakBytes = 1000;
  R.Inputs.push_back({});
  R.Inputs.back().Path = "p";
  R.Inputs.back().HeapRuns = 1;
  for (auto &[Id, S] : Rows) {
    ReportContext C;
    C.Id = Id;
    C.Heap = S;
    R.Summary.Heap.add(S);
    R.Contexts.push_back(C);
  }
  return R;
}

TEST(HeapView, RanksByTheViewsBytesThenBlocksThenId) {
  Report R = reportOf({{5, {0, 0, 100, 1}},
                       {3, {40, 2, 100, 2}},
                       {4, {40, 1, 100, 2}},
                       {1, {0, 0, 0, 0}},
                       {2, {10, 1, 500, 5}}});
  auto Peak = buildHeapView(R, HeapViewKind::Peak, 3);
  ASSERT_TRUE(bool(Peak));
  EXPECT_EQ(Peak->Rows, 4u); // context 1 has nothing at the peak
  ASSERT_EQ(Peak->R.Contexts.size(), 3u);
  EXPECT_EQ(Peak->R.Contexts[0].Id, 2u);
  EXPECT_EQ(Peak->R.Contexts[1].Id, 3u); // 100 bytes, 2 blocks, lower id
  EXPECT_EQ(Peak->R.Contexts[2].Id, 4u);
  EXPECT_EQ(Peak->TotalBytes, 1000u);
  EXPECT_TRUE(Peak->AtExit);
  EXPECT_EQ(heapViewHeadline(*Peak),
            "peak: 1000 B in 10 blocks at 1.52 s, 1 run");
  auto Leaks = buildHeapView(R, HeapViewKind::Leaks, 10);
  ASSERT_TRUE(bool(Leaks));
  EXPECT_EQ(Leaks->Rows, 3u);
  EXPECT_EQ(Leaks->R.Contexts[0].Id, 3u);
  EXPECT_EQ(Leaks->R.Contexts[1].Id, 4u);
  EXPECT_EQ(Leaks->R.Contexts[2].Id, 2u);
  EXPECT_EQ(Leaks->TotalBytes, 90u);
  EXPECT_EQ(heapViewHeadline(*Leaks), "live at exit: 90 B in 4 blocks, 1 run");
  // A comparison: by the size of the change, growth first.
  Report Before = reportOf({{2, {10, 1, 600, 5}}, {3, {40, 2, 0, 0}},
                            {9, {1, 1, 100, 1}}});
  auto B = buildHeapView(Before, HeapViewKind::Peak, SIZE_MAX);
  auto A = buildHeapView(R, HeapViewKind::Peak, SIZE_MAX);
  ASSERT_TRUE(B && A);
  HeapViewDiff D = diffHeapViews(*B, *A, 10, false);
  EXPECT_EQ(D.New, 3u);      // 3, 4, 5
  EXPECT_EQ(D.Vanished, 1u); // 9
  EXPECT_EQ(D.Shrunk, 1u);   // 2: 600 -> 500
  ASSERT_EQ(D.Rows.size(), 5u);
  EXPECT_EQ(D.Rows[0].row().Id, 3u); // +100, the lowest id of three
  EXPECT_EQ(D.Rows[3].row().Id, 2u); // -100 after the +100s
  EXPECT_EQ(D.Rows[3].Change, -100);
  EXPECT_EQ(D.Rows[4].row().Id, 9u);
}

TEST(HeapView, NoHeapDataIsAnError) {
  Report R;
  auto V = buildHeapView(R, HeapViewKind::Leaks, 10);
  ASSERT_FALSE(bool(V));
  EXPECT_NE(toString(V.takeError()).find("no heap data"), std::string::npos);
}

} // namespace
