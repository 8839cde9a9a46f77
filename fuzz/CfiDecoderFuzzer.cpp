//===- CfiDecoderFuzzer.cpp - Fuzz the runtime's .eh_frame rule decoder ---===//
//
// Input: u16 header size, u64 target offset, then the image: the
// .eh_frame_hdr at its start and the whole image as the readable segment
// (fuzz/make-cfi-corpus.py writes seeds in this layout). The decoder must
// read nothing outside the image and answer a known kind, at the target and
// at the start of every table entry; the module's class (keepsFramePointers)
// reads every FDE and lists sorted, disjoint exceptions.
//
//===----------------------------------------------------------------------===//
#include "CfiDecoder.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace memprof::rt::cfi;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 10)
    return 0;
  uint16_t HdrSize;
  uint64_t TargetOff;
  memcpy(&HdrSize, Data, 2);
  memcpy(&TargetOff, Data + 2, 8);
  // A heap copy of exactly the image: a read past it is an ASan report.
  std::vector<uint8_t> Image(Data + 10, Data + Size);
  if (Image.empty())
    return 0;
  Tables T;
  T.Lo = T.Hdr = reinterpret_cast<uintptr_t>(Image.data());
  T.Hi = T.Lo + Image.size();
  T.HdrEnd = T.Hdr + (HdrSize < Image.size() ? HdrSize : Image.size());
  auto Check = [&](uintptr_t Target) {
    Rule R = findRule(T, Target);
    if (R.K == Kind::None || int(R.K) > int(Kind::SignalFrame))
      abort();
    if ((R.K == Kind::CfaRsp || R.K == Kind::CfaRbp) &&
        (Target < R.Begin || Target >= R.End))
      abort();
  };
  Check(T.Lo + TargetOff);
  // The start of each entry of a well-formed header, and the byte before.
  if (Image.size() >= 12 && HdrSize >= 12) {
    uint32_t Count;
    memcpy(&Count, Image.data() + 8, 4);
    for (uint32_t I = 0; I < Count && 12 + 8 * uint64_t(I) + 8 <= HdrSize &&
                         12 + 8 * uint64_t(I) + 8 <= Image.size() && I < 64;
         ++I) {
      int32_t Init;
      memcpy(&Init, Image.data() + 12 + 8 * I, 4);
      Check(T.Hdr + uintptr_t(intptr_t(Init)));
      Check(T.Hdr + uintptr_t(intptr_t(Init)) - 1);
    }
  }
  // The module's class: sorted, disjoint exceptions, no more than room.
  CodeRange E[8];
  unsigned N = 0;
  if (keepsFramePointers(T, E, 8, N)) {
    if (N > 8)
      abort();
    for (unsigned K = 0; K < N; ++K)
      if (E[K].Begin >= E[K].End || (K && E[K - 1].End > E[K].Begin))
        abort();
  }
  return 0;
}
