#!/usr/bin/env python3
# check-json-schema.py - validate JSON documents against a JSON Schema (the
# schema itself is checked first).  Used by latency.bats for the --json
# report.  Needs python3-jsonschema (Debian); exits 77 without it.
#
# Usage: check-json-schema.py SCHEMA DOC...    (DOC '-': stdin; a file of
# several lines with one document each is checked line by line if it ends
# in .jsonl)
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


def documents(path):
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def main():
    if len(sys.argv) < 3:
        print("usage: check-json-schema.py SCHEMA DOC...", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        for doc in documents(path):
            for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
                where = "/".join(str(p) for p in err.absolute_path)
                print(f"{path}: /{where}: {err.message[:300]}", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
