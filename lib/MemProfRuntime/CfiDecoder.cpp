//===- CfiDecoder.cpp - Compact unwind rules from .eh_frame ---------------===//
#include "CfiDecoder.h"

namespace memprof {
namespace rt {
namespace cfi {

namespace {

// DWARF registers of x86-64 and the return-address column.
constexpr uint64_t RegRbp = 6, RegRsp = 7, RegRa = 16;
constexpr unsigned MaxStates = 8;  // remember_state depth
constexpr unsigned MaxZeroLengthFollow = 8;

/// A bounded reader over [P, End).
struct Cursor {
  uintptr_t P, End;
  bool Bad = false;

  bool has(uint64_t N) const { return !Bad && P <= End && N <= End - P; }
  uint8_t u8() {
    if (!has(1)) {
      Bad = true;
      return 0;
    }
    return *reinterpret_cast<const uint8_t *>(P++);
  }
  uint32_t u32() {
    if (!has(4)) {
      Bad = true;
      return 0;
    }
    uint32_t V;
    __builtin_memcpy(&V, reinterpret_cast<const void *>(P), 4);
    P += 4;
    return V;
  }
  uint16_t u16() {
    if (!has(2)) {
      Bad = true;
      return 0;
    }
    uint16_t V;
    __builtin_memcpy(&V, reinterpret_cast<const void *>(P), 2);
    P += 2;
    return V;
  }
  uint64_t uleb() {
    uint64_t V = 0;
    for (unsigned Shift = 0;; Shift += 7) {
      uint8_t B = u8();
      if (Bad)
        return 0;
      if (Shift < 64)
        V |= uint64_t(B & 0x7f) << Shift;
      else if (B & 0x7f) {
        Bad = true; // does not fit in 64 bits
        return 0;
      }
      if (!(B & 0x80))
        return V;
      if (Shift > 70) {
        Bad = true;
        return 0;
      }
    }
  }
  int64_t sleb() {
    int64_t V = 0;
    unsigned Shift = 0;
    uint8_t B;
    do {
      B = u8();
      if (Bad)
        return 0;
      if (Shift < 64)
        V |= int64_t(uint64_t(B & 0x7f) << Shift);
      Shift += 7;
      if (Shift > 70) {
        Bad = true;
        return 0;
      }
    } while (B & 0x80);
    if (Shift < 64 && (B & 0x40))
      V |= int64_t(~uint64_t(0) << Shift); // sign-extend (unsigned: no overflow)
    return V;
  }
  void skip(uint64_t N) {
    if (!has(N)) {
      Bad = true;
      return;
    }
    P += N;
  }
};

Rule stop(StopReason Why) {
  Rule R;
  R.K = Kind::Stop;
  R.Why = Why;
  return R;
}

/// What the CIE says, and where its program is.
struct Cie {
  int64_t DataAlign = 0;
  uint64_t CodeAlign = 1;
  uint8_t FdeEncoding = 0;
  bool HasAugData = false;
  bool Signal = false;
  uintptr_t Program = 0, ProgramEnd = 0;
};

bool parseCie(uintptr_t At, const Tables &T, Cie &C) {
  Cursor Cur{At, T.Hi};
  if (At < T.Lo)
    return false;
  uint32_t Length = Cur.u32();
  if (Cur.Bad || Length == 0 || Length == 0xffffffffu || !Cur.has(Length))
    return false;
  uintptr_t End = Cur.P + Length;
  Cur.End = End;
  if (Cur.u32() != 0) // CIE id
    return false;
  uint8_t Version = Cur.u8();
  if (Version != 1 && Version != 3)
    return false;
  // The augmentation string: at most a few letters.
  char Aug[8];
  unsigned N = 0;
  for (;;) {
    uint8_t Ch = Cur.u8();
    if (Cur.Bad)
      return false;
    if (!Ch)
      break;
    if (N == sizeof(Aug))
      return false;
    Aug[N++] = char(Ch);
  }
  C.CodeAlign = Cur.uleb();
  C.DataAlign = Cur.sleb();
  uint64_t RaReg = Version == 1 ? Cur.u8() : Cur.uleb();
  if (Cur.Bad || RaReg != RegRa || C.CodeAlign == 0)
    return false;
  C.FdeEncoding = 0; // absptr unless 'R' says otherwise
  if (N) {
    if (Aug[0] != 'z')
      return false; // pre-'z' augmentations ("eh") are not followed
    C.HasAugData = true;
    uint64_t AugLen = Cur.uleb();
    if (Cur.Bad || !Cur.has(AugLen))
      return false;
    uintptr_t AugEnd = Cur.P + AugLen;
    for (unsigned I = 1; I < N; ++I) {
      switch (Aug[I]) {
      case 'R':
        C.FdeEncoding = Cur.u8();
        break;
      case 'L':
        Cur.u8(); // the LSDA encoding: the FDE's 'z' length skips the LSDA
        break;
      case 'P': { // the personality routine's pointer, in its encoding
        uint8_t Enc = Cur.u8();
        switch (Enc & 0x0f) {
        case 0x00: // absptr
        case 0x04: // udata8
        case 0x0c: // sdata8
          Cur.skip(8);
          break;
        case 0x02:
        case 0x0a:
          Cur.skip(2);
          break;
        case 0x03:
        case 0x0b:
          Cur.skip(4);
          break;
        case 0x01:
          Cur.uleb();
          break;
        case 0x09:
          Cur.sleb();
          break;
        default:
          return false;
        }
        break;
      }
      case 'S':
        C.Signal = true;
        break;
      default:
        // An unknown letter: the 'z' length still skips its data, but its
        // meaning for the FDEs is unknown.
        return false;
      }
      if (Cur.Bad || Cur.P > AugEnd)
        return false;
    }
    Cur.P = AugEnd;
  }
  if (Cur.Bad)
    return false;
  C.Program = Cur.P;
  C.ProgramEnd = End;
  return true;
}

/// The CFA-program state the compact rule keeps.
struct Row {
  uint64_t CfaReg = RegRsp;
  int64_t CfaOffset = 8;
  bool CfaExpression = false;
  enum RegRule : uint8_t { Same, Offset, Undefined, Other };
  RegRule Rbp = Same, Ra = Offset;
  int64_t RbpOffset = 0, RaOffset = -8;
};

void setRule(Row &R, uint64_t Reg, Row::RegRule Rule, int64_t Off) {
  if (Reg == RegRbp) {
    R.Rbp = Rule;
    R.RbpOffset = Off;
  } else if (Reg == RegRa) {
    R.Ra = Rule;
    R.RaOffset = Off;
  }
  // Other registers are not tracked.
}

void restoreRule(Row &R, const Row &Initial, uint64_t Reg) {
  if (Reg == RegRbp) {
    R.Rbp = Initial.Rbp;
    R.RbpOffset = Initial.RbpOffset;
  } else if (Reg == RegRa) {
    R.Ra = Initial.Ra;
    R.RaOffset = Initial.RaOffset;
  }
}

/// Runs the program [P, End) from \p Loc up to (not past) \p Target. With
/// \p Initial null, this is the CIE's program, which has no locations.
/// Returns false with \p Why on what the compact rule cannot follow.
/// \p V (a factored offset, signed or not) times the data alignment; false
/// when the product does not fit (a hostile table).
bool scaled(int64_t V, int64_t Align, int64_t &Out) {
  return !__builtin_mul_overflow(V, Align, &Out);
}
bool scaledU(uint64_t V, int64_t Align, int64_t &Out) {
  return V <= uint64_t(INT64_MAX) && scaled(int64_t(V), Align, Out);
}

/// With \p SawFp, also notes whether some row keeps a frame pointer: CFA =
/// rbp + 16 with the caller's rbp at CFA-16 (push %rbp; mov %rsp,%rbp).
bool run(uintptr_t P, uintptr_t End, const Cie &C, uintptr_t Loc,
         uintptr_t Target, const Row *Initial, Row &R, StopReason &Why,
         bool *SawFp = nullptr) {
  Cursor Cur{P, End};
  Row Stack[MaxStates];
  unsigned Depth = 0;
  while (Cur.P < End) {
    uint8_t Op = Cur.u8();
    uint64_t Advance = 0;
    bool IsAdvance = false;
    switch (Op >> 6) {
    case 1: // advance_loc
      Advance = Op & 0x3f;
      IsAdvance = true;
      break;
    case 2: { // offset
      int64_t Off;
      if (!scaledU(Cur.uleb(), C.DataAlign, Off))
        Cur.Bad = true;
      setRule(R, Op & 0x3f, Row::Offset, Off);
      break;
    }
    case 3: // restore
      if (!Initial) {
        Why = StopReason::Opcode;
        return false;
      }
      restoreRule(R, *Initial, Op & 0x3f);
      break;
    default:
      switch (Op) {
      case 0x00: // nop
        break;
      case 0x02:
        Advance = Cur.u8();
        IsAdvance = true;
        break;
      case 0x03:
        Advance = Cur.u16();
        IsAdvance = true;
        break;
      case 0x04:
        Advance = Cur.u32();
        IsAdvance = true;
        break;
      case 0x05: { // offset_extended
        uint64_t Reg = Cur.uleb();
        int64_t Off;
        if (!scaledU(Cur.uleb(), C.DataAlign, Off))
          Cur.Bad = true;
        setRule(R, Reg, Row::Offset, Off);
        break;
      }
      case 0x11: { // offset_extended_sf
        uint64_t Reg = Cur.uleb();
        int64_t Off;
        if (!scaled(Cur.sleb(), C.DataAlign, Off))
          Cur.Bad = true;
        setRule(R, Reg, Row::Offset, Off);
        break;
      }
      case 0x06: { // restore_extended
        uint64_t Reg = Cur.uleb();
        if (!Initial) {
          Why = StopReason::Opcode;
          return false;
        }
        restoreRule(R, *Initial, Reg);
        break;
      }
      case 0x07: // undefined
        setRule(R, Cur.uleb(), Row::Undefined, 0);
        break;
      case 0x08: // same_value
        setRule(R, Cur.uleb(), Row::Same, 0);
        break;
      case 0x09: { // register: reg held in another register
        uint64_t Reg = Cur.uleb();
        Cur.uleb();
        setRule(R, Reg, Row::Other, 0);
        break;
      }
      case 0x0a: // remember_state
        if (Depth == MaxStates) {
          Why = StopReason::StateStack;
          return false;
        }
        Stack[Depth++] = R;
        break;
      case 0x0b: // restore_state (the CFA too, as GCC and libgcc do)
        if (Depth == 0) {
          Why = StopReason::StateStack;
          return false;
        }
        R = Stack[--Depth];
        break;
      case 0x0c: // def_cfa
        R.CfaReg = Cur.uleb();
        R.CfaOffset = int64_t(Cur.uleb());
        R.CfaExpression = false;
        break;
      case 0x12: // def_cfa_sf
        R.CfaReg = Cur.uleb();
        if (!scaled(Cur.sleb(), C.DataAlign, R.CfaOffset))
          Cur.Bad = true;
        R.CfaExpression = false;
        break;
      case 0x0d: // def_cfa_register
        R.CfaReg = Cur.uleb();
        R.CfaExpression = false;
        break;
      case 0x0e: // def_cfa_offset
        R.CfaOffset = int64_t(Cur.uleb());
        break;
      case 0x13: // def_cfa_offset_sf
        if (!scaled(Cur.sleb(), C.DataAlign, R.CfaOffset))
          Cur.Bad = true;
        break;
      case 0x0f: { // def_cfa_expression
        uint64_t Len = Cur.uleb();
        Cur.skip(Len);
        R.CfaExpression = true;
        break;
      }
      case 0x10:   // expression
      case 0x16: { // val_expression
        uint64_t Reg = Cur.uleb();
        uint64_t Len = Cur.uleb();
        Cur.skip(Len);
        setRule(R, Reg, Row::Other, 0);
        break;
      }
      case 0x14: // val_offset
        setRule(R, Cur.uleb(), Row::Other, 0);
        Cur.uleb();
        break;
      case 0x15: // val_offset_sf
        setRule(R, Cur.uleb(), Row::Other, 0);
        Cur.sleb();
        break;
      case 0x2e: // GNU_args_size
        Cur.uleb();
        break;
      default: // set_loc, vendor opcodes, anything else
        Why = StopReason::Opcode;
        return false;
      }
    }
    if (Cur.Bad) {
      Why = StopReason::BadEntry;
      return false;
    }
    if (SawFp && R.CfaReg == RegRbp && R.CfaOffset == 16 && !R.CfaExpression &&
        R.Rbp == Row::Offset && R.RbpOffset == -16)
      *SawFp = true;
    if (IsAdvance) {
      if (!Initial) { // the CIE's program has no locations
        Why = StopReason::Opcode;
        return false;
      }
      uint64_t Delta;
      if (__builtin_mul_overflow(Advance, C.CodeAlign, &Delta) ||
          Delta > Target - Loc) // the next row starts past the target
        return true;
      Loc += Delta;
    }
  }
  return true;
}

} // namespace

namespace {

/// The header's table, checked: its entry count, or 0 with \p Bad.
uint32_t headerEntries(const Tables &T, Rule &Bad) {
  // The header: version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4,
  // table datarel|sdata4 (relative to the header's start).
  if (T.Hdr >= T.HdrEnd || T.HdrEnd - T.Hdr < 12 || T.Lo >= T.Hi) {
    Bad = stop(StopReason::BadHeader);
    return 0;
  }
  const uint8_t *H = reinterpret_cast<const uint8_t *>(T.Hdr);
  if (H[0] != 1 || H[1] != 0x1b || H[2] != 0x03 || H[3] != 0x3b) {
    Bad = stop(StopReason::BadHeader);
    return 0;
  }
  uint32_t Count;
  __builtin_memcpy(&Count, H + 8, 4);
  if (Count == 0 || Count > (T.HdrEnd - T.Hdr - 12) / 8) {
    Bad = Rule();
    Bad.K = Count == 0 ? Kind::NoFde : Kind::Stop;
    Bad.Why = Count == 0 ? StopReason::None : StopReason::BadTable;
    return 0;
  }
  return Count;
}

void entryAt(const Tables &T, uint32_t I, int32_t &Init, int32_t &Fde) {
  const uint8_t *H = reinterpret_cast<const uint8_t *>(T.Hdr);
  __builtin_memcpy(&Init, H + 12 + 8 * uint64_t(I), 4);
  __builtin_memcpy(&Fde, H + 12 + 8 * uint64_t(I) + 4, 4);
}

/// The rule of the FDE at \p Fde at \p Target; with \p SawFp, its whole
/// program is run instead (Target ignored) and *SawFp says whether some row
/// keeps a frame pointer.
Rule fdeRule(const Tables &T, uintptr_t Fde, uintptr_t Target,
             bool *SawFp) {
  for (unsigned Follow = 0;; ++Follow) {
    if (Fde < T.Lo || Fde >= T.Hi)
      return stop(StopReason::BadTable);
    Cursor Cur{Fde, T.Hi};
    uint32_t Length = Cur.u32();
    if (Cur.Bad || Length == 0 || Length == 0xffffffffu || !Cur.has(Length))
      return stop(StopReason::BadEntry);
    uintptr_t End = Cur.P + Length;
    Cur.End = End;
    uintptr_t CiePtrAt = Cur.P;
    uint32_t CiePtr = Cur.u32();
    if (Cur.Bad || CiePtr == 0 || CiePtr > CiePtrAt - T.Lo)
      return stop(StopReason::BadEntry);
    Cie C;
    if (!parseCie(CiePtrAt - CiePtr, T, C) || C.FdeEncoding != 0x1b)
      return stop(StopReason::BadEntry);
    uintptr_t BeginAt = Cur.P;
    int32_t Begin = int32_t(Cur.u32());
    uint32_t Range = Cur.u32();
    if (Cur.Bad)
      return stop(StopReason::BadEntry);
    uintptr_t PcBegin = BeginAt + uintptr_t(intptr_t(Begin));
    // LLVM 22's libraries: a zero-length FDE listed in place of the real
    // one that starts at the same address and follows it in .eh_frame.
    if (Range == 0 && Follow < MaxZeroLengthFollow) {
      Fde = End;
      Cursor Next{Fde, T.Hi};
      uint32_t NextLen = Next.u32();
      uint32_t NextCie = Next.u32();
      uintptr_t NextBeginAt = Next.P;
      int32_t NextBegin = int32_t(Next.u32());
      if (Next.Bad || NextLen == 0 || NextCie == 0 ||
          NextBeginAt + uintptr_t(intptr_t(NextBegin)) != PcBegin) {
        Rule R;
        R.K = Kind::NoFde;
        return R;
      }
      continue;
    }
    if (SawFp) {
      Target = Range ? PcBegin + Range - 1 : PcBegin;
    } else if (Target < PcBegin || Target - PcBegin >= Range) {
      Rule R;
      R.K = Kind::NoFde;
      return R;
    }
    if (C.HasAugData) {
      uint64_t AugLen = Cur.uleb();
      Cur.skip(AugLen);
      if (Cur.Bad)
        return stop(StopReason::BadEntry);
    }
    Rule R;
    R.Begin = PcBegin;
    R.End = PcBegin + Range;
    // A stop in a known FDE keeps its range (keepsFramePointers sets the
    // code apart).
    auto stopIn = [&](StopReason Why) {
      Rule S = stop(Why);
      S.Begin = R.Begin;
      S.End = R.End;
      return S;
    };
    if (C.Signal) {
      R.K = Kind::SignalFrame;
      return R;
    }
    Row Initial;
    StopReason Why = StopReason::None;
    if (!run(C.Program, C.ProgramEnd, C, PcBegin, Target, nullptr, Initial,
             Why, SawFp))
      return stopIn(Why);
    Row Cur2 = Initial;
    if (!run(Cur.P, End, C, PcBegin, Target, &Initial, Cur2, Why, SawFp))
      return stopIn(Why);
    if (Cur2.Ra == Row::Undefined) {
      R.K = Kind::EndOfStack;
      return R;
    }
    if (Cur2.CfaExpression)
      return stopIn(StopReason::CfaExpression);
    if (Cur2.CfaReg != RegRsp && Cur2.CfaReg != RegRbp)
      return stopIn(StopReason::CfaRegister);
    if (Cur2.Ra != Row::Offset || Cur2.RaOffset != -8)
      return stopIn(StopReason::ReturnAddress);
    if (Cur2.Rbp == Row::Offset) {
      if (Cur2.RbpOffset == 0 || Cur2.RbpOffset < INT32_MIN ||
          Cur2.RbpOffset > INT32_MAX)
        return stopIn(StopReason::RbpRule);
      R.RbpOffset = int32_t(Cur2.RbpOffset);
    } else if (Cur2.Rbp != Row::Same) {
      return stopIn(StopReason::RbpRule);
    }
    if (Cur2.CfaOffset < INT32_MIN || Cur2.CfaOffset > INT32_MAX)
      return stopIn(StopReason::BadEntry);
    R.CfaOffset = int32_t(Cur2.CfaOffset);
    R.K = Cur2.CfaReg == RegRsp ? Kind::CfaRsp : Kind::CfaRbp;
    return R;
  }
}

} // namespace

Rule findRule(const Tables &T, uintptr_t Target) {
  Rule Bad;
  uint32_t Count = headerEntries(T, Bad);
  if (!Count)
    return Bad;
  // The last entry whose start is at or below the target.
  uint32_t Lo = 0, Hi = Count;
  while (Lo < Hi) {
    uint32_t Mid = Lo + (Hi - Lo) / 2;
    int32_t Init, Fde;
    entryAt(T, Mid, Init, Fde);
    if (T.Hdr + uintptr_t(intptr_t(Init)) <= Target)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  if (Lo == 0) {
    Rule R;
    R.K = Kind::NoFde;
    return R;
  }
  int32_t Init, FdeOff;
  entryAt(T, Lo - 1, Init, FdeOff);
  return fdeRule(T, T.Hdr + uintptr_t(intptr_t(FdeOff)), Target, nullptr);
}

bool keepsFramePointers(const Tables &T, CodeRange *Exceptions,
                        unsigned MaxExceptions, unsigned &NumExceptions) {
  NumExceptions = 0;
  Rule Bad;
  uint32_t Count = headerEntries(T, Bad);
  if (!Count)
    return false;
  uint32_t WithFp = 0;
  uintptr_t PrevBegin = 0, Last = 0;
  for (uint32_t I = 0; I < Count; ++I) {
    int32_t Init, FdeOff;
    entryAt(T, I, Init, FdeOff);
    bool SawFp = false;
    Rule R = fdeRule(T, T.Hdr + uintptr_t(intptr_t(FdeOff)), 0, &SawFp);
    if (R.K == Kind::Stop && R.Begin == R.End)
      return false; // a damaged entry: no range to set apart
    if (R.K == Kind::NoFde || R.Begin == R.End)
      continue; // nothing to step: no code, or a lone zero-length entry
    if (R.Begin < Last) {
      if (R.Begin == PrevBegin && R.End == Last)
        continue; // the same FDE listed twice
      return false; // overlapping or out of order
    }
    PrevBegin = R.Begin;
    Last = R.End;
    // A rule outside the compact form (a PLT's CFA expression) is no frame
    // pointer either: the walk steps such code with CFI, and stops there.
    if (SawFp && R.K != Kind::SignalFrame) {
      ++WithFp;
      continue;
    }
    if (NumExceptions == MaxExceptions)
      return false;
    Exceptions[NumExceptions++] = CodeRange{R.Begin, R.End};
  }
  return WithFp > 0;
}

} // namespace cfi
} // namespace rt
} // namespace memprof
