//===- CfiDecoderTest.cpp - The runtime's .eh_frame rule decoder ----------===//
//
// Oracle: llvm-dwarfdump-22 --eh-frame, whose rows for libstdc++ and libc
// (as mapped in this process) must be what findRule gives at the first and
// last byte of every row, wherever the row fits the compact form. Then
// hostile tables: built by hand (each field at its limits) and real tables
// copied and damaged at random; the decoder must answer Stop or NoFde
// without reading outside the ranges given (ASan checks the copies).
//
//===----------------------------------------------------------------------===//
#include "CfiDecoder.h"
#include "gtest/gtest.h"
#include "../RunCommand.h"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <link.h>
#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace memprof::rt::cfi;

namespace {

struct Module {
  std::string Path;
  uintptr_t Bias = 0;
  Tables T;
};

bool findModule(const char *Name, Module &M) {
  struct Ctx {
    const char *Name;
    Module *M;
    bool Found;
  } C{Name, &M, false};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) -> int {
        Ctx &C = *static_cast<Ctx *>(Data);
        if (!Info->dlpi_name || !strstr(Info->dlpi_name, C.Name))
          return 0;
        const ElfW(Phdr) *Eh = nullptr;
        for (int I = 0; I < Info->dlpi_phnum; ++I)
          if (Info->dlpi_phdr[I].p_type == PT_GNU_EH_FRAME)
            Eh = &Info->dlpi_phdr[I];
        if (!Eh)
          return 0;
        for (int I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          if (P.p_type == PT_LOAD && Eh->p_vaddr >= P.p_vaddr &&
              Eh->p_vaddr < P.p_vaddr + P.p_memsz) {
            C.M->Path = Info->dlpi_name;
            C.M->Bias = Info->dlpi_addr;
            C.M->T.Hdr = Info->dlpi_addr + Eh->p_vaddr;
            C.M->T.HdrEnd = C.M->T.Hdr + Eh->p_memsz;
            C.M->T.Lo = Info->dlpi_addr + P.p_vaddr;
            C.M->T.Hi = C.M->T.Lo + P.p_memsz;
            C.Found = true;
            return 1;
          }
        }
        return 0;
      },
      &C);
  return C.Found;
}

struct ExpectedRow {
  uint64_t Begin, End; // file addresses
  bool Compact;        // CFA=RSP/RBP+n, RIP=[CFA-8], RBP saved at an offset
  bool Rsp;
  long CfaOffset = 0, RbpOffset = 0;
  bool RaUndefined = false;
};

std::vector<ExpectedRow> dwarfdumpRows(const std::string &Path) {
  std::vector<ExpectedRow> Rows;
  std::string Text = memprof::test::runCommand(
      "llvm-dwarfdump-22 --eh-frame '" + Path + "' 2>/dev/null");
  static const std::regex Fde(
      "^[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} FDE cie=[0-9a-f]{8} "
      "pc=([0-9a-f]+)\\.\\.\\.([0-9a-f]+)$");
  static const std::regex RowRe("^  0x([0-9a-f]+): CFA=(.*?): (.*)$");
  static const std::regex Cfa("^(RSP|RBP)([+-][0-9]+)$");
  static const std::regex RbpAt("(^|, )RBP=\\[CFA([+-][0-9]+)\\]");
  uint64_t FdeEnd = 0;
  size_t FdeFirst = 0;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t Eol = Text.find('\n', Pos);
    if (Eol == std::string::npos)
      Eol = Text.size();
    std::string Line = Text.substr(Pos, Eol - Pos);
    Pos = Eol + 1;
    std::smatch M;
    if (std::regex_match(Line, M, Fde)) {
      FdeEnd = std::stoull(M[2], nullptr, 16);
      FdeFirst = Rows.size();
      continue;
    }
    if (!FdeEnd || !std::regex_match(Line, M, RowRe))
      continue;
    ExpectedRow R{};
    R.Begin = std::stoull(M[1], nullptr, 16);
    R.End = FdeEnd;
    if (Rows.size() > FdeFirst)
      Rows.back().End = R.Begin;
    std::string CfaText = M[2], Regs = M[3];
    std::smatch C, B;
    R.RaUndefined = Regs.find("RIP=undefined") != std::string::npos;
    bool Ra = Regs.find("RIP=[CFA-8]") != std::string::npos;
    bool RbpOther = Regs.find("RBP=") != std::string::npos;
    if (std::regex_search(Regs, B, RbpAt)) {
      R.RbpOffset = std::stol(B[2]);
      RbpOther = false;
    }
    if (std::regex_match(CfaText, C, Cfa) && Ra && !RbpOther) {
      R.Compact = true;
      R.Rsp = C[1] == "RSP";
      R.CfaOffset = std::stol(C[2]);
    }
    Rows.push_back(R);
  }
  return Rows;
}

void checkAgainstDwarfdump(const char *Name) {
  Module M;
  ASSERT_TRUE(findModule(Name, M)) << Name << " is not mapped";
  std::vector<ExpectedRow> Rows = dwarfdumpRows(M.Path);
  if (Rows.empty())
    GTEST_SKIP() << "llvm-dwarfdump-22 gave no rows for " << M.Path;
  size_t Compact = 0, Checked = 0;
  for (const ExpectedRow &E : Rows) {
    if (E.End <= E.Begin)
      continue;
    for (uint64_t At : {E.Begin, E.End - 1}) {
      Rule R = findRule(M.T, M.Bias + At);
      ++Checked;
      if (E.Compact) {
        ASSERT_EQ(R.K, E.Rsp ? Kind::CfaRsp : Kind::CfaRbp)
            << M.Path << " at 0x" << std::hex << At << " (stop reason "
            << int(R.Why) << ")";
        EXPECT_EQ(R.CfaOffset, E.CfaOffset) << "at 0x" << std::hex << At;
        EXPECT_EQ(R.RbpOffset, E.RbpOffset) << "at 0x" << std::hex << At;
      } else if (E.RaUndefined) {
        EXPECT_EQ(R.K, Kind::EndOfStack) << "at 0x" << std::hex << At;
      } else {
        EXPECT_TRUE(R.K == Kind::Stop || R.K == Kind::SignalFrame)
            << "at 0x" << std::hex << At << ": kind " << int(R.K);
      }
    }
    Compact += E.Compact;
  }
  // The design's premise (eh-frame-unwinding.md section 7): nearly every
  // row of Debian's libraries fits the compact rule.
  EXPECT_GT(Compact * 1000, Rows.size() * 995) << Compact << " of " << Rows.size();
  printf("[oracle] %s: %zu rows, %zu compact, %zu lookups agree\n",
         M.Path.c_str(), Rows.size(), Compact, Checked);
}

TEST(CfiDecoder, MatchesDwarfdumpOnLibstdcxx) { checkAgainstDwarfdump("libstdc++.so.6"); }
TEST(CfiDecoder, MatchesDwarfdumpOnLibc) { checkAgainstDwarfdump("libc.so.6"); }

TEST(CfiDecoder, AddressesOutsideEveryFde) {
  Module M;
  ASSERT_TRUE(findModule("libc.so.6", M));
  EXPECT_EQ(findRule(M.T, 0).K, Kind::NoFde);
  EXPECT_EQ(findRule(M.T, M.Bias).K, Kind::NoFde); // the ELF header
}

//===----------------------------------------------------------------------===//
// Tables built by hand
//===----------------------------------------------------------------------===//

/// One module image: [hdr][eh_frame: CIE, FDEs], all in one buffer that is
/// also the readable segment.
struct Image {
  std::vector<uint8_t> Bytes;
  size_t HdrSize = 0;
  Tables tables() const {
    Tables T;
    T.Lo = reinterpret_cast<uintptr_t>(Bytes.data());
    T.Hi = T.Lo + Bytes.size();
    T.Hdr = T.Lo;
    T.HdrEnd = T.Lo + HdrSize;
    return T;
  }
  uintptr_t at(size_t Off) const {
    return reinterpret_cast<uintptr_t>(Bytes.data()) + Off;
  }
};

void put32(std::vector<uint8_t> &B, size_t At, uint32_t V) {
  memcpy(B.data() + At, &V, 4);
}

/// A header with one entry, a "zR" CIE (def_cfa rsp+8, RA at CFA-8) and one
/// FDE covering code [Code, Code+Range) with \p Program. Code addresses are
/// offsets into the buffer (the decoder only compares them).
Image build(const std::vector<uint8_t> &Program, uint32_t Code = 0x100,
            uint32_t Range = 0x40, const char *Aug = "zR") {
  Image I;
  std::vector<uint8_t> &B = I.Bytes;
  B.assign(0x400, 0xcc);
  I.HdrSize = 20;
  size_t Cie = 0x20;
  std::vector<uint8_t> CieBody = {0, 0, 0, 0, 1};
  for (const char *P = Aug; *P; ++P)
    CieBody.push_back(uint8_t(*P));
  CieBody.push_back(0);
  CieBody.insert(CieBody.end(), {0x01, 0x78, 0x10, 0x01, 0x1b,
                                 0x0c, 0x07, 0x08, 0x90, 0x01});
  while ((CieBody.size() + 4) % 8)
    CieBody.push_back(0);
  put32(B, Cie, uint32_t(CieBody.size()));
  memcpy(B.data() + Cie + 4, CieBody.data(), CieBody.size());
  size_t Fde = Cie + 4 + CieBody.size();
  std::vector<uint8_t> FdeBody(12, 0);
  FdeBody.push_back(0); // augmentation data length
  FdeBody.insert(FdeBody.end(), Program.begin(), Program.end());
  while ((FdeBody.size() + 4) % 8)
    FdeBody.push_back(0);
  put32(B, Fde, uint32_t(FdeBody.size()));
  memcpy(B.data() + Fde + 4, FdeBody.data(), FdeBody.size());
  put32(B, Fde + 4, uint32_t(Fde + 4 - Cie));
  // pc_begin: pcrel sdata4 at Fde+8, relative to the buffer start + Code.
  put32(B, Fde + 8, uint32_t(int32_t(Code) - int32_t(Fde + 8)));
  put32(B, Fde + 12, Range);
  put32(B, Fde + 4 + FdeBody.size(), 0); // terminator
  B[0] = 1, B[1] = 0x1b, B[2] = 0x03, B[3] = 0x3b;
  put32(B, 4, uint32_t(Cie - 4));
  put32(B, 8, 1);
  put32(B, 12, Code);
  put32(B, 16, uint32_t(Fde));
  return I;
}

TEST(CfiDecoder, HandBuiltRows) {
  // push rbp; mov rsp,rbp; ... remember; epilogue; restore.
  Image I = build({0x41, 0x0e, 0x10, 0x86, 0x02, // +1: cfa=rsp+16, rbp@cfa-16
                   0x43, 0x0d, 0x06,             // +3: cfa=rbp+16
                   0x4a, 0x0a, 0x0c, 0x07, 0x08, // +10: remember; cfa=rsp+8
                   0xc6,                         //      restore rbp
                   0x41, 0x0b});                 // +1: restore_state
  Tables T = I.tables();
  Rule R = findRule(T, I.at(0x100));
  EXPECT_EQ(R.K, Kind::CfaRsp);
  EXPECT_EQ(R.CfaOffset, 8);
  EXPECT_EQ(R.RbpOffset, 0);
  R = findRule(T, I.at(0x101));
  EXPECT_EQ(R.K, Kind::CfaRsp);
  EXPECT_EQ(R.CfaOffset, 16);
  EXPECT_EQ(R.RbpOffset, -16);
  R = findRule(T, I.at(0x104));
  EXPECT_EQ(R.K, Kind::CfaRbp);
  EXPECT_EQ(R.CfaOffset, 16);
  R = findRule(T, I.at(0x10e));
  EXPECT_EQ(R.K, Kind::CfaRsp);
  EXPECT_EQ(R.CfaOffset, 8);
  EXPECT_EQ(R.RbpOffset, 0);
  R = findRule(T, I.at(0x10f));
  EXPECT_EQ(R.K, Kind::CfaRbp);
  EXPECT_EQ(R.RbpOffset, -16);
  EXPECT_EQ(R.Begin, I.at(0x100));
  EXPECT_EQ(R.End, I.at(0x140));
  EXPECT_EQ(findRule(T, I.at(0x140)).K, Kind::NoFde);
  EXPECT_EQ(findRule(T, I.at(0xff)).K, Kind::NoFde);
}

TEST(CfiDecoder, RulesOutsideTheCompactForm) {
  auto KindOf = [](std::vector<uint8_t> P, StopReason *Why = nullptr) {
    Image I = build(P);
    Rule R = findRule(I.tables(), I.at(0x120));
    if (Why)
      *Why = R.Why;
    return R.K;
  };
  StopReason Why;
  EXPECT_EQ(KindOf({0x0c, 0x03, 0x10}, &Why), Kind::Stop); // cfa=rbx+16
  EXPECT_EQ(Why, StopReason::CfaRegister);
  EXPECT_EQ(KindOf({0x0f, 0x02, 0x77, 0x08}, &Why), Kind::Stop); // expression
  EXPECT_EQ(Why, StopReason::CfaExpression);
  EXPECT_EQ(KindOf({0x90, 0x02}, &Why), Kind::Stop); // RA at CFA-16
  EXPECT_EQ(Why, StopReason::ReturnAddress);
  EXPECT_EQ(KindOf({0x07, 0x10}), Kind::EndOfStack); // RA undefined
  EXPECT_EQ(KindOf({0x09, 0x06, 0x03}, &Why), Kind::Stop); // rbp in rbx
  EXPECT_EQ(Why, StopReason::RbpRule);
  EXPECT_EQ(KindOf({0x01, 0, 0, 0, 0}, &Why), Kind::Stop); // set_loc
  EXPECT_EQ(Why, StopReason::Opcode);
  EXPECT_EQ(KindOf({0x0b}, &Why), Kind::Stop); // restore_state unmatched
  EXPECT_EQ(Why, StopReason::StateStack);
  std::vector<uint8_t> Deep(9, 0x0a);
  EXPECT_EQ(KindOf(Deep, &Why), Kind::Stop);
  EXPECT_EQ(Why, StopReason::StateStack);
  std::vector<uint8_t> Eight(8, 0x0a);
  EXPECT_EQ(KindOf(Eight), Kind::CfaRsp);
  // A ULEB128 that never ends inside the FDE.
  std::vector<uint8_t> Long = {0x0e};
  Long.insert(Long.end(), 40, 0xff);
  EXPECT_EQ(KindOf(Long), Kind::Stop);
  // An S CIE: a signal frame.
  Image S = build({}, 0x100, 0x40, "zRS");
  EXPECT_EQ(findRule(S.tables(), S.at(0x100)).K, Kind::SignalFrame);
}

TEST(CfiDecoder, HostileHeadersAndEntries) {
  Image Good = build({0x41, 0x0e, 0x10});
  ASSERT_EQ(findRule(Good.tables(), Good.at(0x110)).K, Kind::CfaRsp);
  auto With = [&](size_t At, uint32_t V) {
    Image I = Good;
    put32(I.Bytes, At, V);
    return findRule(I.tables(), I.at(0x110));
  };
  EXPECT_EQ(With(8, 0xffffffff).Why, StopReason::BadTable);  // fde_count
  EXPECT_EQ(With(16, 0x7fffffff).Why, StopReason::BadTable); // FDE far away
  EXPECT_EQ(With(16, 0x80000000).Why, StopReason::BadTable); // and before
  size_t Fde = 16;
  uint32_t FdeOff;
  memcpy(&FdeOff, Good.Bytes.data() + Fde, 4);
  EXPECT_EQ(With(FdeOff, 0xffffffff).Why, StopReason::BadEntry); // 64-bit length
  EXPECT_EQ(With(FdeOff, 0x7ffffff0).Why, StopReason::BadEntry); // past the end
  EXPECT_EQ(With(FdeOff, 0).Why, StopReason::BadEntry);          // terminator
  EXPECT_EQ(With(FdeOff + 4, 0).Why, StopReason::BadEntry);      // no CIE
  EXPECT_EQ(With(FdeOff + 4, 0x7fffffff).Why, StopReason::BadEntry);
  // The CIE pointer aimed at the FDE itself: its "CIE id" is not 0.
  EXPECT_EQ(With(FdeOff + 4, 4).Why, StopReason::BadEntry);
  EXPECT_EQ(With(0x20, 0x7ffffff0).Why, StopReason::BadEntry); // CIE length
  Image BadVersion = Good;
  BadVersion.Bytes[0] = 2;
  EXPECT_EQ(findRule(BadVersion.tables(), BadVersion.at(0x110)).Why,
            StopReason::BadHeader);
  Image Short = Good;
  Short.HdrSize = 11;
  EXPECT_EQ(findRule(Short.tables(), Short.at(0x110)).Why,
            StopReason::BadHeader);
  // Every truncation of the readable range: never a read past it (ASan
  // sees the copy's end), and the rule only once the FDE is whole.
  uint32_t FdeLen;
  memcpy(&FdeLen, Good.Bytes.data() + FdeOff, 4);
  const size_t FdeEnd = FdeOff + 4 + FdeLen;
  for (size_t N = 0; N < Good.Bytes.size(); ++N) {
    std::vector<uint8_t> Copy(Good.Bytes.begin(), Good.Bytes.begin() + N);
    Tables T;
    T.Lo = T.Hdr = reinterpret_cast<uintptr_t>(Copy.data());
    T.Hi = T.Lo + N;
    T.HdrEnd = T.Lo + std::min<size_t>(N, Good.HdrSize);
    Rule R = findRule(T, T.Lo + 0x110);
    EXPECT_EQ(R.K == Kind::CfaRsp, N >= FdeEnd) << N;
  }
}

TEST(CfiDecoder, ZeroLengthFdeFollowedBySameStart) {
  // LLVM 22's libraries: the table points to a zero-length FDE, and the
  // real one (same start) follows it in .eh_frame.
  Image I = build({0x41, 0x0e, 0x10}, 0x100, 0);
  uint32_t FdeOff;
  memcpy(&FdeOff, I.Bytes.data() + 16, 4);
  uint32_t Len;
  memcpy(&Len, I.Bytes.data() + FdeOff, 4);
  size_t Next = FdeOff + 4 + Len;
  // A copy of the FDE with the real range after it.
  std::vector<uint8_t> Copy(I.Bytes.begin() + FdeOff,
                            I.Bytes.begin() + FdeOff + 4 + Len);
  memcpy(I.Bytes.data() + Next, Copy.data(), Copy.size());
  uint32_t CiePtr;
  memcpy(&CiePtr, Copy.data() + 4, 4);
  put32(I.Bytes, Next + 4, uint32_t(CiePtr + (Next - FdeOff)));
  int32_t Begin;
  memcpy(&Begin, Copy.data() + 8, 4);
  put32(I.Bytes, Next + 8, uint32_t(Begin - int32_t(Next - FdeOff)));
  put32(I.Bytes, Next + 12, 0x40);
  Rule R = findRule(I.tables(), I.at(0x110));
  EXPECT_EQ(R.K, Kind::CfaRsp);
  EXPECT_EQ(R.CfaOffset, 16);
  // Without the follower: no FDE.
  put32(I.Bytes, Next + 8, 0x1234);
  EXPECT_EQ(findRule(I.tables(), I.at(0x110)).K, Kind::NoFde);
}

/// A table of several FDEs under one "zR" CIE, each {program, code start,
/// code size}; the header lists them in the order given.
struct FdeSpec {
  std::vector<uint8_t> Program;
  uint32_t Code, Range;
};
Image buildFdes(const std::vector<FdeSpec> &Fdes) {
  Image I;
  std::vector<uint8_t> &B = I.Bytes;
  B.assign(0x10000 + 64 * Fdes.size(), 0xcc);
  I.HdrSize = 12 + 8 * Fdes.size();
  size_t Cie = (I.HdrSize + 7) & ~size_t(7);
  std::vector<uint8_t> CieBody = {0, 0, 0, 0, 1, 'z', 'R', 0, 0x01, 0x78,
                                  0x10, 0x01, 0x1b, 0x0c, 0x07, 0x08, 0x90,
                                  0x01};
  while ((CieBody.size() + 4) % 8)
    CieBody.push_back(0);
  put32(B, Cie, uint32_t(CieBody.size()));
  memcpy(B.data() + Cie + 4, CieBody.data(), CieBody.size());
  size_t Fde = Cie + 4 + CieBody.size();
  B[0] = 1, B[1] = 0x1b, B[2] = 0x03, B[3] = 0x3b;
  put32(B, 4, uint32_t(Cie - 4));
  put32(B, 8, uint32_t(Fdes.size()));
  for (size_t N = 0; N < Fdes.size(); ++N) {
    std::vector<uint8_t> Body(12, 0);
    Body.push_back(0); // augmentation data length
    Body.insert(Body.end(), Fdes[N].Program.begin(), Fdes[N].Program.end());
    while ((Body.size() + 4) % 8)
      Body.push_back(0);
    put32(B, Fde, uint32_t(Body.size()));
    memcpy(B.data() + Fde + 4, Body.data(), Body.size());
    put32(B, Fde + 4, uint32_t(Fde + 4 - Cie));
    put32(B, Fde + 8, uint32_t(int32_t(Fdes[N].Code) - int32_t(Fde + 8)));
    put32(B, Fde + 12, Fdes[N].Range);
    put32(B, 12 + 8 * N, Fdes[N].Code);
    put32(B, 16 + 8 * N, uint32_t(Fde));
    Fde += 4 + Body.size();
  }
  put32(B, Fde, 0); // terminator
  return I;
}

// push rbp; mov rsp,rbp: the frame-pointer prologue.
const std::vector<uint8_t> FpPrologue = {0x41, 0x0e, 0x10, 0x86, 0x02,
                                         0x43, 0x0d, 0x06};
// sub $8,%rsp: a frame without a frame pointer.
const std::vector<uint8_t> NoFp = {0x44, 0x0e, 0x10};
// A PLT's CFA expression.
const std::vector<uint8_t> Plt = {0x0f, 0x02, 0x77, 0x08};

TEST(CfiDecoder, KeepsFramePointersWithListedExceptions) {
  Image I = buildFdes({{Plt, 0x1000, 0x20},
                       {FpPrologue, 0x1100, 0x40},
                       {NoFp, 0x1140, 0x20},
                       {FpPrologue, 0x1160, 0x40},
                       {{}, 0x11a0, 0}}); // a zero-length entry: nothing
  CodeRange E[4];
  unsigned N = 99;
  ASSERT_TRUE(keepsFramePointers(I.tables(), E, 4, N));
  ASSERT_EQ(N, 2u);
  EXPECT_EQ(E[0].Begin, I.at(0x1000));
  EXPECT_EQ(E[0].End, I.at(0x1020));
  EXPECT_EQ(E[1].Begin, I.at(0x1140));
  EXPECT_EQ(E[1].End, I.at(0x1160));
  // One exception too many: no longer a module that keeps them.
  EXPECT_FALSE(keepsFramePointers(I.tables(), E, 1, N));
  // No FDE with a frame pointer at all.
  Image None = buildFdes({{NoFp, 0x1000, 0x20}, {Plt, 0x1020, 0x20}});
  EXPECT_FALSE(keepsFramePointers(None.tables(), E, 4, N));
  // The same FDE listed twice is counted once.
  Image Twice = buildFdes({{FpPrologue, 0x1000, 0x20},
                           {FpPrologue, 0x1000, 0x20},
                           {NoFp, 0x1020, 0x20}});
  ASSERT_TRUE(keepsFramePointers(Twice.tables(), E, 4, N));
  EXPECT_EQ(N, 1u);
}

TEST(CfiDecoder, KeepsFramePointersRefusesBadTables) {
  CodeRange E[4];
  unsigned N;
  // Out of order, and overlapping: the exceptions could not be searched.
  Image Unsorted = buildFdes({{FpPrologue, 0x1100, 0x40},
                              {NoFp, 0x1000, 0x20}});
  EXPECT_FALSE(keepsFramePointers(Unsorted.tables(), E, 4, N));
  Image Overlap = buildFdes({{FpPrologue, 0x1000, 0x40},
                             {FpPrologue, 0x1020, 0x40}});
  EXPECT_FALSE(keepsFramePointers(Overlap.tables(), E, 4, N));
  // A damaged entry: its length runs past the segment.
  Image Damaged = buildFdes({{FpPrologue, 0x1000, 0x40},
                             {FpPrologue, 0x1040, 0x40}});
  int32_t Second;
  memcpy(&Second, Damaged.Bytes.data() + 24, 4); // the second FDE
  put32(Damaged.Bytes, size_t(Second), 0x7ffffff0);
  EXPECT_FALSE(keepsFramePointers(Damaged.tables(), E, 4, N));
  // A bad header.
  Image BadHdr = buildFdes({{FpPrologue, 0x1000, 0x40}});
  BadHdr.Bytes[0] = 2;
  EXPECT_FALSE(keepsFramePointers(BadHdr.tables(), E, 4, N));
  // Debian's libstdc++ is built without frame pointers.
  Module M;
  ASSERT_TRUE(findModule("libstdc++.so.6", M));
  CodeRange Many[32];
  EXPECT_FALSE(keepsFramePointers(M.T, Many, 32, N));
}

TEST(CfiDecoder, DamagedCopiesOfARealTable) {
  Module M;
  ASSERT_TRUE(findModule("libstdc++.so.6", M));
  // The header, its table and the .eh_frame after it, copied into one
  // buffer with the same layout (offsets preserved from Hdr on).
  size_t Size = M.T.Hi - M.T.Hdr;
  std::vector<uint8_t> Orig(reinterpret_cast<const uint8_t *>(M.T.Hdr),
                            reinterpret_cast<const uint8_t *>(M.T.Hdr) + Size);
  std::mt19937_64 Rng(11);
  for (int Iter = 0; Iter < 200; ++Iter) {
    std::vector<uint8_t> Copy = Orig;
    size_t Flips = 1 + Rng() % 64;
    size_t Window = std::min<size_t>(Size, (M.T.HdrEnd - M.T.Hdr) + 0x40000);
    for (size_t F = 0; F < Flips; ++F)
      Copy[Rng() % Window] ^= uint8_t(1 + Rng() % 255);
    Tables T;
    T.Hdr = T.Lo = reinterpret_cast<uintptr_t>(Copy.data());
    T.HdrEnd = T.Hdr + (M.T.HdrEnd - M.T.Hdr);
    T.Hi = T.Lo + Copy.size();
    // Code addresses relative to the copy, as the real ones to the header.
    for (int K = 0; K < 50; ++K) {
      uintptr_t Target = T.Hdr + (Rng() % (2 * Size)) - Size / 2;
      Rule R = findRule(T, Target);
      EXPECT_LE(int(R.K), int(Kind::SignalFrame));
    }
    // The module's class: every FDE read, inside the copy (ASan).
    CodeRange E[32];
    unsigned N = 0;
    if (keepsFramePointers(T, E, 32, N))
      for (unsigned K = 0; K < N; ++K)
        EXPECT_TRUE(E[K].Begin < E[K].End &&
                    (K == 0 || E[K - 1].End <= E[K].Begin));
  }
}

} // namespace
