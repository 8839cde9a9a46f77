"""An independent reader of LLVM's counters text (.proftext), for the
checks of memprof-convert and memprof-show (spec llvm-instrprof-formats.md
4.1-4.2)."""


def parse_proftext(text):
    """An independent reader of LLVM's text (spec 4.2): {(name, hash):
    (counts, bitmap, {kind: [[(value, count)]]})}."""
    lines = [l for l in text.split("\n") if l and not l.startswith("#")]
    i = 0
    while i < len(lines) and lines[i].startswith(":"):
        if lines[i] == ":temporal_prof_traces":
            n = int(lines[i + 1], 0)
            i += 3 + 2 * n
        else:
            i += 1
    recs = {}
    while i < len(lines):
        name, h, n = lines[i], int(lines[i + 1], 0), int(lines[i + 2])
        i += 3
        counts = [int(x) for x in lines[i:i + n]]
        i += n
        bitmap = []
        if i < len(lines) and lines[i].startswith("$"):
            nb = int(lines[i][1:], 0)
            bitmap = [int(x, 0) for x in lines[i + 1:i + 1 + nb]]
            i += 1 + nb
        sites = {}
        if i < len(lines) and lines[i].isdigit():
            kinds = int(lines[i])
            i += 1
            for _ in range(kinds):
                kind, ns = int(lines[i]), int(lines[i + 1])
                i += 2
                sites[kind] = []
                for _ in range(ns):
                    nv = int(lines[i])
                    i += 1
                    vals = []
                    for _ in range(nv):
                        v, c = lines[i].rsplit(":", 1)
                        vals.append((v, int(c)))
                        i += 1
                    sites[kind].append(vals)
        recs[(name, h)] = (counts, bitmap, sites)
    return recs
