//===- CfiDecoder.h - Compact unwind rules from .eh_frame --------*- C++ -*-===//
//
// The rule decoder of the hybrid unwinder (docs: ../shared/docs/
// eh-frame-unwinding.md, sections 2-4 and 8): given a module's
// .eh_frame_hdr and the readable range that holds its .eh_frame, finds the
// FDE of a code address through the header's sorted table and runs the CIE's
// and the FDE's CFA programs up to that address, keeping only what stepping a
// frame on x86-64 needs: the CFA as rsp or rbp plus an offset, the return
// address at CFA-8, and where the caller's rbp was saved. Anything rarer
// (CFA expressions, other CFA registers, the return address elsewhere) is a
// Stop, never a guess.
//
// Freestanding like the rest of the runtime: no libstdc++, no allocation, no
// locks. Every byte read lies inside the ranges given, so a corrupt or
// hostile table yields Stop or NoFde, never a fault; every loop is bounded
// by the bytes it consumes.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_RUNTIME_CFIDECODER_H
#define MEMPROF_RUNTIME_CFIDECODER_H

#include <stdint.h>

namespace memprof {
namespace rt {
namespace cfi {

/// Where a module's unwind tables are mapped.
struct Tables {
  uintptr_t Hdr = 0, HdrEnd = 0; ///< .eh_frame_hdr (PT_GNU_EH_FRAME)
  uintptr_t Lo = 0, Hi = 0;      ///< the readable segment holding .eh_frame
};

enum class Kind : uint8_t {
  None = 0,
  CfaRsp = 1,      ///< CFA = rsp + CfaOffset
  CfaRbp = 2,      ///< CFA = rbp + CfaOffset
  EndOfStack = 3,  ///< the return address is undefined: the outermost frame
  Stop = 4,        ///< a rule outside the compact form, or a bad table
  NoFde = 5,       ///< no FDE covers the address
  SignalFrame = 6, ///< an FDE of an "S" CIE (a signal trampoline)
};

/// Why a Stop: for statistics and tests.
enum class StopReason : uint8_t {
  None = 0,
  BadHeader,      ///< .eh_frame_hdr version or encodings not supported
  BadTable,       ///< an entry or an FDE outside its range
  BadEntry,       ///< a CIE or FDE malformed or unsupported (length, version...)
  CfaRegister,    ///< CFA based on a register other than rsp and rbp
  CfaExpression,  ///< DW_CFA_def_cfa_expression
  ReturnAddress,  ///< the return address not at CFA-8
  RbpRule,        ///< rbp restored by a rule other than an offset
  Opcode,         ///< an opcode the decoder does not follow
  StateStack,     ///< remember_state nested too deep, or restore_state unmatched
};

struct Rule {
  Kind K = Kind::None;
  StopReason Why = StopReason::None;
  int32_t CfaOffset = 0;
  /// Where the caller's rbp is saved, relative to the CFA; 0: unchanged.
  int32_t RbpOffset = 0;
  /// The covering FDE's code range, when one was found.
  uintptr_t Begin = 0, End = 0;
};

/// The rule at \p Target: RA-1 for a frame reached through a return
/// address, the instruction itself for an interrupted one.
Rule findRule(const Tables &T, uintptr_t Target);

/// A function's code, [Begin, End).
struct CodeRange {
  uintptr_t Begin, End;
};

/// Whether the module of \p T keeps frame pointers: every FDE of its table
/// sets up rbp as the CFA's base (push %rbp; mov %rsp,%rbp), but for at most
/// \p MaxExceptions of them, listed in address order in \p Exceptions
/// (crt's _start, PLT stubs, assembly), and at least one does. False for a
/// damaged or unsorted table. Reads every FDE: once per module.
bool keepsFramePointers(const Tables &T, CodeRange *Exceptions,
                        unsigned MaxExceptions, unsigned &NumExceptions);

} // namespace cfi
} // namespace rt
} // namespace memprof

#endif
