//===- Vdso.cpp - Recognizing the vDSO among a raw profile's modules ------===//
#include "memprof/ProfileData/Vdso.h"
#include "llvm/ADT/STLExtras.h"
#include <cstring>
#include <elf.h>
#include <sys/auxv.h>

using namespace llvm;

namespace memprof {

std::string vdsoBuildIdOf(const uint8_t *Image, size_t Size) {
  Elf64_Ehdr H;
  if (!Image || Size < sizeof(H))
    return "";
  std::memcpy(&H, Image, sizeof(H));
  if (std::memcmp(H.e_ident, ELFMAG, SELFMAG) != 0 ||
      H.e_ident[EI_CLASS] != ELFCLASS64 || H.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  for (unsigned I = 0; I < H.e_phnum; ++I) {
    uint64_t At = H.e_phoff + uint64_t(I) * sizeof(Elf64_Phdr);
    if (At > Size || Size - At < sizeof(Elf64_Phdr))
      return "";
    Elf64_Phdr P;
    std::memcpy(&P, Image + At, sizeof(P));
    if (P.p_type != PT_NOTE || P.p_offset > Size || P.p_filesz > Size - P.p_offset)
      continue;
    const uint64_t Align = P.p_align == 8 ? 8 : 4;
    auto Up = [&](uint64_t V) { return (V + Align - 1) & ~(Align - 1); };
    for (uint64_t N = P.p_offset, E = P.p_offset + P.p_filesz; E - N >= 12;) {
      uint32_t NameSize, DescSize, Type;
      std::memcpy(&NameSize, Image + N, 4);
      std::memcpy(&DescSize, Image + N + 4, 4);
      std::memcpy(&Type, Image + N + 8, 4);
      uint64_t Name = N + 12;
      if (E - Name < Up(NameSize))
        break;
      uint64_t Desc = Name + Up(NameSize);
      if (E - Desc < DescSize)
        break;
      if (Type == NT_GNU_BUILD_ID && NameSize == 4 &&
          std::memcmp(Image + Name, "GNU", 4) == 0 && DescSize != 0)
        return std::string(reinterpret_cast<const char *>(Image + Desc),
                           DescSize);
      if (E - Desc < Up(DescSize))
        break;
      N = Desc + Up(DescSize);
    }
  }
  return "";
}

StringRef runningVdsoBuildId() {
  static const std::string Id = [] {
    const auto *Image =
        reinterpret_cast<const uint8_t *>(getauxval(AT_SYSINFO_EHDR));
    if (!Image)
      return std::string();
    // The kernel maps the whole image, its notes within its first pages;
    // the program headers say how far the notes go.
    Elf64_Ehdr H;
    std::memcpy(&H, Image, sizeof(H));
    uint64_t Size = sizeof(H);
    if (std::memcmp(H.e_ident, ELFMAG, SELFMAG) == 0 &&
        H.e_ident[EI_CLASS] == ELFCLASS64 &&
        H.e_phentsize == sizeof(Elf64_Phdr)) {
      Size = std::max<uint64_t>(Size, H.e_phoff + uint64_t(H.e_phnum) *
                                                      sizeof(Elf64_Phdr));
      for (unsigned I = 0; I < H.e_phnum; ++I) {
        Elf64_Phdr P;
        std::memcpy(&P, Image + H.e_phoff + I * sizeof(Elf64_Phdr), sizeof(P));
        if (P.p_type == PT_NOTE)
          Size = std::max<uint64_t>(Size, P.p_offset + P.p_filesz);
      }
    }
    return vdsoBuildIdOf(Image, Size);
  }();
  return Id;
}

bool isVdsoSegment(const SegmentInfo &S, ArrayRef<SegmentInfo> All) {
  if (S.BuildId.empty())
    return false;
  if (S.BuildId == runningVdsoBuildId())
    return true;
  constexpr uint64_t MaxVdsoBytes = 64 * 1024;
  const bool RecordsPaths =
      any_of(All, [](const SegmentInfo &O) { return !O.Path.empty(); });
  // One executable segment per module: a module with two is no vDSO.
  const bool OneSegment =
      count_if(All, [&](const SegmentInfo &O) {
        return O.BuildId == S.BuildId;
      }) == 1;
  return RecordsPaths && S.Path.empty() && OneSegment && S.Start == S.Offset &&
         S.End >= S.Start && S.End - S.Start <= MaxVdsoBytes;
}

} // namespace memprof
