int lib_work(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i % 3 ? i : -i; return s; }
