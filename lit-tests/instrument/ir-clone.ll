; The default counter form (-memprof-instrument-clone): each instrumented
; function gets an internal, cold copy of its body as it was before
; instrumentation; when the shadow base is 0 at entry (the runtime has not
; started, or could not reserve the shadow) the function calls the copy with
; its own arguments and returns its result, so the instrumented body needs
; no mask. Functions that cannot pass their arguments on (variable
; arguments) or whose blocks' addresses are taken keep the sink and the
; mask; functions with nothing to count get no copy.
; RUN: %opt-instrument %s | FileCheck %s
; RUN: %opt-instrument -memprof-instrument-clone=false %s | FileCheck %s --check-prefix=NOCLONE
; RUN: opt-22 -load-pass-plugin=%plugin -passes=memprof-instrument -memprof-instrument-sink=false -S %s | FileCheck %s --check-prefix=NOCLONE

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.big = type { [4 x i64] }

; The sink exists for the function that keeps the mask (@varargs).
; CHECK: @memprof.sink = private global i64 0, align 64
; NOCLONE-NOT: memprof.uninstrumented

; Arguments go on with their attributes (byval, zeroext); the copy's
; result is returned.
; CHECK-LABEL: define zeroext i8 @args(ptr %p, ptr byval(%struct.big) align 8 %b, i8 zeroext %c)
; CHECK-NEXT: %memprof.shadow = load atomic i64, ptr @memprof_shadow_base unordered, align 8
; CHECK-NEXT: [[OFF:%.*]] = icmp eq i64 %memprof.shadow, 0
; CHECK-NEXT: br i1 [[OFF]], label %memprof.noshadow, label %memprof.started, !prof
; CHECK: memprof.noshadow:
; CHECK-NEXT: [[R:%.*]] = call zeroext i8 @memprof.uninstrumented.args(ptr %p, ptr byval(%struct.big) align 8 %b, i8 zeroext %c)
; CHECK-NEXT: ret i8 [[R]]
; CHECK: memprof.started:
; CHECK: lshr i64 {{%.*}}, 6
; CHECK-NOT: and i64
; CHECK: store i8 %c, ptr %p
define zeroext i8 @args(ptr %p, ptr byval(%struct.big) align 8 %b, i8 zeroext %c) {
  store i8 %c, ptr %p
  %q = getelementptr i8, ptr %b, i64 8
  %v = load i8, ptr %q
  ret i8 %v
}

; A void function: the copy's call, then ret void.
; CHECK-LABEL: define void @store_void(
; CHECK: memprof.noshadow:
; CHECK-NEXT: call void @memprof.uninstrumented.store_void(ptr %p)
; CHECK-NEXT: ret void
define void @store_void(ptr %p) {
  store i64 1, ptr %p
  ret void
}

; Variable arguments cannot be passed on: the sink and the mask.
; CHECK-LABEL: define void @varargs(
; CHECK: %memprof.base = select i1 {{%.*}}, i64 ptrtoint (ptr @memprof.sink to i64), i64 %memprof.shadow
; CHECK: %memprof.mask = select
; CHECK: and i64 {{%.*}}, %memprof.mask
; CHECK-NOT: memprof.uninstrumented
; CHECK: ret void
define void @varargs(ptr %p, ...) {
  store i64 1, ptr %p
  ret void
}

; A block whose address is taken: the sink and the mask.
; CHECK-LABEL: define ptr @block_address(
; CHECK: %memprof.mask = select
; CHECK-NOT: memprof.uninstrumented
; CHECK: ret ptr
define ptr @block_address(ptr %p) {
entry:
  store i64 1, ptr %p
  br label %target
target:
  ret ptr blockaddress(@block_address, %target)
}

; A call that must not be duplicated (noduplicate): the sink and the mask.
; CHECK-LABEL: define void @no_duplicate(
; CHECK: %memprof.mask = select
; CHECK-NOT: memprof.uninstrumented
; CHECK: ret void
declare void @once() noduplicate
define void @no_duplicate(ptr %p) {
  store i64 1, ptr %p
  call void @once() noduplicate
  ret void
}

; Nothing to count: no copy, no test.
; CHECK-LABEL: define i64 @not_heap(
; CHECK-NOT: memprof
; CHECK: ret i64
define i64 @not_heap(i64 %x) {
  %a = alloca i64
  store i64 %x, ptr %a
  %v = load i64, ptr %a
  ret i64 %v
}

; The copies: internal, cold, never inlined, the original bodies.
; CHECK-LABEL: define internal zeroext i8 @memprof.uninstrumented.args(
; CHECK-SAME: ptr %p, ptr byval(%struct.big) align 8 %b, i8 zeroext %c) unnamed_addr #[[COLD:[0-9]+]] {
; CHECK-NEXT: store i8 %c, ptr %p
; CHECK-NEXT: %q = getelementptr i8, ptr %b, i64 8
; CHECK-NEXT: %v = load i8, ptr %q
; CHECK-NEXT: ret i8 %v
; CHECK-LABEL: define internal void @memprof.uninstrumented.store_void(
; CHECK-SAME: ptr %p) unnamed_addr #[[COLD]] {
; CHECK-NEXT: store i64 1, ptr %p
; CHECK-NEXT: ret void
; CHECK-NOT: memprof.uninstrumented.varargs
; CHECK-NOT: memprof.uninstrumented.block_address
; CHECK-NOT: memprof.uninstrumented.no_duplicate
; CHECK-NOT: memprof.uninstrumented.not_heap
; CHECK: attributes #[[COLD]] = { cold noinline }
