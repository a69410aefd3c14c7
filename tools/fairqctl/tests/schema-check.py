#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check fairqctl -j documents against fairqctl.schema.json, with the jsonschema package
(python3-jsonschema), as draft-07.

usage: schema-check.py SCHEMA [FILE...]

Each FILE (or stdin) holds one JSON document per line, as fairqctl prints them.
Exit 0 if every document is valid, 1 otherwise, 2 on usage errors or a bad schema.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("schema-check: needs python3-jsonschema")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        schema = json.load(f)
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print("schema-check: %s is not a valid draft-07 schema: %s" % (argv[0], e.message))
        return 2
    validator = jsonschema.Draft7Validator(schema)
    docs = bad = 0
    for name in argv[1:] or ["-"]:
        stream = sys.stdin if name == "-" else open(name)
        for n, line in enumerate(stream, 1):
            if not line.strip():
                continue
            docs += 1
            try:
                doc = json.loads(line)
            except ValueError as e:
                print("%s:%d: not JSON: %s" % (name, n, e))
                bad += 1
                continue
            errs = ["$%s: %s" % ("".join("[%r]" % p for p in e.absolute_path), e.message)
                    for e in validator.iter_errors(doc)]
            for e in errs:
                print("%s:%d: %s" % (name, n, e))
            bad += bool(errs)
    if not docs:
        print("schema-check: no document to check")
        return 1
    print("schema-check: %d documents, %d invalid" % (docs, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
