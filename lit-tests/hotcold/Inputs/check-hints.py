#!/usr/bin/env python3
"""check-hints.py BINARY [CALLER...] - the hot/cold hints a linked binary
passes, read from its machine code (llvm-objdump-22 -d -C), not from any
memprof tool.

For every function that calls one of the __hot_cold_t operator new variants
it prints
    hint FUNCTION -> VARIANT HINT
(HINT: the last immediate moved into the hint's register, %esi or %edx for the
aligned forms, before the call; "?" if none), and for each CALLER named, every
call it makes to such a function:
    call CALLER -> FUNCTION HINT
Function names are the demangled names up to their parameter list, with a
clone's suffix kept (makeBuf.memprof.1). Exits 1 if no hinted call is found."""
import re
import subprocess
import sys

HEAD = re.compile(r"^[0-9a-f]+ <(.*)>:$")
CALL = re.compile(r"\b(call|jmp)[a-z]*\s+(?:0x)?[0-9a-f]+ <(.*)>")
MOV = re.compile(r"\bmov[lbq]?\s+\$0x([0-9a-f]+), %(esi|sil|rsi|edx|dl|rdx)\b")


def short(name):
    """makeBuf(unsigned long) (.memprof.1) -> makeBuf.memprof.1;
    a PLT entry (_Znam12__hot_cold_t@plt) loses its @plt."""
    if name.endswith("@plt"):
        return name[:-len("@plt")]
    clone = re.search(r"\(\.([^)]*)\)$", name)
    # The parameter list: the first '(' but a leading "(anonymous namespace)".
    paren = name.find("(", 1)
    base = name[:paren] if paren > 0 else name
    return base + ("." + clone.group(1) if clone else "")


def main():
    binary, callers = sys.argv[1], sys.argv[2:]
    out = subprocess.run(["llvm-objdump-22", "-d", "-C", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    hints = {}   # function -> [(variant, hint)]
    calls = {}   # function -> [callee]
    fn = None
    regs = {}
    for line in out.splitlines():
        m = HEAD.match(line)
        if m:
            fn = short(m.group(1))
            regs = {}
            continue
        if fn is None:
            continue
        m = MOV.search(line)
        if m:
            reg = "esi" if m.group(2) in ("esi", "sil", "rsi") else "edx"
            regs[reg] = int(m.group(1), 16)
            continue
        m = CALL.search(line)
        if m:
            target = m.group(2)
            if "__hot_cold_t" in target or "_hot_cold@plt" in target:
                reg = "edx" if "align_val_t" in target or "aligned" in target else "esi"
                hints.setdefault(fn, []).append((short(target), regs.get(reg, "?")))
            else:
                calls.setdefault(fn, []).append(short(target))
    if not hints:
        print("no call of a __hot_cold_t variant in " + binary, file=sys.stderr)
        return 1
    for f in sorted(hints):
        for variant, hint in hints[f]:
            print(f"hint {f} -> {variant} {hint}")
    for c in callers:
        for callee in calls.get(c, []):
            if callee in hints:
                print(f"call {c} -> {callee} " + " ".join(str(h) for _, h in hints[callee]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
