# lit configuration for the memprof tools.
import os
import lit.formats

config.name = "memprof"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memprof_obj_root, "lit-tests")

path = os.path.pathsep.join([config.memprof_tools_dir, config.llvm_tools_dir,
                             config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# No test asks a debuginfod server it did not start (Debian's login shells
# set DEBUGINFOD_URLS to a public one).
for var in ("DEBUGINFOD_URLS", "DEBUGINFOD_CACHE_PATH", "DEBUGINFOD_TIMEOUT"):
    config.environment.pop(var, None)
# The symbol cache of the tools (docs/memprof-merge.md#symbol-cache) is one
# directory of this run's, emptied when the suite starts: no test reads or
# writes the user's ~/.cache, and the tests share it as runs on one machine
# do (the output never depends on it). Tests of the cache itself point
# MEMPROF_SYMBOL_CACHE at a directory of their own.
import shutil
_symbol_cache = os.path.join(config.memprof_obj_root, "lit-tests", "symbol-cache")
shutil.rmtree(_symbol_cache, ignore_errors=True)
config.environment["MEMPROF_SYMBOL_CACHE"] = _symbol_cache
for var in ("XDG_CACHE_HOME", "MEMPROF_SYMBOL_CACHE_SIZE"):
    config.environment.pop(var, None)

# ASan reserves terabytes of address space: no address-space caps under it.
if getattr(config, "memprof_sanitizers", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")

# Full-disk tests mount a small tmpfs (lit-tests/tools/with-tmpfs.py): that
# needs root and a kernel that allows it. Probed once on a fresh directory;
# without it those tests are UNSUPPORTED, never silently passed.
def _can_mount_tmpfs():
    import shutil, subprocess, tempfile
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    d = tempfile.mkdtemp(prefix="memprof-tmpfs-probe-")
    try:
        if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=64k", "memprof-probe", d],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
            return False
        subprocess.call(["umount", d])
        return True
    finally:
        try:
            os.rmdir(d)
        except OSError:
            pass

if _can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")

# Detached debug files of the system's libraries (libc6-dbg): the tests of
# how system modules are named need them.
import glob
if glob.glob("/usr/lib/debug/.build-id/*/*.debug"):
    config.available_features.add("system-debug-files")

# Running a command as nobody (setpriv, as root): what a user who may not
# write a directory sees, which root itself never does.
import shutil as _shutil
if hasattr(os, "geteuid") and os.geteuid() == 0 and _shutil.which("setpriv"):
    config.available_features.add("setpriv-nobody")

# Oracles and the compiler under their Debian names.
config.substitutions.append(("%clangxx", "clang++-22"))
config.substitutions.append(("%clang", "clang-22"))
config.substitutions.append(("%llvm-profdata", "llvm-profdata-22"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "memprof-merge", "Inputs")))
# Flags that give the allocation contexts good stacks under clang's runtime.
config.substitutions.append(("%memprof_cflags",
    "-fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer "
    "-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -O0"))
tools = os.path.join(os.path.dirname(__file__), "tools")
config.substitutions.append(("%run-profiled", "python3 " + os.path.join(tools, "run-profiled.py")))
config.substitutions.append(("%check-totals", "python3 " + os.path.join(tools, "check-totals.py")))
config.substitutions.append(("%mkraw", "python3 " + os.path.join(tools, "mkraw.py")))
config.substitutions.append(("%check-rejects", "python3 " + os.path.join(tools, "check-rejects.py")))
config.substitutions.append(("%llvm-part", "python3 " + os.path.join(tools, "llvm-part.py")))
config.substitutions.append(("%run-limited", "python3 " + os.path.join(tools, "run-limited.py")))
config.substitutions.append(("%make-copies", "python3 " + os.path.join(tools, "make-copies.py")))
config.substitutions.append(("%with-tmpfs", "python3 " + os.path.join(tools, "with-tmpfs.py")))
config.substitutions.append(("%text-identity", "python3 " + os.path.join(tools, "text-identity.py")))
config.substitutions.append(("%check-counter-show", "python3 " + os.path.join(tools, "check-counter-show.py")))
config.substitutions.append(("%check-show", "python3 " + os.path.join(tools, "check-show.py")))
config.substitutions.append(("%check-leaf-totals", "python3 " + os.path.join(tools, "check-leaf-totals.py")))
config.substitutions.append(("%check-repeat-inline", "python3 " + os.path.join(tools, "check-repeat-inline.py")))
config.substitutions.append(("%run-many", "python3 " + os.path.join(tools, "run-many.py")))
config.substitutions.append(("%run-concurrently", "python3 " + os.path.join(tools, "run-concurrently.py")))
config.substitutions.append(("%damage-cache", "python3 " + os.path.join(tools, "damage-cache.py")))
config.substitutions.append(("%partial-merges", "python3 " + os.path.join(tools, "partial-merges.py")))
# A real elfutils debuginfod server (and dead peers) for the module-fetching
# tests; `run` keeps the server inside one RUN line.
config.substitutions.append(("%debuginfod-server", "python3 " + os.path.join(tools, "debuginfod-server.py")))
