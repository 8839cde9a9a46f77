define i64 @keep_me(ptr %p) {
  %v = load i64, ptr %p
  ret i64 %v
}
define i64 @drop_me(ptr %p) {
  %v = load i64, ptr %p
  ret i64 %v
}
