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

    validator = Draft202012Validator(schema)
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
