; Memory effects inferred before the pass (memory(argmem: read) on a
; function that only reads through its argument, here also given to a call
; and to a declaration of another module's function) no longer hold once
; the code writes the shadow: an optimizer running after the pass (the
; link-time pipeline of -flto) could move a counter's update across such a
; call and lose counts. The pass lets every function, call and declaration
; also write other memory, but library functions and intrinsics.
; RUN: %opt-instrument %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; CHECK: define i32 @reader(ptr %p) [[READER:#[0-9]+]]
define i32 @reader(ptr %p) #0 {
  %v = load i32, ptr %p
  ret i32 %v
}

; CHECK: define i64 @caller(ptr %p) [[READER]]
; CHECK: call i32 @reader(ptr %p) [[READER]]
; CHECK: call i32 @elsewhere(ptr %p) [[READER]]
; CHECK: call i64 @strlen(ptr %p) [[LIBCALL:#[0-9]+]]
define i64 @caller(ptr %p) #0 {
  %a = call i32 @reader(ptr %p) #0
  %b = call i32 @elsewhere(ptr %p) #0
  %c = call i64 @strlen(ptr %p) #0
  %s = add i32 %a, %b
  %w = sext i32 %s to i64
  %r = add i64 %w, %c
  ret i64 %r
}

; CHECK: declare i32 @elsewhere(ptr) [[READER]]
declare i32 @elsewhere(ptr) #0
; CHECK: declare i64 @strlen(ptr) [[LIBCALL]]
declare i64 @strlen(ptr) #0

attributes #0 = { nounwind memory(argmem: read) }

; The one group of all but strlen, widened; strlen's as it was.
; CHECK-DAG: attributes [[READER]] = { nounwind memory(readwrite, argmem: read, inaccessiblemem: none, errnomem: none{{.*}}) }
; CHECK-DAG: attributes [[LIBCALL]] = { nounwind memory(argmem: read) }
