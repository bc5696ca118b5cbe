#!/usr/bin/env python3
"""The case schema and `haloflow validate` agree.

An independent JSON Schema validator (python3-jsonschema, draft 2020-12) checks
json/schema/case.schema.json itself, every case in json/cases (and any further good files given
with --good, e.g. a run's case.resolved.json), and the broken corpus of tests/cases/broken_cases.json:
each case the manifest calls "invalid" must fail the schema, each "valid" one (refused only for
the machine or a rule across fields) must pass it. With --haloflow, the command is run on every
file too: good cases exit 0 with "ok:", broken ones exit 1 (not a signal, not another code) with
their expected message.

usage: validate_schema.py SCHEMA CASES_DIR MANIFEST [--haloflow EXE] [--good FILE ...]
"""
import json
import os
import re
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    # pyenv or a virtual environment hides Debian's python3-jsonschema: try the system Python.
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3" and \
            not os.environ.get("HALOFLOW_SCHEMA_REEXEC"):
        os.environ["HALOFLOW_SCHEMA_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("validate_schema: python3 jsonschema is not installed (apt-get install "
          "python3-jsonschema, see tools/setup-deps)")
    sys.exit(77)


def main(argv):
    args = argv[1:]
    haloflow = None
    good_extra = []
    if "--good" in args:
        at = args.index("--good")
        good_extra = args[at + 1:]
        args = args[:at]
    if "--haloflow" in args:
        at = args.index("--haloflow")
        haloflow = args[at + 1]
        del args[at:at + 2]
    schema_path, cases_dir, manifest_path = args
    with open(schema_path) as f:
        schema = json.load(f)
    validator_class = jsonschema.Draft202012Validator
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    failures = []

    def schema_errors(document):
        return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))

    def run(path, extra):
        result = subprocess.run([haloflow, "validate", path] + extra, capture_output=True,
                                text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    good = sorted(os.path.join(cases_dir, name) for name in os.listdir(cases_dir)
                  if name.endswith(".json")) + good_extra
    if not good:
        failures.append(f"{cases_dir}: no cases found")
    for path in good:
        with open(path) as f:
            document = json.load(f)
        errors = schema_errors(document)
        for error in errors:
            failures.append(f"{path}: schema: /{'/'.join(map(str, error.absolute_path))}: "
                            f"{error.message}")
        if not errors:
            print(f"schema ok: {path}")
        if haloflow:
            code, output = run(path, ["--ranks", "1", "--memory-gib", "16"])
            if code != 0 or "ok: " not in output:
                failures.append(f"{path}: haloflow validate exited {code}: {output.strip()}")

    with open(manifest_path) as f:
        manifest = json.load(f)["cases"]
    broken_dir = os.path.join(os.path.dirname(manifest_path), "broken")
    listed = set(manifest)
    present = set(os.listdir(broken_dir))
    for name in sorted(present - listed):
        failures.append(f"{broken_dir}/{name}: not in {manifest_path}")
    for name, expected in sorted(manifest.items()):
        path = os.path.normpath(os.path.join(broken_dir, name))
        verdict = expected["schema"]
        if verdict == "unreadable":
            # Not a regular file (a link to /dev/zero, a dangling link): never opened here, it
            # would be read forever.
            if not os.path.isfile(path):
                print(f"not a regular file, as expected: {path}")
            else:
                try:
                    with open(path, encoding="utf-8") as f:
                        json.load(f)
                    failures.append(f"{path}: expected not to be a JSON document, but it parses")
                except (OSError, ValueError, RecursionError):
                    print(f"not JSON, as expected: {path}")
        else:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
            errors = schema_errors(document)
            if verdict == "invalid" and not errors:
                failures.append(f"{path}: the schema accepts it; expected it to be refused")
            elif verdict == "valid" and errors:
                failures.append(f"{path}: the schema refuses it ({errors[0].message}); expected "
                                "only haloflow validate to")
            else:
                what = errors[0].message if errors else "accepted (refused only by haloflow)"
                print(f"schema {verdict}, as expected: {path}: {what}")
        if haloflow:
            code, output = run(path, expected.get("args", []))
            if code != 1:
                failures.append(f"{path}: haloflow validate exited {code}; expected 1")
            if not re.search(expected["message"], output, re.S):
                failures.append(f"{path}: message does not match {expected['message']!r}: "
                                f"{output.strip()}")

    for failure in failures:
        print("FAILED: " + failure)
    print(f"validate_schema: {len(good)} good, {len(manifest)} broken, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
