#!/usr/bin/env python3
"""A strict parser of the Prometheus text exposition format 0.0.4.

Stricter than Prometheus itself where axl's output should be: every family has
# HELP and # TYPE before its first sample, each family appears once (its series
together), no series twice, label values use only the \\\\, \\" and \\n escapes.

usage: promparse.py FILE          parse FILE ("-": standard input), print a summary
       promparse.py --selftest    check the parser on good and bad documents
As a module: parse(text) -> {family: {"type", "help", "samples": [(name, labels, value)]}}
raises ParseError with the line number.
"""

import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}


class ParseError(Exception):
    pass


def parse_value(s, ln):
    if s in ("NaN", "+Inf", "-Inf", "Inf"):
        return float(s.replace("Inf", "inf").replace("NaN", "nan"))
    if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s):
        raise ParseError("line %d: value %r is not a float" % (ln, s))
    return float(s)


def parse_labels(line, i, ln):
    """line[i] is '{'; returns (labels dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        if i < len(line) and line[i] == "}":
            return labels, i + 1
        m = LABEL.match(line, i)
        if not m:
            raise ParseError("line %d: bad label name at column %d" % (ln, i + 1))
        name = m.group(0)
        if name.startswith("__"):
            raise ParseError("line %d: reserved label name %s" % (ln, name))
        if name in labels:
            raise ParseError("line %d: label %s twice" % (ln, name))
        i = m.end()
        if line[i:i + 2] != '="':
            raise ParseError("line %d: expected =\" after label %s" % (ln, name))
        i += 2
        val = []
        while True:
            if i >= len(line):
                raise ParseError("line %d: unterminated label value" % ln)
            c = line[i]
            if c == "\\":
                nxt = line[i + 1:i + 2]
                if nxt == "\\":
                    val.append("\\")
                elif nxt == '"':
                    val.append('"')
                elif nxt == "n":
                    val.append("\n")
                else:
                    raise ParseError("line %d: bad escape \\%s in label value" % (ln, nxt))
                i += 2
                continue
            if c == '"':
                i += 1
                break
            val.append(c)
            i += 1
        labels[name] = "".join(val)
        if i < len(line) and line[i] == ",":
            i += 1
            continue
        if i < len(line) and line[i] == "}":
            return labels, i + 1
        raise ParseError("line %d: expected , or } after label %s" % (ln, name))


def family_of(name, families):
    if name in families:
        return name
    for fam, f in families.items():
        for suf in SUFFIXES.get(f["type"], ()):
            if name == fam + suf:
                return fam
    return name


def parse(text):
    if text and not text.endswith("\n"):
        raise ParseError("the document does not end with a newline")
    families = {}
    done = set()      # families whose series are behind us
    current = None
    seen_series = set()
    for ln, line in enumerate(text.split("\n")[:-1] if text else [], 1):
        if line == "":
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[0] == "#" and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    raise ParseError("line %d: bad metric name %r" % (ln, name))
                f = families.setdefault(name, {"type": None, "help": None, "samples": []})
                if f["samples"] or name in done:
                    raise ParseError("line %d: %s for %s after its samples" % (ln, parts[1], name))
                if parts[1] == "HELP":
                    if f["help"] is not None:
                        raise ParseError("line %d: second HELP for %s" % (ln, name))
                    text_ = parts[3] if len(parts) > 3 else ""
                    if re.search(r"\\[^\\n]", text_.replace("\\\\", "")):
                        raise ParseError("line %d: bad escape in HELP" % ln)
                    f["help"] = text_
                else:
                    if f["type"] is not None:
                        raise ParseError("line %d: second TYPE for %s" % (ln, name))
                    if len(parts) != 4 or parts[3] not in TYPES:
                        raise ParseError("line %d: bad TYPE line" % ln)
                    f["type"] = parts[3]
                if current and current != name:
                    done.add(current)
                current = name
            continue
        m = NAME.match(line)
        if not m:
            raise ParseError("line %d: not a comment nor a sample: %r" % (ln, line[:80]))
        name = m.group(0)
        i = m.end()
        labels = {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, ln)
        if i >= len(line) or line[i] != " ":
            raise ParseError("line %d: expected a space before the value" % ln)
        rest = line[i + 1:].split(" ")
        if len(rest) not in (1, 2):
            raise ParseError("line %d: trailing text after the value" % ln)
        value = parse_value(rest[0], ln)
        if len(rest) == 2 and not re.fullmatch(r"-?\d+", rest[1]):
            raise ParseError("line %d: bad timestamp %r" % (ln, rest[1]))
        fam = family_of(name, families)
        f = families.get(fam)
        if f is None or f["type"] is None or f["help"] is None:
            raise ParseError("line %d: sample of %s without HELP and TYPE before it" % (ln, fam))
        if fam in done:
            raise ParseError("line %d: family %s appears twice" % (ln, fam))
        if current and current != fam:
            done.add(current)
        current = fam
        key = (name, tuple(sorted(labels.items())))
        if key in seen_series:
            raise ParseError("line %d: duplicate series %s%s" % (ln, name, labels))
        seen_series.add(key)
        if f["type"] == "counter" and (value < 0 or math.isnan(value)):
            raise ParseError("line %d: counter %s is negative or NaN" % (ln, name))
        f["samples"].append((name, labels, value))
    for fam, f in families.items():
        if f["type"] is None or f["help"] is None:
            raise ParseError("family %s lacks HELP or TYPE" % fam)
    return families


def selftest():
    good = ('# HELP a_total Things.\n# TYPE a_total counter\na_total{x="q\\"\\\\\\n",y="2"} 3\n'
            'a_total{x="r"} 4.5e3 1700000000000\n# HELP b B.\n# TYPE b gauge\nb NaN\nb{z="1",} -Inf\n')
    fams = parse(good)
    assert fams["a_total"]["samples"][0][1]["x"] == 'q"\\\n', fams
    assert fams["a_total"]["samples"][1][2] == 4500.0
    assert math.isnan(fams["b"]["samples"][0][2])
    bad = [
        "a 1\n",                                                   # no HELP/TYPE
        "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n",           # bad escape
        "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} one\n",           # value
        "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n",  # duplicate series
        "# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 1\na{q=\"1\"} 2\n",  # twice
        "# HELP a A.\n# TYPE a gauge\na{1x=\"1\"} 1\n",            # label name
        "# HELP a A.\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n",     # label twice
        "# HELP a A.\n# TYPE a gauge\na 1\n# TYPE a gauge\n",      # TYPE after samples
        "# HELP a A.\n# TYPE a meter\na 1\n",                      # type
        "# HELP a A.\n# TYPE a gauge\na{x=\"1} 1\n",               # unterminated
        "# HELP a A.\n# TYPE a gauge\na 1",                        # no final newline
        "# HELP a-b A.\n# TYPE a-b gauge\n",                       # name
        "# HELP a A.\n# TYPE a counter\na -1\n",                   # negative counter
        "# HELP a A.\n# TYPE a gauge\na  1\n",                     # two spaces
    ]
    for b in bad:
        try:
            parse(b)
        except ParseError:
            continue
        raise AssertionError("accepted: %r" % b)
    print("promparse selftest: %d good, %d bad documents judged right" % (1, len(bad)))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--selftest":
        selftest()
        return 0
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    text = sys.stdin.read() if sys.argv[1] == "-" else open(sys.argv[1], encoding="utf-8").read()
    try:
        fams = parse(text)
    except ParseError as e:
        print("promparse: %s" % e)
        return 1
    print("%d families, %d series" % (len(fams), sum(len(f["samples"]) for f in fams.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
