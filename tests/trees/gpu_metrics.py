"""amdgpu gpu_metrics blobs (the binary sysfs attribute) for the synthetic trees.

Layouts of struct gpu_metrics_v1_0 .. v1_5 as drivers/gpu/drm/amd/include/kgd_pp_interface.h
declares them (plain C structs, natural alignment on LP64: ctypes gives the same padding).
Units: temperatures in degrees C, power in W, activity in %, clocks in MHz; v1.4/v1.5
energy_accumulator counts 2^-16 J (15.259 uJ); 0xFFFF / 0xFFFFFFFF... means "not supported".
Spec: {"rev": "1.5", <field>: value, ...}; fields not given are 0xFF.. (not supported).
"""
import ctypes

u8, u16, u32, u64 = ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64
HDR = [("structure_size", u16), ("format_revision", u8), ("content_revision", u8)]
TEMPS6 = [("temperature_edge", u16), ("temperature_hotspot", u16), ("temperature_mem", u16),
          ("temperature_vrgfx", u16), ("temperature_vrsoc", u16), ("temperature_vrmem", u16)]
ACT3 = [("average_gfx_activity", u16), ("average_umc_activity", u16), ("average_mm_activity", u16)]
AVGCLK = [("average_gfxclk_frequency", u16), ("average_socclk_frequency", u16),
          ("average_uclk_frequency", u16), ("average_vclk0_frequency", u16),
          ("average_dclk0_frequency", u16), ("average_vclk1_frequency", u16),
          ("average_dclk1_frequency", u16)]
CURCLK = [("current_gfxclk", u16), ("current_socclk", u16), ("current_uclk", u16),
          ("current_vclk0", u16), ("current_dclk0", u16), ("current_vclk1", u16),
          ("current_dclk1", u16)]

V1_0 = HDR + [("system_clock_counter", u64)] + TEMPS6 + ACT3 + [
    ("average_socket_power", u16), ("energy_accumulator", u32)] + AVGCLK + CURCLK + [
    ("throttle_status", u32), ("current_fan_speed", u16), ("pcie_link_width", u8),
    ("pcie_link_speed", u8)]
V1_1 = HDR + TEMPS6 + ACT3 + [("average_socket_power", u16), ("energy_accumulator", u64),
                              ("system_clock_counter", u64)] + AVGCLK + CURCLK + [
    ("throttle_status", u32), ("current_fan_speed", u16), ("pcie_link_width", u16),
    ("pcie_link_speed", u16), ("padding", u16), ("gfx_activity_acc", u32),
    ("mem_activity_acc", u32), ("temperature_hbm", u16 * 4)]
V1_2 = V1_1 + [("firmware_timestamp", u64)]
V1_3 = V1_2 + [("voltage_soc", u16), ("voltage_gfx", u16), ("voltage_mem", u16),
               ("padding1", u16), ("indep_throttle_status", u64)]


def _v14(v15):
    f = HDR + [("temperature_hotspot", u16), ("temperature_mem", u16), ("temperature_vrsoc", u16),
               ("curr_socket_power", u16), ("average_gfx_activity", u16),
               ("average_umc_activity", u16), ("vcn_activity", u16 * 4)]
    if v15:
        f += [("jpeg_activity", u16 * 32)]
    f += [("energy_accumulator", u64), ("system_clock_counter", u64), ("throttle_status", u32),
          ("gfxclk_lock_status", u32), ("pcie_link_width", u16), ("pcie_link_speed", u16),
          ("xgmi_link_width", u16), ("xgmi_link_speed", u16), ("gfx_activity_acc", u32),
          ("mem_activity_acc", u32), ("pcie_bandwidth_acc", u64), ("pcie_bandwidth_inst", u64),
          ("pcie_l0_to_recov_count_acc", u64), ("pcie_replay_count_acc", u64),
          ("pcie_replay_rover_count_acc", u64)]
    if v15:
        f += [("pcie_nak_sent_count_acc", u32), ("pcie_nak_rcvd_count_acc", u32)]
    f += [("xgmi_read_data_acc", u64 * 8), ("xgmi_write_data_acc", u64 * 8),
          ("firmware_timestamp", u64), ("current_gfxclk", u16 * 8), ("current_socclk", u16 * 4),
          ("current_vclk0", u16 * 4), ("current_dclk0", u16 * 4), ("current_uclk", u16),
          ("padding", u16)]
    return f


LAYOUTS = {"1.0": V1_0, "1.1": V1_1, "1.2": V1_2, "1.3": V1_3, "1.4": _v14(False), "1.5": _v14(True)}


def struct_of(rev):
    return type("gpu_metrics_v" + rev.replace(".", "_"), (ctypes.Structure,), {"_fields_": LAYOUTS[rev]})


def pack(spec):
    rev = spec.get("rev", "1.3")
    cls = struct_of(rev)
    s = cls()
    ctypes.memset(ctypes.addressof(s), 0xFF, ctypes.sizeof(s))
    s.structure_size = ctypes.sizeof(s)
    s.format_revision, s.content_revision = (int(x) for x in rev.split("."))
    for k, v in spec.items():
        if k == "rev":
            continue
        if k in ("padding", "padding1"):
            continue
        cur = getattr(s, k)
        if isinstance(cur, ctypes.Array):
            vals = v if isinstance(v, list) else [v] * len(cur)
            for i, x in enumerate(vals):
                cur[i] = x
        else:
            setattr(s, k, v)
    for k in ("padding", "padding1"):
        if hasattr(s, k):
            setattr(s, k, 0) if not isinstance(getattr(s, k), ctypes.Array) else None
    return bytes(s)


if __name__ == "__main__":
    for rev in LAYOUTS:
        cls = struct_of(rev)
        print(rev, ctypes.sizeof(cls), {n: getattr(cls, n).offset for n, _ in cls._fields_
                                       if n in ("temperature_edge", "temperature_hotspot", "temperature_mem",
                                                "average_gfx_activity", "average_umc_activity",
                                                "average_socket_power", "curr_socket_power",
                                                "energy_accumulator", "current_gfxclk", "current_uclk",
                                                "indep_throttle_status", "pcie_bandwidth_inst",
                                                "throttle_status")})
