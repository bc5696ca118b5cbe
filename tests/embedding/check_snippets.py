#!/usr/bin/env python3
"""Checks that every code block of a guide is a region of a file that CI builds or runs.

In the guide, a block is announced by a comment naming the file (relative to the guide) and the
region, and the fenced block that follows must equal that region:

    <!-- snippet: ../examples/advection2d/advection2d.cu frame -->
    ```cpp
    ...
    ```

In the file, the region lies between two marker lines, in any comment syntax:
`snippet-begin: frame` and `snippet-end: frame`; marker lines of other regions inside it are
dropped and its common indentation removed. Blocks of program output are fenced as `text`; any
other fenced block without an announcement is an error, so no snippet escapes the check.

    check_snippets.py GUIDE.md [--fix]     (--fix rewrites the blocks from the files)
"""

import re
import sys
from pathlib import Path

ANNOUNCE = re.compile(r"^<!-- snippet: (\S+) (\S+) -->$")
FENCE = re.compile(r"^```(\w*)$")
MARKER = re.compile(r"snippet-(begin|end): (\S+)")
UNCHECKED_LANGUAGES = {"text"}


def region(path: Path, name: str) -> list[str]:
    lines = path.read_text().splitlines()
    begin = re.compile(rf"snippet-begin: {re.escape(name)}(\s|$)")
    end = re.compile(rf"snippet-end: {re.escape(name)}(\s|$)")
    begins = [i for i, line in enumerate(lines) if begin.search(line)]
    ends = [i for i, line in enumerate(lines) if end.search(line)]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"{path}: region '{name}' needs one begin marker and one end marker after it")
    body = [line for line in lines[begins[0] + 1 : ends[0]] if not MARKER.search(line)]
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    cut = min(indents, default=0)
    return [line[cut:] for line in body]


def check(guide: Path, fix: bool) -> int:
    lines = guide.read_text().splitlines()
    out: list[str] = []
    problems: list[str] = []
    checked = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            end = next((j for j in range(i + 1, len(lines)) if lines[j] == "```"), None)
            if end is None:
                problems.append(f"{guide}:{i + 1}: a code block that never ends")
                out.extend(lines[i:])
                break
            if fence.group(1) in UNCHECKED_LANGUAGES:
                out.extend(lines[i : end + 1])
                i = end + 1
                continue
            announce = ANNOUNCE.match(out[-1]) if out else None
            if announce is None:
                problems.append(
                    f"{guide}:{i + 1}: a ```{fence.group(1)} block without a snippet announcement "
                    "(<!-- snippet: FILE REGION --> on the line before)")
                out.extend(lines[i : end + 1])
            else:
                source = guide.parent / announce.group(1)
                try:
                    want = region(source, announce.group(2))
                except (OSError, ValueError) as error:
                    problems.append(f"{guide}:{i + 1}: {error}")
                    want = lines[i + 1 : end]
                if lines[i + 1 : end] != want:
                    problems.append(
                        f"{guide}:{i + 1}: the block differs from {announce.group(1)} region "
                        f"'{announce.group(2)}' (run check_snippets.py --fix)")
                out.append(line)
                out.extend(want)
                out.append("```")
                checked += 1
            i = end + 1
            continue
        out.append(line)
        i += 1
    if fix:
        guide.write_text("\n".join(out) + "\n")
        problems = [p for p in problems if "differs" not in p]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_snippets: {guide.name}: {checked} snippets checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--fix"):
        sys.exit(__doc__)
    sys.exit(check(Path(sys.argv[1]), len(sys.argv) == 3))
