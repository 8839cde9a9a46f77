; Fewer updates, same counts: accesses to one base at constant offsets in a
; block share one update when they fit in one granule (tested at run time),
; and loops with one exit at the latch
; and no calls get their invariant and constant-stride accesses counted
; once, in the preheader, for the trip count. A call in the loop or a second
; exit keeps the updates in the loop. With the options off, every access
; has its own update.
; RUN: %opt-instrument -memprof-instrument-granules %s | FileCheck %s
; RUN: opt-22 -load-pass-plugin=%plugin -passes=memprof-instrument -memprof-instrument-coalesce=false -memprof-instrument-hoist=false -S %s | FileCheck %s --check-prefix=PLAIN
; RUN: opt-22 -load-pass-plugin=%plugin -passes=memprof-instrument -memprof-instrument-cross-block=false -memprof-instrument-granules -S %s | FileCheck %s --check-prefix=NOCROSS
; RUN: %opt-instrument %s | FileCheck %s --check-prefix=OBJ
; CHECK and NOCROSS are -memprof-instrument-granules; OBJ is the default,
; per object: the accesses of a group to one object, made through inbounds
; GEPs at constant offsets from one base, are all counted in the granule of
; the one at the smallest offset, with no run-time test and no 64-byte
; window (only the object's total must be exact). GEPs without inbounds
; may leave the object: their accesses keep their own updates.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Offsets 0, 8, 40 (one window) and 64 (the next): one update of 3 when the
; window fits in its first granule (offset in the granule below 64 - 40),
; one per access otherwise; then one for the access at 64.
; CHECK-LABEL: define i64 @fields(
; CHECK: [[A:%.*]] = add i64 {{%.*}}, 0
; CHECK-NEXT: [[IN:%.*]] = and i64 [[A]], 63
; CHECK-NEXT: %memprof.fits = icmp ult i64 [[IN]], 24
; CHECK-NEXT: br i1 %memprof.fits, label %[[ONE:.*]], label %[[EACH:.*]]
; CHECK: [[ONE]]:
; CHECK: add i64 {{%.*}}, 3
; CHECK: [[EACH]]:
; CHECK: add i64 {{%.*}}, 1
; CHECK: add i64 [[A]], 8
; CHECK: add i64 {{%.*}}, 1
; CHECK: add i64 [[A]], 40
; CHECK: add i64 {{%.*}}, 1
; CHECK: add i64 {{%.*}}, 64
; CHECK: [[OLD:%.*]] = load i64, ptr %memprof.ctr{{[0-9]*}}
; CHECK-NEXT: [[NEW:%.*]] = add i64 [[OLD]], 1
; CHECK-NEXT: store i64 [[NEW]]
; CHECK-NEXT: %a = load i64, ptr %p
; CHECK-NOT: memprof.ctr
; CHECK: ret i64
; PLAIN-LABEL: define i64 @fields(
; PLAIN-COUNT-4: add i64 {{%.*}}, 1
; PLAIN-NOT: memprof.fits
; PLAIN: ret i64
; OBJ-LABEL: define i64 @fields(
; OBJ-NOT: memprof.fits
; OBJ-COUNT-4: add i64 {{%.*}}, 1
; OBJ: store i64 %a, ptr %pd
; OBJ-NOT: memprof.ctr
; OBJ: ret i64
define i64 @fields(ptr %p) {
  %a = load i64, ptr %p
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  %pc = getelementptr i8, ptr %p, i64 40
  %c = load i32, ptr %pc
  %pd = getelementptr i8, ptr %p, i64 64
  store i64 %a, ptr %pd
  %c64 = zext i32 %c to i64
  %s = add i64 %b, %c64
  ret i64 %s
}

; for (i = 0; i < n; ++i) { s += *x; s += p[i]; }  (n > 0 known)
; CHECK-LABEL: define i64 @loop(
; CHECK: preheader:
; CHECK-NEXT: [[XI:%.*]] = ptrtoint ptr %x to i64
; CHECK: [[OLD:%.*]] = load i64, ptr %memprof.ctr
; CHECK-NEXT: [[NEW:%.*]] = add i64 [[OLD]], %n
; CHECK-NEXT: store i64 [[NEW]], ptr %memprof.ctr
; CHECK-NEXT: [[P:%.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: call void @memprof_record_strided(i64 [[P]], i64 8, i64 %n, i64 1)
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NOT: memprof
; CHECK: exit:
; PLAIN-LABEL: define i64 @loop(
; PLAIN: loop:
; PLAIN-COUNT-2: add i64 {{%.*}}, 1
; PLAIN-NOT: memprof_record_strided
; PLAIN: exit:
define i64 @loop(ptr %p, ptr %x, i64 %n) {
entry:
  %pos = icmp sgt i64 %n, 0
  br i1 %pos, label %preheader, label %done
preheader:
  br label %loop
loop:
  %i = phi i64 [ 0, %preheader ], [ %i1, %loop ]
  %s = phi i64 [ 0, %preheader ], [ %s2, %loop ]
  %v = load volatile i64, ptr %x
  %q = getelementptr i64, ptr %p, i64 %i
  %w = load i64, ptr %q
  %s1 = add i64 %s, %v
  %s2 = add i64 %s1, %w
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret i64 %s2
done:
  ret i64 0
}

; A call in the loop: one update per access, in the loop.
; CHECK-LABEL: define void @loop_call(
; CHECK: loop:
; CHECK: add i64 {{%.*}}, 1
; CHECK: call void @ext
; CHECK-NOT: memprof_record_strided
; CHECK: exit:
declare void @ext(i64)
define void @loop_call(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  %w = load i64, ptr %q
  call void @ext(i64 %w)
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret void
}

; Two exits (a search): the last iteration may leave before the access.
; CHECK-LABEL: define i64 @loop_two_exits(
; CHECK: loop:
; CHECK: add i64 {{%.*}}, 1
; CHECK: latch:
; CHECK-NOT: memprof_record_strided
; CHECK: ret i64
define i64 @loop_two_exits(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %q = getelementptr i8, ptr %p, i64 %i
  %b = load i8, ptr %q
  %hit = icmp eq i8 %b, 7
  br i1 %hit, label %found, label %latch
latch:
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
found:
  ret i64 %i
exit:
  ret i64 %n
}

; A call that always returns (willreturn nounwind) splits nothing: the two
; loads share one update, and the loop, whose preheader CFG simplification
; had folded into %entry, gets a new preheader and its strided update there.
; CHECK-LABEL: define i64 @returning_calls(
; CHECK: %memprof.fits = icmp ult i64 {{%.*}}, 56
; CHECK: add i64 {{%.*}}, 2
; CHECK: call i64 @pure(
; CHECK: call void @memprof_record_strided(i64 {{%.*}}, i64 8, i64 %n, i64 1)
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NOT: memprof
; CHECK: ret i64
declare i64 @pure(i64) willreturn nounwind memory(none)
define i64 @returning_calls(ptr %p, i64 %n) {
entry:
  %a = load i64, ptr %p
  %x = call i64 @pure(i64 %a)
  %q = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %q
  %pos = icmp sgt i64 %n, 0
  br i1 %pos, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ %b, %entry ], [ %s1, %loop ]
  %e = getelementptr i64, ptr %p, i64 %i
  %w = load i64, ptr %e
  %y = call i64 @pure(i64 %w)
  %s1 = add i64 %s, %y
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  %r = phi i64 [ %b, %entry ], [ %s1, %loop ]
  ret i64 %r
}

; The same through inbounds GEPs, with a field at -16 and one at 200 (more
; than a granule apart): per object, one update of 5 at the granule of
; %p - 16, before the first access.
; OBJ-LABEL: define i64 @fields_inbounds(
; OBJ: [[P:%.*]] = ptrtoint ptr %p to i64
; OBJ-NEXT: [[A:%.*]] = add i64 [[P]], -16
; OBJ-NEXT: [[G:%.*]] = lshr i64 [[A]], 6
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N:%.*]] = add i64 [[O]], 5
; OBJ-NEXT: store i64 [[N]], ptr %memprof.ctr
; OBJ-NEXT: %a = load i64, ptr %p
; OBJ-NOT: memprof.ctr
; OBJ: ret i64
define i64 @fields_inbounds(ptr %p) {
  %a = load i64, ptr %p
  %pb = getelementptr inbounds i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  %pc = getelementptr inbounds i8, ptr %p, i64 200
  %c = load i32, ptr %pc
  %pd = getelementptr inbounds i8, ptr %p, i64 -16
  store i64 %a, ptr %pd
  %pe = getelementptr inbounds i8, ptr %pb, i64 32
  store i64 %b, ptr %pe
  %c64 = zext i32 %c to i64
  %s = add i64 %b, %c64
  ret i64 %s
}

; Per object across blocks: the join's inbounds access to %p + 100 joins the
; entry's update of %p (one update of 2, no test).
; OBJ-LABEL: define i64 @diamond_inbounds(
; OBJ-NOT: memprof.fits
; OBJ: add i64 {{%.*}}, 2
; OBJ: %a = load i64, ptr %p
; OBJ: join:
; OBJ-NOT: memprof.ctr
; OBJ: ret i64
define i64 @diamond_inbounds(ptr %p, i1 %c) {
entry:
  %a = load i64, ptr %p
  br i1 %c, label %then, label %join
then:
  store volatile i32 1, ptr @g1
  br label %join
join:
  %pb = getelementptr inbounds i8, ptr %p, i64 100
  %b = load i64, ptr %pb
  %s = add i64 %a, %b
  ret i64 %s
}

; Across blocks: the join of a diamond runs exactly once each time the
; entry block does (it post-dominates it, no barrier, no loop between), so
; its access to %p + 8 joins the entry's update of %p: one update of 2 when
; both fit in one granule.
; CHECK-LABEL: define i64 @diamond(
; CHECK: %memprof.fits = icmp ult i64 {{%.*}}, 56
; CHECK: add i64 {{%.*}}, 2
; CHECK: %a = load i64, ptr %p
; CHECK: join:
; CHECK-NOT: memprof.ctr
; CHECK: ret i64
; NOCROSS-LABEL: define i64 @diamond(
; NOCROSS: join:
; NOCROSS: %memprof.ctr
; NOCROSS: %b = load i64
@g1 = global i32 0
define i64 @diamond(ptr %p, i1 %c) {
entry:
  %a = load i64, ptr %p
  br i1 %c, label %then, label %join
then:
  store volatile i32 1, ptr @g1
  br label %join
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  %s = add i64 %a, %b
  ret i64 %s
}

; Not across: a path that returns before the join, a barrier (a call that
; may not return) on a path to it, or a loop between them: the join keeps
; its own update.
; CHECK-LABEL: define i64 @early_exit(
; CHECK: join:
; CHECK: %memprof.ctr
; CHECK: %b = load i64
define i64 @early_exit(ptr %p, i1 %c) {
entry:
  %a = load i64, ptr %p
  br i1 %c, label %out, label %join
out:
  ret i64 %a
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  ret i64 %b
}
; CHECK-LABEL: define i64 @barrier_between(
; CHECK: join:
; CHECK: %memprof.ctr
; CHECK: %b = load i64
define i64 @barrier_between(ptr %p, i1 %c) {
entry:
  %a = load i64, ptr %p
  br i1 %c, label %then, label %join
then:
  call void @ext(i64 %a)
  br label %join
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  ret i64 %b
}
; CHECK-LABEL: define i64 @loop_between(
; CHECK: join:
; CHECK: %memprof.ctr
; CHECK: %b = load i64
define i64 @loop_between(ptr %p, i64 %n) {
entry:
  %a = load i64, ptr %p
  br label %spin
spin:
  %i = phi i64 [ 0, %entry ], [ %i1, %spin ]
  store volatile i32 1, ptr @g1
  %i1 = add i64 %i, 1
  %d = icmp eq i64 %i1, %n
  br i1 %d, label %join, label %spin
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  ret i64 %b
}

; Irreducible control flow elsewhere in the function (x <-> y, entered at
; both): the diamond after it still coalesces.
; CHECK-LABEL: define i64 @irreducible_elsewhere(
; CHECK: add i64 {{%.*}}, 2
; CHECK: join:
; CHECK-NOT: memprof.ctr
; CHECK: ret i64
define i64 @irreducible_elsewhere(ptr %p, i1 %c, i1 %d) {
entry:
  br i1 %c, label %x, label %y
x:
  store volatile i32 1, ptr @g1
  br i1 %d, label %y, label %body
y:
  store volatile i32 2, ptr @g1
  br i1 %d, label %x, label %body
body:
  %a = load i64, ptr %p
  br i1 %c, label %then, label %join
then:
  store volatile i32 3, ptr @g1
  br label %join
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  %s = add i64 %a, %b
  ret i64 %s
}

; The join is on an irreducible cycle (join <-> z, entered at both) that
; avoids the entry block: it can run more often, and keeps its update.
; CHECK-LABEL: define i64 @irreducible_repeat(
; CHECK: join:
; CHECK: %memprof.ctr
; CHECK: %b = load i64
define i64 @irreducible_repeat(ptr %p, i1 %c, i1 %d) {
entry:
  %a = load i64, ptr %p
  br i1 %c, label %join, label %z
z:
  store volatile i32 1, ptr @g1
  br label %join
join:
  %pb = getelementptr i8, ptr %p, i64 8
  %b = load i64, ptr %pb
  br i1 %d, label %z, label %out
out:
  ret i64 %b
}

; Per object, a block's last group moves into its successors when each is
; entered only from it and one of them accesses the base: the case that
; reads %p + 8 gets one update of 2, the other case one of 1 at its start,
; the switch's block none.
; OBJ-LABEL: define i64 @pushed(
; OBJ: memprof.started:
; OBJ-NOT: memprof.ctr
; OBJ: switch i64 %op
; OBJ: a:
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N:%.*]] = add i64 [[O]], 2
; OBJ-NEXT: store i64 [[N]], ptr %memprof.ctr
; OBJ-NEXT: %x = load i64, ptr %f
; OBJ: b:
; OBJ-NEXT: ptrtoint ptr %p
; OBJ: [[O2:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N2:%.*]] = add i64 [[O2]], 1
; OBJ-NEXT: store i64 [[N2]], ptr %memprof.ctr
; OBJ-NEXT: store volatile i32 1, ptr @g1
; CHECK-LABEL: define i64 @pushed(
; CHECK: %op = load i64, ptr %p
; CHECK: switch i64 %op
define i64 @pushed(ptr %p) {
entry:
  %op = load i64, ptr %p
  switch i64 %op, label %b [ i64 0, label %a ]
a:
  %f = getelementptr inbounds i8, ptr %p, i64 8
  %x = load i64, ptr %f
  ret i64 %x
b:
  store volatile i32 1, ptr @g1
  ret i64 0
}

; Not moved: a call after the access (it could free the block, and the
; update would come after it), or into a successor with another
; predecessor (join: mid's update keeps join's access, which runs once each
; time mid does, as across blocks above).
; OBJ-LABEL: define i64 @not_pushed(
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N:%.*]] = add i64 [[O]], 1
; OBJ-NEXT: store i64 [[N]], ptr %memprof.ctr
; OBJ-NEXT: %op = load i64, ptr %p
; OBJ: a:
; OBJ: add i64 {{%.*}}, 1
; OBJ-NEXT: store i64
; OBJ-NEXT: %x = load i64, ptr %f
; OBJ: mid:
; OBJ: [[O2:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N2:%.*]] = add i64 [[O2]], 2
; OBJ-NEXT: store i64 [[N2]], ptr %memprof.ctr
; OBJ-NEXT: %op2 = load i64, ptr %q
; OBJ: other:
; OBJ-NOT: memprof.ctr
; OBJ: join:
; OBJ-NOT: memprof.ctr
; OBJ: ret i64
define i64 @not_pushed(ptr %p, ptr %q) {
entry:
  %op = load i64, ptr %p
  %r = call i64 @pure(i64 %op)
  %c = icmp eq i64 %r, 0
  br i1 %c, label %a, label %mid
a:
  %f = getelementptr inbounds i8, ptr %p, i64 8
  %x = load i64, ptr %f
  ret i64 %x
mid:
  %op2 = load i64, ptr %q
  %c2 = icmp eq i64 %op2, 0
  br i1 %c2, label %join, label %other
other:
  store volatile i32 2, ptr @g1
  br label %join
join:
  %g = getelementptr inbounds i8, ptr %q, i64 8
  %y = load i64, ptr %g
  ret i64 %y
}

; A successor with another predecessor gets a block of its own on the
; switch's edges to it (both cases to %shared: one block, one phi entry),
; when at least as many successors take the group in: the switch's block
; has no update, %a and %b one of 2 each, the new block one of 1.
; OBJ-LABEL: define i64 @pushed_split(
; OBJ: memprof.started:
; OBJ-NOT: memprof.ctr
; OBJ: switch i64 %op, label %b [
; OBJ-NEXT: i64 0, label %a
; OBJ-NEXT: i64 1, label %shared.memprof
; OBJ-NEXT: i64 2, label %shared.memprof
; OBJ-NEXT: ]
; OBJ: a:
; OBJ: add i64 {{%.*}}, 2
; OBJ: b:
; OBJ: add i64 {{%.*}}, 2
; OBJ: shared.memprof:
; OBJ: add i64 {{%.*}}, 1
; OBJ-NEXT: store i64
; OBJ-NEXT: br label %shared
; OBJ: shared:
; OBJ-NEXT: %v = phi i64 [ 7, %other ], [ 0, %shared.memprof ]
; OBJ-NOT: memprof.ctr
; OBJ: ret i64 %v
define i64 @pushed_split(ptr %p, i1 %c) {
entry:
  br i1 %c, label %other, label %sw
sw:
  %op = load i64, ptr %p
  switch i64 %op, label %b [ i64 0, label %a
                             i64 1, label %shared
                             i64 2, label %shared ]
a:
  %fa = getelementptr inbounds i8, ptr %p, i64 8
  %x = load i64, ptr %fa
  ret i64 %x
b:
  %fb = getelementptr inbounds i8, ptr %p, i64 16
  %y = load i64, ptr %fb
  ret i64 %y
other:
  store volatile i32 3, ptr @g1
  br label %shared
shared:
  %v = phi i64 [ 7, %other ], [ 0, %sw ], [ 0, %sw ]
  ret i64 %v
}

; Not moved after an atomic instruction: once the count drops, another
; thread may free the block, so the update stays before the accesses.
; OBJ-LABEL: define i64 @not_pushed_atomic(
; OBJ: add i64 {{%.*}}, 1
; OBJ-NEXT: store i64
; OBJ-NEXT: %old = atomicrmw sub ptr %p, i64 1 acq_rel
; OBJ: last:
; OBJ-NOT: memprof.ctr
; OBJ: live:
; OBJ: add i64 {{%.*}}, 1
; OBJ-NEXT: store i64
; OBJ-NEXT: %x = load i64, ptr %f
define i64 @not_pushed_atomic(ptr %p) {
entry:
  %old = atomicrmw sub ptr %p, i64 1 acq_rel
  %c = icmp eq i64 %old, 1
  br i1 %c, label %last, label %live
last:
  store volatile i32 4, ptr @g1
  ret i64 0
live:
  %f = getelementptr inbounds i8, ptr %p, i64 8
  %x = load i64, ptr %f
  ret i64 %x
}
