#!/usr/bin/env python3
"""drop-module.py BUNDLE NAME: deletes the module file named NAME from the
bundle and moves its build id from the manifest's modules to missing, as if
memprof-bundle had not found it."""
import json, os, sys

bundle, name = sys.argv[1], sys.argv[2]
path = os.path.join(bundle, "manifest.json")
m = json.load(open(path))
keep = []
for mod in m["modules"]:
    if os.path.basename(mod["file"]) == name:
        os.remove(os.path.join(bundle, mod["file"]))
        m["missing"].append(mod["build_id"])
    else:
        keep.append(mod)
if len(keep) != len(m["modules"]) - 1:
    sys.exit("drop-module.py: no single module named " + name)
m["modules"] = keep
with open(path, "w") as f:
    json.dump(m, f, indent=2)
