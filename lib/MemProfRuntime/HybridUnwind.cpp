//===- HybridUnwind.cpp - Frame-pointer and .eh_frame stack walk ----------===//
#include "HybridUnwind.h"

#include <dlfcn.h>
#include <stddef.h>
#include <sys/ucontext.h>

namespace memprof {
namespace rt {
namespace unwind {

namespace {

template <typename T> bool readStack(uintptr_t At, uintptr_t Lo, uintptr_t Hi,
                                      T &Out) {
  if ((At & 7) || At < Lo || At > Hi - sizeof(T) || Hi < sizeof(T))
    return false;
  Out = *reinterpret_cast<const T *>(At);
  return true;
}

} // namespace

bool tablesAt(uintptr_t Pc, cfi::Tables &T) {
  dl_find_object R;
  if (_dl_find_object(reinterpret_cast<void *>(Pc), &R) != 0)
    return false;
  T = cfi::Tables();
  T.Lo = reinterpret_cast<uintptr_t>(R.dlfo_map_start);
  T.Hi = reinterpret_cast<uintptr_t>(R.dlfo_map_end);
  uintptr_t Hdr = reinterpret_cast<uintptr_t>(R.dlfo_eh_frame);
  if (!Hdr || Hdr < T.Lo || T.Hi < 12 || Hdr > T.Hi - 12)
    return true; // a module without a header: no FDE
  // The header's size follows from its entry count.
  uint32_t Count;
  __builtin_memcpy(&Count, reinterpret_cast<const void *>(Hdr + 8), 4);
  if (uint64_t(Count) > (T.Hi - Hdr - 12) / 8)
    return true;
  T.Hdr = Hdr;
  T.HdrEnd = Hdr + 12 + 8 * uint64_t(Count);
  return true;
}

bool RuleCache::lookup(uintptr_t Key, cfi::Rule &R) const {
  const Entry &E = Entries[index(Key)];
  uint64_t W1 = __atomic_load_n(&E.W1, __ATOMIC_RELAXED);
  uint64_t W0 = __atomic_load_n(&E.W0, __ATOMIC_RELAXED);
  uint32_t Gen = __atomic_load_n(&Generation, __ATOMIC_RELAXED);
  if ((W0 ^ W1) != Key || ((W1 >> 24) & 0xff) != (Gen & 0xff) || !(W1 & 0xff))
    return false;
  R = cfi::Rule();
  R.K = cfi::Kind(W1 & 0xff);
  R.RbpOffset = int16_t(uint16_t(W1 >> 8));
  R.CfaOffset = int32_t(uint32_t(W1 >> 32));
  return true;
}

void RuleCache::insert(uintptr_t Key, const cfi::Rule &R) {
  // Offsets that do not fit the entry are not cached (decoded each time).
  if (R.RbpOffset < INT16_MIN || R.RbpOffset > INT16_MAX)
    return;
  uint32_t Gen = __atomic_load_n(&Generation, __ATOMIC_RELAXED);
  uint64_t W1 = uint64_t(uint8_t(R.K)) |
                uint64_t(uint16_t(int16_t(R.RbpOffset))) << 8 |
                uint64_t(Gen & 0xff) << 24 |
                uint64_t(uint32_t(R.CfaOffset)) << 32;
  Entry &E = Entries[index(Key)];
  __atomic_store_n(&E.W1, W1, __ATOMIC_RELAXED);
  __atomic_store_n(&E.W0, Key ^ W1, __ATOMIC_RELAXED);
}

CodeClass RuleCache::classIn(const FpModule &M, uintptr_t Target) const {
  // The exceptions, sorted and disjoint: the last one starting at or below.
  uint32_t Lo = 0,
           Hi = __atomic_load_n(&M.NumExceptions, __ATOMIC_RELAXED);
  if (Hi > MaxExceptions)
    return CodeClass::Unknown; // torn: the sequence check discards it
  while (Lo < Hi) {
    uint32_t Mid = (Lo + Hi) / 2;
    if (__atomic_load_n(&M.Exceptions[Mid].Begin, __ATOMIC_RELAXED) <= Target)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  if (Lo && Target < __atomic_load_n(&M.Exceptions[Lo - 1].End,
                                     __ATOMIC_RELAXED))
    return CodeClass::Cfi;
  return CodeClass::FramePointer;
}

CodeClass RuleCache::classOf(uintptr_t Target) const {
  const uint32_t N = __atomic_load_n(&NumFpSlots, __ATOMIC_ACQUIRE);
  if (!N)
    return CodeClass::Unknown;
  const uint32_t Gen = __atomic_load_n(&ModuleGeneration, __ATOMIC_RELAXED);
  for (uint32_t I = 0; I < N && I < MaxFpModules; ++I) {
    const FpModule &M = FpModules[I];
    uint32_t Seq = __atomic_load_n(&M.Seq, __ATOMIC_ACQUIRE);
    if ((Seq & 1) ||
        __atomic_load_n(&M.Generation, __ATOMIC_RELAXED) != Gen ||
        Target < __atomic_load_n(&M.Lo, __ATOMIC_RELAXED) ||
        Target >= __atomic_load_n(&M.Hi, __ATOMIC_RELAXED))
      continue;
    CodeClass C = classIn(M, Target);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&M.Seq, __ATOMIC_RELAXED) != Seq)
      return CodeClass::Unknown;
    return C;
  }
  return CodeClass::Unknown;
}

CodeClass RuleCache::classify(const cfi::Tables &T, uintptr_t Target) {
  CodeClass Known = classOf(Target);
  if (Known != CodeClass::Unknown)
    return Known;
  const uint32_t Gen = __atomic_load_n(&ModuleGeneration, __ATOMIC_RELAXED);
  for (const OtherModule &O : Others)
    if (__atomic_load_n(&O.Generation, __ATOMIC_RELAXED) == Gen &&
        __atomic_load_n(&O.Lo, __ATOMIC_RELAXED) == T.Lo &&
        __atomic_load_n(&O.Hi, __ATOMIC_RELAXED) == T.Hi)
      return CodeClass::Cfi;
  cfi::CodeRange Exc[MaxExceptions];
  unsigned NumExc = 0;
  const bool Fp = cfi::keepsFramePointers(T, Exc, MaxExceptions, NumExc);
  // A slot: empty or of an older generation, taken by making its count odd.
  for (uint32_t I = 0; Fp && I < MaxFpModules; ++I) {
    FpModule &M = FpModules[I];
    uint32_t Seq = __atomic_load_n(&M.Seq, __ATOMIC_RELAXED);
    if ((Seq & 1) || __atomic_load_n(&M.Generation, __ATOMIC_RELAXED) == Gen)
      continue;
    if (!__atomic_compare_exchange_n(&M.Seq, &Seq, Seq + 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      continue;
    __atomic_store_n(&M.Lo, T.Lo, __ATOMIC_RELAXED);
    __atomic_store_n(&M.Hi, T.Hi, __ATOMIC_RELAXED);
    __atomic_store_n(&M.NumExceptions, uint32_t(NumExc), __ATOMIC_RELAXED);
    for (unsigned K = 0; K < NumExc; ++K) {
      __atomic_store_n(&M.Exceptions[K].Begin, Exc[K].Begin, __ATOMIC_RELAXED);
      __atomic_store_n(&M.Exceptions[K].End, Exc[K].End, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&M.Generation, Gen, __ATOMIC_RELAXED);
    __atomic_store_n(&M.Seq, Seq + 2, __ATOMIC_RELEASE);
    uint32_t Used = __atomic_load_n(&NumFpSlots, __ATOMIC_RELAXED);
    while (Used < I + 1 &&
           !__atomic_compare_exchange_n(&NumFpSlots, &Used, I + 1, false,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
    return classIn(M, Target);
  }
  // Not one that keeps frame pointers (or no room left for one): its frames
  // are stepped by their rules. Slots are taken in turn, the oldest
  // overwritten when all are used.
  OtherModule &O = Others[__atomic_fetch_add(&NextOther, 1, __ATOMIC_RELAXED) %
                          MaxOtherModules];
  __atomic_store_n(&O.Generation, 0u, __ATOMIC_RELAXED);
  __atomic_store_n(&O.Lo, T.Lo, __ATOMIC_RELAXED);
  __atomic_store_n(&O.Hi, T.Hi, __ATOMIC_RELAXED);
  __atomic_store_n(&O.Generation, Gen, __ATOMIC_RELEASE);
  return CodeClass::Cfi;
}

namespace {

/// A frame's state: the registers the walk needs.
struct State {
  uintptr_t Pc, Sp, Rbp;
  /// Pc is an interrupted instruction (the frame below was the kernel's
  /// signal frame), not a return address.
  bool Interrupted;
};

/// What one step read from the stack, for a memo to check later.
struct StepInfo {
  int32_t RbpOffset; ///< where the caller's rbp was read, from the CFA; 0: not
  bool Signal;       ///< crossed a signal frame (read a ucontext_t)
};

/// Steps the frame \p S (its Pc already recorded) to its caller's state;
/// false with \p Why where the walk ends. Every walk, with a memo or
/// without, steps through here, so the two agree by construction.
inline __attribute__((always_inline)) bool step(RuleCache *Cache, bool Hybrid, State &S,
                                uintptr_t StackLo, uintptr_t StackHi,
                                End &Why, StepInfo &Info) {
  // The rule of a frame that keeps its frame pointer.
  cfi::Rule R;
  const uintptr_t Pc = S.Pc, Sp = S.Sp, Rbp = S.Rbp;
  const bool Interrupted = S.Interrupted;
  const uintptr_t Key = Interrupted ? Pc | (uintptr_t(1) << 63) : Pc;
  const uintptr_t Target = Interrupted ? Pc : Pc - 1;
  // An interrupted frame may stand anywhere in its function, even in a
  // prologue: only its CFI rule says where its caller's state is.
  CodeClass Class = Hybrid && !Interrupted ? Cache->classOf(Target)
                                           : CodeClass::Cfi;
  if (Class == CodeClass::FramePointer) {
    R.K = cfi::Kind::CfaRbp;
    R.CfaOffset = 16;
    R.RbpOffset = -16;
  } else if (!Cache || !Cache->lookup(Key, R)) {
    cfi::Tables T;
    const bool Known = tablesAt(Pc, T);
    if (Known && T.Hdr && Class == CodeClass::Unknown)
      Class = Cache->classify(T, Target);
    if (Class == CodeClass::FramePointer) {
      R.K = cfi::Kind::CfaRbp;
      R.CfaOffset = 16;
      R.RbpOffset = -16;
    } else if (!Known || !T.Hdr) {
      R.K = cfi::Kind::NoFde;
    } else { // a return address: the call is the instruction before it
      R = cfi::findRule(T, Target);
    }
    // PCs in no module are not cached: code may be loaded there later.
    if (Cache && Known && Class != CodeClass::FramePointer)
      Cache->insert(Key, R);
  }
  uintptr_t Cfa;
  // The two usual rules first, without the switch's indirect jump (a
  // misprediction whenever consecutive frames differ in kind).
  const bool Usual = R.K == cfi::Kind::CfaRsp || R.K == cfi::Kind::CfaRbp;
  if (__builtin_expect(Usual, 1)) {
    Cfa = (R.K == cfi::Kind::CfaRbp ? Rbp : Sp) +
          uintptr_t(intptr_t(R.CfaOffset));
  } else {
    switch (R.K) {
    case cfi::Kind::NoFde:
      // Code without CFI: its frame pointer, when rbp looks like one.
      if ((Rbp & 7) || Rbp < Sp || Rbp >= StackHi - 16 || Rbp < StackLo) {
        Why = End::NoModule;
        return false;
      }
      R.RbpOffset = -16;
      Cfa = Rbp + 16;
      break;
    case cfi::Kind::EndOfStack:
      Why = End::EndOfStack;
      return false;
    case cfi::Kind::SignalFrame: {
      // The kernel's signal frame (glibc's __restore_rt): after the
      // handler's return the stack pointer is at the ucontext_t, which
      // holds the interrupted frame's registers.
      constexpr size_t Gregs = offsetof(ucontext_t, uc_mcontext.gregs);
      uintptr_t NewRbp, NewSp, NewPc;
      if (!readStack(Sp + Gregs + 8 * REG_RBP, StackLo, StackHi, NewRbp) ||
          !readStack(Sp + Gregs + 8 * REG_RSP, StackLo, StackHi, NewSp) ||
          !readStack(Sp + Gregs + 8 * REG_RIP, StackLo, StackHi, NewPc) ||
          NewSp <= Sp) {
        Why = End::Bounds;
        return false;
      }
      S.Pc = NewPc;
      S.Sp = NewSp;
      S.Rbp = NewRbp;
      S.Interrupted = true;
      Info.RbpOffset = 0;
      Info.Signal = true;
      return true;
    }
    default:
      Why = End::Rule;
      return false;
    }
  }
  // The CFA lies above the frame's stack pointer, inside the stack.
  uintptr_t NewPc, NewRbp = Rbp;
  if (Cfa <= Sp || Cfa > StackHi ||
      !readStack(Cfa - 8, StackLo, StackHi, NewPc) ||
      (R.RbpOffset &&
       !readStack(Cfa + uintptr_t(intptr_t(R.RbpOffset)), StackLo, StackHi,
                  NewRbp))) {
    Why = End::Bounds;
    return false;
  }
  S.Pc = NewPc;
  S.Sp = Cfa;
  S.Rbp = NewRbp;
  S.Interrupted = false;
  Info.RbpOffset = R.RbpOffset;
  Info.Signal = false;
  return true;
}

} // namespace

unsigned walk(RuleCache *Cache, uintptr_t Pc, uintptr_t Sp, uintptr_t Rbp,
              uintptr_t StackLo, uintptr_t StackHi, uint64_t *PCs,
              unsigned Max, End &Why, bool Hybrid) {
  if (!Cache)
    Hybrid = false;
  State S = {Pc, Sp, Rbp, false};
  unsigned N = 0;
  for (;;) {
    if (S.Pc < 4096) {
      Why = End::BadPC;
      return N;
    }
    if (N == Max) {
      Why = End::Depth;
      return N;
    }
    PCs[N++] = S.Pc;
    StepInfo Info;
    if (!step(Cache, Hybrid, S, StackLo, StackHi, Why, Info))
      return N;
  }
}

namespace {

inline void setFrame(MemoFrame &F, const State &S) {
  F.Pc = S.Pc;
  F.Sp = S.Sp;
  F.Rbp = S.Rbp;
  F.Flags = S.Interrupted ? MemoInterrupted : 0;
  F.RbpOffset = 0;
}

/// Recomputes the hashes of \p F[From..N) from the one below.
inline void rehash(MemoFrame *F, unsigned From, unsigned N) {
  uint64_t H = From ? F[From - 1].Hash : HashSeed;
  for (unsigned I = From; I < N; ++I)
    F[I].Hash = H = hashFromRoot(H, F[I].Pc - 1);
}

} // namespace

unsigned walkMemo(RuleCache *Cache, Memo &M, uintptr_t Pc, uintptr_t Sp,
                  uintptr_t Rbp, uintptr_t StackLo, uintptr_t StackHi,
                  uint64_t *PCs, unsigned Max, End &Why, bool Hybrid,
                  MemoResult &Res, uint64_t Bias) {
  if (!Cache)
    Hybrid = false;
  if (Max > M.Cap)
    Max = M.Cap;
  const uint32_t Gen = Cache ? Cache->generation() : 0;
  MemoFrame *const F = M.Frames, *const New = M.Scratch;
  // The memo's frames are searched from the innermost out, as the walk
  // goes: both climb the stack.
  int R = M.NumFrames && M.Generation == Gen && M.StackHi == StackHi
              ? int(M.NumFrames) - 1
              : -1;
  const unsigned OldNum = M.NumFrames;
  // The context in segments, innermost first: frames stepped by rule
  // (New[Begin], New[Begin + 1], ...) and frames replayed from the memo
  // (F[Begin], F[Begin - 1], ...).
  struct Segment {
    uint16_t Begin, Count;
    bool FromMemo;
  };
  constexpr unsigned MaxSegments = 16;
  Segment Segs[MaxSegments];
  unsigned NumSegs = 0, W = 0, SegStart = 0, Replayed = 0;
  bool EndKnown = false;
  State S = {Pc, Sp, Rbp, false};
  unsigned N = 0;
  for (;;) {
    // By rule, until the walk ends or reaches a frame in the state the
    // memo has it in.
    bool Match = false;
    for (;;) {
      if (S.Pc < 4096) {
        Why = End::BadPC;
        break;
      }
      if (N == Max) {
        Why = End::Depth;
        break;
      }
      if (R >= 0) {
        while (R >= 0 && F[R].Sp < S.Sp)
          --R;
        if (R >= 0 && F[R].Sp == S.Sp && F[R].Pc == S.Pc &&
            F[R].Rbp == S.Rbp &&
            (F[R].Flags & MemoInterrupted) ==
                (S.Interrupted ? MemoInterrupted : 0)) {
          Match = true;
          break;
        }
      }
      PCs[N++] = S.Pc - Bias;
      MemoFrame &Fr = New[W++];
      setFrame(Fr, S);
      StepInfo Info;
      if (!step(Cache, Hybrid, S, StackLo, StackHi, Why, Info)) {
        Fr.Flags |= MemoBarrier;
        break;
      }
      Fr.RbpOffset = Info.RbpOffset;
      if (Info.Signal)
        Fr.Flags |= MemoBarrier;
    }
    if (W > SegStart)
      Segs[NumSegs++] = {uint16_t(SegStart), uint16_t(W - SegStart), false};
    if (!Match)
      break;
    // Replays F[R], F[R-1], ... while each step's words hold what they
    // held. F[V] is the first frame not replayed: its state is exact.
    const unsigned Top = unsigned(R);
    unsigned V = Top;
    while (V > 0 && N < Max && !(F[V].Flags & MemoBarrier)) {
      const MemoFrame &Caller = F[V - 1];
      const uintptr_t Cfa = Caller.Sp; // <= StackHi: the memo's bound
      if (Cfa - 8 < StackLo ||
          *reinterpret_cast<const uint64_t *>(Cfa - 8) != Caller.Pc)
        break;
      if (const int32_t Off = F[V].RbpOffset) {
        const uintptr_t At = Cfa + uintptr_t(intptr_t(Off));
        if ((At & 7) || At < StackLo || At > StackHi - 8 ||
            *reinterpret_cast<const uint64_t *>(At) != Caller.Rbp)
          break;
      }
      PCs[N++] = F[V].Pc - Bias;
      --V;
    }
    if (V == 0 && N < Max &&
        (M.Why == End::EndOfStack || M.Why == End::Rule)) {
      // The outermost frame ended the walk by its rule alone (the thread's
      // first frame, whose return address is undefined): the same state,
      // the same end, without looking the rule up again.
      PCs[N++] = F[0].Pc - Bias;
      Why = M.Why;
      EndKnown = true;
    }
    const unsigned Count = Top - V + EndKnown;
    if (Count)
      Segs[NumSegs++] = {uint16_t(Top), uint16_t(Count), true};
    Replayed += Count;
    if (EndKnown)
      break;
    if (N == Max) {
      Why = End::Depth;
      break;
    }
    // On by rule from F[V] (its caller's words differ, or it crossed a
    // signal frame, or ended the memo's walk), looking for the memo's
    // frames further out: stacks that part at one frame often meet again
    // at its caller's caller (another call site in the same function).
    S = {F[V].Pc, F[V].Sp, F[V].Rbp, (F[V].Flags & MemoInterrupted) != 0};
    R = NumSegs + 2 < MaxSegments ? int(V) - 1 : -1;
    SegStart = W;
  }
  Res.Id = 0;
  Res.Walked = uint16_t(W);
  Res.Replayed = uint16_t(Replayed);
  M.Generation = Gen;
  M.StackHi = StackHi;
  // The common case: this walk's own frames, then the memo's down to its
  // outermost frame with the same end (known, or its one frame stepped
  // again). The memo keeps those frames and their hashes; this walk's go
  // on top of them.
  const unsigned K = NumSegs && !Segs[0].FromMemo ? Segs[0].Count : 0;
  const unsigned MemoSeg = K ? 1 : 0;
  bool Clean = false;
  if (NumSegs > MemoSeg && Segs[MemoSeg].FromMemo) {
    const Segment &Mem = Segs[MemoSeg];
    const unsigned Outer = Mem.Begin + 1 - Mem.Count;
    if (EndKnown)
      Clean = Outer == 0 && NumSegs == MemoSeg + 1;
    else
      Clean = Outer == 1 && NumSegs == MemoSeg + 2 &&
              Segs[MemoSeg + 1].Count == 1 && Why == M.Why;
  }
  if (Clean) {
    const unsigned Top = Segs[MemoSeg].Begin;
    uint64_t H = F[Top].Hash;
    bool Same = K == OldNum - 1 - Top;
    for (unsigned I = 0; I < K; ++I) {
      MemoFrame &To = F[Top + 1 + I];
      const MemoFrame &From = New[K - 1 - I];
      Same = Same && To.Pc == From.Pc;
      To = From;
      To.Hash = H = hashFromRoot(H, From.Pc - 1);
    }
    M.NumFrames = Top + 1 + K;
    if (Same)
      Res.Id = M.Id;
    else
      M.Id = 0;
    Res.Hash = H;
    return N;
  }
  // Otherwise the memo is made anew from the segments, outermost first.
  MemoFrame *const Out = M.Spare;
  unsigned Num = 0;
  for (unsigned G = NumSegs; G-- > 0;) {
    const Segment &Seg = Segs[G];
    if (Seg.FromMemo)
      for (unsigned I = Seg.Begin + 1 - Seg.Count; I <= Seg.Begin; ++I)
        Out[Num++] = F[I];
    else
      for (unsigned I = Seg.Begin + Seg.Count; I-- > Seg.Begin;)
        Out[Num++] = New[I];
  }
  rehash(Out, 0, Num);
  M.Spare = F;
  M.Frames = Out;
  M.NumFrames = Num;
  M.Why = Why;
  M.Id = 0;
  Res.Hash = Num ? Out[Num - 1].Hash : HashSeed;
  return N;
}

} // namespace unwind
} // namespace rt
} // namespace memprof
