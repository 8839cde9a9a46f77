; Allocation calls carrying the "memprof" attributes clang-22's MemProfUse
; attaches; `opt -passes=instcombine -optimize-hot-cold-new` rewrites them into
; the __hot_cold_t variants, which libmemprof_hotcold must define and place.
; The program prints, per call, whether the block is in the cold range.
; The rewrite (checked by FileCheck on opt-22's output):
; CHECK: call {{.*}}@_Znwm12__hot_cold_t(i64 100, i8 1)
; CHECK: call {{.*}}@_Znam12__hot_cold_t(i64 5000, i8 1)
; CHECK: call {{.*}}@_ZnwmRKSt9nothrow_t12__hot_cold_t(i64 24, ptr {{.*}}@_ZSt7nothrow, i8 1)
; CHECK: call {{.*}}@_ZnamRKSt9nothrow_t12__hot_cold_t(i64 70000, ptr {{.*}}@_ZSt7nothrow, i8 1)
; CHECK: call {{.*}}@_ZnwmSt11align_val_t12__hot_cold_t(i64 64, i64 256, i8 1)
; CHECK: call {{.*}}@_ZnamSt11align_val_t12__hot_cold_t(i64 640, i64 4096, i8 1)
; CHECK: call {{.*}}@_ZnwmSt11align_val_tRKSt9nothrow_t12__hot_cold_t(i64 8, i64 32, ptr {{.*}}@_ZSt7nothrow, i8 1)
; CHECK: call {{.*}}@_ZnamSt11align_val_tRKSt9nothrow_t12__hot_cold_t(i64 300, i64 64, ptr {{.*}}@_ZSt7nothrow, i8 1)
; CHECK: call {{.*}}@__size_returning_new_hot_cold(i64 48, i8 1)
; CHECK: call {{.*}}@__size_returning_new_aligned_hot_cold(i64 48, i64 128, i8 1)
; CHECK: call {{.*}}@_Znwm12__hot_cold_t(i64 100, i8 -128)
; CHECK: call {{.*}}@_Znwm12__hot_cold_t(i64 100, i8 -2)
; CHECK: call {{.*}}@_Znwm12__hot_cold_t(i64 100, i8 -34)
target triple = "x86_64-pc-linux-gnu"

%struct.nothrow = type { i8 }
@_ZSt7nothrow = external global %struct.nothrow

declare ptr @_Znwm(i64)
declare ptr @_Znam(i64)
declare ptr @_ZnwmRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnamRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnwmSt11align_val_t(i64, i64)
declare ptr @_ZnamSt11align_val_t(i64, i64)
declare ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare { ptr, i64 } @__size_returning_new(i64)
declare { ptr, i64 } @__size_returning_new_aligned(i64, i64)
declare i32 @memprof_hotcold_is_cold(ptr)
declare i32 @printf(ptr, ...)

@fmt = private constant [7 x i8] c"%s=%d\0A\00"
@n0 = private constant [4 x i8] c"new\00"
@n1 = private constant [6 x i8] c"new[]\00"
@n2 = private constant [12 x i8] c"new-nothrow\00"
@n3 = private constant [14 x i8] c"new[]-nothrow\00"
@n4 = private constant [12 x i8] c"new-aligned\00"
@n5 = private constant [14 x i8] c"new[]-aligned\00"
@n6 = private constant [20 x i8] c"new-aligned-nothrow\00"
@n7 = private constant [22 x i8] c"new[]-aligned-nothrow\00"
@n8 = private constant [15 x i8] c"size-returning\00"
@n9 = private constant [23 x i8] c"size-returning-aligned\00"
@h0 = private constant [8 x i8] c"notcold\00"
@h1 = private constant [4 x i8] c"hot\00"
@h2 = private constant [10 x i8] c"ambiguous\00"

define void @report(ptr %name, ptr %p) {
  store i8 1, ptr %p
  %c = call i32 @memprof_hotcold_is_cold(ptr %p)
  call i32 (ptr, ...) @printf(ptr @fmt, ptr %name, i32 %c)
  ret void
}

define i32 @main() {
  %p0 = call ptr @_Znwm(i64 100) #0
  call void @report(ptr @n0, ptr %p0)
  %p1 = call ptr @_Znam(i64 5000) #0
  call void @report(ptr @n1, ptr %p1)
  %p2 = call ptr @_ZnwmRKSt9nothrow_t(i64 24, ptr @_ZSt7nothrow) #0
  call void @report(ptr @n2, ptr %p2)
  %p3 = call ptr @_ZnamRKSt9nothrow_t(i64 70000, ptr @_ZSt7nothrow) #0
  call void @report(ptr @n3, ptr %p3)
  %p4 = call ptr @_ZnwmSt11align_val_t(i64 64, i64 256) #0
  call void @report(ptr @n4, ptr %p4)
  %p5 = call ptr @_ZnamSt11align_val_t(i64 640, i64 4096) #0
  call void @report(ptr @n5, ptr %p5)
  %p6 = call ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64 8, i64 32, ptr @_ZSt7nothrow) #0
  call void @report(ptr @n6, ptr %p6)
  %p7 = call ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64 300, i64 64, ptr @_ZSt7nothrow) #0
  call void @report(ptr @n7, ptr %p7)
  %r8 = call { ptr, i64 } @__size_returning_new(i64 48) #0
  %p8 = extractvalue { ptr, i64 } %r8, 0
  call void @report(ptr @n8, ptr %p8)
  %r9 = call { ptr, i64 } @__size_returning_new_aligned(i64 48, i64 128) #0
  %p9 = extractvalue { ptr, i64 } %r9, 0
  call void @report(ptr @n9, ptr %p9)
  %q0 = call ptr @_Znwm(i64 100) #1
  call void @report(ptr @h0, ptr %q0)
  %q1 = call ptr @_Znwm(i64 100) #2
  call void @report(ptr @h1, ptr %q1)
  %q2 = call ptr @_Znwm(i64 100) #3
  call void @report(ptr @h2, ptr %q2)
  ret i32 0
}

attributes #0 = { builtin "memprof"="cold" }
attributes #1 = { builtin "memprof"="notcold" }
attributes #2 = { builtin "memprof"="hot" }
attributes #3 = { builtin "memprof"="ambiguous" }
