#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate JSON documents against a JSON Schema (draft 2020-12).

usage: validate_json.py SCHEMA.json DOC.json [DOC2.json ...]

DOC may be "-" for standard input. The schema itself is checked first
(Draft202012Validator.check_schema). Every error is printed on one line:

    DOC: $.devices[0].vendor_id: 4318 is not of type 'string'

Exit status: 0 when every document is valid, 1 when the schema or any document is
invalid (or cannot be read or parsed), 2 on a usage error, 77 when the jsonschema
module is missing (install Debian's python3-jsonschema; CTest can treat 77 as a skip
through SKIP_RETURN_CODE).
"""

import json
import re
import signal
import sys

# Piped into head(1): stop quietly.
if hasattr(signal, "SIGPIPE"):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

USAGE = "usage: validate_json.py SCHEMA.json DOC.json [DOC2.json ...]"

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
except ImportError:  # pragma: no cover - depends on the machine
    sys.stderr.write(
        "validate_json.py: the Python module 'jsonschema' is missing; "
        "install it with: apt-get install -y python3-jsonschema\n"
    )
    sys.exit(77)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def json_path(parts):
    """Render a jsonschema error path (deque of keys and indices) as $.a.b[0]['x.y']."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append("[%d]" % part)
        elif _IDENT.match(part):
            out.append("." + part)
        else:
            out.append("[%s]" % json.dumps(part))
    return "".join(out)


def _leaf_errors(error):
    """Errors under anyOf/oneOf carry their reasons in .context; report the leaves."""
    if error.context:
        for sub in error.context:
            yield from _leaf_errors(sub)
    else:
        yield error


def load_json(path):
    if path == "-":
        return json.load(sys.stdin)
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f)


def _sort_key(error):
    return [(0, p) if isinstance(p, int) else (1, str(p)) for p in error.absolute_path]


def validate(validator, name, doc, out=sys.stdout):
    """Print one line per error; return the number of errors."""
    count = 0
    for error in sorted(validator.iter_errors(doc), key=_sort_key):
        where = json_path(error.absolute_path)
        out.write("%s: %s: %s\n" % (name, where, error.message))
        count += 1
        if error.context:
            # anyOf/oneOf: show why each alternative failed, indented.
            for leaf in _leaf_errors(error):
                out.write("%s:   %s: %s\n" % (name, json_path(leaf.absolute_path), leaf.message))
    return count


def make_validator(schema, schema_path):
    """A validator that resolves $refs to the other schemas in the schema's folder
    ("axl-inventory.schema.json#/$defs/device"), by their $id, without any network."""
    import glob
    import os
    store = {}
    folder = os.path.dirname(os.path.abspath(schema_path)) if schema_path != "-" else None
    for f in sorted(glob.glob(os.path.join(folder, "*.json"))) if folder else []:
        try:
            with open(f, "r", encoding="utf-8") as fh:
                other = json.load(fh)
        except (OSError, ValueError):
            continue
        if isinstance(other, dict) and isinstance(other.get("$id"), str):
            store[other["$id"]] = other
    if isinstance(schema.get("$id"), str):
        store[schema["$id"]] = schema
    try:
        from referencing import Registry
        from referencing.jsonschema import DRAFT202012
        registry = Registry().with_resources(
            [(uri, DRAFT202012.create_resource(doc)) for uri, doc in store.items()])
        return Draft202012Validator(schema, registry=registry)
    except ImportError:  # jsonschema < 4.18 (Debian 12): the RefResolver
        from jsonschema import RefResolver
        return Draft202012Validator(schema, resolver=RefResolver.from_schema(schema, store=store))


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write(USAGE + "\n")
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2

    schema_path = argv[1]
    try:
        schema = load_json(schema_path)
    except (OSError, ValueError) as e:
        print("%s: cannot read schema: %s" % (schema_path, e))
        return 1
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        print("%s: %s: invalid schema: %s" % (schema_path, json_path(e.absolute_path), e.message))
        return 1

    validator = make_validator(schema, schema_path)
    failed = 0
    for path in argv[2:]:
        name = "<stdin>" if path == "-" else path
        try:
            doc = load_json(path)
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (name, e))
            failed += 1
            continue
        if validate(validator, name, doc):
            failed += 1
    if failed:
        print("%d of %d document(s) invalid" % (failed, len(argv) - 2))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
