#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bindings.python: the Python package's copies of the C API agree with the headers, as
curl's tests/test1477.pl keeps its documentation in step with its headers.

  check_bindings.py [--top DIR]   check python/axl against include/axl/*.h
  check_bindings.py --selftest    the checker on made-up headers and bindings (it must
                                  fail each kind of mismatch)

Read from the headers (comments removed, macros not expanded but AXL_ERROR_LIST's X rows):
  - AXL_ERROR_LIST: every X(NAME, value, "message") row;
  - every `AXL_API <type> axl_<name>(<parameters>);` prototype, its return type and
    parameters resolved through the headers' typedefs (enums are int; axl_buffer,
    axl_queue and axl_event are uint64_t; opaque structs are pointers only).
Read from the package, without loading libaxl (python/axl/_lib.py and errors.py are
parsed with Python's ast, so nothing there runs):
  - errors.CODES: every code but OK by name, with its value; errors.ERRORS: only codes of
    the list;
  - _lib._SIGS: each function's restype and argtypes;
  - every `.axl_<name>(` call in python/axl/**.py: a function _SIGS declares (ctypes
    would otherwise pass every argument as a C int).
Checked: names (both ways for the codes; every declared function exists in a header),
values, argument counts, and each argument's and result's width and kind: a C pointer is
c_void_p, c_char_p (char pointers), or POINTER(x) where x matches the pointed-to type;
an integer is a ctypes integer of the same size and signedness; a floating type the
ctypes one of the same size; void is None.
"""
import argparse
import ast
import ctypes
import glob
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
ERR_ROW = re.compile(r'X\(\s*([A-Z0-9_]+)\s*,\s*(-?\d+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')

# C scalar types: (kind, size, signed)
C_SCALARS = {
    "int": ("int", ctypes.sizeof(ctypes.c_int), True),
    "signed int": ("int", ctypes.sizeof(ctypes.c_int), True),
    "unsigned": ("int", ctypes.sizeof(ctypes.c_uint), False),
    "unsigned int": ("int", ctypes.sizeof(ctypes.c_uint), False),
    "long": ("int", ctypes.sizeof(ctypes.c_long), True),
    "unsigned long": ("int", ctypes.sizeof(ctypes.c_ulong), False),
    "long long": ("int", ctypes.sizeof(ctypes.c_longlong), True),
    "unsigned long long": ("int", ctypes.sizeof(ctypes.c_ulonglong), False),
    "short": ("int", 2, True), "unsigned short": ("int", 2, False),
    "char": ("int", 1, True), "signed char": ("int", 1, True), "unsigned char": ("int", 1, False),
    "bool": ("bool", 1, False), "_Bool": ("bool", 1, False),
    "size_t": ("int", ctypes.sizeof(ctypes.c_size_t), False),
    "ssize_t": ("int", ctypes.sizeof(ctypes.c_ssize_t), True),
    "int8_t": ("int", 1, True), "uint8_t": ("int", 1, False),
    "int16_t": ("int", 2, True), "uint16_t": ("int", 2, False),
    "int32_t": ("int", 4, True), "uint32_t": ("int", 4, False),
    "int64_t": ("int", 8, True), "uint64_t": ("int", 8, False),
    "float": ("float", 4, True), "double": ("float", 8, True),
}
# the ctypes names _lib.py may use, as the same triples ("ptr" for pointers)
CT_SCALARS = {
    "c_int": ("int", ctypes.sizeof(ctypes.c_int), True), "c_uint": ("int", ctypes.sizeof(ctypes.c_uint), False),
    "c_long": ("int", ctypes.sizeof(ctypes.c_long), True), "c_ulong": ("int", ctypes.sizeof(ctypes.c_ulong), False),
    "c_longlong": ("int", 8, True), "c_ulonglong": ("int", 8, False),
    "c_short": ("int", 2, True), "c_ushort": ("int", 2, False),
    "c_byte": ("int", 1, True), "c_ubyte": ("int", 1, False), "c_char": ("int", 1, True),
    "c_bool": ("bool", 1, False),
    "c_size_t": ("int", ctypes.sizeof(ctypes.c_size_t), False),
    "c_ssize_t": ("int", ctypes.sizeof(ctypes.c_ssize_t), True),
    "c_int8": ("int", 1, True), "c_uint8": ("int", 1, False),
    "c_int16": ("int", 2, True), "c_uint16": ("int", 2, False),
    "c_int32": ("int", 4, True), "c_uint32": ("int", 4, False),
    "c_int64": ("int", 8, True), "c_uint64": ("int", 8, False),
    "c_float": ("float", 4, True), "c_double": ("float", 8, True),
}


# ---- the headers ---------------------------------------------------------------------

def header_text(top):
    out = []
    for h in sorted(glob.glob(os.path.join(top, "include", "axl", "*.h"))):
        with open(h, encoding="utf-8") as f:
            out.append((os.path.relpath(h, top), f.read()))
    return out


def error_list(headers):
    """AXL_ERROR_LIST's rows: [(name, value, message)], from the #define's lines."""
    for rel, text in headers:
        m = re.search(r"#define\s+AXL_ERROR_LIST\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
        if m:
            return [(n, int(v), msg) for n, v, msg in ERR_ROW.findall(m.group(1))], rel
    return None, None


def typedefs(headers):
    """name -> C type text for the headers' typedefs; enums become "int", structs
    "struct NAME" (opaque unless used through a pointer), function pointers "fnptr"."""
    out = {}
    for rel, text in headers:
        text = COMMENT.sub(" ", text)
        for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{[^}]*\}\s*(\w+)\s*;", text):
            out[m.group(1)] = "int"
        for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
            out[m.group(2)] = "struct " + m.group(1)
        for m in re.finditer(r"typedef\s+struct\s*\w*\s*\{.*?\}\s*(\w+)\s*;", text, re.S):
            out.setdefault(m.group(1), "struct " + m.group(1))
        for m in re.finditer(r"typedef\s+[\w\s\*]+\(\s*\*\s*(\w+)\s*\)\s*\(", text):
            out[m.group(1)] = "fnptr"
        for m in re.finditer(r"typedef\s+((?:unsigned\s+|signed\s+)?\w+)\s+(\w+)\s*;", text):
            if m.group(1) not in ("struct", "enum"):
                out.setdefault(m.group(2), m.group(1))
    return out


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


def prototypes(headers):
    """name -> (header, return type text, [parameter type texts])."""
    out = {}
    for rel, text in headers:
        text = COMMENT.sub(" ", text)
        text = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)
        for m in re.finditer(r"\bAXL_API\b", text):
            i = m.end()
            j = text.index("(", i)
            head = " ".join(text[i:j].split())
            nm = re.search(r"(\w+)\s*$", head)
            if not nm:
                continue
            name = nm.group(1)
            depth, k = 0, j
            while True:
                if text[k] == "(":
                    depth += 1
                elif text[k] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            params = split_params(text[j + 1:k])
            if params == ["void"]:
                params = []
            out[name] = (rel, head[:nm.start()].strip(), params)
    return out


def param_type(p):
    """A parameter's type text without its name ("const char *path" -> "const char *")."""
    if "(" in p:
        return "fnptr"
    p = re.sub(r"\[[^\]]*\]", "*", p)  # an array parameter is a pointer
    m = re.match(r"^(.*?[\s\*])(\w+)$", p)
    if m and m.group(2) not in C_SCALARS and m.group(2) not in ("const", "void", "unsigned", "signed"):
        typ = m.group(1)
        if not re.search(r"\w", typ.replace("const", "").replace("struct", "")):
            typ = p  # only a type name, no parameter name
        return " ".join(typ.split())
    return " ".join(p.split())


def resolve(typ, tdefs):
    """A C type text as ("void",), ("scalar", kind, size, signed), ("ptr", pointee) or
    ("opaque", name)."""
    words = [w for w in typ.replace("*", " * ").split() if w not in ("const", "volatile", "restrict")]
    t = " ".join(words)
    if t.endswith("*"):
        return ("ptr", resolve(t[:-1], tdefs))
    if t == "void":
        return ("void",)
    if t in C_SCALARS:
        return ("scalar",) + C_SCALARS[t]
    if t.startswith("enum "):
        return ("scalar",) + C_SCALARS["int"]
    if t.startswith("struct "):
        return ("opaque", t)
    if t in tdefs:
        d = tdefs[t]
        if d == "fnptr":
            return ("ptr", ("fn", t))
        return resolve(d, tdefs)
    return ("unknown", t)


def describe(r):
    if r[0] == "ptr":
        return describe(r[1]) + " *"
    if r[0] == "scalar":
        return "%s%d%s" % ({"int": "int", "float": "float", "bool": "bool"}[r[1]], r[2] * 8,
                           "" if r[1] != "int" else (" signed" if r[3] else " unsigned"))
    return " ".join(str(x) for x in r)


# ---- the package ---------------------------------------------------------------------

def parse_py(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def literal_dict(tree, name):
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign):
            target = node.target
        if isinstance(target, ast.Name) and target.id == name and isinstance(node.value, ast.Dict):
            return node.value
    return None


def ct_expr(node, aliases):
    """A ctypes type expression of _SIGS as ("none",), ("scalar", ...), ("ptr", x),
    ("voidp",), ("charp",) or ("unknown", text)."""
    if isinstance(node, ast.Constant) and node.value is None:
        return ("none",)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ctypes":
        node = ast.Name(id=node.attr)
    if isinstance(node, ast.Name):
        n = aliases.get(node.id, node.id)
        if n == "c_void_p":
            return ("voidp",)
        if n == "c_char_p":
            return ("charp",)
        if n in CT_SCALARS:
            return ("scalar",) + CT_SCALARS[n]
        return ("unknown", n)
    if isinstance(node, ast.Call):
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if fname == "POINTER" and len(node.args) == 1:
            return ("ptr", ct_expr(node.args[0], aliases))
    return ("unknown", ast.dump(node))


def ct_describe(c):
    if c[0] == "ptr":
        return "POINTER(%s)" % ct_describe(c[1])
    if c[0] == "scalar":
        return describe(c)
    return {"none": "None", "voidp": "c_void_p", "charp": "c_char_p"}.get(c[0], " ".join(map(str, c)))


def char_like(r):
    return r[0] == "scalar" and r[1] == "int" and r[2] == 1


def match(cr, ct):
    """Does the ctypes type ct pass and return what the C type cr is?"""
    if cr[0] == "void":
        return ct[0] == "none"
    if cr[0] == "scalar":
        return ct[0] == "scalar" and ct[1:] == cr[1:]
    if cr[0] == "ptr":
        if ct[0] == "voidp":
            return True
        if ct[0] == "charp":
            return char_like(cr[1])
        if ct[0] == "ptr":
            inner = cr[1]
            if inner[0] in ("opaque", "fn"):
                return ct[1][0] == "unknown"  # a ctypes Structure or CFUNCTYPE by name
            return match(inner, ct[1])
        return False
    return False


def check(top):
    bad = []
    headers = header_text(top)
    rows, where = error_list(headers)
    if not rows:
        return ["AXL_ERROR_LIST not found in include/axl/*.h"], {}
    protos = prototypes(headers)
    tdefs = typedefs(headers)

    # the codes
    errors_py = os.path.join(top, "python", "axl", "errors.py")
    et = parse_py(errors_py)
    codes = literal_dict(et, "CODES")
    if codes is None:
        bad.append("python/axl/errors.py: no CODES dict")
        codes_py = {}
    else:
        codes_py = {ast.literal_eval(k): ast.literal_eval(v) for k, v in zip(codes.keys, codes.values)}
    c_codes = {n: v for n, v, _ in rows if n != "OK"}
    for n, v in sorted(c_codes.items(), key=lambda kv: -kv[1]):
        if n not in codes_py:
            bad.append("python/axl/errors.py: CODES lacks %s (%d, %s)" % (n, v, where))
        elif codes_py[n] != v:
            bad.append("python/axl/errors.py: CODES[%r] = %d, %s says %d" % (n, codes_py[n], where, v))
    for n in sorted(set(codes_py) - set(c_codes)):
        bad.append("python/axl/errors.py: CODES has %s, which AXL_ERROR_LIST (%s) does not" % (n, where))
    errs = literal_dict(et, "ERRORS")
    if errs is not None:
        for k in errs.keys:
            v = ast.literal_eval(k)
            if v not in c_codes.values():
                bad.append("python/axl/errors.py: ERRORS maps %d, which is no code of AXL_ERROR_LIST" % v)

    # the signatures
    lib_py = os.path.join(top, "python", "axl", "_lib.py")
    lt = parse_py(lib_py)
    aliases = {}
    for node in ast.walk(lt):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Name):
            aliases[node.targets[0].id] = node.value.id  # P = c_void_p
    sigs = literal_dict(lt, "_SIGS")
    declared = {}
    if sigs is None:
        bad.append("python/axl/_lib.py: no _SIGS dict")
    else:
        for k, v in zip(sigs.keys, sigs.values):
            name = ast.literal_eval(k)
            res, args = v.elts
            declared[name] = (ct_expr(res, aliases), [ct_expr(a, aliases) for a in args.elts], k.lineno)
    for name, (res, args, line) in sorted(declared.items()):
        loc = "python/axl/_lib.py:%d: %s" % (line, name)
        if name not in protos:
            bad.append("%s: no AXL_API prototype of that name in include/axl/*.h" % loc)
            continue
        hdr, cret, cparams = protos[name]
        cparams = [param_type(p) for p in cparams]
        if len(args) != len(cparams):
            bad.append("%s: %d argtypes, %s declares %d parameters (%s)" %
                       (loc, len(args), hdr, len(cparams), ", ".join(cparams)))
        r = resolve(cret, tdefs)
        if not match(r, res):
            bad.append("%s: restype %s, %s returns %s (%s)" % (loc, ct_describe(res), hdr, cret, describe(r)))
        for i, (cp, a) in enumerate(zip(cparams, args)):
            r = resolve(cp, tdefs)
            if not match(r, a):
                bad.append("%s: argument %d is %s, %s has %s (%s)" % (loc, i + 1, ct_describe(a), hdr, cp, describe(r)))

    # every call into libaxl is declared
    for path in sorted(glob.glob(os.path.join(top, "python", "axl", "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                for m in re.finditer(r"\.(axl_\w+)\s*\(", line):
                    if m.group(1) not in declared:
                        bad.append("%s:%d: calls %s, which _SIGS does not declare (ctypes would guess its types)" %
                                   (os.path.relpath(path, top), i, m.group(1)))
    return bad, {"codes": len(c_codes), "prototypes": len(protos), "declared": len(declared)}


def report(top):
    bad, n = check(top)
    for b in bad:
        print("FAIL " + b)
    print("bindings.python: %d codes, %d of %d AXL_API functions declared, %d problems" %
          (n.get("codes", 0), n.get("declared", 0), n.get("prototypes", 0), len(bad)))
    return 1 if bad else 0


# ---- selftest ------------------------------------------------------------------------

SELF_H = r'''
#define AXL_ERROR_LIST(X) \
	X(OK, 0, "success") \
	X(EINVAL, -1, "invalid argument") \
	X(ENOMEM, -2, "out of memory")
typedef struct axl_thing axl_thing;
typedef enum axl_kind { AXL_KIND_A } axl_kind;
typedef uint64_t axl_buffer;
/* AXL_API int axl_commented(void); */
AXL_API int axl_open(axl_thing **out, const char *path,
		     unsigned flags);
AXL_API void axl_free(axl_thing *t);
AXL_API const char *axl_kind_name(axl_kind k);
AXL_API int axl_size(const axl_thing *t, size_t *out, axl_buffer b, double *d);
AXL_API int axl_env(const char *const *names, size_t n);
'''
SELF_ERR = '''
CODES = {"EINVAL": -1, "ENOMEM": -2}
ERRORS = {-1: 1, -2: 2}
'''
SELF_LIB = '''
P = c_void_p
_SIGS = {
    "axl_open": (c_int, [POINTER(P), c_char_p, c_uint]),
    "axl_free": (None, [P]),
    "axl_kind_name": (c_char_p, [c_int]),
    "axl_size": (c_int, [P, POINTER(c_size_t), c_uint64, POINTER(c_double)]),
    "axl_env": (c_int, [POINTER(c_char_p), c_size_t]),
}
def f(L):
    return L.axl_open(None, None, 0)
'''
# (what to change, in which file, the words the failure must hold)
SELF_CASES = [
    ("good", None, None, None),
    ("value", "err", ('"ENOMEM": -2', '"ENOMEM": -3'), "CODES['ENOMEM'] = -3"),
    ("missing code", "err", (', "ENOMEM": -2', ""), "lacks ENOMEM"),
    ("extra code", "err", ('"ENOMEM": -2', '"ENOMEM": -2, "EXTRA": -9'), "CODES has EXTRA"),
    ("errors map", "err", ("-2: 2", "-7: 2"), "ERRORS maps -7"),
    ("name", "lib", ('"axl_free"', '"axl_frees"'), "axl_frees: no AXL_API prototype"),
    ("count", "lib", ("[POINTER(P), c_char_p, c_uint]", "[POINTER(P), c_char_p]"), "2 argtypes"),
    ("width", "lib", ("c_uint64, POINTER", "c_uint, POINTER"), "argument 3 is int32 unsigned"),
    ("sign", "lib", ("[POINTER(P), c_char_p, c_uint]", "[POINTER(P), c_char_p, c_int]"), "argument 3"),
    ("pointee", "lib", ("POINTER(c_size_t)", "POINTER(c_int)"), "argument 2 is POINTER"),
    ("float", "lib", ("POINTER(c_double)", "POINTER(c_float)"), "argument 4"),
    ("restype", "lib", ('(None, [P])', '(c_int, [P])'), "restype"),
    ("char pointer", "lib", ('(c_char_p, [c_int])', '(c_char_p, [c_char_p])'), "axl_kind_name: argument 1"),
    ("pointer to pointer", "lib", ("[POINTER(c_char_p), c_size_t]", "[POINTER(c_int), c_size_t]"), "axl_env: argument 1"),
    ("undeclared call", "lib", ("L.axl_open(", "L.axl_close("), "calls axl_close"),
]


def selftest():
    fails = 0
    for label, which, edit, want in SELF_CASES:
        with tempfile.TemporaryDirectory(prefix="axl-bindings-") as d:
            os.makedirs(os.path.join(d, "include", "axl"))
            os.makedirs(os.path.join(d, "python", "axl"))
            files = {"err": SELF_ERR, "lib": SELF_LIB}
            if edit:
                assert edit[0] in files[which], (label, edit[0])
                files[which] = files[which].replace(edit[0], edit[1], 1)
            with open(os.path.join(d, "include", "axl", "self.h"), "w") as f:
                f.write(SELF_H)
            with open(os.path.join(d, "python", "axl", "errors.py"), "w") as f:
                f.write(files["err"])
            with open(os.path.join(d, "python", "axl", "_lib.py"), "w") as f:
                f.write(files["lib"])
            bad, n = check(d)
            if want is None:
                ok = not bad and n["prototypes"] == 5 and n["declared"] == 5 and n["codes"] == 2
            else:
                ok = any(want in b for b in bad)
            if not ok:
                print("FAIL selftest %s: wanted %r, got %s (%s)" % (label, want, bad, n))
                fails += 1
    print("bindings.python selftest: %d cases, %d failed" % (len(SELF_CASES), fails))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", default=TOP)
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    return selftest() if a.selftest else report(a.top)


if __name__ == "__main__":
    sys.exit(main())
