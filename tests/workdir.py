# SPDX-License-Identifier: MIT
"""A test's work directory: the folder its --work option names, under the build directory.

CTest gives each test a folder of its own (tests/CMakeLists.txt: the case's name ends the
path), so that one test's files never meet another's. A test that passes, or is skipped
(77), has its folder removed when it ends; a test that fails keeps it, to be read. The
suite builds hundreds of sysfs trees (mktree.py: a node of eight GPUs is about 5,000
files); kept, they filled the disk of a CI machine (about 4 GiB per build directory).

AXL_KEEP_WORK=1 keeps every folder, for reading what a passing test made.
"""
import os
import shutil
import sys


def work_dir(argv=None):
    """The folder named by --work (or --work=) in argv, None where there is none."""
    argv = sys.argv if argv is None else argv
    for i, arg in enumerate(argv):
        if arg == "--work" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--work="):
            return arg[len("--work="):]
    return None


def finish(rc, argv=None):
    """rc, once the work folder of a test that passed or was skipped is gone."""
    path = work_dir(argv)
    if rc in (0, 77) and path and not os.environ.get("AXL_KEEP_WORK"):
        shutil.rmtree(path, ignore_errors=True)
    return rc


def run_fresh(work, fn, fail):
    """fn(work) in an empty folder work, for a script that takes its folder by position.
    0 ("ok") when fn returns: the folder removed as finish() removes it; 1 when fn raises
    fail: the message said and the folder kept."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        fn(work)
    except fail as e:
        print("FAIL: %s\n(the work directory %s is kept)" % (e, work))
        return 1
    if not os.environ.get("AXL_KEEP_WORK"):
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0
