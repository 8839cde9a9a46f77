#!/usr/bin/env python3
"""make-fleet.py DIR TOTAL PROGRAM_A PROGRAM_B [CORRUPT]

Runs PROGRAM_A (built with -fmemory-profile and -fprofile-generate: each run
writes a raw MemProf profile and a .profraw) and PROGRAM_B (MemProf only),
each with 20 different arguments, then copies those profiles, round robin,
into DIR/in/<host>/ until there are TOTAL inputs (a fleet's many hosts
writing profiles of the same runs). With CORRUPT, that many of the copies
are damaged (cut short, or overwritten with bytes that are no profile).
Writes DIR/a.list and DIR/b.list (each program's good inputs, for one
memprof-merge call each) and DIR/bad.list."""
import glob, os, subprocess, sys

out, total, prog_a, prog_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
corrupt = int(sys.argv[5]) if len(sys.argv) > 5 else 0
runs = os.path.join(out, "runs")
os.makedirs(runs, exist_ok=True)
originals = []  # (program, path)
for i in range(20):
    n = str(3 + 7 * i)
    for tag, prog in (("a", prog_a), ("b", prog_b)):
        stem = os.path.join(runs, "%s%02d" % (tag, i))
        env = dict(os.environ, MEMPROF_OPTIONS="log_path=" + stem + ".part",
                   LLVM_PROFILE_FILE=stem + ".profraw")
        subprocess.run([prog, n], env=env, stdout=subprocess.DEVNULL, check=True)
        [part] = glob.glob(stem + ".part.*")
        os.replace(part, stem + ".memprofraw")
        originals.append((tag, stem + ".memprofraw"))
        if os.path.exists(stem + ".profraw"):
            originals.append((tag, stem + ".profraw"))
lists = {"a": [], "b": [], "bad": []}
for k in range(total):
    tag, src = originals[k % len(originals)]
    host = os.path.join(out, "in", "host%03d" % (k % 97))
    os.makedirs(host, exist_ok=True)
    dst = os.path.join(host, "%05d-%s" % (k, os.path.basename(src)))
    data = open(src, "rb").read()
    # Spread the damaged ones over the inputs.
    if corrupt and k % (total // corrupt) == 7 and len(lists["bad"]) < corrupt:
        data = data[:len(data) // 3] if len(lists["bad"]) % 2 else b"no profile\n"
        lists["bad"].append(dst)
    else:
        lists[tag].append(dst)
    with open(dst, "wb") as f:
        f.write(data)
for name, paths in lists.items():
    with open(os.path.join(out, name + ".list"), "w") as f:
        f.write("".join(os.path.abspath(p) + "\n" for p in paths))
