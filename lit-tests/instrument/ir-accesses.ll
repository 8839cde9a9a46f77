; What the pass emits for single accesses: the shadow base read once per
; function (by default an uninstrumented copy of the function called if the
; runtime has not started, ir-clone.ll; with -memprof-instrument-clone=false
; the sink chosen then; with -memprof-instrument-sink=false the shadow
; reserved then), one
; load/add/store of the granule counter before each access, nothing for
; allocas and globals (through phis and selects too), atomics counted like
; loads and stores, memory
; intrinsics counted per 8-byte word (inline up to 64 constant bytes, by
; memprof_record_strided otherwise, or inline when a variable range lies in
; one granule), the module constructor with the
; version-check symbol, and the opt-out attribute.
; RUN: opt-22 -load-pass-plugin=%plugin -passes=memprof-instrument -memprof-instrument-sink=false -memprof-instrument-granules -S %s | FileCheck %s
; RUN: %opt-instrument -memprof-instrument-clone=false %s | FileCheck %s --check-prefix=SINK
; RUN: %opt-instrument %s | FileCheck %s --check-prefix=CLONE
; RUN: opt-22 -load-pass-plugin=%plugin -passes=memprof-instrument -memprof-instrument-sink=false -S %s | FileCheck %s --check-prefix=OBJ
; (CHECK is -memprof-instrument-granules, OBJ the default: per object.)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@g = global i64 0

; CHECK: @memprof_shadow_base = external global i64
; CHECK-NOT: @memprof.sink
; CHECK: @llvm.global_ctors = appending global {{.*}} { i32 1, ptr @memprof.module_ctor, ptr null }
; SINK: @memprof.sink = private global i64 0, align 64

; With -memprof-instrument-sink=false the base is read once; if it is 0
; (the runtime has not started), memprof_shadow_start() reserves the shadow
; and returns it. Each update:
; base + ((addr >> 6) << 3).
; CHECK-LABEL: define i64 @load(
; CHECK-NEXT: %memprof.shadow = load atomic i64, ptr @memprof_shadow_base unordered, align 8
; CHECK-NEXT: [[OFF:%.*]] = icmp eq i64 %memprof.shadow, 0
; CHECK-NEXT: br i1 [[OFF]], label %memprof.start, label %memprof.started, !prof [[UNLIKELY:![0-9]+]]
; CHECK: memprof.start:
; CHECK-NEXT: %memprof.started.base = call i64 @memprof_shadow_start()
; CHECK-NEXT: br label %memprof.started
; CHECK: memprof.started:
; CHECK-NEXT: %memprof.base = phi i64 [ %memprof.shadow, %{{.*}} ], [ %memprof.started.base, %memprof.start ]
; CHECK-NEXT: [[A:%.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: [[A0:%.*]] = add i64 [[A]], 0
; CHECK-NEXT: [[S:%.*]] = lshr i64 [[A0]], 6
; CHECK-NEXT: [[M:%.*]] = shl i64 [[S]], 3
; CHECK-NEXT: [[C:%.*]] = add i64 %memprof.base, [[M]]
; CHECK-NEXT: %memprof.ctr = inttoptr i64 [[C]] to ptr
; CHECK-NEXT: [[OLD:%.*]] = load i64, ptr %memprof.ctr, align 8
; CHECK-NEXT: [[NEW:%.*]] = add i64 [[OLD]], 1
; CHECK-NEXT: store i64 [[NEW]], ptr %memprof.ctr, align 8
; CHECK-NEXT: %v = load i64, ptr %p
; With -memprof-instrument-clone=false, a function entered before the
; runtime started sends its updates to a sink: (addr >> 3) & mask, the mask 0 then.
; SINK-LABEL: define i64 @load(
; SINK-NEXT: %memprof.shadow = load atomic i64, ptr @memprof_shadow_base unordered, align 8
; SINK-NEXT: [[OFF:%.*]] = icmp eq i64 %memprof.shadow, 0
; SINK-NEXT: %memprof.base = select i1 [[OFF]], i64 ptrtoint (ptr @memprof.sink to i64), i64 %memprof.shadow
; SINK-NEXT: %memprof.mask = select i1 [[OFF]], i64 0, i64 -8
; SINK-NEXT: [[A:%.*]] = ptrtoint ptr %p to i64
; SINK-NEXT: [[A0:%.*]] = add i64 [[A]], 0
; SINK-NEXT: [[S:%.*]] = lshr i64 [[A0]], 3
; SINK-NEXT: [[M:%.*]] = and i64 [[S]], %memprof.mask
; SINK-NEXT: [[C:%.*]] = add i64 %memprof.base, [[M]]
; SINK-NEXT: %memprof.ctr = inttoptr i64 [[C]] to ptr
; SINK-NEXT: [[OLD:%.*]] = load i64, ptr %memprof.ctr, align 8
; SINK-NEXT: [[NEW:%.*]] = add i64 [[OLD]], 1
; SINK-NEXT: store i64 [[NEW]], ptr %memprof.ctr, align 8
; SINK-NEXT: %v = load i64, ptr %p
; SINK-NOT: memprof_shadow_start
; SINK: ret i64
; By default it calls its uninstrumented copy instead, and the updates of
; the instrumented body have no mask: base + ((addr >> 6) << 3).
; CLONE-LABEL: define i64 @load(
; CLONE-NEXT: %memprof.shadow = load atomic i64, ptr @memprof_shadow_base unordered, align 8
; CLONE-NEXT: [[OFF:%.*]] = icmp eq i64 %memprof.shadow, 0
; CLONE-NEXT: br i1 [[OFF]], label %memprof.noshadow, label %memprof.started, !prof [[UNLIKELY:![0-9]+]]
; CLONE: memprof.noshadow:
; CLONE-NEXT: [[R:%.*]] = call i64 @memprof.uninstrumented.load(ptr %p)
; CLONE-NEXT: ret i64 [[R]]
; CLONE: memprof.started:
; CLONE-NEXT: [[A:%.*]] = ptrtoint ptr %p to i64
; CLONE-NEXT: [[A0:%.*]] = add i64 [[A]], 0
; CLONE-NEXT: [[S:%.*]] = lshr i64 [[A0]], 6
; CLONE-NEXT: [[M:%.*]] = shl i64 [[S]], 3
; CLONE-NEXT: [[C:%.*]] = add i64 %memprof.shadow, [[M]]
; CLONE-NEXT: %memprof.ctr = inttoptr i64 [[C]] to ptr
; CLONE-NEXT: [[OLD:%.*]] = load i64, ptr %memprof.ctr, align 8
; CLONE-NEXT: [[NEW:%.*]] = add i64 [[OLD]], 1
; CLONE-NEXT: store i64 [[NEW]], ptr %memprof.ctr, align 8
; CLONE-NEXT: %v = load i64, ptr %p
; CLONE-NEXT: ret i64 %v
define i64 @load(ptr %p) {
  %v = load i64, ptr %p
  ret i64 %v
}

; A call between two accesses keeps them apart: two updates of 1.
; CHECK-LABEL: define void @store_call_store(
; CHECK: add i64 {{.*}}, 1
; CHECK-NEXT: store i64 {{.*}}, ptr %memprof.ctr
; CHECK-NEXT: store i8 1, ptr %p
; CHECK-NEXT: call void @ext()
; CHECK: add i64 {{.*}}, 1
; CHECK-NEXT: store i64 {{.*}}, ptr %memprof.ctr
; CHECK-NEXT: store i8 2, ptr %p
declare void @ext()
define void @store_call_store(ptr %p) {
  store i8 1, ptr %p
  call void @ext()
  store i8 2, ptr %p
  ret void
}

; Stack slots and globals are not the heap: no instrumentation at all.
; CHECK-LABEL: define i64 @not_heap(
; CHECK-NOT: memprof
; CHECK: ret i64
define i64 @not_heap(i64 %x) {
  %a = alloca [4 x i64]
  %q = getelementptr [4 x i64], ptr %a, i64 0, i64 2
  store i64 %x, ptr %q
  %v = load i64, ptr %q
  %w = load i64, ptr @g
  store i64 %v, ptr @g
  %r = add i64 %v, %w
  ret i64 %r
}

; Through selects and phis: a pointer that is a stack slot or a global on
; every path is not the heap either.
; CHECK-LABEL: define i64 @not_heap_phi_select(
; CHECK-NOT: memprof
; CHECK: ret i64
define i64 @not_heap_phi_select(i1 %c, i64 %i) {
entry:
  %a = alloca [4 x i64]
  %b = alloca i64
  %s = select i1 %c, ptr %a, ptr @g
  store i64 1, ptr %s
  br i1 %c, label %then, label %join
then:
  %q = getelementptr i64, ptr %a, i64 %i
  br label %join
join:
  %p = phi ptr [ %q, %then ], [ %b, %entry ]
  %v = load i64, ptr %p
  ret i64 %v
}

; One heap candidate among the objects (the argument) is enough to count.
; The entry block's static allocas move before the base's test, so that
; they stay in the entry block.
; CHECK-LABEL: define i64 @maybe_heap_phi(
; CHECK-NEXT: entry:
; CHECK-NEXT: %b = alloca i64
; CHECK-NEXT: %memprof.shadow = load atomic i64
; CHECK: memprof.started:
; CHECK: %x = load i64, ptr %h
; CHECK: join:
; CHECK: %memprof.ctr{{[0-9]*}} = inttoptr
; CHECK: %v = load i64, ptr %p
define i64 @maybe_heap_phi(i1 %c, ptr %h) {
entry:
  %x = load i64, ptr %h
  %b = alloca i64
  store i64 %x, ptr %b
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %p = phi ptr [ %h, %then ], [ %b, %entry ]
  %v = load i64, ptr %p
  ret i64 %v
}

; CHECK-LABEL: define i64 @atomics(
; CHECK: store i64 {{.*}}, ptr %memprof.ctr
; CHECK-NEXT: %o = atomicrmw add ptr %p, i64 1 seq_cst
; CHECK: store i64 {{.*}}, ptr %memprof.ctr
; CHECK-NEXT: %x = cmpxchg ptr %q, i64 0, i64 1 seq_cst seq_cst
define i64 @atomics(ptr %p, ptr %q) {
  %o = atomicrmw add ptr %p, i64 1 seq_cst
  %x = cmpxchg ptr %q, i64 0, i64 1 seq_cst seq_cst
  ret i64 %o
}

; A variable length: ceil(n / 8) words from each end, counted inline when
; their starts lie in one granule (words - 1 < room, the room for word
; starts in the first granule being ceil((64 - (d & 63)) / 8)) or in two
; (words - 1 < room + 8: room words in the first, the rest in the next), by
; the runtime otherwise, and not at all when empty.
; CHECK-LABEL: define void @memcpy_var(
; CHECK: [[N7:%.*]] = add i64 %n, 7
; CHECK-NEXT: [[W:%.*]] = lshr i64 [[N7]], 3
; CHECK-NEXT: [[D:%.*]] = ptrtoint ptr %d to i64
; CHECK-NEXT: [[IN:%.*]] = and i64 [[D]], 63
; CHECK-NEXT: [[R71:%.*]] = sub i64 71, [[IN]]
; CHECK-NEXT: [[ROOM:%.*]] = lshr i64 [[R71]], 3
; CHECK-NEXT: [[W1:%.*]] = sub i64 [[W]], 1
; CHECK-NEXT: %memprof.range.fits = icmp ult i64 [[W1]], [[ROOM]]
; CHECK-NEXT: br i1 %memprof.range.fits, label %[[ONE:.*]], label %[[MORE:.*]]
; CHECK: [[ONE]]:
; CHECK: [[O:%.*]] = load i64, ptr %memprof.ctr
; CHECK-NEXT: [[A:%.*]] = add i64 [[O]], [[W]]
; CHECK-NEXT: store i64 [[A]], ptr %memprof.ctr
; CHECK: [[MORE]]:
; CHECK-NEXT: [[ROOM8:%.*]] = add i64 [[ROOM]], 8
; CHECK-NEXT: %memprof.range.fits2 = icmp ult i64 [[W1]], [[ROOM8]]
; CHECK-NEXT: br i1 %memprof.range.fits2, label %[[TWO:.*]], label %[[LONG:.*]]
; CHECK: [[TWO]]:
; CHECK: [[O1:%.*]] = load i64, ptr %memprof.ctr1
; CHECK-NEXT: [[A1:%.*]] = add i64 [[O1]], [[ROOM]]
; CHECK-NEXT: store i64 [[A1]], ptr %memprof.ctr1
; CHECK-NEXT: [[D64:%.*]] = add i64 [[D]], 64
; CHECK: %memprof.ctr2 = inttoptr
; CHECK-NEXT: [[REST:%.*]] = sub i64 [[W]], [[ROOM]]
; CHECK-NEXT: [[O2:%.*]] = load i64, ptr %memprof.ctr2
; CHECK-NEXT: [[A2:%.*]] = add i64 [[O2]], [[REST]]
; CHECK-NEXT: store i64 [[A2]], ptr %memprof.ctr2
; CHECK: [[LONG]]:
; CHECK-NEXT: [[NZ:%.*]] = icmp ne i64 [[W]], 0
; CHECK-NEXT: br i1 [[NZ]], label %[[CALL:.*]], label
; CHECK: [[CALL]]:
; CHECK-NEXT: call void @memprof_record_strided(i64 [[D]], i64 8, i64 [[W]], i64 1)
; CHECK: [[S:%.*]] = ptrtoint ptr %s to i64
; CHECK: call void @memprof_record_strided(i64 [[S]], i64 8, i64 {{%.*}}, i64 1)
; CHECK: call void @llvm.memcpy
; Per object (the default): a range's words all lie in the object of its
; first byte, so one update of the word count there, when there are words.
; OBJ-LABEL: define void @memcpy_var(
; OBJ: [[N7:%.*]] = add i64 %n, 7
; OBJ-NEXT: [[W:%.*]] = lshr i64 [[N7]], 3
; OBJ-NEXT: [[D:%.*]] = ptrtoint ptr %d to i64
; OBJ-NEXT: [[NZ:%.*]] = icmp ne i64 [[W]], 0
; OBJ-NEXT: br i1 [[NZ]], label %[[ONE:.*]], label
; OBJ: [[ONE]]:
; OBJ-NEXT: [[G:%.*]] = lshr i64 [[D]], 6
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[A:%.*]] = add i64 [[O]], [[W]]
; OBJ-NEXT: store i64 [[A]], ptr %memprof.ctr
; OBJ: ptrtoint ptr %s to i64
; OBJ-NOT: memprof_record_strided
; OBJ: call void @llvm.memcpy
define void @memcpy_var(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}

; 24 constant bytes: three words at +0, +8, +16. One update of 3 when they
; fit in the granule of the first (its offset in the granule is below 48),
; one update per word otherwise.
; CHECK-LABEL: define void @memset_const(
; CHECK: [[A:%.*]] = add i64 {{%.*}}, 0
; CHECK-NEXT: [[IN:%.*]] = and i64 [[A]], 63
; CHECK-NEXT: %memprof.fits = icmp ult i64 [[IN]], 48
; CHECK-NEXT: br i1 %memprof.fits, label %[[ONE:.*]], label %[[EACH:.*]]
; CHECK: [[ONE]]:
; CHECK: [[O:%.*]] = load i64, ptr %memprof.ctr
; CHECK-NEXT: [[N:%.*]] = add i64 [[O]], 3
; CHECK-NEXT: store i64 [[N]], ptr %memprof.ctr
; CHECK: [[EACH]]:
; CHECK-COUNT-3: add i64 {{%.*}}, 1
; CHECK: call void @llvm.memset
; CHECK-NOT: memprof_record_strided
; CHECK: ret void
; OBJ-LABEL: define void @memset_const(
; OBJ-NOT: memprof.fits
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N:%.*]] = add i64 [[O]], 3
; OBJ-NEXT: store i64 [[N]], ptr %memprof.ctr
; OBJ-NEXT: call void @llvm.memset
define void @memset_const(ptr %d) {
  call void @llvm.memset.p0.i64(ptr %d, i8 0, i64 24, i1 false)
  ret void
}

; 200 constant bytes (25 words): by the runtime per granule; per object one
; update of 25, with no test (the range is not empty).
; CHECK-LABEL: define void @memset_long(
; CHECK: call void @memprof_record_strided(i64 {{%.*}}, i64 8, i64 25, i64 1)
; OBJ-LABEL: define void @memset_long(
; OBJ: memprof.started:
; OBJ-NOT: icmp
; OBJ: [[O:%.*]] = load i64, ptr %memprof.ctr
; OBJ-NEXT: [[N:%.*]] = add i64 [[O]], 25
; OBJ-NEXT: store i64 [[N]], ptr %memprof.ctr
; OBJ-NEXT: call void @llvm.memset
define void @memset_long(ptr %d) {
  call void @llvm.memset.p0.i64(ptr %d, i8 0, i64 200, i1 false)
  ret void
}

; Opted out with __attribute__((disable_sanitizer_instrumentation)).
; CHECK-LABEL: define i64 @opted_out(
; CHECK-NOT: memprof
; CHECK: ret i64
define i64 @opted_out(ptr %p) disable_sanitizer_instrumentation {
  %v = load i64, ptr %p
  ret i64 %v
}

; The constructor starts the runtime and references the version symbol.
; CHECK-LABEL: define internal void @memprof.module_ctor()
; CHECK-NEXT: call void @memprof_init()
; CHECK-NEXT: call void @memprof_runtime_missing_or_not_version_1()
; CHECK-NEXT: ret void

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
