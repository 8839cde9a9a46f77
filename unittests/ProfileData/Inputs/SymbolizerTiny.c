/* Compiled for foreign targets to test "unsupported target". */
int tiny(int X) { return X + 1; }
