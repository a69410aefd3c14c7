#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check fairqctl -j documents against fairqctl.schema.json.

usage: schema-check.py [--engine auto|jsonschema|builtin] SCHEMA [FILE...]

Each FILE (or stdin) holds one JSON document per line, as fairqctl prints them.  With the
jsonschema package (the host) that validates; without it (the test guests) a small built-in
validator does, covering exactly the draft-07 keywords fairqctl.schema.json uses.  The host
tests run both engines over the same good and bad documents, so they cannot drift apart.
Exit 0 if every document is valid, 1 otherwise, 2 on usage errors.
"""
import json
import sys

SUPPORTED = {
    "$schema", "$id", "title", "description", "type", "required", "properties",
    "additionalProperties", "items", "enum", "const", "minimum", "maximum", "minLength",
    "maxLength", "minItems", "$ref", "allOf", "if", "then", "definitions",
}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Builtin:
    """The draft-07 subset of fairqctl.schema.json; refuses schemas that use anything else."""

    def __init__(self, schema):
        self.root = schema
        self.check_keywords(schema)

    def check_keywords(self, s):
        if isinstance(s, bool):
            return
        unknown = set(s) - SUPPORTED
        if unknown:
            raise ValueError("builtin validator: unsupported keywords %s" % sorted(unknown))
        for key in ("properties", "definitions"):
            for sub in s.get(key, {}).values():
                self.check_keywords(sub)
        for key in ("items", "additionalProperties", "if", "then"):
            if isinstance(s.get(key), dict):
                self.check_keywords(s[key])
        for sub in s.get("allOf", []):
            self.check_keywords(sub)

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("builtin validator: only local $ref, not %s" % ref)
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def errors(self, v, s, path="$"):
        if s is True:
            return []
        if s is False:
            return ["%s: not allowed" % path]
        if "$ref" in s:
            return self.errors(v, self.resolve(s["$ref"]), path)
        out = []
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(TYPES[t](v) for t in types):
                return ["%s: %r is not of type %s" % (path, v, s["type"])]
        if "const" in s and v != s["const"]:
            out.append("%s: %r is not %r" % (path, v, s["const"]))
        if "enum" in s and v not in s["enum"]:
            out.append("%s: %r is not one of %r" % (path, v, s["enum"]))
        if TYPES["number"](v):
            if "minimum" in s and v < s["minimum"]:
                out.append("%s: %r is less than %r" % (path, v, s["minimum"]))
            if "maximum" in s and v > s["maximum"]:
                out.append("%s: %r is more than %r" % (path, v, s["maximum"]))
        if isinstance(v, str):
            if "minLength" in s and len(v) < s["minLength"]:
                out.append("%s: %r is too short" % (path, v))
            if "maxLength" in s and len(v) > s["maxLength"]:
                out.append("%s: %r is too long" % (path, v))
        if isinstance(v, list):
            if "minItems" in s and len(v) < s["minItems"]:
                out.append("%s: fewer than %d items" % (path, s["minItems"]))
            if "items" in s:
                for i, item in enumerate(v):
                    out += self.errors(item, s["items"], "%s[%d]" % (path, i))
        if isinstance(v, dict):
            for key in s.get("required", []):
                if key not in v:
                    out.append("%s: %r is required" % (path, key))
            props = s.get("properties", {})
            for key, item in v.items():
                if key in props:
                    out += self.errors(item, props[key], "%s.%s" % (path, key))
                elif "additionalProperties" in s:
                    out += self.errors(item, s["additionalProperties"], "%s.%s" % (path, key))
        for sub in s.get("allOf", []):
            out += self.errors(v, sub, path)
        if "if" in s and not self.errors(v, s["if"], path) and "then" in s:
            out += self.errors(v, s["then"], path)
        return out


def make_engine(schema, name):
    if name in ("auto", "jsonschema"):
        try:
            import jsonschema
            jsonschema.Draft7Validator.check_schema(schema)
            validator = jsonschema.Draft7Validator(schema)
            return "jsonschema", lambda doc: [
                "%s: %s" % ("$" + "".join("[%r]" % p for p in e.absolute_path), e.message)
                for e in validator.iter_errors(doc)]
        except ImportError:
            if name == "jsonschema":
                raise SystemExit("schema-check: the jsonschema package is not installed")
    builtin = Builtin(schema)
    return "builtin", lambda doc: builtin.errors(doc, schema)


def main(argv):
    engine = "auto"
    if len(argv) > 1 and argv[0] == "--engine":
        engine, argv = argv[1], argv[2:]
    if not argv or engine not in ("auto", "jsonschema", "builtin"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        schema = json.load(f)
    used, check = make_engine(schema, engine)
    files = argv[1:] or ["-"]
    docs = bad = 0
    for name in files:
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
            errs = check(doc)
            for e in errs:
                print("%s:%d: %s" % (name, n, e))
            bad += bool(errs)
    if not docs:
        print("schema-check: no document to check")
        return 1
    print("schema-check (%s): %d documents, %d invalid" % (used, docs, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
