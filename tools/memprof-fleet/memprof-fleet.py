#!/usr/bin/python3
"""memprof-fleet: merge many profiles on a Dask cluster, one output per program.

Inputs (raw MemProf, raw counters, indexed profiles; files, directories, list
files, and any URL fsspec opens) are grouped by the build id of the program
they profile (memprof-show --header-only); each group is cut into shards that
memprof-merge merges on the workers, and the partial indexed profiles are
merged again as a tree until one is left: DIR/<build id>.profdata, written
atomically, beside DIR/report.json. memprof-merge's output depends only on
the inputs' content, not on their order or on how they were split into partial
merges, so the outputs are the bytes one memprof-merge call per program would
write (docs/fleet.md).

By default a local cluster of --workers processes is started on this machine;
--scheduler ADDRESS attaches to an existing Dask cluster, whose workers need
memprof's tools (--tools-dir, or memprof-merge on their PATH) and the files.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

DESCRIPTION = __doc__.split("\n\n")[0]
PROFILE_SUFFIXES = (".memprofraw", ".profraw", ".profdata", ".raw", ".proftext")


def fail(msg, path=None):
    where = (path + ": ") if path else ""
    sys.stderr.write("memprof-fleet: error: %s%s\n" % (where, msg))
    sys.exit(1)


def warn(msg):
    sys.stderr.write("memprof-fleet: warning: %s\n" % msg)


class Parser(argparse.ArgumentParser):
    """Usage errors as memprof's tools print them, with status 1."""

    def error(self, message):
        fail(message + " (see --help)")


def parse_args(argv):
    p = Parser(
        prog="memprof-fleet", description=DESCRIPTION,
        epilog="Output: DIR/<build id>.profdata per program (inputs whose "
        "program is unknown, such as indexed profiles when several programs "
        "are present, go to DIR/unknown.profdata) and DIR/report.json. See "
        "docs/fleet.md.")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="a profile, a directory (searched recursively for "
                   "%s files), @LIST (one input per line) or a URL "
                   "fsspec opens" % ", ".join(PROFILE_SUFFIXES))
    p.add_argument("--output-dir", required=True, metavar="DIR",
                   help="where the outputs and report.json are written "
                   "(created if missing)")
    p.add_argument("--profiled-binary", action="append", default=[],
                   metavar="FILE", help="as memprof-merge; repeatable")
    p.add_argument("--debug-dir", action="append", default=[], metavar="DIR",
                   help="as memprof-merge; repeatable")
    p.add_argument("--bundle", action="append", default=[], metavar="DIR",
                   help="a directory memprof-bundle wrote: its profiles are "
                   "inputs and its modules' files symbolize them; repeatable")
    p.add_argument("--no-system-dirs", action="store_true",
                   help="as memprof-merge")
    p.add_argument("--no-debuginfod", action="store_true",
                   help="as memprof-merge")
    p.add_argument("--system-dwarf", action="store_true",
                   help="as memprof-merge: system modules with DWARF too")
    p.add_argument("--symbol-cache-dir", metavar="DIR",
                   help="the symbol cache every worker reads and writes "
                   "(default: each worker's own, as memprof-merge; a "
                   "directory all the workers' machines share makes each "
                   "module symbolized once)")
    p.add_argument("--no-symbol-cache", action="store_true",
                   help="as memprof-merge")
    p.add_argument("--memprof-full-schema", action="store_true",
                   help="as memprof-merge: the outputs keep all 27 fields")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   metavar="N", help="workers of the local cluster "
                   "(default: one per CPU)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="attach to this Dask scheduler instead of starting a "
                   "local cluster")
    p.add_argument("--failure-mode", choices=("any", "all"), default="any",
                   help="any (default): a bad input fails the run and no "
                   "output is written; all: bad inputs are skipped and listed "
                   "in the report")
    p.add_argument("--shard-size", type=int, default=0, metavar="N",
                   help="inputs per partial merge; by default (0) a "
                   "program's inputs are split evenly over the workers, so "
                   "that each worker symbolizes each module once per "
                   "program (memprof-merge's memory does not grow with its "
                   "number of inputs); a smaller N makes shorter tasks for "
                   "Dask to retry")
    p.add_argument("--fan-in", type=int, default=8, metavar="N",
                   help="partial profiles merged at once in the reduction "
                   "tree (default 8)")
    p.add_argument("--tools-dir", metavar="DIR",
                   help="where memprof-merge and memprof-show are (default: "
                   "beside this program, else PATH)")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="times Dask retries a task that failed (default 2)")
    p.add_argument("--progress", choices=("auto", "on", "off"),
                   default="auto", help="a progress bar (auto: on a "
                   "terminal)")
    a = p.parse_args(argv)
    if not a.inputs and not a.bundle:
        p.error("no inputs; give profiles, directories, @LIST files or "
                "--bundle")
    if a.shard_size < 0 or a.fan_in < 2 or a.workers < 1 or a.retries < 0:
        p.error("--workers must be at least 1, --fan-in 2, and --shard-size "
                "and --retries not negative")
    return a


def tools_dir(a):
    if a.tools_dir:
        return os.path.abspath(a.tools_dir)
    here = os.path.dirname(os.path.realpath(__file__))
    if os.path.exists(os.path.join(here, "memprof-merge")):
        return here
    found = shutil.which("memprof-merge")
    if not found:
        fail("memprof-merge not found beside memprof-fleet or on PATH; give "
             "--tools-dir")
    return os.path.dirname(os.path.abspath(found))


def expand(inputs):
    """Every input path or URL, in a stable order; lists and directories
    expanded (directories sorted, so the order does not depend on the
    file system)."""
    out = []
    for i in inputs:
        if "://" in i:
            out.append(i)
        elif i.startswith("@"):
            base = os.path.dirname(os.path.abspath(i[1:]))
            try:
                lines = open(i[1:]).read().splitlines()
            except OSError as e:
                fail("cannot read the list: %s" % e.strerror, i[1:])
            out += expand([l if "://" in l or os.path.isabs(l)
                           else os.path.join(base, l)
                           for l in (x.strip() for x in lines)
                           if l and not l.startswith("#")])
        elif os.path.isdir(i):
            for root, dirs, files in os.walk(i):
                dirs.sort()
                out += [os.path.join(root, f) for f in sorted(files)
                        if f.endswith(PROFILE_SUFFIXES)]
        else:
            out.append(i)
    return out


# -- Worker side -------------------------------------------------------------

def local_copy(src, into):
    """A URL's bytes in a local file (fsspec), or the path itself."""
    if "://" not in src:
        return src
    try:
        import fsspec
    except ImportError:
        raise RuntimeError("%s: a URL needs Python's fsspec on the workers"
                           % src)
    dst = os.path.join(into, "%06d-%s" % (len(os.listdir(into)),
                                          os.path.basename(src) or "input"))
    with fsspec.open(src, "rb") as f, open(dst, "wb") as o:
        shutil.copyfileobj(f, o)
    return dst


def headers_task(tools, paths):
    """memprof-show --header-only of a batch: one dict per input."""
    with tempfile.TemporaryDirectory(prefix="memprof-fleet-") as tmp:
        local = []
        errors = {}
        for p in paths:
            try:
                local.append(local_copy(p, tmp))
            except Exception as e:
                errors[p] = str(e)
                local.append(None)
        todo = [l for l in local if l]
        got = {}
        if todo:
            r = subprocess.run([os.path.join(tools, "memprof-show"),
                                "--header-only", "--format=json", "--"] + todo,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                for h in json.loads(r.stdout)["headers"]:
                    got[h["path"]] = h
            except (ValueError, KeyError):
                raise RuntimeError("memprof-show --header-only failed: %s"
                                   % r.stderr.decode(errors="replace"))
    out = []
    for p, l in zip(paths, local):
        if l is None:
            out.append({"path": p, "error": errors[p], "program": None})
        else:
            h = dict(got[l])
            h["path"] = p
            out.append(h)
    return out


def merge_task(tools, options, inputs, final, test_kill):
    """memprof-merge of \\p inputs (paths or URLs, or the bytes of partial
    profiles) with --failure-mode=all; returns (bytes or None, report).
    Partial merges keep all 27 fields, so the last one writes what one merge
    of every input would (the hot/cold schema's fields are sums)."""
    if test_kill and os.environ.get("MEMPROF_FLEET_TEST_KILL_MARK"):
        # Tests: the first task to get here kills its worker, once.
        mark = os.environ["MEMPROF_FLEET_TEST_KILL_MARK"]
        try:
            fd = os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
            os._exit(9)
        except FileExistsError:
            pass
    with tempfile.TemporaryDirectory(prefix="memprof-fleet-") as tmp:
        args, names = [], {}
        for n, i in enumerate(inputs):
            if isinstance(i, bytes):
                p = os.path.join(tmp, "partial-%06d.profdata" % n)
                with open(p, "wb") as f:
                    f.write(i)
                args.append(p)
            else:
                try:
                    l = local_copy(i, tmp)
                except Exception as e:
                    return None, {"status": "failed", "inputs": {
                        "given": len(inputs), "used": 0,
                        "rejected": [{"path": i, "error": str(e)}]}}
                names[l] = i
                args.append(l)
        out = os.path.join(tmp, "out.profdata")
        rep = os.path.join(tmp, "report.json")
        cmd = [os.path.join(tools, "memprof-merge"), "-q",
               "--failure-mode=all", "-o", out, "--report", rep] + options
        if not final:
            cmd.append("--memprof-full-schema")
        lst = os.path.join(tmp, "inputs.txt")
        with open(lst, "w") as f:
            f.write("".join(a + "\n" for a in args))
        r = subprocess.run(cmd + ["-f", lst], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        try:
            report = json.load(open(rep))
        except (OSError, ValueError):
            raise RuntimeError("memprof-merge wrote no report (status %d): %s"
                               % (r.returncode,
                                  r.stderr.decode(errors="replace")))
        for rej in report["inputs"]["rejected"]:
            rej["path"] = names.get(rej["path"], rej["path"])
        data = open(out, "rb").read() if report["status"] == "ok" else None
        report["worker"] = worker_stats()
        return data, report


def worker_stats():
    """This worker's address and the largest memory any memprof tool it ran
    has used so far (the peak resident set of its children, in KiB)."""
    import resource
    try:
        from distributed import get_worker
        address = get_worker().address
    except (ImportError, ValueError):
        address = "local"
    return {"address": address,
            "peak_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}


# -- Driver ------------------------------------------------------------------

def group_inputs(headers, a):
    """{program: [input, ...]} and the inputs whose header is bad."""
    groups, unknown, bad = {}, [], []
    for h in headers:
        if h.get("error"):
            bad.append({"path": h["path"], "error": h["error"]})
        elif h.get("program"):
            groups.setdefault(h["program"], []).append(h["path"])
        else:
            unknown.append(h["path"])
    if unknown:
        if len(groups) == 1:
            # Indexed inputs of the one program there is.
            next(iter(groups.values())).extend(unknown)
        else:
            groups["unknown"] = unknown
            if groups.keys() != {"unknown"}:
                warn("%d inputs say no program (indexed profiles or text): "
                     "merged into unknown.profdata" % len(unknown))
    return groups, bad


def write_atomically(path, data):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv):
    a = parse_args(argv)
    try:
        from dask.distributed import Client, LocalCluster, progress
    except ImportError:
        fail("Dask is missing: install Debian's python3-distributed "
             "(scripts/setup.sh does) and run memprof-fleet with "
             "/usr/bin/python3")
    tools = tools_dir(a)
    inputs = expand(a.inputs)
    for b in a.bundle:
        # memprof-bundle checks the manifest as memprof-merge --bundle does.
        r = subprocess.run([os.path.join(tools, "memprof-bundle"), "--list", b],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            sys.stderr.write(r.stderr.decode(errors="replace"))
            fail("not a usable bundle", b)
        m = json.loads(r.stdout)
        inputs += m["profiles"]
        a.profiled_binary += [mod["file"] for mod in m["modules"]]
    if not inputs:
        fail("the inputs name no profile")
    options = []
    for b in a.profiled_binary:
        options += ["--profiled-binary", os.path.abspath(b)]
    for d in a.debug_dir:
        options += ["--debug-dir", os.path.abspath(d)]
    if a.no_system_dirs:
        options.append("--no-system-dirs")
    if a.no_debuginfod:
        options.append("--no-debuginfod")
    if a.system_dwarf:
        options.append("--system-dwarf")
    if a.no_symbol_cache:
        options.append("--no-symbol-cache")
    elif a.symbol_cache_dir:
        options += ["--symbol-cache-dir", os.path.abspath(a.symbol_cache_dir)]
    # Partial merges keep every field (--memprof-full-schema) for the next
    # level; the final one writes the schema asked for, which memprof-merge
    # would otherwise take from its full-schema inputs.
    final_options = options + (["--memprof-full-schema"]
                               if a.memprof_full_schema
                               else ["--memprof-hot-cold-schema"])
    os.makedirs(a.output_dir, exist_ok=True)
    show_progress = a.progress == "on" or (a.progress == "auto"
                                           and sys.stderr.isatty())

    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        abs_inputs = [i if "://" in i else os.path.abspath(i) for i in inputs]
        shown = dict(zip(abs_inputs, inputs))
        batches = [abs_inputs[i:i + 256] for i in range(0, len(abs_inputs), 256)]
        hf = [client.submit(headers_task, tools, b, retries=a.retries,
                            pure=False) for b in batches]
        if show_progress:
            progress(hf)
        headers = [h for f in hf for h in f.result()]
        groups, bad = group_inputs(headers, a)

        finals = {}
        test_kill = bool(os.environ.get("MEMPROF_FLEET_TEST_KILL_MARK"))
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        for prog, members in sorted(groups.items()):
            members = sorted(members)
            size = a.shard_size or -(-len(members) // workers)
            shards = [members[i:i + size]
                      for i in range(0, len(members), size)]
            if len(shards) == 1:
                # One merge of the inputs themselves: the bytes one call
                # writes, in whatever order a single raw input keeps.
                f = client.submit(merge_task, tools, final_options, shards[0],
                                  True, test_kill, retries=a.retries,
                                  pure=False)
                finals[prog] = (f, [f])
                continue
            level = [client.submit(merge_task, tools, options, s, False,
                                   test_kill, retries=a.retries, pure=False)
                     for s in shards]
            reports = list(level)
            while len(level) > 1:
                step = min(a.fan_in, len(level))
                last = len(level) == step
                level = [client.submit(
                    reduce_task, tools, final_options if last else options,
                    level[i:i + step], last, retries=a.retries, pure=False)
                         for i in range(0, len(level), step)]
            finals[prog] = (level[0], reports)

        if show_progress:
            progress(list(dict.fromkeys(
                f for final, parts in finals.values() for f in [final] + parts)))

        report = {"schema_version": 1, "output_dir": a.output_dir,
                  "inputs": len(inputs), "bad_inputs": [], "programs": [],
                  "workers": {}}
        def note_worker(r):
            w = r.get("worker")
            if w:
                old = report["workers"].get(w["address"], 0)
                report["workers"][w["address"]] = max(old, w["peak_rss_kib"])
        for b in bad:
            b["path"] = shown.get(b["path"], b["path"])
            report["bad_inputs"].append(b)
        outputs = {}
        for prog, (final, parts) in sorted(finals.items()):
            shard_reports = [r for _, r in client.gather(parts)]
            data, last = final.result()
            for r in shard_reports + [last]:
                note_worker(r)
            rejected = [r for sr in shard_reports
                        for r in sr["inputs"]["rejected"]]
            # The merges' warnings, once each (rejections are listed apart).
            diagnostics = sorted({d for sr in shard_reports + [last]
                                  for d in sr.get("diagnostics", [])
                                  if not any(r["path"] in d for r in rejected)})
            for r in rejected:
                r["path"] = shown.get(r["path"], r["path"])
            used = sum(sr["inputs"]["used"] for sr in shard_reports)
            name = prog + ".profdata"
            entry = {"program": prog if prog != "unknown" else None,
                     "output": name if data is not None else None,
                     "inputs": len(groups[prog]), "used": used,
                     "rejected": rejected,
                     "memprof": last.get("memprof"),
                     "counters": last.get("counters"),
                     "diagnostics": diagnostics}
            report["programs"].append(entry)
            report["bad_inputs"] += rejected
            if data is not None:
                outputs[name] = data
        report["bad_inputs"].sort(key=lambda b: b["path"])
        failed = bool(report["bad_inputs"]) and a.failure_mode == "any"
        report["status"] = "failed" if failed else "ok"
        if not failed:
            for name, data in sorted(outputs.items()):
                write_atomically(os.path.join(a.output_dir, name), data)
        write_atomically(os.path.join(a.output_dir, "report.json"),
                         (json.dumps(report, indent=2, sort_keys=True)
                          + "\n").encode())
        for b in report["bad_inputs"]:
            sys.stderr.write("memprof-fleet: %s: %s: %s\n" % (
                "error" if failed else "warning", b["path"], b["error"]))
        if failed:
            fail("%d bad inputs; nothing written but report.json (give "
                 "--failure-mode=all to merge the others)"
                 % len(report["bad_inputs"]))
        sys.stderr.write("memprof-fleet: %d inputs, %d programs -> %s\n" % (
            len(inputs), len(outputs), a.output_dir))
        return 0
    finally:
        client.close()
        if cluster:
            cluster.close()


def reduce_task(tools, options, parts, final):
    """Merges partial profiles: each part is (bytes, report) from a task
    below; failed parts (every input bad) are left out."""
    datas = [d for d, _ in parts if d is not None]
    if not datas:
        return None, {"status": "failed", "inputs": {"given": 0, "used": 0,
                                                     "rejected": []}}
    data, rep = merge_task(tools, options, datas, final, False)
    return data, rep


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
