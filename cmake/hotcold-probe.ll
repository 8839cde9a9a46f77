; The hot/cold flow's probe (hotcold-probe.sh): what clang-22's MemProfUse
; leaves in a ThinLTO object for an allocation site reached by a cold and a
; not-cold context (the "memprof" attribute "ambiguous", !memprof with one MIB
; per context, !callsite on the calls), written by hand so that it needs no
; profile. A link that honours the hints clones memprof_probe_alloc for the
; cold context (it passes 1 to operator new(size_t, __hot_cold_t)) and keeps
; 128 in the original; libmemprof_hotcold then places the cold block in its
; cold range. main returns 0 when the cold context's block is cold and the
; other's is not; 1 when the cold one is not (the hints were dropped); 2 when
; the not-cold one is cold; 3 both.
declare ptr @_Znwm(i64)
declare void @_ZdlPv(ptr)
declare i32 @memprof_hotcold_is_cold(ptr)

define ptr @memprof_probe_alloc() noinline {
  %p = call ptr @_Znwm(i64 64) #0, !memprof !0, !callsite !5
  ret ptr %p
}

define ptr @memprof_probe_cold() noinline {
  %p = call ptr @memprof_probe_alloc(), !callsite !6
  ret ptr %p
}

define ptr @memprof_probe_notcold() noinline {
  %p = call ptr @memprof_probe_alloc(), !callsite !7
  ret ptr %p
}

define i32 @main() {
  %c = call ptr @memprof_probe_cold()
  %n = call ptr @memprof_probe_notcold()
  %cc = call i32 @memprof_hotcold_is_cold(ptr %c)
  %nc = call i32 @memprof_hotcold_is_cold(ptr %n)
  call void @_ZdlPv(ptr %c)
  call void @_ZdlPv(ptr %n)
  %notcold_wrong = mul i32 %nc, 2
  %cold_wrong = sub i32 1, %cc
  %r = add i32 %notcold_wrong, %cold_wrong
  ret i32 %r
}

attributes #0 = { builtin allocsize(0) "memprof"="ambiguous" }

!0 = !{!1, !3}
!1 = !{!2, !"cold"}
!2 = !{i64 1, i64 2}
!3 = !{!4, !"notcold"}
!4 = !{i64 1, i64 3}
!5 = !{i64 1}
!6 = !{i64 2}
!7 = !{i64 3}
