#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Self-test of schema/axl-inventory.schema.json.

usage: schema_selftest.py [SCHEMA.json]

Checks that the schema is a valid draft 2020-12 schema, that a hand-written valid
axl.inventory document (and a few valid variants) pass, and that hand-written invalid
variants fail. Prints one line per case and "N passed, N failed"; exits 1 when any case
fails, 77 when the jsonschema module is missing.
"""

import copy
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    sys.stderr.write("schema_selftest.py: install python3-jsonschema (apt-get install -y python3-jsonschema)\n")
    sys.exit(77)

import json

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "..", "schema", "axl-inventory.schema.json")

H100 = {
    "id": "nvidia:0",
    "index": 0,
    "uuid": "GPU-5d3c5a0e-7b1f-4c2e-9a51-0c8e2f6b7d10",
    "vendor": "NVIDIA",
    "vendor_id": "0x10de",
    "device_id": "0x2330",
    "subsystem_vendor_id": "0x10de",
    "subsystem_device_id": "0x16c1",
    "revision": "0xa1",
    "family": "gpu",
    "model": "NVIDIA H100 80GB HBM3",
    "architecture": "Hopper",
    "pci": {
        "address": "0000:19:00.0",
        "class": "0x0302",
        "link": {"current_gen": 5, "current_width": 16, "max_gen": 5, "max_width": 16},
    },
    "numa_node": 0,
    "local_cpulist": "0-31,64-95",
    "driver": {"name": "nvidia", "version": "535.161.08"},
    "device_nodes": ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"],
    "memory": {
        "total_bytes": 85899345920,
        "type": "HBM3",
        "bus_width_bits": 5120,
        "bandwidth_gbps": 3352.0,
        "l2_cache_bytes": 52428800,
    },
    "compute_units": [{"name": "SM", "count": 132}],
    "precision": [
        {"format": "FP64", "support": "native", "peak_tflops": 33.5},
        {"format": "TF32", "support": "native", "peak_tflops": 494.7},
        {"format": "BF16", "support": "native", "peak_tflops": 989.4},
        {"format": "FP8", "support": "native", "peak_tflops": 1978.9},
        {"format": "FP4", "support": "none"},
        {"format": "INT4", "support": "emulated"},
    ],
    "partitioning": [
        {
            "technology": "MIG",
            "max_partitions": 7,
            "mode": "disabled",
            "profiles": ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"],
        }
    ],
    "power": {"tdp_watts": 700},
    "firmware": {"vbios": "96.00.99.00.01", "version": "535.161.08"},
    "serial": "1654123456789",
    "state": "ok",
    "iommu_group": 42,
    "devicedb_key": "nvidia-h100-sxm5-80gb",
    "field_sources": {
        "vendor_id": "sysfs",
        "model": "procfs",
        "uuid": "procfs",
        "memory.total_bytes": "devicedb",
        "memory.bandwidth_gbps": "devicedb",
        "pci.link.current_gen": "sysfs",
        "driver.version": "sysfs",
        "vendor": "pci.ids",
        "device_nodes": "derived",
    },
    "sources": ["sysfs", "procfs", "devicedb", "pci.ids", "derived"],
}

CPU = {
    "id": "cpu:0",
    "index": 0,
    "vendor": "Intel",
    "family": "cpu",
    "model": "Intel(R) Xeon(R) Platinum 8480+",
    "numa_node": 0,
    "sources": ["procfs", "sysfs"],
}

VALID = {
    "schema": "axl.inventory",
    "schema_version": 2,
    "generator": {"name": "axl", "version": "0.1.0"},
    "host": {
        "hostname": "hgx-01",
        "kernel": "6.8.0-45-generic",
        "cpu": {
            "model": "Intel(R) Xeon(R) Platinum 8480+",
            "architecture": "x86_64",
            "sockets": 2,
            "cores": 112,
            "threads": 224,
            "isa": ["avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_int8"],
        },
        "memory": {"total_bytes": 2163759636480, "limit_bytes": 1099511627776},
        "numa_nodes": [
            {"id": 0, "cpulist": "0-55,112-167", "memory_bytes": 1081879818240, "distances": [10, 21]},
            {"id": 1, "cpulist": "56-111,168-223", "memory_bytes": 1081879818240, "distances": [21, 10]},
        ],
    },
    "devices": [H100, dict(H100, id="nvidia:1", index=1, pci=dict(H100["pci"], address="0000:3b:00.0"))],
    "links": [
        {"a": "nvidia:0", "b": "nvidia:1", "kind": "nvswitch", "bandwidth_gbps": 450, "link_count": 18,
         "pcie_switches": 2, "source": "derived"},
        {"a": "nvidia:0", "b": "numa:0", "kind": "host-bridge"},
    ],
    "switches": [
        {"kind": "nvswitch", "pci_address": "0000:83:00.0", "vendor_id": "0x10de", "device_id": "0x22a3",
         "generation": 3, "driver": "nvidia-nvswitch", "numa_node": 1, "source": "sysfs"},
    ],
    "nics": [
        {"name": "mlx5_0", "pci_address": "0000:1a:00.0", "numa_node": 0, "link_layer": "InfiniBand",
         "rate_gbps": 50, "state": "ACTIVE", "port_count": 1, "node_guid": "b8ce:f603:00a1:2b3c",
         "source": "sysfs"},
    ],
    "nic_links": [
        {"a": "nvidia:0", "b": "mlx5_0", "kind": "pcie-switch", "pcie_switches": 1, "source": "derived"},
    ],
    "warnings": [
        {"source": "pci", "path": "/sys/bus/pci/devices/0000:19:00.0/current_link_speed", "message": "not a number"},
        {"source": "host", "message": "no NUMA information"},
    ],
    "pci_functions": [
        {"address": "0000:19:00.0", "vendor_id": "0x10de", "device_id": "0x2330", "class": "0x0302",
         "driver": "nvidia", "accelerator": True, "reason": "class 0x0302 (3D controller)"},
        {"address": "0000:18:00.0", "vendor_id": "0x1000", "device_id": "0xc030", "class": "0x0604",
         "driver": "pcieport", "accelerator": False, "reason": "bridge"},
        {"address": "10000:e1:00.1", "vendor_id": "0x15b3", "device_id": "0x101b", "class": "0x0207",
         "accelerator": False},
    ],
}


def mutate(fn):
    doc = copy.deepcopy(VALID)
    fn(doc)
    return doc


def dev(doc, i=0):
    return doc["devices"][i]


def _del(d, k):
    del d[k]


def _set(d, k, v):
    d[k] = v


MINIMAL = {
    "schema": "axl.inventory",
    "schema_version": 2,
    "host": {},
    "devices": [{"id": "habana:0", "index": 0, "vendor_id": "0x1da3", "device_id": "0x1020",
                 "family": "asic", "sources": ["sysfs"]}],
    "links": [],
    "warnings": [],
}

MIG_CHILD = {
    "id": "nvidia:0/mig1.0",
    "uuid": "MIG-9dace9ce-1f7a-294c-ef69-25f4942b6d49",
    "family": "gpu",
    "model": "NVIDIA H100 80GB HBM3 MIG 1g.10gb",
    "memory": {"total_bytes": 10468982784},
    "partition": {"profile": "1g.10gb", "gpu_instance_id": 1, "compute_instance_id": 0},
    "sources": ["sim"],
}


def _child(d, **kw):
    c = copy.deepcopy(MIG_CHILD)
    for k, v in kw.items():
        if v is None:
            c.pop(k, None)
        else:
            c[k] = v
    dev(d)["children"] = [c]


VALID_CASES = [
    ("the full example", VALID),
    ("a minimal document", MINIMAL),
    ("empty lists, no devices", dict(MINIMAL, devices=[])),
    ("unknown values written as null", mutate(lambda d: (
        _set(dev(d), "numa_node", None), _set(dev(d), "uuid", None),
        _set(dev(d)["memory"], "total_bytes", None), _set(d["host"]["cpu"], "sockets", None)))),
    ("a key the contract does not name yet", mutate(lambda d: (
        _set(d, "x_future", {"a": 1}), _set(dev(d), "x_future", [1, 2])))),
    ("the host CPU as a device (--all), without PCI ids", mutate(lambda d: d["devices"].append(copy.deepcopy(CPU)))),
    ("a memory-only NUMA node (empty cpulist)", mutate(lambda d: d["host"]["numa_nodes"].append(
        {"id": 2, "cpulist": "", "memory_bytes": 85899345920, "distances": [40, 40, 10]}))),
    ("an 8-digit PCI domain", mutate(lambda d: _set(dev(d)["pci"], "address", "00010000:c1:00.7"))),
    ("a warning without a path", mutate(lambda d: _del(d["warnings"][0], "path"))),
    ("a precision row without peak_tflops", mutate(lambda d: _del(dev(d)["precision"][0], "peak_tflops"))),
    ("a PCI function whose ids could not be read", mutate(lambda d: d["pci_functions"].append(
        {"address": "0000:00:00.0", "accelerator": False, "reason": "unreadable"}))),
    ("a MIG device as a child, without a vendor index", mutate(lambda d: _child(d))),
    ("a MIG device whose profile is not known", mutate(lambda d: _child(d, partition={"gpu_instance_id": 1}))),
    ("an AMD partition as a child, with an index", mutate(lambda d: _child(d, id="amdgpu:0/xcp1", index=1,
                                                                            partition={"profile": "CPX"}))),
    ("per-row sources and rerooted", mutate(lambda d: (
        _set(d, "rerooted", True), _set(dev(d)["compute_units"][0], "source", "devicedb"),
        _set(dev(d)["precision"][0], "source", "devicedb"),
        _set(dev(d)["partitioning"][0], "source", "devicedb")))),
]

INVALID_CASES = [
    ("a child that does not say which partition it is", mutate(lambda d: _child(d, partition=None))),
    ("a child whose partition says nothing", mutate(lambda d: _child(d, partition={}))),
    ("a child without sources", mutate(lambda d: _child(d, sources=None))),
    ("a child id without its parent's", mutate(lambda d: _child(d, id="mig1.0"))),
    ("a child with children", mutate(lambda d: _child(d, children=[copy.deepcopy(MIG_CHILD)]))),
    ("family not in the enum", mutate(lambda d: _set(dev(d), "family", "gpgpu"))),
    ("vendor_id as an integer", mutate(lambda d: _set(dev(d), "vendor_id", 0x10DE))),
    ("vendor_id in upper case", mutate(lambda d: _set(dev(d), "vendor_id", "0x10DE"))),
    ("device_id without 0x", mutate(lambda d: _set(dev(d), "device_id", "2330"))),
    ("negative memory size", mutate(lambda d: _set(dev(d)["memory"], "total_bytes", -1))),
    ("memory size as a float", mutate(lambda d: _set(dev(d)["memory"], "total_bytes", 1.5))),
    ("missing device id", mutate(lambda d: _del(dev(d), "id"))),
    ("missing device sources", mutate(lambda d: _del(dev(d), "sources"))),
    ("null device_id on a GPU", mutate(lambda d: _set(dev(d), "device_id", None))),
    ("bad PCI address (no domain)", mutate(lambda d: _set(dev(d)["pci"], "address", "19:00.0"))),
    ("bad PCI address (function 8)", mutate(lambda d: _set(dev(d)["pci"], "address", "0000:19:00.8"))),
    ("bad PCI address (upper case)", mutate(lambda d: _set(dev(d)["pci"], "address", "0000:1A:00.0"))),
    ("schema_version 3", mutate(lambda d: _set(d, "schema_version", 3))),
    ("schema_version as a string", mutate(lambda d: _set(d, "schema_version", "2"))),
    ("schema_version as a boolean", mutate(lambda d: _set(d, "schema_version", True))),
    ("index as a boolean", mutate(lambda d: _set(dev(d), "index", False))),
    ("wrong schema name", mutate(lambda d: _set(d, "schema", "axl.metrics"))),
    ("missing warnings", mutate(lambda d: _del(d, "warnings"))),
    ("missing links", mutate(lambda d: _del(d, "links"))),
    ("precision format not in the enum", mutate(lambda d: _set(dev(d)["precision"][0], "format", "fp64"))),
    ("precision support not in the enum", mutate(lambda d: _set(dev(d)["precision"][0], "support", "yes"))),
    ("negative bandwidth", mutate(lambda d: _set(dev(d)["memory"], "bandwidth_gbps", -3.0))),
    ("negative link bandwidth", mutate(lambda d: _set(d["links"][0], "bandwidth_gbps", -1))),
    ("pci.class with the prog-if", mutate(lambda d: _set(dev(d)["pci"], "class", "0x030200"))),
    ("revision with four digits", mutate(lambda d: _set(dev(d), "revision", "0x00a1"))),
    ("unknown source name", mutate(lambda d: _set(dev(d), "sources", ["sysfs", "magic"]))),
    ("field_sources with an unknown source", mutate(lambda d: _set(dev(d)["field_sources"], "model", "guess"))),
    ("field_sources key that is not a dotted path", mutate(lambda d: _set(dev(d)["field_sources"], "Memory Total", "sysfs"))),
    ("empty string for an unknown value", mutate(lambda d: _set(dev(d), "model", ""))),
    ("0 sockets", mutate(lambda d: _set(d["host"]["cpu"], "sockets", 0))),
    ("isa not an array", mutate(lambda d: _set(d["host"]["cpu"], "isa", "avx2 avx512f"))),
    ("NUMA distances as strings", mutate(lambda d: _set(d["host"]["numa_nodes"][0], "distances", ["10", "21"]))),
    ("index negative", mutate(lambda d: _set(dev(d), "index", -1))),
    ("iommu_group as a string", mutate(lambda d: _set(dev(d), "iommu_group", "42"))),
    ("device node outside /dev", mutate(lambda d: _set(dev(d), "device_nodes", ["nvidia0"]))),
    ("partition profiles not strings", mutate(lambda d: _set(dev(d)["partitioning"][0], "profiles", [1, 2]))),
    ("link without kind", mutate(lambda d: _del(d["links"][0], "kind"))),
    ("warning without message", mutate(lambda d: _del(d["warnings"][0], "message"))),
    ("pci_functions accelerator as a string", mutate(lambda d: _set(d["pci_functions"][0], "accelerator", "yes"))),
    ("pci_functions class as an integer", mutate(lambda d: _set(d["pci_functions"][1], "class", 0x0604))),
    ("pci_functions without accelerator", mutate(lambda d: _del(d["pci_functions"][1], "accelerator"))),
    ("pci_functions without address", mutate(lambda d: _del(d["pci_functions"][1], "address"))),
    ("precision row with an unknown source", mutate(lambda d: _set(dev(d)["precision"][0], "source", "nvidia-smi"))),
    ("generator with another name", mutate(lambda d: _set(d["generator"], "name", "lstopo"))),
    ("devices not an array", mutate(lambda d: _set(d, "devices", {"nvidia:0": H100}))),
    ("tdp negative", mutate(lambda d: _set(dev(d)["power"], "tdp_watts", -700))),
    ("negative pcie_switches", mutate(lambda d: _set(d["links"][0], "pcie_switches", -1))),
    ("switch without pci_address", mutate(lambda d: _del(d["switches"][0], "pci_address"))),
    ("switch generation 0", mutate(lambda d: _set(d["switches"][0], "generation", 0))),
    ("nic without name", mutate(lambda d: _del(d["nics"][0], "name"))),
    ("nic rate 0 (unknown written as zero)", mutate(lambda d: _set(d["nics"][0], "rate_gbps", 0))),
    ("nic rate in bits (schema_version 1's rate_gbit)", mutate(lambda d: _set(d["nics"][0], "rate_gbit", 400))),
    ("inventory of schema_version 1", mutate(lambda d: _set(d, "schema_version", 1))),
    ("nic GUID in upper case", mutate(lambda d: _set(d["nics"][0], "node_guid", "B8CE:F603:00A1:2B3C"))),
    ("nic_links entry without kind", mutate(lambda d: _del(d["nic_links"][0], "kind"))),
]


def main(argv):
    schema_path = argv[1] if len(argv) > 1 else DEFAULT_SCHEMA
    with open(schema_path, "r", encoding="utf-8") as f:
        schema = json.load(f)

    passed = failed = 0
    try:
        Draft202012Validator.check_schema(schema)
        print("ok    the schema is a valid draft 2020-12 schema")
        passed += 1
    except Exception as e:  # SchemaError
        print("FAIL  the schema is not valid: %s" % e)
        print("0 passed, 1 failed")
        return 1

    validator = Draft202012Validator(schema)
    for name, doc in VALID_CASES:
        errors = list(validator.iter_errors(doc))
        if errors:
            failed += 1
            print("FAIL  valid: %s" % name)
            for e in errors:
                print("        %s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))
        else:
            passed += 1
            print("ok    valid: %s" % name)
    for name, doc in INVALID_CASES:
        errors = list(validator.iter_errors(doc))
        if errors:
            passed += 1
            print("ok    invalid: %s (%s)" % (name, errors[0].message[:70]))
        else:
            failed += 1
            print("FAIL  invalid document accepted: %s" % name)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
