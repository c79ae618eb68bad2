# SPDX-License-Identifier: MIT
"""The build backend of the `axl` Python package (PEP 517, in-tree: pyproject.toml's
`backend-path`), standard library only.

The package is pure Python (ctypes over libaxl): building it is copying files into a zip
with the metadata pip needs. setuptools before 70.1 needs the separate `wheel` module for
that; a python3 without it (a pyenv or python.org build, or a virtual environment made
from one) failed `pip install --no-build-isolation` with "invalid command
'bdist_wheel'". This backend needs neither setuptools nor wheel: only the Python that
runs pip (3.11 or later, for tomllib) and pip itself (20 or later, for backend-path).

It reads the project table of pyproject.toml: name, version, description, readme,
requires-python, license, classifiers, the entry points, and the package data globs of
[tool.setuptools.package-data] (the file format stays what setuptools reads, so either
can build it). It builds wheels (`py3-none-any`), editable wheels (a .pth file naming
this directory) and source archives.
"""
from __future__ import annotations

import base64
import fnmatch
import hashlib
import io
import os
import sys
import tarfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    raise ImportError("the axl package needs Python 3.11 or later (tomllib); this is Python %d.%d (%s)"
                      % (sys.version_info[0], sys.version_info[1], sys.executable)) from None

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
TAG = "py3-none-any"


class BuildError(Exception):
    """What is wrong, said plainly (pip prints it)."""


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise BuildError("axl_build: cannot read %s: %s" % (path, e)) from None
    proj = doc.get("project")
    if not isinstance(proj, dict) or not proj.get("name") or not proj.get("version"):
        raise BuildError("axl_build: %s has no [project] name and version" % path)
    data = doc.get("tool", {}).get("setuptools", {}).get("package-data", {})
    return proj, data


def _dist(proj):
    return "%s-%s" % (proj["name"].replace("-", "_"), proj["version"])


def _metadata(proj):
    lines = ["Metadata-Version: 2.1", "Name: %s" % proj["name"], "Version: %s" % proj["version"]]
    if proj.get("description"):
        lines.append("Summary: %s" % proj["description"])
    if proj.get("requires-python"):
        lines.append("Requires-Python: %s" % proj["requires-python"])
    lic = proj.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        lines.append("License: %s" % lic["text"])
    for c in proj.get("classifiers", []):
        lines.append("Classifier: %s" % c)
    body = ""
    readme = proj.get("readme")
    if isinstance(readme, str) and os.path.isfile(os.path.join(HERE, readme)):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(HERE, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _entry_points(proj):
    out = []
    for group, eps in sorted(proj.get("entry-points", {}).items()):
        out.append("[%s]" % group)
        out.extend("%s = %s" % (k, v) for k, v in eps.items())
        out.append("")
    for key, group in (("scripts", "console_scripts"), ("gui-scripts", "gui_scripts")):
        if proj.get(key):
            out.append("[%s]" % group)
            out.extend("%s = %s" % (k, v) for k, v in proj[key].items())
            out.append("")
    return "\n".join(out)


def _package_files(data):
    """(path in the wheel, path on disk) of every package file: the .py files of each
    package under python/ (a directory with __init__.py), and the data globs."""
    files = []
    for top in sorted(os.listdir(HERE)):
        root = os.path.join(HERE, top)
        if not os.path.isfile(os.path.join(root, "__init__.py")):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and
                                 os.path.isfile(os.path.join(dirpath, d, "__init__.py")))
            pkg = os.path.relpath(dirpath, HERE).replace(os.sep, ".")
            globs = data.get(pkg, []) + data.get("*", [])
            for name in sorted(filenames):
                if name.endswith(".py") or any(fnmatch.fnmatch(name, g) for g in globs):
                    disk = os.path.join(dirpath, name)
                    files.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    if not files:
        raise BuildError("axl_build: no package (a directory with __init__.py) under %s" % HERE)
    return files


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data: bytes):
        info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def close(self, distinfo):
        self.record.append("%s/RECORD,," % distinfo)
        info = zipfile.ZipInfo("%s/RECORD" % distinfo, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _write_distinfo(add, proj, distinfo):
    add("%s/METADATA" % distinfo, _metadata(proj).encode())
    add("%s/WHEEL" % distinfo, ("Wheel-Version: 1.0\nGenerator: axl_build\nRoot-Is-Purelib: true\nTag: %s\n"
                                % TAG).encode())
    eps = _entry_points(proj)
    if eps:
        add("%s/entry_points.txt" % distinfo, eps.encode())


def _build(wheel_directory, editable):
    proj, data = _project()
    dist = _dist(proj)
    name = "%s-%s.whl" % (dist, TAG)
    path = os.path.join(wheel_directory, name)
    w = _Wheel(path)
    try:
        if editable:
            # the checkout's python/ on sys.path: changes show without reinstalling
            w.add("%s.pth" % dist, (HERE + "\n").encode())
        else:
            for arc, disk in _package_files(data):
                with open(disk, "rb") as f:
                    w.add(arc, f.read())
        _write_distinfo(w.add, proj, "%s.dist-info" % dist)
    except BaseException:
        w.zip.close()
        os.unlink(path)
        raise
    w.close("%s.dist-info" % dist)
    return name


# ---- PEP 517 / PEP 660 hooks ----------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    proj, _ = _project()
    distinfo = "%s.dist-info" % _dist(proj)
    root = os.path.join(metadata_directory, distinfo)
    os.makedirs(root, exist_ok=True)

    def add(arcname, data):
        with open(os.path.join(metadata_directory, arcname), "wb") as f:
            f.write(data)
    _write_distinfo(add, proj, distinfo)
    return distinfo


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    proj, data = _project()
    dist = _dist(proj)
    name = "%s.tar.gz" % dist
    members = [("pyproject.toml", os.path.join(HERE, "pyproject.toml"))]
    if isinstance(proj.get("readme"), str):
        members.append((proj["readme"], os.path.join(HERE, proj["readme"])))
    members.append(("build_backend/axl_build.py", os.path.abspath(__file__)))
    members += _package_files(data)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arc, disk in members:
            if os.path.isfile(disk):
                tar.add(disk, arcname="%s/%s" % (dist, arc), recursive=False)
        pkginfo = _metadata(proj).encode()
        info = tarfile.TarInfo("%s/PKG-INFO" % dist)
        info.size = len(pkginfo)
        tar.addfile(info, io.BytesIO(pkginfo))
    return name
