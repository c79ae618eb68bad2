"""Build an SMBIOS structure table (what Linux shows as /sys/firmware/dmi/tables/DMI)
from a description, after DMTF DSP0134 3.3: types 0 (BIOS), 1 (system), 16 (physical
memory array), 17 (memory device, the 3.3 layout of 0x5C bytes) and 127 (end of table).

    {"bios": {"vendor": ..., "version": ..., "date": ...},
     "system": {"manufacturer": ..., "product": ..., "version": ..., "family": ...},
     "memory": [{"locator": "P0_DIMMA1", "bank": "P0_Node0_Channel0_Dimm0",
                 "size_mb": 131072 | 0 (an empty slot), "type": "DDR5", "speed": 4800,
                 "configured_speed": 4800, "data_width": 64, "total_width": 72,
                 "manufacturer": ..., "part": ..., "rank": 2,
                 "length": 0x5C (or an older version's: 0x1B for 2.3, 0x22 for 2.7)}, ...]}

Python 3 standard library only; used by mktree.py ("dmi" in a node spec) and to write
the fuzz corpus (tests/fuzz/corpus/smbios)."""
import struct

MEMORY_TYPES = {"unknown": 0x02, "DDR3": 0x18, "DDR4": 0x1A, "LPDDR4": 0x1E, "LPDDR5": 0x23, "DDR5": 0x22,
                "HBM2": 0x20, "HBM3": 0x24}


class Strings:
    """A structure's string set: 1-based indexes, 0 for "no string"."""

    def __init__(self):
        self.items = []

    def add(self, s):
        if not s:
            return 0
        self.items.append(s.encode("ascii"))
        return len(self.items)

    def pack(self):
        if not self.items:
            return b"\0\0"
        return b"".join(x + b"\0" for x in self.items) + b"\0"


def structure(stype, handle, body, strings):
    """Header (type, length of the formatted part, handle) + body + strings."""
    return struct.pack("<BBH", stype, 4 + len(body), handle) + body + strings.pack()


def bios(b, handle):
    st = Strings()
    vendor, version, date = st.add(b.get("vendor")), st.add(b.get("version")), st.add(b.get("date"))
    # start segment, ROM size (64K units - 1), characteristics (PCI, upgradeable, boot from CD,
    # selectable boot), extension bytes (ACPI, USB legacy; BIOS boot spec, UEFI), releases
    body = struct.pack("<BBHBBQBBBBBB", vendor, version, 0xF000, date, 0xFF, 0x0000000000010880 | 0x8,
                       0x03, 0x0D, b.get("major", 5), b.get("minor", 32), 0xFF, 0xFF)
    return structure(0, handle, body, st)


def system(s, handle):
    st = Strings()
    m, p, v, ser = st.add(s.get("manufacturer")), st.add(s.get("product")), st.add(s.get("version")), st.add(
        s.get("serial"))
    uuid = bytes(range(16))
    sku, fam = st.add(s.get("sku")), st.add(s.get("family"))
    body = struct.pack("<BBBB16sBBB", m, p, v, ser, uuid, 0x06, sku, fam)  # wake-up: power switch
    return structure(1, handle, body, st)


def memory_array(count, max_kb, handle):
    # location: system board; use: system memory; ECC: multi-bit; max capacity in KiB
    # (0x80000000: see the extended field); no error information (0xFFFE)
    body = struct.pack("<BBBIHHQ", 0x03, 0x03, 0x06, 0x80000000, 0xFFFE, count, max_kb * 1024)
    return structure(16, handle, body, Strings())


def memory_device(d, handle, array):
    st = Strings()
    size_mb = d.get("size_mb", 0)
    populated = size_mb > 0
    loc = st.add(d.get("locator"))
    bank = st.add(d.get("bank"))
    maker = st.add(d.get("manufacturer", "Samsung" if populated else "NO DIMM"))
    serial = st.add(d.get("serial", "%08X" % (0x80AD0000 + handle) if populated else "NO DIMM"))
    asset = st.add(d.get("asset", " "))
    part = st.add(d.get("part", "M321RAGA0B20-CWK" if populated else "NO DIMM"))
    if size_mb >= 0x7FFF:
        size, ext = 0x7FFF, size_mb
    else:
        size, ext = size_mb, 0
    width = d.get("data_width", 64) if populated else 0xFFFF
    total = d.get("total_width", 72) if populated else 0xFFFF
    mtype = MEMORY_TYPES[d.get("type", "DDR5") if populated else "unknown"]
    detail = 0x2080 if populated else 0x0004  # synchronous + registered; else "unknown"
    speed = d.get("speed", 0) if populated else 0
    cspeed = d.get("configured_speed", speed) if populated else 0
    volts = 1100 if mtype == 0x22 else 1200 if populated else 0
    body = struct.pack(
        "<HHHHHBBBBBHHBBBBBIHHHHBHBHHHHQQQQII",
        array, 0xFFFE, total, width, size, 0x09, 0, loc, bank, mtype, detail, speed if speed < 0xFFFF else 0xFFFF,
        maker, serial, asset, part, d.get("rank", 2) if populated else 0, ext,
        cspeed if cspeed < 0xFFFF else 0xFFFF, volts, volts, volts,
        0x03 if populated else 0x02, 0x0008 if populated else 0x0002, 0, 0, 0, 0, 0,
        0, size_mb << 20 if populated else 0, 0, size_mb << 20 if populated else 0,
        speed if speed >= 0xFFFF else 0, cspeed if cspeed >= 0xFFFF else 0)
    assert len(body) + 4 == 0x5C
    # an older table's shorter structure: 0x15 (2.1), 0x1B (2.3), 0x22 (2.7), 0x28 (2.8)
    length = d.get("length", 0x5C)
    return structure(17, handle, body[:length - 4], st)


def table(desc):
    out = bytearray()
    out += bios(desc.get("bios", {}), 0x0000)
    out += system(desc.get("system", {}), 0x0001)
    mem = desc.get("memory", [])
    out += memory_array(len(mem), sum(d.get("size_mb", 0) for d in mem) * 1024 * 2, 0x1000)
    for i, d in enumerate(mem):
        out += memory_device(d, 0x1100 + i, 0x1000)
    out += structure(127, 0xFEFF, b"", Strings())
    return bytes(out)


def bandwidth(desc):
    """What a reader must find: speed (MT/s) x data width (bytes) over populated devices,
    the configured speed where the structure is long enough to hold it (2.7, 0x22)."""
    total = 0
    for d in desc.get("memory", []):
        if d.get("size_mb", 0) <= 0:
            continue
        speed = d.get("speed", 0)
        if d.get("length", 0x5C) >= 0x22 and d.get("configured_speed", speed):
            speed = d.get("configured_speed", speed)
        total += speed * 10**6 * d.get("data_width", 64) // 8
    return total
