#!/usr/bin/env python3
"""Real outputs against their JSON Schema: results.json of `haloflow run` (json/schema/
results.schema.json) or the report of `haloflow replay --report` (replay-report.schema.json).

The schema itself is checked first (draft 2020-12, python3-jsonschema), then every file; each
error is printed with its place in the file. Exit 77 (skipped) without python3-jsonschema.

usage: check_schema.py SCHEMA FILE...
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    # pyenv or a virtual environment hides Debian's python3-jsonschema: try the system Python.
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3" and \
            not os.environ.get("HALOFLOW_SCHEMA_REEXEC"):
        os.environ["HALOFLOW_SCHEMA_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("check_schema: python3 jsonschema is not installed (apt-get install "
          "python3-jsonschema, see tools/setup-deps)")
    sys.exit(77)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0
    for path in argv[2:]:
        with open(path) as f:
            document = json.load(f)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:20]:
            print(f"FAILED: {path}: /{'/'.join(map(str, error.absolute_path))}: {error.message}")
        failures += len(errors)
        if not errors:
            print(f"schema ok: {path}")
    print(f"check_schema: {len(argv) - 2} file(s) against {os.path.basename(argv[1])}, "
          f"{failures} errors")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
