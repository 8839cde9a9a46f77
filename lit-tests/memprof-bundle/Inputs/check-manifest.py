#!/usr/bin/env python3
"""Checks a bundle's manifest.json against the binaries it should hold.

check-manifest.py [--no-copy] BUNDLE BINARY... : the manifest is schema
version 1, its profiles exist, and for each BINARY there is exactly one
module whose build id is the one llvm-readelf-22 -n reads from BINARY, whose
found_at is BINARY's real path, and whose file (in the bundle, or BINARY
itself with --no-copy) has BINARY's size and bytes. Prints "ok NAME ID" per
binary and one line per other module, "other ID"; exits 1 on a mismatch."""
import filecmp, json, os, re, subprocess, sys

def build_id(path):
    out = subprocess.run(["llvm-readelf-22", "-n", path], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None

def fail(msg):
    print("MISMATCH " + msg)
    sys.exit(1)

args = sys.argv[1:]
no_copy = args[0] == "--no-copy"
if no_copy:
    args = args[1:]
bundle, binaries = args[0], args[1:]
m = json.load(open(os.path.join(bundle, "manifest.json")))
if m["schema_version"] != 1 or m["created_by"] != "memprof-bundle":
    fail("header %r" % m)
if m["copied"] != (not no_copy):
    fail("copied is %r" % m["copied"])
for p in m["profiles"]:
    if os.path.isabs(p) != no_copy:
        fail("profile path %s" % p)
    if not os.path.isfile(os.path.join(bundle, p)):
        fail("profile %s does not exist" % p)
seen = set()
for b in binaries:
    want = build_id(b)
    mods = [x for x in m["modules"] if x["build_id"] == want]
    if len(mods) != 1:
        fail("%s: %d modules with build id %s" % (b, len(mods), want))
    mod = mods[0]
    seen.add(want)
    if mod["found_at"] != os.path.realpath(b):
        fail("%s: found_at %s" % (b, mod["found_at"]))
    want_file = (os.path.realpath(b) if no_copy else
                 "modules/%s/%s" % (want, os.path.basename(b)))
    if mod["file"] != want_file:
        fail("%s: file %s, want %s" % (b, mod["file"], want_file))
    f = os.path.join(bundle, mod["file"])
    if mod["size"] != os.path.getsize(b) or os.path.getsize(f) != mod["size"]:
        fail("%s: size %d" % (b, mod["size"]))
    if not filecmp.cmp(f, b, shallow=False):
        fail("%s: the copy differs" % b)
    if mod["kind"] != "executable":
        fail("%s: kind %s" % (b, mod["kind"]))
    print("ok %s %s" % (os.path.basename(b), want))
for x in m["modules"]:
    if x["build_id"] not in seen:
        print("other " + x["build_id"])
for x in m["missing"]:
    print("missing " + x)
