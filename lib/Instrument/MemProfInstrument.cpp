//===- MemProfInstrument.cpp - Access-count instrumentation pass plugin ---===//
//
// An LLVM 22 new-pass-manager plugin that makes every heap access increment
// the memprof runtime's shadow counter of the 64-byte granule of its first
// byte, with the same counts as one increment per access but fewer updates:
//
//  - accesses that cannot touch the heap (allocas, globals, also through
//    phis and selects) are skipped;
//  - accesses to one base pointer at constant offsets within one block (no
//    barrier in between) become one update when they fall in one granule,
//    which is tested at run time because heap blocks are only 16- or
//    32-byte aligned;
//  - in an innermost loop without barriers whose only exit is its latch, an
//    access executed once per iteration at an invariant or constant-stride
//    address becomes one update before the loop, for the trip count;
//  - a function that finds the shadow base 0 at entry calls an
//    uninstrumented copy of itself, so that its updates need no mask.
//
// docs/instrument.md describes the counting rules and the options.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Regex.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace {

// Names shared with the runtime (lib/MemProfRuntime/InstrumentSupport.cpp
// and include/memprof/Runtime/memprof_runtime.h).
constexpr const char *ShadowBaseName = "memprof_shadow_base";
// Named for the link error a missing runtime, or one of another
// instrumentation version, gives: "undefined reference to `memprof_runtime_missing_or_not_version_1'".
constexpr const char *VersionCheckName = "memprof_runtime_missing_or_not_version_1";
constexpr const char *InitName = "memprof_init";
constexpr const char *ObjectCountsName = "memprof_note_object_counts";
constexpr const char *StridedName = "memprof_record_strided";
constexpr const char *StartName = "memprof_shadow_start";
constexpr const char *DefaultDirName = "memprof_set_default_output_dir";
constexpr const char *MarkerName = "memprof.instrumented";
constexpr unsigned GranuleShift = 6;
constexpr int64_t Granule = int64_t(1) << GranuleShift;
/// Memory intrinsics count one access per 8-byte word, as LLVM's runtime
/// does (__memprof_record_access_range); constant lengths up to this many
/// bytes are counted inline, longer or variable ones by the runtime.
constexpr uint64_t InlineRangeBytes = 64;
constexpr uint64_t WordBytes = 8;

cl::opt<bool> ClCoalesce("memprof-instrument-coalesce",
                         cl::desc("coalesce the counter updates of accesses to "
                                  "one base pointer within a block"),
                         cl::init(true), cl::Hidden);
// By default the accesses of one group to one object are counted together
// in the granule of one of them: the runtime sums an allocation's granules
// at its free, so its total (what a profile holds) is exact, with one update
// per group and no run-time test of where the granule boundary falls.
cl::opt<bool> ClGranules(
    "memprof-instrument-granules",
    cl::desc("count every access in the granule of its own first byte, so "
             "that each granule's counter is exact (for access histograms); "
             "by default the accesses a group makes to one object are counted "
             "in the granule of one of them, which keeps every allocation's "
             "total exact with fewer updates"),
    cl::init(false), cl::Hidden);
/// Whether the accesses of a group to one object are counted together
/// (coalescing on, -memprof-instrument-granules off).
bool perObject() { return ClCoalesce && !ClGranules; }
cl::opt<bool> ClCrossBlock(
    "memprof-instrument-cross-block",
    cl::desc("coalesce the counter updates of accesses to one base pointer "
             "in blocks that run exactly once each time an earlier block "
             "does"),
    cl::init(true), cl::Hidden);
cl::opt<bool> ClHoist("memprof-instrument-hoist",
                      cl::desc("hoist the counter updates of invariant and "
                               "strided accesses out of simple loops"),
                      cl::init(true), cl::Hidden);
// The default keeps a process that cannot reserve the shadow running (the
// runtime never stops its host); =false is faster (no mask per update) but
// such code cannot run without the shadow.
cl::opt<bool> ClSink("memprof-instrument-sink",
                     cl::desc("keep functions entered before the shadow "
                              "exists running without counting (by their "
                              "uninstrumented copies, or a sink and a mask "
                              "per update; the default); =false: counter "
                              "address without "
                              "a mask, the shadow reserved by the first such "
                              "function, and the program stopped if it cannot "
                              "be reserved"),
                     cl::init(true), cl::Hidden);
// With the sink: a function that finds the shadow base 0 at entry calls an
// uninstrumented copy of itself instead, so that its instrumented body needs
// no mask (=false: the mask in every update).
cl::opt<bool> ClClone(
    "memprof-instrument-clone",
    cl::desc("with -memprof-instrument-sink: give each instrumented function "
             "an uninstrumented copy, called when the shadow does not exist "
             "at entry, and counter updates without a mask (=false: a mask "
             "per update)"),
    cl::init(true), cl::Hidden);
cl::list<std::string>
    ClInclude("memprof-instrument-include",
              cl::desc("instrument only functions whose (mangled) name "
                       "matches one of these regular expressions"),
              cl::CommaSeparated, cl::Hidden);
cl::list<std::string>
    ClExclude("memprof-instrument-exclude",
              cl::desc("do not instrument functions whose (mangled) name "
                       "matches one of these regular expressions"),
              cl::CommaSeparated, cl::Hidden);
cl::opt<std::string>
    ClOutputDir("memprof-instrument-output-dir",
                cl::desc("default directory of the profiles the program "
                         "writes (MEMPROF_PROFILE_FILE still wins)"),
                cl::init(""), cl::Hidden);

/// One counted access: the granule of Ptr's address gets +1.
struct PointAccess {
  Instruction *At; ///< the instruction the update goes before
  Value *Ptr;
  /// Moved into the segment of an earlier block (coalesceAcrossBlocks): its
  /// update goes before that block's first access to the same base.
  bool Moved = false;
  /// Moved into a successor's segment (pushIntoSuccessors): the access
  /// happened before the update.
  bool Pushed = false;
};

/// A memory intrinsic's range: one count per 8-byte word of [Ptr, Ptr+Len).
struct RangeAccess {
  Instruction *At;
  Value *Ptr;
  Value *Len;
};

/// The accesses of one block between two barriers.
struct Segment {
  SmallVector<PointAccess, 8> Points;
};

bool isBenignIntrinsic(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return false;
  if (isa<MemIntrinsic>(II) || isa<DbgInfoIntrinsic>(II))
    return true;
  switch (II->getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::prefetch:
    return true;
  default:
    return false;
  }
}

/// A call that may throw or not return ends a segment: updates are never
/// moved across it, since the accesses after it might not happen. A call
/// that always returns (willreturn, nounwind) is no barrier: the accesses
/// on both sides happen (one before it frees their block would be a use
/// after free), and a dump it makes sees the updates of accesses still to
/// come, like a dump taken by another thread.
bool isBarrier(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || isBenignIntrinsic(I))
    return false;
  return !(CB->willReturn() && CB->doesNotThrow());
}

class Instrumenter {
public:
  Instrumenter(Module &M) : DL(M.getDataLayout()), C(M.getContext()) {
    I64 = Type::getInt64Ty(C);
    Ptr = PointerType::getUnqual(C);
    ShadowBase = M.getOrInsertGlobal(ShadowBaseName, I64);
    if (auto *GV = dyn_cast<GlobalVariable>(ShadowBase))
      GV->setAlignment(Align(8));
    if (!ClSink) {
      Start = M.getOrInsertFunction(StartName, I64);
      if (auto *Fn = dyn_cast<Function>(Start.getCallee())) {
        Fn->addFnAttr(Attribute::NoUnwind);
        Fn->addFnAttr(Attribute::Cold);
      }
    }
    Strided = M.getOrInsertFunction(StridedName, Type::getVoidTy(C), I64, I64,
                                    I64, I64);
  }

  bool run(Function &F, FunctionAnalysisManager &FAM);

private:
  const DataLayout &DL;
  LLVMContext &C;
  Type *I64;
  PointerType *Ptr;
  Constant *ShadowBase;
  GlobalVariable *Sink = nullptr;
  FunctionCallee Strided;
  FunctionCallee Start;

  // Per function: the shadow base (with -memprof-instrument-sink, the sink's
  // address when the runtime has not started, and the mask applied to
  // (address >> 3)). Otherwise the base as read at entry, replaced at the end
  // by a phi of it and of memprof_shadow_start()'s result when it was 0.
  Value *Base = nullptr;
  Value *Mask = nullptr;
  LoadInst *RawBase = nullptr;
  /// With the sink and -memprof-instrument-clone: F's uninstrumented copy,
  /// called when the base is 0 at entry (no mask then).
  Function *Uninstrumented = nullptr;

  static bool canClone(const Function &F);

  bool mayTouchHeap(Value *P) const;
  Value *counterOf(IRBuilder<> &B, Value *Addr);
  void increment(IRBuilder<> &B, Value *Counter, Value *By);
  void emitPrologue(Function &F);
  void finishPrologue(Function &F);
  void emitSegment(BasicBlock *BB, ArrayRef<PointAccess> Points);
  std::pair<Value *, int64_t> baseOf(Value *Ptr) const;
  void coalesceAcrossBlocks(
      Function &F, FunctionAnalysisManager &FAM,
      MapVector<std::pair<BasicBlock *, unsigned>, Segment> &Segments,
      const DenseMap<BasicBlock *, unsigned> &Barriers);
  void pushIntoSuccessors(
      Function &F,
      MapVector<std::pair<BasicBlock *, unsigned>, Segment> &Segments,
      const DenseMap<BasicBlock *, unsigned> &Barriers);

  void emitGroup(ArrayRef<std::pair<int64_t, Instruction *>> Offsets,
                 Value *BasePtr);
  bool hoist(Function &F, FunctionAnalysisManager &FAM,
             SmallVectorImpl<PointAccess> &Points,
             DenseMap<Instruction *, bool> &Hoisted);
};

bool Instrumenter::mayTouchHeap(Value *P) const {
  if (P->getType()->getPointerAddressSpace() != 0)
    return false;
  // Through GEPs, casts, phis and selects: a pointer all of whose possible
  // objects are stack slots, globals (thread-local too) or constants is
  // never heap.
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(P, Objs);
  return llvm::any_of(Objs, [](const Value *Obj) {
    return !isa<AllocaInst>(Obj) && !isa<GlobalValue>(Obj) &&
           !isa<ConstantData>(Obj) && !isa<ConstantExpr>(Obj);
  });
}

Value *Instrumenter::counterOf(IRBuilder<> &B, Value *Addr) {
  Value *A = Addr->getType()->isPointerTy() ? B.CreatePtrToInt(Addr, I64)
                                            : Addr;
  // (A >> 6) << 3, which x86-64 folds into the addressing mode (a shift and
  // the update). With the sink, (A >> 3) & mask: the mask is 0 before the
  // runtime has started, when every update goes to the sink.
  Value *Off = Mask ? B.CreateAnd(B.CreateLShr(A, 3), Mask)
                      : B.CreateShl(B.CreateLShr(A, GranuleShift), 3);
  return B.CreateIntToPtr(B.CreateAdd(Base, Off), Ptr, "memprof.ctr");
}

void Instrumenter::increment(IRBuilder<> &B, Value *Counter, Value *By) {
  LoadInst *Old = B.CreateAlignedLoad(I64, Counter, Align(8));
  B.CreateAlignedStore(B.CreateAdd(Old, By), Counter, Align(8));
}

void Instrumenter::emitPrologue(Function &F) {
  BasicBlock &Entry = F.getEntryBlock();
  // The entry block's static allocas first, so that the block split of
  // finishPrologue leaves them where they are.
  BasicBlock::iterator At = Entry.getFirstInsertionPt();
  for (Instruction &I : make_early_inc_range(Entry)) {
    auto *AI = dyn_cast<AllocaInst>(&I);
    if (!AI || !AI->isStaticAlloca())
      continue;
    if (&*At == AI)
      ++At;
    else
      AI->moveBefore(Entry, At);
  }
  Mask = nullptr;
  Uninstrumented = nullptr;
  if (ClSink && ClClone && canClone(F)) {
    // The copy is of the body before any instrumentation (the GEPs the
    // access collection made are dead code there).
    ValueToValueMapTy VMap;
    Uninstrumented = CloneFunction(&F, VMap);
    Uninstrumented->setName("memprof.uninstrumented." + F.getName());
    Uninstrumented->setLinkage(GlobalValue::InternalLinkage);
    Uninstrumented->setVisibility(GlobalValue::DefaultVisibility);
    Uninstrumented->setDLLStorageClass(GlobalValue::DefaultStorageClass);
    Uninstrumented->setComdat(F.getComdat());
    Uninstrumented->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    Uninstrumented->addFnAttr(Attribute::Cold);
    Uninstrumented->addFnAttr(Attribute::NoInline);
    Uninstrumented->removeFnAttr(Attribute::AlwaysInline);
  }
  IRBuilder<> B(&Entry, At);
  // Read once per call.
  LoadInst *Raw = B.CreateAlignedLoad(I64, ShadowBase, Align(8),
                                      "memprof.shadow");
  Raw->setAtomic(AtomicOrdering::Unordered);
  if (!ClSink || Uninstrumented) {
    RawBase = Raw;
    Base = Raw;
    return;
  }
  // Otherwise a function entered before the runtime started counts into the
  // sink for the rest of that call.
  if (!Sink) {
    Module &M = *F.getParent();
    Sink = new GlobalVariable(M, I64, false, GlobalValue::PrivateLinkage,
                              ConstantInt::get(I64, 0), "memprof.sink");
    Sink->setAlignment(Align(64));
  }
  Value *Off = B.CreateICmpEQ(Raw, ConstantInt::get(I64, 0));
  Base = B.CreateSelect(Off, B.CreatePtrToInt(Sink, I64), Raw,
                        "memprof.base");
  Mask = B.CreateSelect(Off, ConstantInt::get(I64, 0),
                        ConstantInt::get(I64, ~uint64_t(7)), "memprof.mask");
}

/// Whether F can call an uninstrumented copy of itself, passing its own
/// arguments: not with variable arguments, blocks whose address is taken,
/// or arguments that cannot be passed on.
bool Instrumenter::canClone(const Function &F) {
  if (F.isVarArg() || F.hasAvailableExternallyLinkage() ||
      F.hasFnAttribute(Attribute::ReturnsTwice))
    return false;
  for (const Argument &A : F.args())
    if (A.hasInAllocaAttr() || A.hasPreallocatedAttr() ||
        A.hasSwiftErrorAttr() || A.hasAttribute(Attribute::SwiftAsync))
      return false;
  for (const BasicBlock &BB : F) {
    if (BB.hasAddressTaken())
      return false;
    // What must not be duplicated (noduplicate calls) stays in one body.
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (CB->cannotDuplicate())
          return false;
  }
  return true;
}

/// Without the sink: if the base read at entry is 0 (code running before the
/// runtime has started), memprof_shadow_start() reserves the shadow and
/// returns the base. With the sink and a copy, a base of 0 calls the copy.
/// Done last, when no analysis of F is needed any more.
void Instrumenter::finishPrologue(Function &F) {
  if (!RawBase)
    return;
  BasicBlock *Entry = RawBase->getParent();
  BasicBlock *Rest =
      Entry->splitBasicBlock(RawBase->getNextNode(), "memprof.started");
  Entry->getTerminator()->eraseFromParent();
  BasicBlock *Slow = BasicBlock::Create(
      C, Uninstrumented ? "memprof.noshadow" : "memprof.start", &F, Rest);
  IRBuilder<> S(Slow);
  if (DISubprogram *SP = F.getSubprogram())
    S.SetCurrentDebugLocation(DILocation::get(C, 0, 0, SP));
  if (Uninstrumented) {
    // The copy, with F's arguments and their attributes; its result is F's.
    SmallVector<Value *, 8> Args;
    for (Argument &A : F.args())
      Args.push_back(&A);
    CallInst *Call = S.CreateCall(Uninstrumented, Args);
    Call->setCallingConv(Uninstrumented->getCallingConv());
    AttributeList FA = F.getAttributes();
    SmallVector<AttributeSet, 8> ParamAttrs;
    for (unsigned I = 0; I < F.arg_size(); ++I)
      ParamAttrs.push_back(FA.getParamAttrs(I));
    Call->setAttributes(
        AttributeList::get(C, AttributeSet(), FA.getRetAttrs(), ParamAttrs));
    if (F.getReturnType()->isVoidTy())
      S.CreateRetVoid();
    else
      S.CreateRet(Call);
  } else {
    // memprof_shadow_start()'s base, joined with the one read at entry.
    CallInst *Started = S.CreateCall(Start, {}, "memprof.started.base");
    S.CreateBr(Rest);
    PHINode *Phi = PHINode::Create(I64, 2, "memprof.base");
    Phi->insertBefore(Rest->begin());
    RawBase->replaceAllUsesWith(Phi);
    Phi->addIncoming(RawBase, Entry);
    Phi->addIncoming(Started, Slow);
  }
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateICmpEQ(RawBase, ConstantInt::get(I64, 0)), Slow, Rest,
                 MDBuilder(C).createUnlikelyBranchWeights());
  RawBase = nullptr;
  Uninstrumented = nullptr;
}

/// Accesses at BasePtr + Offset (Offsets sorted, spanning less than 64
/// bytes) fall in the granule of the first one or in the next: which depends
/// on the address (heap blocks are only 16- or 32-byte aligned). When they
/// all fit in the first granule (tested at run time) one update counts them
/// all; otherwise each distinct offset gets its own update. No counter that
/// no access touches is ever read or written.
void Instrumenter::emitGroup(ArrayRef<std::pair<int64_t, Instruction *>> Offsets,
                             Value *BasePtr) {
  IRBuilder<> B(Offsets.front().second); // the caller's insertion point
  int64_t First = Offsets.front().first;
  int64_t Span = Offsets.back().first - First;
  Value *A0 = B.CreateAdd(B.CreatePtrToInt(BasePtr, I64),
                          ConstantInt::get(I64, First));
  uint64_t N = Offsets.size();
  if (Span == 0) {
    increment(B, counterOf(B, A0), ConstantInt::get(I64, N));
    return;
  }
  Value *InGranule = B.CreateAnd(A0, ConstantInt::get(I64, Granule - 1));
  Value *Fits = B.CreateICmpULT(InGranule, ConstantInt::get(I64, Granule - Span),
                                "memprof.fits");
  Instruction *One, *Each;
  SplitBlockAndInsertIfThenElse(Fits, B.GetInsertPoint(), &One, &Each);
  B.SetInsertPoint(One);
  increment(B, counterOf(B, A0), ConstantInt::get(I64, N));
  B.SetInsertPoint(Each);
  std::map<int64_t, uint64_t> Count; // accesses per distinct offset
  for (auto &[Off, I] : Offsets)
    ++Count[Off - First];
  for (auto &[D, K] : Count)
    increment(B,
              counterOf(B, D ? B.CreateAdd(A0, ConstantInt::get(I64, D)) : A0),
              ConstantInt::get(I64, K));
}

/// Emits the updates of the accesses \p Points of one segment of block
/// \p BB.
void Instrumenter::emitSegment(BasicBlock *BB, ArrayRef<PointAccess> Points) {
  if (!ClCoalesce) {
    for (const PointAccess &P : Points) {
      IRBuilder<> B(P.At);
      increment(B, counterOf(B, P.Ptr), ConstantInt::get(I64, 1));
    }
    return;
  }
  // Group by the pointer stripped of constant offsets, in first-use order.
  MapVector<Value *, SmallVector<std::pair<int64_t, Instruction *>, 4>> Groups;
  DenseMap<Value *, Instruction *> FirstAts;
  for (const PointAccess &P : Points) {
    auto [BasePtr, O] = baseOf(P.Ptr);
    Groups[BasePtr].push_back({O, P.At});
    // The update goes before the group's first access in the segment's
    // block (accesses moved from later blocks come after it; a group with
    // such accesses always has one of its own block).
    if (P.Moved)
      continue;
    Instruction *&First = FirstAts[BasePtr];
    if (!First || P.At->comesBefore(First))
      First = P.At;
  }
  for (auto &[BasePtr, List] : Groups) {
    Instruction *FirstAt = FirstAts.lookup(BasePtr);
    llvm::sort(List, [](auto &X, auto &Y) { return X.first < Y.first; });
    if (perObject()) {
      // One object (baseOf): all its accesses in the granule of the one at
      // the smallest offset, an address the group does access. A group
      // pushed into this block from its predecessor (pushIntoSuccessors)
      // may have no access here: its update goes at the block's start.
      IRBuilder<> B(FirstAt ? FirstAt : &*BB->getFirstInsertionPt());
      Value *A0 = B.CreateAdd(B.CreatePtrToInt(BasePtr, I64),
                              ConstantInt::get(I64, List.front().first));
      increment(B, counterOf(B, A0), ConstantInt::get(I64, List.size()));
      continue;
    }
    assert(FirstAt && "a group of moved accesses only");
    // Windows of less than 64 bytes.
    size_t Begin = 0;
    while (Begin < List.size()) {
      size_t End = Begin + 1;
      while (End < List.size() && List[End].first - List[Begin].first < Granule)
        ++End;
      SmallVector<std::pair<int64_t, Instruction *>, 8> Window(
          List.begin() + Begin, List.begin() + End);
      Window.front().second = FirstAt; // insertion point
      emitGroup(Window, BasePtr);
      Begin = End;
    }
  }
}

/// The pointer \p Ptr is a constant offset from, which keys its group.
/// Counting per object, only inbounds GEPs are looked through: an inbounds
/// GEP's result lies in its base's object (or is poison), so two accesses
/// made through one base at constant offsets are in one object, and the
/// granule of either is that object's.
std::pair<Value *, int64_t> Instrumenter::baseOf(Value *Ptr) const {
  APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  Value *BasePtr = Ptr->stripAndAccumulateConstantOffsets(
      DL, Off, /*AllowNonInbounds=*/!perObject());
  if (Off.getSignificantBits() > 48) // far offsets: not worth grouping
    return {Ptr, 0};
  return {BasePtr, Off.getSExtValue()};
}

/// Moves accesses of a block B2 into the last segment of an earlier block B1
/// when B2 runs exactly once each time B1 does, with no barrier between
/// them, and B1 already accesses the same base: their updates then join
/// B1's group. B2 is B1's immediate post-dominator (then the next one, ...),
/// B1 dominates B2, B2 cannot run twice without B1 in between (in a
/// reducible CFG: both are in the same loop; otherwise no cycle through B2
/// avoids B1), and every path from the end of B1 reaches B2 through at most
/// 32 barrier-free blocks, without a cycle and without returning to B1 (so
/// each run of B1 is followed by one of B2).
void Instrumenter::coalesceAcrossBlocks(
    Function &F, FunctionAnalysisManager &FAM,
    MapVector<std::pair<BasicBlock *, unsigned>, Segment> &Segments,
    const DenseMap<BasicBlock *, unsigned> &Barriers) {
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &PDT = FAM.getResult<PostDominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  ReversePostOrderTraversal<Function *> RPOT(&F);
  bool Irreducible = containsIrreducibleCFG<const BasicBlock *>(RPOT, LI);
  // Whether B2 can run twice without B1 in between: in a reducible CFG,
  // whether they are in different loops; otherwise whether a cycle through
  // B2 avoids B1. The blocks of such a cycle are all dominated by B1 (one
  // that is not would reach B2 without B1), so the search stays there; it
  // gives up (true) after 64 blocks.
  auto MayRepeat = [&](BasicBlock *B1, BasicBlock *B2) {
    if (!Irreducible)
      return LI.getLoopFor(B1) != LI.getLoopFor(B2);
    SmallPtrSet<BasicBlock *, 32> Seen;
    SmallVector<BasicBlock *, 32> Work(succ_begin(B2), succ_end(B2));
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (BB == B2)
        return true;
      if (BB == B1 || !DT.dominates(B1, BB) || !Seen.insert(BB).second)
        continue;
      if (Seen.size() > 64)
        return true;
      Work.append(succ_begin(BB), succ_end(BB));
    }
    return false;
  };
  auto Reaches = [&](BasicBlock *From, BasicBlock *To) {
    DenseMap<BasicBlock *, bool> Done; // false: being visited
    std::function<bool(BasicBlock *)> Visit = [&](BasicBlock *BB) {
      if (BB == To)
        return true;
      if (BB == From)
        return false;
      auto It = Done.find(BB);
      if (It != Done.end())
        return It->second; // a block still being visited: a cycle
      if (Done.size() >= 32 || succ_empty(BB) || Barriers.lookup(BB))
        return false;
      Done[BB] = false;
      for (BasicBlock *S : successors(BB))
        if (!Visit(S))
          return false;
      Done[BB] = true;
      return true;
    };
    return !succ_empty(From) &&
           llvm::all_of(successors(From), [&](BasicBlock *S) { return Visit(S); });
  };
  for (BasicBlock *B1 : RPOT) {
    auto It = Segments.find({B1, Barriers.lookup(B1)});
    if (It == Segments.end())
      continue;
    DenseSet<Value *> Bases;
    for (const PointAccess &P : It->second.Points)
      Bases.insert(baseOf(P.Ptr).first);
    DomTreeNode *N = PDT.getNode(B1);
    for (unsigned Step = 0; Step < 8 && N; ++Step) {
      N = N->getIDom();
      BasicBlock *B2 = N ? N->getBlock() : nullptr;
      if (!B2 || B2 == B1 || !DT.dominates(B1, B2) || MayRepeat(B1, B2) ||
          !Reaches(B1, B2))
        break;
      auto J = Segments.find({B2, 0});
      if (J != Segments.end()) {
        auto &From = J->second.Points;
        auto &Into = It->second.Points; // It stays valid: no insertion
        SmallVector<PointAccess, 8> Stay;
        for (PointAccess P : From) {
          if (Bases.count(baseOf(P.Ptr).first)) {
            P.Moved = true;
            Into.push_back(P);
          } else {
            Stay.push_back(P);
          }
        }
        From.assign(Stay.begin(), Stay.end());
      }
      if (Barriers.lookup(B2)) // the chain stops at B2's first barrier
        break;
    }
  }
}

/// A new block on every edge from \p D (whose terminator is a branch or a
/// switch) to \p S, branching to S; S's phis take their value from D from it.
static BasicBlock *splitEdges(BasicBlock *D, BasicBlock *S) {
  BasicBlock *New = BasicBlock::Create(D->getContext(), S->getName() + ".memprof",
                                       D->getParent(), S);
  BranchInst::Create(S, New);
  Instruction *T = D->getTerminator();
  for (unsigned I = 0, E = T->getNumSuccessors(); I != E; ++I)
    if (T->getSuccessor(I) == S)
      T->setSuccessor(I, New);
  // One phi entry per edge: D's entries (one per edge from D) become one.
  for (PHINode &Phi : S->phis()) {
    bool First = true;
    for (unsigned I = Phi.getNumIncomingValues(); I-- > 0;) {
      if (Phi.getIncomingBlock(I) != D)
        continue;
      if (First) {
        Phi.setIncomingBlock(I, New);
        First = false;
      } else {
        Phi.removeIncomingValue(I, /*DeletePHIIfEmpty=*/false);
      }
    }
  }
  return New;
}

/// Per object: the last segment of a block D (after its last barrier) gives
/// its group of a base to D's successors when each of them is entered only
/// from D and at least one accesses that base before its first barrier.
/// Each time D runs exactly one successor follows, with no barrier between
/// D's accesses and the successor's first segment, so the group's count is
/// added to that successor's update of the base (a switch's cases that all
/// read the operand the switch read: one update per path instead of two).
/// A successor without such an access gets an update of its own at its
/// start; no path gets more updates than before. Only groups whose accesses
/// in D all come after D's last call and atomic instruction move: the
/// update then counts them after they happened, and a call between them and
/// it (free is no barrier) could have freed their block, whose counters the
/// runtime has summed, or an atomic one let another thread free it (a
/// reference count's decrement). (In the successors that access the base,
/// the block is live at the update, which precedes such an access.)
void Instrumenter::pushIntoSuccessors(
    Function &F,
    MapVector<std::pair<BasicBlock *, unsigned>, Segment> &Segments,
    const DenseMap<BasicBlock *, unsigned> &Barriers) {
  // In reverse post-order, so that a group given to a block can move on.
  ReversePostOrderTraversal<Function *> RPOT(&F);
  for (BasicBlock *D : RPOT) {
    auto It = Segments.find({D, Barriers.lookup(D)});
    if (It == Segments.end() || It->second.Points.empty())
      continue;
    // Successors entered only from D, and the others (Shared), which get
    // a block of their own on D's edges to them if a group moves.
    SmallVector<BasicBlock *, 8> Succs, Shared;
    bool Ok = isa<BranchInst, SwitchInst, IndirectBrInst>(D->getTerminator());
    for (BasicBlock *S : successors(D)) {
      if (!Ok)
        break;
      if (llvm::is_contained(Succs, S) || llvm::is_contained(Shared, S))
        continue;
      if (S == D || S->isEHPad())
        Ok = false;
      else if (S->getUniquePredecessor() == D)
        Succs.push_back(S);
      else
        Shared.push_back(S);
    }
    if (!Ok || Succs.empty() ||
        (!Shared.empty() && !isa<BranchInst, SwitchInst>(D->getTerminator())))
      continue;
    DenseMap<Value *, unsigned> Absorbed; // base: successors accessing it
    for (BasicBlock *S : Succs) {
      auto J = Segments.find({S, 0});
      if (J == Segments.end())
        continue;
      DenseSet<Value *> Seen;
      for (const PointAccess &P : J->second.Points) {
        Value *Base = baseOf(P.Ptr).first;
        if (Seen.insert(Base).second)
          ++Absorbed[Base];
      }
    }
    // A shared successor costs a block and a jump on its edge: a group
    // moves only if at least as many successors take it into theirs.
    for (auto I = Absorbed.begin(); I != Absorbed.end();) {
      auto Cur = I++;
      if (Cur->second < Shared.size())
        Absorbed.erase(Cur);
    }
    // Not the bases with an access in D before (or at) its last call or
    // atomic instruction, or one pushed into D (made before D).
    Instruction *LastCall = nullptr;
    for (Instruction &I : *D)
      if ((isa<CallBase>(I) && !isBenignIntrinsic(I)) || I.isAtomic())
        LastCall = &I;
    if (LastCall)
      for (const PointAccess &P : It->second.Points)
        if (P.Pushed || (!P.Moved && !LastCall->comesBefore(P.At)))
          Absorbed.erase(baseOf(P.Ptr).first);
    SmallVector<PointAccess, 8> Stay, Move;
    for (PointAccess P : It->second.Points) {
      if (Absorbed.count(baseOf(P.Ptr).first)) {
        P.Moved = P.Pushed = true;
        Move.push_back(P);
      } else {
        Stay.push_back(P);
      }
    }
    if (Move.empty())
      continue;
    It->second.Points.assign(Stay.begin(), Stay.end());
    for (BasicBlock *S : Shared)
      Succs.push_back(splitEdges(D, S));
    for (BasicBlock *S : Succs) {
      auto &Into = Segments[{S, 0}].Points; // may insert: It not used again
      Into.append(Move.begin(), Move.end());
    }
  }
}

/// An access executed exactly once per iteration of an innermost loop with
/// no barriers whose only exit is its latch, at an address that is invariant or
/// steps by a constant, is counted by one update in the preheader: the
/// granule counters the trip count's accesses would have incremented.
bool Instrumenter::hoist(Function &F, FunctionAnalysisManager &FAM,
                         SmallVectorImpl<PointAccess> &Points,
                         DenseMap<Instruction *, bool> &Hoisted) {
  auto *LIP = &FAM.getResult<LoopAnalysis>(F);
  if (LIP->empty())
    return false;
  // Late in the pipeline, CFG simplification often folds a loop's
  // preheader into a block with two successors: give innermost loops one
  // back, where the hoisted updates go.
  bool NewPreheaders = false;
  {
    auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    for (Loop *L : LIP->getLoopsInPreorder())
      if (L->isInnermost() && !L->getLoopPreheader() &&
          InsertPreheaderForLoop(L, &DT, LIP, nullptr, false))
        NewPreheaders = true;
  }
  if (NewPreheaders) {
    PreservedAnalyses PA;
    PA.preserve<DominatorTreeAnalysis>();
    PA.preserve<LoopAnalysis>();
    FAM.invalidate(F, PA);
  }
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);

  DenseMap<const Loop *, bool> Simple;
  auto IsSimple = [&](const Loop *L) {
    auto It = Simple.find(L);
    if (It != Simple.end())
      return It->second;
    bool Ok = L->isInnermost() && L->getLoopPreheader() &&
              L->getLoopLatch() && L->getExitingBlock() == L->getLoopLatch() &&
              !isa<SCEVCouldNotCompute>(SE.getBackedgeTakenCount(L));
    if (Ok)
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
          if (isBarrier(I))
            Ok = false;
    Simple[L] = Ok;
    return Ok;
  };

  // (loop, start, step) -> accesses per iteration, in first-seen order.
  struct Key {
    const Loop *L;
    const SCEV *Start;
    int64_t Step;
    bool operator<(const Key &O) const {
      return std::tie(L, Start, Step) < std::tie(O.L, O.Start, O.Step);
    }
  };
  std::map<Key, uint64_t> Counts;
  SmallVector<Key, 8> Order;
  SCEVExpander Exp(SE, "memprof");
  for (const PointAccess &P : Points) {
    BasicBlock *BB = P.At->getParent();
    const Loop *L = LI.getLoopFor(BB);
    if (!L || !IsSimple(L) || !DT.dominates(BB, L->getLoopLatch()))
      continue;
    const SCEV *S = SE.getSCEV(P.Ptr);
    const SCEV *Start;
    int64_t Step;
    if (SE.isLoopInvariant(S, L)) {
      Start = S;
      Step = 0;
    } else if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
      const auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (AR->getLoop() != L || !AR->isAffine() || !C ||
          C->getAPInt().getSignificantBits() > 63)
        continue;
      Start = AR->getStart();
      Step = C->getAPInt().getSExtValue();
    } else {
      continue;
    }
    Instruction *InsertAt = L->getLoopPreheader()->getTerminator();
    if (!Exp.isSafeToExpandAt(Start, InsertAt))
      continue;
    Key K{L, Start, Step};
    if (!Counts.count(K))
      Order.push_back(K);
    ++Counts[K];
    Hoisted[P.At] = true;
  }
  for (const Key &K : Order) {
    Instruction *InsertAt = K.L->getLoopPreheader()->getTerminator();
    const SCEV *BTC = SE.getBackedgeTakenCount(K.L);
    const SCEV *Trip = SE.getAddExpr(SE.getTruncateOrZeroExtend(BTC, I64),
                                     SE.getOne(I64));
    Value *TripV = Exp.expandCodeFor(Trip, I64, InsertAt);
    Value *StartV = Exp.expandCodeFor(K.Start, K.Start->getType(), InsertAt);
    IRBuilder<> B(InsertAt);
    Value *StartI = StartV->getType()->isPointerTy()
                        ? B.CreatePtrToInt(StartV, I64)
                        : B.CreateZExtOrTrunc(StartV, I64);
    uint64_t PerIteration = Counts[K];
    if (K.Step == 0) {
      increment(B, counterOf(B, StartI),
                PerIteration == 1
                    ? TripV
                    : B.CreateMul(TripV, ConstantInt::get(I64, PerIteration)));
    } else {
      B.CreateCall(Strided, {StartI, ConstantInt::get(I64, K.Step), TripV,
                             ConstantInt::get(I64, PerIteration)});
    }
  }
  return !Order.empty();
}

bool Instrumenter::run(Function &F, FunctionAnalysisManager &FAM) {
  SmallVector<PointAccess, 32> Points;
  SmallVector<RangeAccess, 8> Ranges;
  for (Instruction &I : instructions(F)) {
    Value *P = nullptr;
    if (auto *L = dyn_cast<LoadInst>(&I))
      P = L->getPointerOperand();
    else if (auto *S = dyn_cast<StoreInst>(&I))
      P = S->getPointerOperand();
    else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
      P = RMW->getPointerOperand();
    else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
      P = X->getPointerOperand();
    if (P) {
      if (mayTouchHeap(P))
        Points.push_back({&I, P});
      continue;
    }
    auto *MI = dyn_cast<MemIntrinsic>(&I);
    if (!MI)
      continue;
    SmallVector<Value *, 2> Ends{MI->getRawDest()};
    if (auto *MT = dyn_cast<MemTransferInst>(MI))
      Ends.push_back(MT->getRawSource());
    for (Value *E : Ends) {
      if (!mayTouchHeap(E))
        continue;
      auto *CLen = dyn_cast<ConstantInt>(MI->getLength());
      if (CLen && CLen->getZExtValue() <= InlineRangeBytes) {
        // One access per word, at E + 8k: grouped like any other.
        IRBuilder<> B(MI);
        for (uint64_t W = 0; W * WordBytes < CLen->getZExtValue(); ++W)
          Points.push_back(
              {MI, W ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), E,
                                                    W * WordBytes)
                     : E});
      } else {
        Ranges.push_back({MI, E, MI->getLength()});
      }
    }
  }
  if (Points.empty() && Ranges.empty())
    return false;

  emitPrologue(F);
  DenseMap<Instruction *, bool> Hoisted;
  if (ClHoist)
    hoist(F, FAM, Points, Hoisted);

  // Segments: the remaining accesses of a block between barriers.
  DenseMap<Instruction *, unsigned> Position;
  DenseMap<BasicBlock *, unsigned> Barriers; // per block
  for (BasicBlock &BB : F) {
    unsigned Pos = 0;
    for (Instruction &I : BB)
      Position[&I] = isBarrier(I) ? ++Pos : Pos;
    if (Pos)
      Barriers[&BB] = Pos;
  }
  MapVector<std::pair<BasicBlock *, unsigned>, Segment> Segments;
  for (const PointAccess &P : Points)
    if (!Hoisted.count(P.At))
      Segments[{P.At->getParent(), Position[P.At]}].Points.push_back(P);
  if (ClCoalesce && ClCrossBlock)
    coalesceAcrossBlocks(F, FAM, Segments, Barriers);
  if (perObject() && ClCrossBlock)
    pushIntoSuccessors(F, Segments, Barriers);
  for (auto &[K, S] : Segments)
    if (!S.Points.empty())
      emitSegment(K.first, S.Points);

  // A variable range is counted inline when its words start in one granule
  // or two (most short copies): with the room its first granule has for
  // word starts, ceil((64 - (addr & 63)) / 8), words - 1 < room takes one
  // update of words, words - 1 < room + 8 one of room and one of the rest
  // in the next granule. Longer ranges are counted by the runtime, and empty
  // ones (words - 1 wraps) by nothing.
  for (const RangeAccess &R : Ranges) {
    IRBuilder<> B(R.At);
    Value *Len = B.CreateZExtOrTrunc(R.Len, I64);
    Value *Words = B.CreateLShr(B.CreateAdd(Len, ConstantInt::get(I64, 7)), 3);
    Value *Addr = B.CreatePtrToInt(R.Ptr, I64);
    if (perObject()) {
      // Per object: every word of a range is in the object of its first
      // byte, so one update of the word count at it, unless the range is
      // empty (then its pointer may be one past the end, or anything).
      if (auto *CLen = dyn_cast<ConstantInt>(R.Len); CLen && !CLen->isZero()) {
        increment(B, counterOf(B, Addr), Words);
      } else {
        Instruction *Then = SplitBlockAndInsertIfThen(
            B.CreateICmpNE(Words, ConstantInt::get(I64, 0)),
            B.GetInsertPoint(), false);
        B.SetInsertPoint(Then);
        increment(B, counterOf(B, Addr), Words);
      }
      continue;
    }
    Value *Room = B.CreateLShr(
        B.CreateSub(ConstantInt::get(I64, Granule + WordBytes - 1),
                    B.CreateAnd(Addr, ConstantInt::get(I64, Granule - 1))),
        3);
    Value *Last = B.CreateSub(Words, ConstantInt::get(I64, 1));
    Value *Fits = B.CreateICmpULT(Last, Room, "memprof.range.fits");
    Instruction *One, *More;
    SplitBlockAndInsertIfThenElse(Fits, B.GetInsertPoint(), &One, &More);
    B.SetInsertPoint(One);
    increment(B, counterOf(B, Addr), Words);
    B.SetInsertPoint(More);
    Value *Fits2 = B.CreateICmpULT(
        Last, B.CreateAdd(Room, ConstantInt::get(I64, Granule / WordBytes)),
        "memprof.range.fits2");
    Instruction *Two, *Long;
    SplitBlockAndInsertIfThenElse(Fits2, More->getIterator(), &Two, &Long);
    B.SetInsertPoint(Two);
    increment(B, counterOf(B, Addr), Room);
    increment(B, counterOf(B, B.CreateAdd(Addr, ConstantInt::get(I64, Granule))),
              B.CreateSub(Words, Room));
    B.SetInsertPoint(Long);
    Instruction *Call = SplitBlockAndInsertIfThen(
        B.CreateICmpNE(Words, ConstantInt::get(I64, 0)), Long->getIterator(),
        false);
    B.SetInsertPoint(Call);
    B.CreateCall(Strided, {Addr, ConstantInt::get(I64, WordBytes), Words,
                           ConstantInt::get(I64, 1)});
  }
  finishPrologue(F);
  return true;
}

bool shouldInstrument(const Function &F, ArrayRef<Regex> Include,
                      ArrayRef<Regex> Exclude) {
  if (F.isDeclaration() || F.hasFnAttribute(Attribute::Naked) ||
      F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) ||
      F.getName().starts_with("memprof."))
    return false;
  StringRef Name = F.getName();
  if (!Include.empty() &&
      llvm::none_of(Include, [&](const Regex &R) { return R.match(Name); }))
    return false;
  return llvm::none_of(Exclude, [&](const Regex &R) { return R.match(Name); });
}

std::vector<Regex> compile(const cl::list<std::string> &Patterns, Module &M,
                           const char *Option) {
  std::vector<Regex> Out;
  for (const std::string &P : Patterns) {
    Regex R(P);
    std::string Err;
    if (!R.isValid(Err))
      M.getContext().emitError(Twine("memprof: invalid -") + Option + " '" +
                               P + "': " + Err);
    else
      Out.push_back(std::move(R));
  }
  return Out;
}

struct MemProfInstrumentPass : PassInfoMixin<MemProfInstrumentPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    // Once per module, even if the pipeline runs the pass twice (LTO).
    if (M.getNamedMetadata(MarkerName))
      return PreservedAnalyses::all();
    M.getOrInsertNamedMetadata(MarkerName);
    std::vector<Regex> Include = compile(ClInclude, M, "memprof-instrument-include");
    std::vector<Regex> Exclude = compile(ClExclude, M, "memprof-instrument-exclude");

    auto &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    Instrumenter Inst(M);
    // Not the uninstrumented copies the pass adds.
    SmallVector<Function *, 64> Fns;
    for (Function &F : M)
      Fns.push_back(&F);
    for (Function *F : Fns) {
      if (!shouldInstrument(*F, Include, Exclude))
        continue;
      if (Inst.run(*F, FAM))
        FAM.invalidate(*F, PreservedAnalyses::none());
    }
    allowCounterWrites(M);
    emitConstructor(M);
    return PreservedAnalyses::none();
  }

  /// Memory effects inferred before the pass ran (memory(argmem: read) for
  /// a function that only reads through its argument, say) no longer hold
  /// for code that now writes the shadow; an optimizer running after the
  /// pass (the link-time pipeline of -flto) could move a counter's load or
  /// store across a call it believes cannot write it, and lose counts. So
  /// every function defined here may now write "other" memory, and so may
  /// every call and every declaration but those of known library functions
  /// and intrinsics. (The uninstrumented copies too: what they call may
  /// count, once the runtime has started meanwhile.)
  static void allowCounterWrites(Module &M) {
    auto Widen = [](MemoryEffects ME) {
      return ME | MemoryEffects::otherMemOnly(ModRefInfo::ModRef);
    };
    TargetLibraryInfoImpl TLII(M.getTargetTriple());
    TargetLibraryInfo TLI(TLII);
    auto MayBeInstrumented = [&](const Function *F) {
      LibFunc LF;
      return !F || (!F->isIntrinsic() &&
                    !(F->isDeclaration() && TLI.getLibFunc(*F, LF)));
    };
    for (Function &F : M) {
      if (MayBeInstrumented(&F) && F.getMemoryEffects() != Widen(F.getMemoryEffects()))
        F.setMemoryEffects(Widen(F.getMemoryEffects()));
      for (Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || !MayBeInstrumented(CB->getCalledFunction()))
          continue;
        if (CB->hasFnAttr(Attribute::Memory) &&
            CB->getMemoryEffects() != Widen(CB->getMemoryEffects()))
          CB->setMemoryEffects(Widen(CB->getMemoryEffects()));
      }
    }
  }

  /// Starts the runtime before any instrumented code of this module runs,
  /// and references the version-check symbol only a matching runtime
  /// defines, so a mismatch fails at link time.
  static void emitConstructor(Module &M) {
    LLVMContext &C = M.getContext();
    Type *Void = Type::getVoidTy(C);
    Function *Ctor = Function::createWithDefaultAttr(
        FunctionType::get(Void, false), GlobalValue::InternalLinkage, 0,
        "memprof.module_ctor", &M);
    IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
    B.CreateCall(M.getOrInsertFunction(InitName, Void));
    B.CreateCall(M.getOrInsertFunction(VersionCheckName, Void));
    if (perObject())
      B.CreateCall(M.getOrInsertFunction(ObjectCountsName, Void));
    if (!ClOutputDir.empty()) {
      Constant *Dir = B.CreateGlobalString(ClOutputDir, "memprof.output_dir");
      B.CreateCall(M.getOrInsertFunction(DefaultDirName, Void,
                                         PointerType::getUnqual(C)),
                   {Dir});
    }
    B.CreateRetVoid();
    appendToGlobalCtors(M, Ctor, /*Priority=*/1);
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "MemProfInstrument", "0.1",
          [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "memprof-instrument")
                    return false;
                  MPM.addPass(MemProfInstrumentPass());
                  return true;
                });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel,
                   ThinOrFullLTOPhase Phase) {
                  MPM.addPass(MemProfInstrumentPass());
                });
          }};
}
