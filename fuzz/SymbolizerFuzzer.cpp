//===- SymbolizerFuzzer.cpp - Fuzz the symbolizer on arbitrary ELF/DWARF ---===//
//
// The input is a binary, handed to ElfBinaryLocator in memory as a
// --profiled-binary would be (no file is written). When it is accepted, the
// module is looked up by its build id and a few addresses derived from the
// input are mapped through process segments and symbolized: the entry point,
// the start, middle and end of each executable PT_LOAD segment, and
// addresses picked by a hash of the input inside those segments. The names
// walk memprof-show uses on binaries (addBinaryNames: every DWARF subprogram
// and symbol) runs on the same bytes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace memprof;

namespace {

uint64_t read(const uint8_t *Data, size_t Size, uint64_t Off, unsigned N) {
  if (Off > Size || Size - Off < N)
    return 0;
  uint64_t V = 0;
  for (unsigned I = 0; I < N; ++I)
    V |= uint64_t(Data[Off + I]) << (8 * I);
  return V;
}

struct Segment {
  uint64_t VAddr, MemSize;
};

/// Executable PT_LOAD segments, read by hand with bounds checks (the
/// harness must not depend on the code under test to find its addresses).
std::vector<Segment> execSegments(const uint8_t *Data, size_t Size) {
  std::vector<Segment> Out;
  uint64_t PhOff = read(Data, Size, 32, 8);
  uint64_t PhEntSize = read(Data, Size, 54, 2);
  uint64_t PhNum = read(Data, Size, 56, 2);
  if (PhEntSize < 56)
    return Out;
  for (uint64_t I = 0; I < PhNum && Out.size() < 8; ++I) {
    uint64_t Off = PhOff + I * PhEntSize;
    if (Off < PhOff || Off > Size || Size - Off < 56)
      break;
    uint32_t Type = uint32_t(read(Data, Size, Off, 4));
    uint32_t Flags = uint32_t(read(Data, Size, Off + 4, 4));
    if (Type == 1 /*PT_LOAD*/ && (Flags & 1 /*PF_X*/))
      Out.push_back({read(Data, Size, Off + 16, 8), read(Data, Size, Off + 40, 8)});
  }
  return Out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Binaries;
  Binaries.push_back(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "fuzz.elf"));
  auto L = ElfBinaryLocator::create(std::move(Binaries), {});
  if (!L) {
    llvm::consumeError(L.takeError());
    return 0;
  }
  std::vector<std::string> Ids = (*L)->profiledBuildIds();
  if (Ids.size() != 1)
    __builtin_trap(); // an accepted binary always has a build id
  auto M = (*L)->find(Ids[0]);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  if (!*M)
    __builtin_trap(); // the profiled binary must be found by its own id

  // Addresses: the entry point, segment bounds, and hashed picks.
  std::vector<Segment> Segs = execSegments(Data, Size);
  std::vector<std::pair<SegmentInfo, uint64_t>> PCs;
  uint64_t Hash = 1469598103934665603ULL; // FNV-1a of the input
  for (size_t I = 0; I < Size; ++I)
    Hash = (Hash ^ Data[I]) * 1099511628211ULL;
  const uint64_t Base = 0x555555554000ULL; // a PIE's usual load address
  for (const Segment &S : Segs) {
    SegmentInfo SI;
    SI.Start = Base + S.VAddr;
    SI.End = SI.Start + S.MemSize;
    SI.Offset = Base;
    SI.BuildId = Ids[0];
    for (uint64_t A : {S.VAddr, S.VAddr + S.MemSize / 2,
                       S.VAddr + S.MemSize - 1,
                       S.VAddr + (S.MemSize ? Hash % S.MemSize : 0),
                       S.VAddr + (S.MemSize ? (Hash >> 20) % S.MemSize : 0)})
      PCs.push_back({SI, Base + A});
  }
  SegmentInfo Entry;
  Entry.Start = Base;
  Entry.End = ~0ULL;
  Entry.Offset = Base;
  Entry.BuildId = Ids[0];
  uint64_t EntryAddr = read(Data, Size, 24, 8);
  PCs.push_back({Entry, Base + EntryAddr});
  PCs.push_back({Entry, Base + EntryAddr + (Hash & 0xff)});

  uint64_t Sum = 0;
  for (const auto &[Seg, PC] : PCs) {
    uint64_t Addr = (*M)->toBinaryAddress(Seg, PC);
    PCSymbols R = (*M)->symbolize(Addr);
    for (const SymbolizedFrame &F : R.Frames)
      Sum += F.F.Function + F.F.LineOffset + F.FunctionName.size() +
             F.FileName.size() + F.DeclFileName.size();
    // A second lookup comes from the cache and must agree.
    PCSymbols Again = (*M)->symbolize(Addr);
    if (Again.Status != R.Status || Again.Frames.size() != R.Frames.size())
      __builtin_trap();
  }
  for (const std::string &N : (*L)->notes())
    Sum += N.size();

  ProfileNames Names;
  std::vector<std::string> Notes;
  if (llvm::Error E = addBinaryNames(
          llvm::MemoryBuffer::getMemBuffer(Bytes, "fuzz.elf",
                                           /*RequiresNullTerminator=*/false),
          Names, &Notes))
    llvm::consumeError(std::move(E));
  Sum += Names.functions().size() + Notes.size();
  return Sum == 42 ? 0 : 0;
}
