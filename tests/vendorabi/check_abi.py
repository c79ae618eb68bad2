#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare a by-hand declaration of a vendor's C ABI with the vendor's own header.

  check_abi.py --ours src/abi/nvidia/cuda.h --vendor-include cuda.h \
      [--define __CUDA_API_VERSION_INTERNAL] [--version-macro CUDA_VERSION] [--cc cc] \
      [--include-dir DIR]... [--require-all]

Our header (src/abi/*/*.h, or a test double's copy) is read with the compiler's own
preprocessor and a small declaration parser: every macro, enumerator, typedef, struct,
union or enum tag and function it declares. Two programs are then compiled beside the
vendor's header:

  1. layouts and constants: our header is included after the vendor's with each of its
     names renamed (ours_<name>), and a program compares, for each constant, its value;
     for each type, its size and alignment; for each struct or union, its size,
     alignment and every member's offset and width, and the signedness of integer
     members and typedefs (an enum of the vendor's against an int of ours is
     ABI-equal and is not a difference);
  2. prototypes: each of our function declarations is compiled under another name
     beside the vendor's, and __builtin_types_compatible_p must hold: the same return
     and parameter types, qualifiers included, as the vendor's header spells them.

Declarations newer than the vendor's header sit in our header under
`#if AXL_ABI_HAVE(version)`; the checker defines AXL_ABI_HEADER_VERSION from the vendor
header's version macro (or --header-version), so they are left out of the comparison and
listed as such ("checked where the header has them"). A name of ours the vendor's header
does not declare is a difference. A header of src/abi may include another (abi/intel/zes.h
includes abi/intel/ze.h): the names it takes from there are renamed with its own, so that
they do not clash with the vendor's, and are compared by that header's own test. Prints each difference and a summary line; exit 1 on
any difference, 77 (skipped) when the vendor header is not installed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77

KEYWORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "const", "volatile", "restrict", "struct", "union", "enum", "typedef", "extern", "static",
    "inline", "_Static_assert", "sizeof", "_Alignof", "_Alignas", "__attribute__", "__restrict",
}
INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "_Bool"}
INTEGER_TYPEDEFS = {
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "pid_t",
}

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.])*)
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.(){}\[\]#])
""", re.X)


def tokenize(text):
    out = []
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SyntaxError("cannot read %r" % text[pos:pos + 40])
        pos = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


class Decls:
    def __init__(self):
        self.macros = []        # object-like macro names, in order
        self.enumerators = []   # names
        self.typedefs = {}      # name -> info dict
        self.tags = {}          # "struct X" / "union X" / "enum X" -> info (structs: fields)
        self.functions = {}     # name -> prototype tokens (name replaced by @NAME@)
        self.order = []         # (kind, name) in order of appearance


def preprocess(cc, header, incdirs, defines):
    """Our header's own lines, preprocessed (macros kept with -dD), without those of the
    headers it includes."""
    cmd = [cc, "-E", "-dD", "-std=c11"] + ["-I" + d for d in incdirs] + ["-D" + d for d in defines] + [header]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    mine = os.path.realpath(header)
    keep = []
    current = None
    for line in text.splitlines():
        m = re.match(r'# \d+ "([^"]*)"', line)
        if m:
            current = os.path.realpath(m.group(1)) if not m.group(1).startswith("<") else None
            continue
        if current == mine:
            keep.append(line)
    return keep


def dependencies(cc, header, incdirs, defines):
    """The declarations of the other src/abi headers ours includes (abi/intel/zes.h includes
    abi/intel/ze.h): the layout program renames their names with ours, so that they do not
    clash with the vendor's, and the parser knows their types; their own test compares
    them. A header outside an abi/ folder (a test double's) has none."""
    mine = os.path.realpath(header)
    root = os.path.dirname(mine)
    while os.path.basename(root) != "abi":
        if os.path.dirname(root) == root:
            return Decls()
        root = os.path.dirname(root)
    cmd = [cc, "-E", "-dD", "-std=c11"] + ["-I" + d for d in incdirs] + ["-D" + d for d in defines] + [header]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    keep = []
    current = None
    for line in text.splitlines():
        m = re.match(r'# \d+ "([^"]*)"', line)
        if m:
            current = os.path.realpath(m.group(1)) if not m.group(1).startswith("<") else None
            continue
        if current and current != mine and current.startswith(root + os.sep):
            keep.append(line)
    return parse(keep)


class Parser:
    def __init__(self, toks, decls, base=None):
        self.t = toks
        self.i = 0
        self.d = decls
        self.base = base  # the declarations of the src/abi headers ours includes

    def typedef(self, name):
        if name in self.d.typedefs:
            return self.d.typedefs[name]
        return self.base.typedefs.get(name) if self.base else None

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise SyntaxError("expected %r, found %r near %s" % (want, tok, " ".join(self.t[max(0, self.i - 8):self.i + 8])))
        self.i += 1
        return tok

    def skip_balanced(self, open_, close):
        depth = 0
        start = self.i
        while True:
            tok = self.take()
            if tok == open_:
                depth += 1
            elif tok == close:
                depth -= 1
                if depth == 0:
                    return self.t[start:self.i]

    def statements(self):
        while self.peek() is not None:
            if self.peek() == ";":
                self.take()
                continue
            if self.peek() == "_Static_assert":
                self.take()
                self.skip_balanced("(", ")")
                self.take(";")
                continue
            self.declaration()

    # specifiers: returns a dict: {words:[...], tag: "struct X"|None, body: fields|None, ...}
    def specifiers(self, record):
        spec = {"words": [], "tag": None, "kind": None, "complete": False, "integer": False, "enum": False}
        while True:
            tok = self.peek()
            if tok in ("const", "volatile", "restrict", "extern", "static", "inline", "__restrict"):
                self.take()
            elif tok in ("struct", "union", "enum"):
                kind = self.take()
                name = None
                if self.peek() not in ("{",):
                    name = self.take()
                spec["kind"] = kind
                spec["tag"] = "%s %s" % (kind, name) if name else None
                if self.peek() == "{":
                    if kind == "enum":
                        self.enum_body()
                        spec["enum"] = True
                    else:
                        spec["fields"] = self.record_body()
                    spec["complete"] = True
                    if name:
                        self.d.tags[spec["tag"]] = {"kind": kind, "fields": spec.get("fields", []), "complete": True}
                        self.d.order.append(("tag", spec["tag"]))
                elif kind == "enum":
                    spec["enum"] = True
                if kind == "enum":
                    spec["integer"] = True
            elif tok in INTEGER_WORDS or tok in ("void", "float", "double"):
                spec["words"].append(self.take())
                if tok in INTEGER_WORDS:
                    spec["integer"] = True
            elif tok is not None and re.match(r"[A-Za-z_]", tok) and tok not in KEYWORDS and not spec["words"] \
                    and spec["kind"] is None and self.is_type_name(tok):
                spec["words"].append(self.take())
                spec["typedef"] = tok
                info = self.typedef(tok)
                if tok in INTEGER_TYPEDEFS or (info and info.get("integer")):
                    spec["integer"] = True
                if info and info.get("enum"):
                    spec["enum"] = True
                if info and info.get("fields") is not None:
                    spec["fields_of"] = tok
            elif tok == "__attribute__":
                self.take()
                self.skip_balanced("(", ")")
            else:
                return spec

    def is_type_name(self, tok):
        # a declared typedef of ours, a standard one, or (in a prototype) an identifier
        # followed by a declarator: a type the vendor header declares (never ours alone)
        if self.typedef(tok) is not None or tok in INTEGER_TYPEDEFS:
            return True
        nxt = self.peek(1)
        return nxt is not None and (re.match(r"[A-Za-z_*(]", nxt) is not None)

    def enum_body(self):
        self.take("{")
        while self.peek() != "}":
            name = self.take()
            self.d.enumerators.append(name)
            self.d.order.append(("enumerator", name))
            if self.peek() == "=":
                self.take()
                depth = 0
                while not (depth == 0 and self.peek() in (",", "}")):
                    tok = self.take()
                    depth += tok == "("
                    depth -= tok == ")"
            if self.peek() == ",":
                self.take()
        self.take("}")

    def record_body(self):
        fields = []
        self.take("{")
        while self.peek() != "}":
            spec = self.specifiers(record=True)
            if self.peek() == ";":          # an anonymous struct/union member
                self.take()
                for f in spec.get("fields", []):
                    fields.append(dict(f))
                continue
            while True:
                d = self.declarator()
                f = {"name": d["name"], "array": d["array"], "pointer": d["pointer"],
                     "func": d["func"], "bitfield": False,
                     "integer": spec["integer"] and not d["pointer"] and not d["func"],
                     "enum": spec["enum"]}
                if self.peek() == ":":
                    self.take()
                    self.take()
                    f["bitfield"] = True
                fields.append(f)
                if not d["pointer"] and not d["array"] and spec.get("fields") is not None:
                    for sub in spec["fields"]:
                        g = dict(sub)
                        g["name"] = d["name"] + "." + sub["name"]
                        fields.append(g)
                if self.peek() == ",":
                    self.take()
                    continue
                break
            self.take(";")
        self.take("}")
        return fields

    def declarator(self):
        """pointer* (name | '(' declarator ')') suffix*"""
        d = {"name": None, "pointer": False, "array": False, "func": False, "params": None}
        while self.peek() in ("*", "const", "volatile", "restrict", "__restrict"):
            if self.take() == "*":
                d["pointer"] = True
        if self.peek() == "(" and self.peek(1) in ("*",):
            self.take("(")
            inner = self.declarator()
            self.take(")")
            d["name"] = inner["name"]
            d["pointer"] = True
            if self.peek() == "(":
                self.skip_balanced("(", ")")
                d["func"] = True        # a pointer to a function
            return d
        if self.peek() is not None and re.match(r"[A-Za-z_]", self.peek()) and self.peek() not in KEYWORDS:
            d["name"] = self.take()
        while self.peek() in ("[", "("):
            if self.peek() == "[":
                self.skip_balanced("[", "]")
                d["array"] = True
            else:
                d["params"] = (self.i, self.skip_balanced("(", ")"))
                # a name followed by parameters is a function, whatever it returns (a
                # pointer to a function is the "(*name)(...)" form above)
                d["isfunc"] = True
                d["pointer"] = False
        return d

    def declaration(self):
        start = self.i
        is_typedef = self.peek() == "typedef"
        if is_typedef:
            self.take()
        spec = self.specifiers(record=False)
        if self.peek() == ";":              # struct X {...}; enum {...};
            self.take()
            return
        while True:
            dstart = self.i
            d = self.declarator()
            if is_typedef:
                info = {"integer": spec["integer"] and not d["pointer"] and not d["array"] and not d["func"],
                        "enum": spec["enum"] and not d["pointer"],
                        "fields": spec.get("fields") if not d["pointer"] and not d["array"] else None,
                        "complete": True}
                if spec["tag"] and not d["pointer"] and not d["array"]:
                    info["tag"] = spec["tag"]
                if spec.get("fields_of") and not d["pointer"] and not d["array"]:
                    info["fields"] = self.typedef(spec["fields_of"])["fields"]
                if spec["tag"] and spec["kind"] != "enum" and not d["pointer"] and not d["array"] \
                        and spec["tag"] not in self.d.tags and spec.get("fields") is None:
                    info["complete"] = False    # a typedef of an incomplete struct
                if d.get("isfunc"):
                    info["complete"] = False    # a function type: no size
                self.d.typedefs[d["name"]] = info
                self.d.order.append(("typedef", d["name"]))
            elif d.get("isfunc") and d["name"]:
                # the prototype's tokens, its name replaced by a placeholder
                toks = self.t[start:self.i]
                name_at = self.t.index(d["name"], dstart)
                toks = self.t[start:name_at] + ["@NAME@"] + self.t[name_at + 1:self.i]
                # only the specifiers once, then this declarator
                self.d.functions[d["name"]] = toks
                self.d.order.append(("function", d["name"]))
            else:
                raise SyntaxError("not a typedef or function declaration: %s" % " ".join(self.t[start:self.i + 1]))
            if self.peek() == ",":
                self.take()
                start = self.i      # later declarators: specifiers are not repeated
                raise SyntaxError("one function or typedef per declaration, please: %s" % " ".join(self.t[dstart:self.i]))
            break
        self.take(";")


def parse(lines, base=None):
    decls = Decls()
    code = []
    for line in lines:
        s = line.strip()
        if s.startswith("#"):
            m = re.match(r"#\s*define\s+([A-Za-z_][A-Za-z_0-9]*)(\(?)", s)
            if m and not m.group(2) and not re.search(r"_H$|_H_$", m.group(1)):
                decls.macros.append(m.group(1))
                decls.order.append(("macro", m.group(1)))
            m = re.match(r"#\s*undef\s+([A-Za-z_][A-Za-z_0-9]*)", s)
            if m and m.group(1) in decls.macros:
                decls.macros.remove(m.group(1))
            continue
        code.append(line)
    Parser(tokenize("\n".join(code)), decls, base).statements()
    return decls


# ---- the two programs --------------------------------------------------------------------------

def vendor_prelude(args, version):
    lines = ["#define _GNU_SOURCE", "#include <stddef.h>", "#include <stdio.h>", "#include <string.h>"]
    lines += ["#define %s" % d.replace("=", " ", 1) for d in args.define]
    lines += ["#include <%s>" % h for h in args.vendor_include]
    lines += ["#undef AXL_ABI_HEADER_VERSION", "#define AXL_ABI_HEADER_VERSION (%s)" % version]
    return lines


def header_version(args):
    if args.header_version:
        return args.header_version
    if not args.version_macro:
        return "999999999"
    src = "\n".join(vendor_prelude(args, "0")[:-2]) + "\nlong long axl_v = %s;\n" % args.version_macro
    out = run_c(args, src, "version", run=False, keep_asm=True)
    if out is None:
        sys.exit("cannot read %s from the vendor header" % args.version_macro)
    m = re.match(r"^\(*\s*([0-9]+)[uUlL]*\s*\)*$", out)
    if m:
        return m.group(1)
    # an expression (HIP_VERSION: major * 10000000 + ...) or an enumerator
    # (ZE_API_VERSION_CURRENT): its value, from a program that prints it
    src = "\n".join(vendor_prelude(args, "0")[:-2]) + \
        '\nint main(void) { printf("%%lld\\n", (long long)(%s)); return 0; }\n' % args.version_macro
    r = run_c(args, src, "version")
    if r[0] != "run" or r[2] != 0 or not re.match(r"^[0-9]+$", r[1].strip()):
        sys.exit("cannot read %s from the vendor header" % args.version_macro)
    return r[1].strip()


def run_c(args, src, what, run=True, keep_asm=False):
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, what + ".c")
        with open(c, "w") as f:
            f.write(src)
        if keep_asm:
            cmd = [args.cc, "-std=gnu11", "-E", "-P"] + ["-I" + d for d in args.include_dir] + [c]
            # evaluate the version macro with the preprocessor alone
            text = subprocess.run(cmd, capture_output=True, text=True)
            if text.returncode:
                return None
            m = re.search(r"axl_v\s*=\s*([^;]*);", text.stdout)
            return m.group(1).strip() if m else None
        exe = os.path.join(tmp, what)
        cmd = [args.cc, "-std=gnu11", "-w", "-o", exe, c] + ["-I" + d for d in args.include_dir]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return ("compile", r.stderr)
        if not run:
            return ("ok", "")
        r = subprocess.run([exe], capture_output=True, text=True)
        return ("run", r.stdout + r.stderr, r.returncode)


def renamed(decls):
    names = []
    for kind, name in decls.order:
        if kind == "tag":
            name = name.split()[1]
        if kind != "macro" and name not in names:
            names.append(name)
    return names


def layout_program(args, ours, decls, version, deps):
    src = vendor_prelude(args, version)
    ren = renamed(decls) + [n for n in renamed(deps) if n not in renamed(decls)]
    for n in ren:
        src += ['#pragma push_macro("%s")' % n, "#undef %s" % n, "#define %s ours_%s" % (n, n)]
    for m in decls.macros:
        src += ['#pragma push_macro("%s")' % m, "#undef %s" % m]
    src += ['#include "%s"' % os.path.abspath(ours)]
    for m in decls.macros:
        src += ["static const unsigned long long ours_macro_%s = (unsigned long long)(%s);" % (m, m),
                "#undef %s" % m, '#pragma pop_macro("%s")' % m]
    for n in ren:
        src += ["#undef %s" % n, '#pragma pop_macro("%s")' % n]
    src += [
        "static int fails, checks;",
        "#define EQ(what, a, b) do { unsigned long long x_ = (unsigned long long)(a), y_ = (unsigned long long)(b); "
        "checks++; if (x_ != y_) { fails++; printf(\"DIFF %s: ours %llu (0x%llx), the vendor's %llu (0x%llx)\\n\", "
        "what, x_, x_, y_, y_); } } while (0)",
        "#define SIGNED(t) ((t)-1 < (t)0)",
        "int main(void) {",
    ]
    items = {}

    def check(line, item):
        items[len(src) + 1] = item
        src.append(line)

    for m in decls.macros:
        check('EQ("macro %s", ours_macro_%s, %s);' % (m, m, m), "macro " + m)
    for e in decls.enumerators:
        check('EQ("constant %s", ours_%s, %s);' % (e, e, e), "constant " + e)

    def record(label, ot, vt, fields):
        check('EQ("sizeof(%s)", sizeof(%s), sizeof(%s));' % (label, ot, vt), label)
        check('EQ("_Alignof(%s)", _Alignof(%s), _Alignof(%s));' % (label, ot, vt), label)
        for f in fields:
            if f["bitfield"]:
                continue
            n = f["name"]
            check('EQ("offsetof(%s, %s)", offsetof(%s, %s), offsetof(%s, %s));' % (label, n, ot, n, vt, n),
                  "%s.%s" % (label, n))
            check('EQ("sizeof(%s.%s)", sizeof(((%s *)0)->%s), sizeof(((%s *)0)->%s));' % (label, n, ot, n, vt, n),
                  "%s.%s" % (label, n))
            if f["integer"] and not f["enum"]:
                sub = "[0]" if f["array"] else ""
                # an enum of the vendor's is ABI-equal to an int of ours
                check('if (__builtin_classify_type(((%s *)0)->%s%s) != 3) EQ("signedness of %s.%s", '
                      'SIGNED(__typeof__(((%s *)0)->%s%s)), SIGNED(__typeof__(((%s *)0)->%s%s)));'
                      % (vt, n, sub, label, n, ot, n, sub, vt, n, sub), "%s.%s" % (label, n))

    for name, info in decls.typedefs.items():
        if not info["complete"]:
            continue
        if info.get("fields") is not None:
            record(name, "ours_" + name, name, info["fields"])
        else:
            check('EQ("sizeof(%s)", sizeof(ours_%s), sizeof(%s));' % (name, name, name), "typedef " + name)
            check('EQ("_Alignof(%s)", _Alignof(ours_%s), _Alignof(%s));' % (name, name, name), "typedef " + name)
            if info["integer"] and not info["enum"]:
                check('if (__builtin_classify_type((%s)0) != 3) EQ("signedness of %s", SIGNED(ours_%s), SIGNED(%s));'
                      % (name, name, name, name), "typedef " + name)
    # a tag that one of our typedefs names is compared through the typedef: the vendor may
    # rename a tag between releases (CUDA 12's CUDA_MEM_ALLOC_NODE_PARAMS_v1_st), never the
    # type's name
    named = {info.get("tag") for info in decls.typedefs.values()}
    for tag, info in decls.tags.items():
        kind, name = tag.split()
        if kind == "enum" or tag in named:
            continue
        record(tag, "%s ours_%s" % (kind, name), tag, info["fields"])
    src += ['printf("%d layout and constant checks, %d differences\\n", checks, fails);',
            "return fails != 0;", "}"]
    return "\n".join(src) + "\n", items


def prototype_program(args, decls, version):
    src = vendor_prelude(args, version)
    items = {}
    for name, toks in decls.functions.items():
        text = " ".join("ours_fn_" + name if t == "@NAME@" else t for t in toks) + ";"
        items[len(src) + 1] = "function " + name
        src.append(text)
    src += ["static int fails, checks;", "int main(void) {"]
    for name in decls.functions:
        items[len(src) + 1] = "function " + name
        src.append('checks++; if (!__builtin_types_compatible_p(__typeof__(ours_fn_%s), __typeof__(%s))) '
                   '{ fails++; printf("DIFF prototype of %s differs from the vendor\'s\\n"); }' % (name, name, name))
    src += ['printf("%d prototypes checked, %d differences\\n", checks, fails);', "return fails != 0;", "}"]
    return "\n".join(src) + "\n", items


def compile_errors(stderr, items):
    """The items a failed compilation names, from its error lines."""
    named = []
    for line in stderr.splitlines():
        m = re.match(r".*\.c:(\d+):\d+: error: (.*)", line)
        if m:
            item = items.get(int(m.group(1)), "line %s" % m.group(1))
            named.append("%s: %s" % (item, m.group(2)))
    return named or stderr.splitlines()[-20:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--vendor-include", action="append", required=True)
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--include-dir", action="append", default=[])
    ap.add_argument("--version-macro")
    ap.add_argument("--header-version")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--package", default="", help="the Debian package that ships the header (for the skip note)")
    ap.add_argument("--own-prefix", action="append", default=[],
                    help="names of ours with this prefix are our own additions (a double's), not compared")
    ap.add_argument("--header-dir", help="the vendor header must come from this folder (a toolkit's "
                    "include/); skipped when it is not there")
    args = ap.parse_args()
    if args.header_dir:
        if not os.path.isfile(os.path.join(args.header_dir, args.vendor_include[0])):
            print("SKIP: no %s in %s" % (args.vendor_include[0], args.header_dir))
            return SKIP
        args.include_dir.insert(0, args.header_dir)

    probe = "\n".join(vendor_prelude(args, "0")) + "\nint main(void) { return 0; }\n"
    r = run_c(args, probe, "probe", run=False)
    if r[0] == "compile":
        print("SKIP: the vendor header <%s> is not installed%s" % (
            ", ".join(args.vendor_include), " (Debian: %s)" % args.package if args.package else ""))
        for line in r[1].splitlines()[:3]:
            print("  " + line)
        return SKIP

    version = header_version(args)
    deps = dependencies(args.cc, args.ours, args.include_dir, ["AXL_ABI_HEADER_VERSION=" + version])
    full = parse(preprocess(args.cc, args.ours, args.include_dir, []),
                 dependencies(args.cc, args.ours, args.include_dir, []))
    decls = parse(preprocess(args.cc, args.ours, args.include_dir, ["AXL_ABI_HEADER_VERSION=" + version]), deps)
    own = [name for kind, name in decls.order if any(name.split()[-1].startswith(p) for p in args.own_prefix)]
    for kind, name in list(decls.order):
        if name in own:
            decls.order.remove((kind, name))
            decls.functions.pop(name, None)
            decls.typedefs.pop(name, None)
            decls.tags.pop(name, None)
            if name in decls.enumerators:
                decls.enumerators.remove(name)
            if name in decls.macros:
                decls.macros.remove(name)
    newer = [name for kind, name in full.order if (kind, name) not in decls.order and name not in own]
    print("%s against <%s> (version %s): %d macros, %d constants, %d types, %d tags, %d functions"
          % (args.ours, ", ".join(args.vendor_include), version, len(decls.macros), len(decls.enumerators),
             len(decls.typedefs), len(decls.tags), len(decls.functions)))
    if own:
        print("our own, not the vendor's (%d): %s" % (len(own), ", ".join(own)))
    if newer:
        print("newer than this header, not compared here (%d): %s" % (len(newer), ", ".join(newer)))

    failures = 0
    total = 0
    for what, (src, items) in (("layouts", layout_program(args, args.ours, decls, version, deps)),
                               ("prototypes", prototype_program(args, decls, version))):
        r = run_c(args, src, what)
        if r[0] == "compile":
            failures += 1
            print("DIFF %s: the comparison does not compile beside the vendor's header:" % what)
            for line in compile_errors(r[1], items):
                print("  " + line)
            continue
        print(r[1].rstrip())
        m = re.search(r"(\d+) (?:layout and constant checks|prototypes checked), (\d+) differences", r[1])
        if m:
            total += int(m.group(1))
        if r[2] != 0:
            failures += 1
    print("%s: %d comparisons, %s" % (args.ours, total, "no difference" if not failures else "DIFFERENCES"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
