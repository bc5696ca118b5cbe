#!/usr/bin/env python3
"""`--dot DIR` wrote one graph per file: DIR holds the expected number of .dot files, each with
exactly one top-level graph (what `dot -Tsvg FILE` draws: it reads a file's first graph only),
and where Graphviz is installed, `dot -Tsvg` draws each without an error.

usage: check_dot_dir.py DIR COUNT
"""
import os
import re
import shutil
import subprocess
import sys


def top_level_graphs(text):
    """How many graphs the text holds at the top level: braces counted outside quoted strings."""
    graphs = 0
    depth = 0
    quoted = False
    escaped = False
    at = 0
    while at < len(text):
        c = text[at]
        if quoted:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            if depth == 0:
                head = text[:at].rstrip().rsplit("}", 1)[-1]
                if not re.match(r'\s*(strict\s+)?(di)?graph\b', head):
                    return -1
                graphs += 1
            depth += 1
        elif c == "}":
            depth -= 1
        at += 1
    return graphs if depth == 0 else -1


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    directory, expected = argv[1], int(argv[2])
    files = sorted(f for f in os.listdir(directory) if f.endswith(".dot"))
    failures = []
    if len(files) != expected:
        failures.append(f"{directory}: {len(files)} .dot files {files}, expected {expected}")
    dot = shutil.which("dot")
    for name in files:
        path = os.path.join(directory, name)
        with open(path) as f:
            graphs = top_level_graphs(f.read())
        if graphs != 1:
            failures.append(f"{path}: {graphs} top-level graphs, expected exactly 1")
        if dot:
            run = subprocess.run([dot, "-Tsvg", path], capture_output=True, text=True, timeout=60)
            if run.returncode != 0 or "<svg" not in run.stdout:
                failures.append(f"{path}: dot -Tsvg exited {run.returncode}: {run.stderr.strip()}")
    for failure in failures:
        print("FAILED: " + failure)
    drawn = "each drawn by dot -Tsvg" if dot else "Graphviz not installed: not drawn"
    print(f"check_dot_dir: {len(files)} files, one graph each ({drawn}), {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
