#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The planner (issue 6, docs/plan.md) through `axl plan`: the axl.plan and axl.models
documents against their schemas, the numbers against an independent recomputation, fit
and alternatives, splits over fabric domains, mixed devices and nodes, model files
(config.json, safetensors, GGUF), bad input and the catalog listing.

usage: check_plan.py --axl PATH/axl --work DIR --case CASE
       check_plan.py --list

Simulated nodes (tests/sim/*.json, through --sim) and recorded inventories
(tests/replay/golden/*.json, through --node) stand in for hardware.
"""

import argparse
import glob
import json
import re
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SIM = os.path.join(SRC, "tests", "sim")
GOLDEN = os.path.join(SRC, "tests", "replay", "golden")
SCHEMA = os.path.join(SRC, "schema", "axl-plan.schema.json")
MODELS_SCHEMA = os.path.join(SRC, "schema", "axl-models.schema.json")
H100X8 = os.path.join(SIM, "h100x8-nvswitch.json")
MIXED = os.path.join(SIM, "mixed.json")
MI300X8 = os.path.join(SIM, "mi300x8.json")
LAPTOP = os.path.join(GOLDEN, "laptop-npu-2gpu.json")

CASES = ["schema", "physics", "fit", "split", "files", "errors", "list", "instruct", "node_version", "objective",
         "cost", "cpu", "tpu_ici", "gaudi_roce", "nofit", "network", "empty_node", "cost_alternatives", "calibrated"]
H100X2 = os.path.join(SIM, "h100x2.json")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: %s" % what)
    return cond


def run(axl, args, sim=None):
    cmd = [axl] + (["--sim", sim] if sim else []) + list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def plan(axl, model, *args, sim=None):
    rc, out, err = run(axl, ["plan", model, "--json"] + list(args), sim=sim)
    if not check(rc == 0, "plan %s %s (sim %s): rc %d: %s" % (model, " ".join(args), sim, rc, err.strip())):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        check(False, "plan %s %s: not JSON: %s" % (model, " ".join(args), e))
        return None


def catalog(axl):
    rc, out, err = run(axl, ["plan", "--list", "--json"])
    if rc != 0:
        raise SystemExit("axl plan --list --json: rc %d: %s" % (rc, err))
    return json.loads(out)["models"]


_validator = {}


def validator(path):
    if path not in _validator:
        try:
            from jsonschema import Draft202012Validator
        except ImportError:
            _validator[path] = None
        else:
            with open(path) as f:
                s = json.load(f)
            Draft202012Validator.check_schema(s)
            _validator[path] = Draft202012Validator(s)
    return _validator[path]


def validate(doc, path, what):
    v = validator(path)
    if v is None:
        return True
    errs = ["%s: %s" % ("/".join(str(x) for x in e.absolute_path), e.message) for e in v.iter_errors(doc)]
    return check(not errs, "%s: schema: %s" % (what, "; ".join(errs[:3])))


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def invariants(d, what):
    """The rules every plan keeps (see the plan.schema case)."""
    if not validate(d, SCHEMA, what):
        return
    if d["fits"]:
        check(d["shortfall_bytes"] == 0, "%s: fits with shortfall %d" % (what, d["shortfall_bytes"]))
        check(d["plan"] is not None, "%s: fits without a plan" % what)
    else:
        check(d["shortfall_bytes"] > 0, "%s: does not fit but shortfall 0" % what)
        # no split and no speed presented as a plan; how far short instead
        check(d["plan"] is None and d["estimate"] is None, "%s: does not fit but has a plan or an estimate" % what)
        sf = d.get("shortfall") or {}
        check(sf.get("needed_bytes", 0) > sf.get("available_bytes", -1) >= 0 and sf.get("devices", 0) >= 1,
              "%s: shortfall %s" % (what, sf))
        for a in d["alternatives"]:
            check(a["fits"] and a["kind"] != "split", "%s: an alternative that does not fit: %s" % (what, a))
    for a in d["alternatives"]:
        st = a["strategy"]
        check(a["devices"] == st["tp"] * st["pp"] * st["dp"], "%s: alternative's devices %d for %s" % (what, a["devices"], st))
        m = re.match(r"(\d+) more .*: (\d+) devices? in all$", a.get("note", ""))
        if a["kind"] == "devices":
            check(m is not None and int(m.group(2)) == a["devices"], "%s: devices alternative %s" % (what, a))
    p = d["plan"]
    if p is not None:
        st = p["strategy"]
        check(len(p["shards"]) == st["tp"] * st["pp"] * st["dp"],
              "%s: %d shards for %s" % (what, len(p["shards"]), st))
        if d["fits"]:
            for s in p["shards"]:
                check(s["memory_bytes"] <= s["capacity_bytes"],
                      "%s: fits but %s needs %d of %d" % (what, s["device"], s["memory_bytes"], s["capacity_bytes"]))
        L = d["model"]["layers"]
        reps = {}
        for s in p["shards"]:
            reps.setdefault(s["replica"], {}).setdefault(s["stage"], set()).add(tuple(s["layers"]))
        for r, stages in reps.items():
            nxt = 0
            for k in sorted(stages):
                ranges = stages[k]
                check(len(ranges) == 1, "%s: replica %d stage %d: ranks disagree on layers %s" % (what, r, k, ranges))
                a, b = sorted(ranges)[0]
                check(a == nxt and b >= a, "%s: replica %d stage %d: layers %d-%d after %d" % (what, r, k, a, b, nxt - 1))
                nxt = b + 1
            if L is not None:
                check(nxt == L, "%s: replica %d covers layers 0-%d of %d" % (what, r, nxt - 1, L))
    e = d["estimate"]
    if e is not None:
        for k in ("decode", "prefill"):
            est, roof = e.get(k + "_tokens_per_s"), e.get(k + "_roofline_tokens_per_s")
            if num(est) and num(roof):
                # "never above physics": an estimate at or below its roofline (the output rounds to 0.01)
                check(est <= roof + 0.01, "%s: %s %.2f above its roofline %.2f" % (what, k, est, roof))
    for a in d["alternatives"]:
        check(a["strategy"]["tp"] >= 1 and a["strategy"]["pp"] >= 1, "%s: alternative %s" % (what, a))


# ---- cases -----------------------------------------------------------------------------

def case_schema(axl, work):
    models = catalog(axl)
    names = [m["alias"] or m["id"] for m in models]
    n = 0
    # every catalog model on every simulated node
    for si, sim in enumerate(sorted(glob.glob(os.path.join(SIM, "*.json")))):
        every = os.path.basename(sim) == "h100x8-nvswitch.json"
        for i, name in enumerate(names):
            if not every and i % 3 != si % 3 and name not in ("llama3.1-8b", "deepseek-v3"):
                continue
            d = plan(axl, name, sim=sim)
            if d:
                invariants(d, "%s on %s" % (name, os.path.basename(sim)))
                n += 1
    # a few models on every recorded inventory (a mix of sizes and kinds)
    few = ["llama3.2-1b", "llama3.1-8b", "qwen3-30b-a3b", "gemma2-9b", "llama3.1-70b", "deepseek-v2-lite"]
    for g in sorted(glob.glob(os.path.join(GOLDEN, "*.json"))):
        for name in few:
            rc, out, err = run(axl, ["plan", name, "--json", "--node", g])
            if rc == 1 and ("no accelerators" in err or "no device whose memory is known" in err):
                continue  # an inventory with nothing to plan on (CPU-only, memory unknown)
            if not check(rc == 0, "%s on %s: rc %d: %s" % (name, os.path.basename(g), rc, err.strip())):
                continue
            invariants(json.loads(out), "%s on %s" % (name, os.path.basename(g)))
            n += 1
    print("%d plans checked" % n)
    check(n > len(names) + 50, "only %d plans checked" % n)
    return 0


def find(models, alias):
    for m in models:
        if m["alias"] == alias:
            return m
    raise SystemExit("no %s in the catalog" % alias)


def case_physics(axl, work):
    models = catalog(axl)
    m8 = find(models, "llama3.1-8b")
    d = plan(axl, "llama3.1-8b", "--quant", "bf16", "--devices", "nvidia:0", sim=H100X8)
    if d:
        invariants(d, "8b on one H100")
        w = d["memory"]["weights_bytes"]
        check(abs(w - 2 * m8["params"]) <= 0.01 * 2 * m8["params"],
              "8b bf16 weights %d vs 2 x %d params" % (w, m8["params"]))
        check(d["memory"]["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 2,
              "8b KV per token %d != 131072" % d["memory"]["kv_bytes_per_token"])
        check(d["memory"]["kv_cache_bytes"] == 131072 * d["request"]["context_tokens"],
              "8b KV cache %d != 131072 x %d" % (d["memory"]["kv_cache_bytes"], d["request"]["context_tokens"]))
        check(d["plan"]["strategy"] == {"tp": 1, "pp": 1, "dp": 1, "ep": 1}, "8b on one H100: %s" % d["plan"]["strategy"])
        bound = 3350e9 / w  # reading the weights once per token at the H100's HBM3 bandwidth
        e = d["estimate"]
        check(e["decode_roofline_tokens_per_s"] <= bound * 1.0001,
              "8b decode roofline %.1f above %.1f = 3350 GB/s / weights" % (e["decode_roofline_tokens_per_s"], bound))
        check(e["decode_tokens_per_s"] >= 0.5 * bound,
              "8b decode %.1f below half of %.1f" % (e["decode_tokens_per_s"], bound))
        check(e["decode_roofline_tokens_per_s"] >= 0.9 * bound,
              "8b decode roofline %.1f far below %.1f (KV at 8k is ~6%% of the bytes)" % (e["decode_roofline_tokens_per_s"], bound))
        check(e["bound"] == "memory-bandwidth", "8b batch 1 bound %s" % e["bound"])
        check(d["estimate"]["prefill_tokens_per_s"] > 10 * e["decode_tokens_per_s"], "8b prefill %s" % e)
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", "--objective", "throughput", sim=H100X8)
    if d:
        invariants(d, "70b on 8 H100")
        w = d["memory"]["weights_bytes"]
        st = d["plan"]["strategy"]
        check(st["tp"] == 8, "70b on 8 H100 (throughput): %s" % st)
        bound = 8 * 3350e9 / w
        check(d["estimate"]["decode_roofline_tokens_per_s"] <= bound * 1.0001,
              "70b tp 8 decode roofline %.1f above %.1f" % (d["estimate"]["decode_roofline_tokens_per_s"], bound))
        m70 = find(models, "llama3.1-70b")
        check(abs(w - 2 * m70["params"]) <= 0.01 * 2 * m70["params"], "70b bf16 weights %d" % w)
    # int4: 4 bits + an fp16 scale and a 4-bit zero per 128 = 4.15625 bits; embedding and head at 16
    d = plan(axl, "llama3.1-8b", "--quant", "int4", "--devices", "nvidia:0", sim=H100X8)
    if d:
        emb = 128256 * 4096  # vocab x hidden, the embedding and the (untied) head
        body = m8["params"] - 2 * emb
        want = body * 4.15625 / 8 + 2 * emb * 2
        w = d["memory"]["weights_bytes"]
        check(abs(w - want) <= 0.01 * want, "8b int4 weights %d vs %.0f" % (w, want))
    # KV dtype halves the cache
    d = plan(axl, "llama3.1-8b", "--kv-dtype", "fp8", "--devices", "nvidia:0", sim=H100X8)
    if d:
        check(d["memory"]["kv_bytes_per_token"] == 65536, "8b fp8 KV per token %d" % d["memory"]["kv_bytes_per_token"])
    # MLA: one latent (kv_lora_rank 512) and the rope key (64) per layer, 61 layers
    d = plan(axl, "deepseek-v3", "--quant", "fp8", sim=H100X8)
    if d:
        invariants(d, "deepseek-v3")
        check(d["memory"]["kv_bytes_per_token"] == 61 * (512 + 64) * 2,
              "deepseek-v3 KV per token %d != 70272" % d["memory"]["kv_bytes_per_token"])
    # sliding window: mistral-7b-v0.1 (window 4096, every layer) at 32768 tokens
    full = 2 * 32 * 8 * 128 * 2
    d = plan(axl, "mistral-7b-v0.1", "--ctx", "32768", "--devices", "nvidia:0", sim=H100X8)
    if d:
        kv = d["memory"]["kv_cache_bytes"]
        check(kv < full * 32768, "mistral-7b-v0.1 KV %d not below the full %d" % (kv, full * 32768))
        check(kv == full * 4096, "mistral-7b-v0.1 KV %d != the window's %d" % (kv, full * 4096))
    d2 = plan(axl, "mistral-7b-v0.1", "--ctx", "2048", "--devices", "nvidia:0", sim=H100X8)
    if d2:
        check(d2["memory"]["kv_cache_bytes"] == full * 2048, "mistral-7b-v0.1 KV at 2048 %d" % d2["memory"]["kv_cache_bytes"])
    # gemma-2 (every other layer sliding at 4096): between half and all of the full cache
    d = plan(axl, "gemma2-9b", "--ctx", "8192", "--devices", "nvidia:0", sim=H100X8)
    if d:
        g = find(models, "gemma2-9b")
        full_g = 2 * g["layers"] * g["kv_heads"] * 256 * 2 * 8192
        kv = d["memory"]["kv_cache_bytes"]
        check(kv < full_g, "gemma2-9b KV %d not below the full %d" % (kv, full_g))
        check(abs(kv - full_g * 0.75) <= 0.01 * full_g, "gemma2-9b KV %d != 3/4 of %d" % (kv, full_g))
    # batch scales the KV cache and the aggregate decode rate stays under the roofline
    d = plan(axl, "llama3.1-8b", "--batch", "16", "--devices", "nvidia:0", sim=H100X8)
    if d:
        invariants(d, "8b batch 16")
        check(d["memory"]["kv_cache_bytes"] == 16 * 131072 * d["request"]["context_tokens"], "8b batch 16 KV")
    return 0


def alt_kinds(d):
    return {a["kind"] for a in d["alternatives"]}


def case_fit(axl, work):
    d = plan(axl, "llama3.1-8b", "--quant", "bf16", "--node", LAPTOP)
    if d:
        invariants(d, "8b on the laptop")
        check(not d["fits"] and d["shortfall_bytes"] > 0, "8b bf16 fits on an 8 GB laptop GPU: %s" % d["fits"])
        q = [a for a in d["alternatives"] if a["kind"] == "quantization" and a["fits"]]
        check(any(a["quantization"] in ("int4", "q4_k_m") for a in q),
              "8b on the laptop: no 4-bit alternative that fits: %s" % [a["quantization"] for a in q])
        check("devices" in alt_kinds(d), "8b on the laptop: no devices alternative: %s" % alt_kinds(d))
        for a in q:
            check(a["quantization"] not in ("bf16", "fp16", "fp32"), "8b on the laptop: %s fits?" % a["quantization"])
    d = plan(axl, "llama3.2-1b", "--node", LAPTOP)
    if d:
        invariants(d, "1b on the laptop")
        check(d["fits"] and d["plan"]["strategy"]["tp"] * d["plan"]["strategy"]["pp"] == 1,
              "1b on the laptop: fits %s %s" % (d["fits"], d["plan"] and d["plan"]["strategy"]))
    d = plan(axl, "llama3.1-405b", "--quant", "bf16", sim=H100X8)
    if d:
        invariants(d, "405b bf16 on 8 H100")
        check(not d["fits"] and d["shortfall_bytes"] > 0, "405b bf16 fits on 8 H100")
        # 405.9e9 x 2 bytes = 812 GB against 8 x 80 GiB = 687 GB: at least 100 GB short
        check(d["shortfall_bytes"] > 100e9, "405b shortfall %d" % d["shortfall_bytes"])
        q = {a["quantization"] for a in d["alternatives"] if a["kind"] == "quantization" and a["fits"]}
        check("fp8" in q and "int4" in q, "405b: fp8 and int4 should fit on 8 H100: %s" % q)
        check("devices" in alt_kinds(d), "405b: no devices alternative")
    # a shorter context fits: 8b at 128k x 8 sequences on one L4 (24 GB)
    d = plan(axl, "llama3.1-8b", "--quant", "fp8", "--ctx", "131072", "--batch", "8", "--devices", "nvidia:2", sim=MIXED)
    if d:
        invariants(d, "8b 128k x 8 on an L4")
        check(not d["fits"], "8b 128k x 8 fits on an L4")
        c = [a for a in d["alternatives"] if a["kind"] == "context"]
        if check(len(c) == 1, "8b 128k x 8 on an L4: context alternatives %s" % c):
            a = c[0]
            check(a["fits"] and 16 <= a["context_tokens"] < 131072, "context alternative %s" % a)
            # the alternative's context must fit when asked for, and one much longer must not
            d2 = plan(axl, "llama3.1-8b", "--quant", "fp8", "--ctx", str(a["context_tokens"]), "--batch", "8",
                      "--devices", "nvidia:2", sim=MIXED)
            if d2:
                check(d2["fits"], "the context alternative %d does not fit when asked" % a["context_tokens"])
            d3 = plan(axl, "llama3.1-8b", "--quant", "fp8", "--ctx", str(a["context_tokens"] * 2), "--batch", "8",
                      "--devices", "nvidia:2", sim=MIXED)
            if d3:
                check(not d3["fits"], "twice the context alternative %d fits too" % a["context_tokens"])
    # what fits is the fitting case's total against the devices' memory
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", "--devices", "nvidia:0", sim=H100X8)
    if d:
        invariants(d, "70b bf16 on one H100")
        check(not d["fits"], "70b bf16 fits on one H100")
        # planned on the engine's share of the memory: vLLM's default 0.90
        check(d["request"]["engine"] == "vllm" and d["request"]["memory_fraction"] == 0.9,
              "default engine and fraction: %s" % d["request"])
        short = d["memory"]["total_bytes"] - 0.9 * 80 * 2**30
        check(abs(d["shortfall_bytes"] - short) <= 0.02 * short,
              "70b on one H100: shortfall %d vs total - 0.9 x 80 GiB = %d" % (d["shortfall_bytes"], short))
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", "--devices", "nvidia:0", "--memory-fraction", "1", sim=H100X8)
    if d:
        short = d["memory"]["total_bytes"] - 80 * 2**30
        check(d["request"]["memory_fraction_source"] == "as given", "fraction source %s" % d["request"])
        check(abs(d["shortfall_bytes"] - short) <= 0.02 * short,
              "70b on one H100 at 1.0: shortfall %d vs total - 80 GiB = %d" % (d["shortfall_bytes"], short))
    # llama.cpp plans all of the memory and splits by layers only (-sm layer)
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", "--engine", "llama.cpp", sim=H100X8)
    if d:
        check(d["plan"]["strategy"]["tp"] == 1 and d["request"]["memory_fraction"] == 1,
              "llama.cpp: tp %s, fraction %s" % (d["plan"]["strategy"], d["request"]))
        e = d["estimate"]
        band = e["decode_band_tokens_per_s"]
        check(band[0] <= e["decode_tokens_per_s"] <= band[1] <= e["decode_roofline_tokens_per_s"],
              "llama.cpp band %s around %s under %s" % (band, e["decode_tokens_per_s"], e["decode_roofline_tokens_per_s"]))
    return 0


def node_file(axl, sim, path):
    rc, out, err = run(axl, ["list", "--json"], sim=sim)
    if rc != 0:
        raise SystemExit("axl --sim %s list --json: rc %d %s" % (sim, rc, err))
    with open(path, "w") as f:
        f.write(out)
    return path


def case_split(axl, work):
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", sim=H100X8)
    if d:
        st = d["plan"]["strategy"]
        check(st["tp"] > 1, "70b bf16 on 8 H100: tp %d" % st["tp"])
        for s in d["plan"]["shards"]:
            check(s.get("tp_link") == "fabric", "70b tp link %s" % s.get("tp_link"))
    # uneven pipeline: an H100 (80 GiB, 3.35 TB/s) and an L4 (24 GiB, 300 GB/s); 32k tokens
    # of KV cache (10.7 GB) make the 72B at fp8 too big for the H100 alone
    d = plan(axl, "qwen2.5-72b", "--quant", "fp8", "--ctx", "32768", "--devices", "nvidia:0,nvidia:2", sim=MIXED)
    if d:
        invariants(d, "72b fp8 on H100 + L4")
        st = d["plan"]["strategy"]
        check(d["fits"] and st["pp"] == 2 and st["tp"] == 1, "72b fp8 on H100 + L4: fits %s %s" % (d["fits"], st))
        n = {s["device"]: s["layers"][1] - s["layers"][0] + 1 for s in d["plan"]["shards"]}
        check(n.get("nvidia:0", 0) > n.get("nvidia:2", 0), "72b on H100 + L4: layers %s" % n)
    # two 24 GB cards of different speed: the RTX 4090 (1008 GB/s) gets more than the L4 (300 GB/s)
    d = plan(axl, "gemma2-27b", "--quant", "fp8", "--devices", "nvidia:2,nvidia:4", sim=MIXED)
    if d:
        invariants(d, "gemma2-27b fp8 on L4 + 4090")
        st = d["plan"]["strategy"]
        n = {s["device"]: s["layers"][1] - s["layers"][0] + 1 for s in d["plan"]["shards"]}
        if check(d["fits"] and st["pp"] == 2, "gemma2-27b fp8 on L4 + 4090: %s %s" % (d["fits"], st)):
            check(n["nvidia:4"] > n["nvidia:2"], "gemma2-27b on L4 + 4090: layers %s" % n)
    # two nodes
    a = node_file(axl, H100X8, os.path.join(work, "h100node.json"))
    b = node_file(axl, MI300X8, os.path.join(work, "mi300node.json"))
    for model, q in (("llama3.1-405b", "bf16"), ("deepseek-v3", "bf16"), ("llama3.1-70b", "bf16")):
        d = plan(axl, model, "--quant", q, "--node", a, "--node", b)
        if not d:
            continue
        invariants(d, "%s on two nodes" % model)
        shards = d["plan"]["shards"]
        check(all("/" in s["device"] and s["device"].split("/")[0] in ("h100node", "mi300node") for s in shards),
              "%s on two nodes: device names %s" % (model, [s["device"] for s in shards][:4]))
        stages = {}
        for s in shards:
            stages.setdefault((s["replica"], s["stage"]), set()).add(s["device"].split("/")[0])
        for k, v in stages.items():
            check(len(v) == 1, "%s: tensor parallelism spans nodes in replica/stage %s: %s" % (model, k, v))
        if model == "llama3.1-405b":
            check(d["fits"], "405b bf16 on 8 H100 + 8 MI300X (2.2 TB) does not fit")
    # --network takes a unit: 400Gb/s (a 400G NIC) is 50 GB/s; 50GB/s the same
    for rate in ("400Gb/s", "50GB/s"):
        d = plan(axl, "llama3.1-405b", "--quant", "bf16", "--node", a, "--node", b, "--network", rate)
        if d:
            check(d["estimate"]["factors"]["network_gbps"] == 50, "--network %s: %s" % (rate, d["estimate"]["factors"]))
    # MoE: expert parallelism in the plan or an alternative
    for model in ("qwen3-30b-a3b", "deepseek-v3"):
        d = plan(axl, model, sim=H100X8 if model != "deepseek-v3" else MI300X8)
        if d:
            invariants(d, model)
            eps = [d["plan"]["strategy"]["ep"]] + [x["strategy"]["ep"] for x in d["alternatives"]]
            check(any(e > 1 for e in eps), "%s: no ep > 1 in the plan or its alternatives: %s" % (model, eps))
            check(d["model"]["active_params"] < d["model"]["params"] / 5, "%s active %s" % (model, d["model"]))
    # a dense model never has ep > 1
    d = plan(axl, "llama3.1-70b", sim=H100X8)
    if d:
        eps = [d["plan"]["strategy"]["ep"]] + [x["strategy"]["ep"] for x in d["alternatives"]]
        check(all(e == 1 for e in eps), "dense 70b with ep %s" % eps)
    # data parallel: a small model and a big batch on 8 H100
    d = plan(axl, "llama3.1-8b", "--batch", "64", sim=H100X8)
    if d:
        invariants(d, "8b batch 64 on 8 H100")
        st = d["plan"]["strategy"]
        check(st["tp"] * st["pp"] * st["dp"] <= 8, "8b batch 64: %s on 8 devices" % st)
        devs = [s["device"] for s in d["plan"]["shards"]]
        check(len(devs) == len(set(devs)), "8b batch 64: a device used twice: %s" % devs)
    return 0


# ---- model files -----------------------------------------------------------------------

LLAMA_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False, "rms_norm_eps": 1e-5,
}

SMALL_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
    "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 512, "max_position_embeddings": 2048,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}


def small_tensors():
    h, f, v, L, kvd = 256, 512, 512, 2, 2 * 64
    t = [("model.embed_tokens.weight", [v, h]), ("lm_head.weight", [v, h]), ("model.norm.weight", [h])]
    for i in range(L):
        p = "model.layers.%d." % i
        t += [(p + "self_attn.q_proj.weight", [h, h]), (p + "self_attn.k_proj.weight", [kvd, h]),
              (p + "self_attn.v_proj.weight", [kvd, h]), (p + "self_attn.o_proj.weight", [h, h]),
              (p + "mlp.gate_proj.weight", [f, h]), (p + "mlp.up_proj.weight", [f, h]),
              (p + "mlp.down_proj.weight", [h, f]), (p + "input_layernorm.weight", [h]),
              (p + "post_attention_layernorm.weight", [h])]
    return t


def write_safetensors(path, tensors, dtype="BF16", size=2, truncate=0):
    hdr, off = {}, 0
    for name, shape in tensors:
        n = 1
        for x in shape:
            n *= x
        hdr[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n * size]}
        off += n * size
    hdr["__metadata__"] = {"format": "pt"}
    js = json.dumps(hdr).encode()
    js += b" " * (-len(js) % 8)
    data = struct.pack("<Q", len(js)) + js + bytes(off)
    with open(path, "wb") as f:
        f.write(data[:len(data) - truncate] if truncate else data)
    return sum(1 for _ in tensors), off


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, huge_string=False):
    h, f, v, L = 256, 512, 512, 2
    kv = [("general.architecture", 8, gguf_str("llama")),
          ("llama.block_count", 4, struct.pack("<I", L)),
          ("llama.embedding_length", 4, struct.pack("<I", h)),
          ("llama.attention.head_count", 4, struct.pack("<I", 4)),
          ("llama.attention.head_count_kv", 4, struct.pack("<I", 2)),
          ("llama.feed_forward_length", 4, struct.pack("<I", f)),
          ("llama.context_length", 4, struct.pack("<I", 2048)),
          ("llama.vocab_size", 4, struct.pack("<I", v))]
    tens = [("token_embd.weight", [h, v], 12), ("output.weight", [h, v], 12), ("output_norm.weight", [h], 0)]
    for i in range(L):
        p = "blk.%d." % i
        tens += [(p + "attn_q.weight", [h, h], 12), (p + "attn_k.weight", [h, 128], 12),
                 (p + "attn_v.weight", [h, 128], 12), (p + "attn_output.weight", [h, h], 12),
                 (p + "ffn_gate.weight", [h, f], 12), (p + "ffn_up.weight", [h, f], 12),
                 (p + "ffn_down.weight", [f, h], 12), (p + "attn_norm.weight", [h], 0),
                 (p + "ffn_norm.weight", [h], 0)]
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tens), len(kv))
    for k, ty, val in kv:
        if huge_string and k == "general.architecture":
            out += gguf_str(k) + struct.pack("<I", 8) + struct.pack("<Q", 1 << 62) + b"llama"
            continue
        out += gguf_str(k) + struct.pack("<I", ty) + val
    off, params = 0, 0
    for name, dims, ty in tens:
        n = 1
        for x in dims:
            n *= x
        size = n // 256 * 144 if ty == 12 else n * 4
        out += gguf_str(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", x) for x in dims)
        out += struct.pack("<IQ", ty, off)
        off += (size + 31) // 32 * 32
        params += n
    out += bytes(-len(out) % 32) + bytes(off)
    with open(path, "wb") as fh:
        fh.write(out)
    return params


def case_files(axl, work):
    # a config.json by path
    cdir = os.path.join(work, "llama-like")
    os.makedirs(cdir, exist_ok=True)
    cfg = os.path.join(cdir, "config.json")
    with open(cfg, "w") as f:
        json.dump(LLAMA_CONFIG, f)
    catd = plan(axl, "llama3.1-8b", "--devices", "nvidia:0", sim=H100X8)
    for target in (cfg, cdir):
        d = plan(axl, target, "--devices", "nvidia:0", sim=H100X8)
        if d:
            invariants(d, "config.json %s" % target)
            check(d["model"]["source"] == "config.json", "config.json source %s" % d["model"]["source"])
            check(d["model"]["layers"] == 32, "config.json layers %s" % d["model"]["layers"])
            check(d["memory"]["kv_bytes_per_token"] == 131072, "config.json KV/token %d" % d["memory"]["kv_bytes_per_token"])
            if catd:
                # the same architecture as the catalog's Llama 3.1 8B
                check(abs(d["memory"]["weights_bytes"] - catd["memory"]["weights_bytes"]) <= 0.001 * catd["memory"]["weights_bytes"],
                      "config.json weights %d vs catalog %d" % (d["memory"]["weights_bytes"], catd["memory"]["weights_bytes"]))
    # safetensors with a config.json beside it
    sdir = os.path.join(work, "st")
    os.makedirs(sdir, exist_ok=True)
    with open(os.path.join(sdir, "config.json"), "w") as f:
        json.dump(SMALL_CONFIG, f)
    st = os.path.join(sdir, "model.safetensors")
    _, nbytes = write_safetensors(st, small_tensors())
    want_params = nbytes // 2
    for target in (st, sdir):
        d = plan(axl, target, "--devices", "nvidia:0", sim=H100X8)
        if d:
            invariants(d, "safetensors %s" % target)
            check(d["model"]["source"] == "safetensors", "safetensors source %s" % d["model"]["source"])
            check(d["model"]["weights_dtype"].upper() == "BF16", "safetensors dtype %s" % d["model"]["weights_dtype"])
            check(d["model"]["params"] == want_params, "safetensors params %s != %d" % (d["model"]["params"], want_params))
            check(d["model"]["layers"] == 2, "safetensors layers %s" % d["model"]["layers"])
            check(abs(d["memory"]["weights_bytes"] - nbytes) <= 0.01 * nbytes,
                  "safetensors weights %d vs the file's %d" % (d["memory"]["weights_bytes"], nbytes))
            check(d["fits"], "a 2-layer model does not fit on an H100")
    # the same file asked at fp8: half the bytes
    d = plan(axl, st, "--quant", "fp8", "--devices", "nvidia:0", sim=H100X8)
    if d:
        check(d["memory"]["weights_bytes"] < 0.8 * nbytes, "safetensors --quant fp8 weights %d of %d" % (d["memory"]["weights_bytes"], nbytes))
    # GGUF
    gg = os.path.join(work, "tiny.gguf")
    params = write_gguf(gg)
    d = plan(axl, gg, "--devices", "nvidia:0", sim=H100X8)
    if d:
        invariants(d, "gguf")
        check(d["model"]["source"] == "gguf", "gguf source %s" % d["model"]["source"])
        check(d["model"]["weights_dtype"].upper() == "Q4_K", "gguf dtype %s" % d["model"]["weights_dtype"])
        check(d["model"]["params"] == params, "gguf params %s != %d" % (d["model"]["params"], params))
        check(d["model"]["layers"] == 2, "gguf layers %s" % d["model"]["layers"])
        check(d["request"]["kv_dtype"] == "fp16", "gguf KV type %s" % d["request"]["kv_dtype"])
        # 2 layers x 2 KV heads x 64 x (K and V) x 2 bytes
        check(d["memory"]["kv_bytes_per_token"] == 2 * 2 * 64 * 2 * 2, "gguf KV/token %d" % d["memory"]["kv_bytes_per_token"])
        body = params - 256 * 5  # the F32 norms (5 x 256)
        want = body * 4.5 / 8 + 256 * 5 * 4
        check(abs(d["memory"]["weights_bytes"] - want) <= 0.02 * want,
              "gguf weights %d vs %.0f (Q4_K 4.5 bits, norms F32)" % (d["memory"]["weights_bytes"], want))
    return 0


def case_errors(axl, work):
    rc, out, err = run(axl, ["plan", "no-such-model-xyz"], sim=H100X8)
    check(rc == 1 and "no-such-model-xyz" in err, "unknown model: rc %d: %s" % (rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--quant", "int3"], sim=H100X8)
    check(rc != 0 and "int3" in err and "bf16" in err and "q4_k_m" in err, "unknown quant: rc %d: %s" % (rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--engine", "tgi-9000"], sim=H100X8)
    check(rc == 1 and "tgi-9000" in err and "vllm" in err and "llama.cpp" in err,
          "unknown engine: rc %d: %s" % (rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--engine"], sim=H100X8)
    check(rc == 2 and "--engine" in err, "--engine without a value: rc %d: %s" % (rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--kv-dtype", "int3"], sim=H100X8)
    check(rc != 0 and "int3" in err, "unknown KV type: rc %d: %s" % (rc, err.strip()))
    for opt, val in (("--ctx", "0"), ("--ctx", "abc"), ("--batch", "-1"), ("--batch", "0"), ("--ctx", "12x"),
                     ("--ctx", "99999999999999999999999"), ("--network-gbps", "-3"),
                     ("--memory-fraction", "0"), ("--memory-fraction", "1.5"), ("--memory-fraction", "-0.5"),
                     ("--memory-fraction", "half")):
        rc, out, err = run(axl, ["plan", "llama3.1-8b", opt, val], sim=H100X8)
        check(rc == 2 and opt in err, "%s %s: rc %d: %s" % (opt, val, rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--ctx"], sim=H100X8)
    check(rc == 2, "--ctx without a value: rc %d" % rc)
    rc, out, err = run(axl, ["plan"], sim=H100X8)
    check(rc == 2, "no model: rc %d" % rc)
    rc, out, err = run(axl, ["plan", "--list", "llama3.1-8b"], sim=H100X8)
    check(rc == 2, "--list with a model: rc %d" % rc)
    # config.json without num_hidden_layers, or with an absurd hidden_size
    for name, mutate, word in (("nolayers", lambda c: c.pop("num_hidden_layers"), "num_hidden_layers"),
                               ("absurd", lambda c: c.update(hidden_size=1 << 40), "hidden_size"),
                               ("negative", lambda c: c.update(num_attention_heads=-4), "num_attention_heads")):
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        c = dict(LLAMA_CONFIG)
        mutate(c)
        p = os.path.join(d, "config.json")
        with open(p, "w") as f:
            json.dump(c, f)
        rc, out, err = run(axl, ["plan", p], sim=H100X8)
        check(rc == 1 and word in err, "config.json %s: rc %d: %s" % (name, rc, err.strip()))
    p = os.path.join(work, "notjson", "config.json")
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write("{\"model_type\": \"llama\", ")
    rc, out, err = run(axl, ["plan", p], sim=H100X8)
    check(rc == 1 and err.strip(), "config.json cut short: rc %d: %s" % (rc, err.strip()))
    # a truncated safetensors file
    sdir = os.path.join(work, "st-trunc")
    os.makedirs(sdir, exist_ok=True)
    with open(os.path.join(sdir, "config.json"), "w") as f:
        json.dump(SMALL_CONFIG, f)
    st = os.path.join(sdir, "model.safetensors")
    write_safetensors(st, small_tensors(), truncate=1000)
    rc, out, err = run(axl, ["plan", st], sim=H100X8)
    check(rc == 1 and "model.safetensors" in err, "truncated safetensors: rc %d: %s" % (rc, err.strip()))
    with open(st, "wb") as f:
        f.write(struct.pack("<Q", 1 << 60) + b"{}")
    rc, out, err = run(axl, ["plan", st], sim=H100X8)
    check(rc == 1, "safetensors with a huge header length: rc %d: %s" % (rc, err.strip()))
    # a GGUF with a huge string length
    gg = os.path.join(work, "huge.gguf")
    write_gguf(gg, huge_string=True)
    rc, out, err = run(axl, ["plan", gg], sim=H100X8)
    check(rc == 1 and "huge.gguf" in err, "GGUF with a 2^62-byte string: rc %d: %s" % (rc, err.strip()))
    with open(gg, "wb") as f:
        f.write(b"GGUF" + struct.pack("<I", 3))
    rc, out, err = run(axl, ["plan", gg], sim=H100X8)
    check(rc == 1, "GGUF cut after the version: rc %d: %s" % (rc, err.strip()))
    # devices that are not there, a node file that is not an inventory
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--devices", "nosuch:9"], sim=H100X8)
    check(rc == 1 and "nosuch:9" in err, "--devices nosuch:9: rc %d: %s" % (rc, err.strip()))
    bad = os.path.join(work, "notinv.json")
    with open(bad, "w") as f:
        json.dump({"schema": "axl.metrics", "schema_version": 1, "devices": []}, f)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", bad])
    check(rc == 1 and err.strip(), "--node not an inventory: rc %d: %s" % (rc, err.strip()))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", os.path.join(work, "missing.json")])
    check(rc == 1 and "missing.json" in err, "--node missing: rc %d: %s" % (rc, err.strip()))
    return 0


def case_list(axl, work):
    rc, out, err = run(axl, ["plan", "--list"])
    check(rc == 0, "--list rc %d" % rc)
    lines = [l for l in out.splitlines() if l.strip()]
    check(lines and lines[0].split()[0] == "ID", "--list header %r" % (lines[:1],))
    check(len(lines) - 1 >= 40, "--list: %d models" % (len(lines) - 1))
    check(any(l.split()[0] == "meta-llama/Llama-3.1-8B" and "llama3.1-8b" in l.split() for l in lines), "--list: no Llama 3.1 8B")
    rc, out, err = run(axl, ["plan", "--list", "--json"])
    check(rc == 0, "--list --json rc %d" % rc)
    doc = json.loads(out)
    validate(doc, MODELS_SCHEMA, "axl.models")
    models = doc["models"]
    check(len(models) >= 40, "%d models" % len(models))
    check(len(models) == len(lines) - 1, "--list text %d rows, JSON %d" % (len(lines) - 1, len(models)))
    ids = [m["id"].lower() for m in models]
    aliases = [m["alias"].lower() for m in models if m["alias"]]
    check(len(ids) == len(set(ids)), "duplicate ids: %s" % sorted(i for i in ids if ids.count(i) > 1))
    check(len(aliases) == len(set(aliases)), "duplicate aliases: %s" % sorted(a for a in aliases if aliases.count(a) > 1))
    check(not set(ids) & set(aliases), "an alias equals an id: %s" % (set(ids) & set(aliases)))
    for m in models:
        check(m["params"] and m["active_params"] and 0 < m["active_params"] <= m["params"], "%s params" % m["id"])
        check((m["experts"] > 0) == (m["active_params"] < m["params"]), "%s experts %s" % (m["id"], m["experts"]))
        check(m["layers"] and m["max_context"] and m["max_context"] >= 2048, "%s layers/context" % m["id"])
        if m["attention"] == "mla":
            check(not m["kv_heads"], "%s mla kv_heads %s" % (m["id"], m["kv_heads"]))
        else:
            check(m["kv_heads"] and m["heads"] % m["kv_heads"] == 0, "%s heads %s kv_heads %s" % (m["id"], m["heads"], m["kv_heads"]))
        # every id and alias opens (case-insensitively, with the https://huggingface.co/ prefix)
    for name in ("meta-llama/Llama-3.1-8B", "META-LLAMA/llama-3.1-8b", "https://huggingface.co/meta-llama/Llama-3.1-8B",
                 "Llama3.1-8B"):
        rc, out, err = run(axl, ["plan", name, "--json"], sim=H100X8)
        check(rc == 0 and json.loads(out)["model"]["name"] == "meta-llama/Llama-3.1-8B", "%s: rc %d %s" % (name, rc, err.strip()))
    return 0


def case_instruct(axl, work):
    """Names pasted from the model hub: an instruction-tuned or chat release plans as its
    catalog row, and says which row; other names fail with a hint."""
    for name, row, alias in (("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B", "llama3.1-70b"),
                             ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B", "qwen2.5-7b"),
                             ("google/gemma-2-9b-it", "google/gemma-2-9b", "gemma2-9b"),
                             ("Google/Gemma-2-9B-IT", "google/gemma-2-9b", "gemma2-9b")):
        d = plan(axl, name, sim=H100X8)
        b = plan(axl, row, sim=H100X8)
        if not d or not b:
            continue
        check(d["model"]["name"] == name and d["model"]["catalog_id"] == row and "alias" not in d["model"],
              "%s: model %r" % (name, d["model"]))
        check(b["model"]["catalog_id"] == row and b["model"]["alias"] == alias, "%s: model %r" % (row, b["model"]))
        # the same plan as the row's (the Qwen release's shorter max context is above the 8192 asked)
        for k in ("memory", "fits", "plan", "estimate"):
            check(d[k] == b[k], "%s: %s differs from %s's" % (name, k, row))
        rc, out, err = run(axl, ["plan", name], sim=H100X8)
        first = out.splitlines()[0] if out else ""
        check(rc == 0 and ("%s (catalog entry %s, the same architecture" % (name, row)) in first,
              "%s text: rc %d %r" % (name, rc, first))
    # the Qwen2.5 -Instruct config says 32768 tokens (the base 131072): asking for more warns
    d = plan(axl, "Qwen/Qwen2.5-7B-Instruct", "--ctx", "65536", sim=H100X8)
    check(d and any("maximum (32768" in w for w in d["warnings"]), "Qwen2.5-7B-Instruct at 65536: %r" % (d and d["warnings"]))
    d = plan(axl, "Qwen/Qwen2.5-7B", "--ctx", "65536", sim=H100X8)
    check(d and not any("maximum" in w for w in d["warnings"]), "Qwen2.5-7B at 65536: %r" % (d and d["warnings"]))
    for name, hint in (("meta-llama/Llama-3.1-71B-Instruct", "did you mean meta-llama/Llama-3.1-70B-Instruct"),
                       ("foo/Llama-3.1-70B-Instruct", "did you mean meta-llama/Llama-3.1-70B-Instruct"),
                       ("mistralai/Mixtral-8x22B-Instruct-v0.1", "differs from the catalog's mistralai/Mixtral-8x22B-v0.1"),
                       ("Qwen/Qwen2.5-7B-Instruct-AWQ", "not in the catalog")):
        rc, out, err = run(axl, ["plan", name], sim=H100X8)
        check(rc == 1 and hint in err and not out, "%s: rc %d %s" % (name, rc, err.strip()))
    # --list names the instruct releases and their rows
    rc, out, err = run(axl, ["plan", "--list", "--json"])
    models = {m["id"]: m for m in json.loads(out)["models"]} if rc == 0 else {}
    for name, row in (("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B"),
                      ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"), ("google/gemma-2-9b-it", "google/gemma-2-9b")):
        m = models.get(name)
        check(m and m["catalog_id"] == row and m["alias"] is None, "--list %s: %r" % (name, m))
    check(models.get("Qwen/Qwen2.5-7B-Instruct", {}).get("max_context") == 32768, "--list Qwen2.5-7B-Instruct context")
    check(models.get("meta-llama/Llama-3.1-8B", {}).get("catalog_id") == "meta-llama/Llama-3.1-8B", "--list row catalog_id")
    rc, out, err = run(axl, ["plan", "--list"])
    rows = [l.split() for l in out.splitlines()]
    check(any(r[0] == "google/gemma-2-9b-it" and r[-1] == "google/gemma-2-9b" for r in rows), "--list text: gemma-2-9b-it row")
    return 0


def case_node_version(axl, work):
    """A --node document of a later schema_version is read as far as understood, with one
    warning naming the file and both versions; the plan is the current (version 2) document's."""
    rc, out, err = run(axl, ["list", "--json"], sim=H100X8)
    if not check(rc == 0, "list --json: rc %d %s" % (rc, err)):
        return 0
    doc = json.loads(out)
    paths = {}
    for tag, mutate in (("v1", None), ("v99", lambda d: d.update(schema_version=99, added_later={"x": 1})),
                        ("noversion", lambda d: d.pop("schema_version")),
                        ("string", lambda d: d.update(schema_version="2")), ("zero", lambda d: d.update(schema_version=0))):
        d = json.loads(json.dumps(doc))
        if mutate:
            mutate(d)
        os.makedirs(os.path.join(work, tag), exist_ok=True)
        paths[tag] = os.path.join(work, tag, "node-a.json")
        with open(paths[tag], "w") as f:
            json.dump(d, f)
    base = run(axl, ["plan", "llama3.1-70b", "--json", "--node", paths["v1"]])
    check(base[0] == 0 and not base[2], "v1 node: rc %d %r" % (base[0], base[2]))
    for tag in ("v99", "noversion"):
        rc, out, err = run(axl, ["plan", "llama3.1-70b", "--json", "--node", paths[tag]])
        check(rc == 0 and out == base[1], "%s node: rc %d, plan %s" % (tag, rc, "same" if out == base[1] else "differs"))
        want = [] if tag == "noversion" else [
            "axl: warning: %s: schema_version 99 is newer than this axl reads (2); reading what it understands" % paths[tag]]
        check(err.splitlines() == want, "%s node: stderr %r" % (tag, err))
    # two nodes, one newer: one warning, for that file
    rc, out, err = run(axl, ["plan", "llama3.1-70b", "--node", paths["v1"], "--node", paths["v99"]])
    check(rc == 0 and len(err.splitlines()) == 1 and paths["v99"] in err, "v1 + v99: rc %d %r" % (rc, err))
    for tag in ("string", "zero"):
        rc, out, err = run(axl, ["plan", "llama3.1-70b", "--node", paths[tag]])
        check(rc == 1 and "schema_version is not a positive integer" in err and not out, "%s: rc %d %r" % (tag, rc, err))
    return 0


def case_objective(axl, work):
    """--objective: the default (devices) plans an 8B model on 8 H100 at tp 1 and says so;
    latency picks the fastest single stream (tp 8), throughput the batch's decode, the
    orders hold between objectives, and an unknown objective is refused."""
    d = plan(axl, "llama3.1-8b", sim=H100X8)
    if d:
        check(d["plan"]["strategy"] == {"tp": 1, "pp": 1, "dp": 1, "ep": 1}, "8b default: %s" % d["plan"]["strategy"])
        check(d["request"]["objective"] == "devices" and d["objective"]["name"] == "devices" and d["objective"]["default"],
              "8b default objective %s / %s" % (d["request"].get("objective"), d.get("objective")))
    rc, out, err = run(axl, ["plan", "llama3.1-8b"], sim=H100X8)
    check(rc == 0 and "Objective     devices (the default): the fewest devices that fit" in out, "text objective: %r" % out[:400])
    lat = plan(axl, "llama3.1-8b", "--objective", "latency", sim=H100X8)
    if d and lat:
        check(lat["plan"]["strategy"]["tp"] == 8, "8b latency: %s" % lat["plan"]["strategy"])
        check(not lat["objective"]["default"] and lat["request"]["objective"] == "latency", "latency named")
        # the single stream of the latency plan is faster than the default's
        check(lat["estimate"]["decode_single_stream_tokens_per_s"] > 2 * d["estimate"]["decode_single_stream_tokens_per_s"],
              "latency %s vs devices %s" % (lat["estimate"]["decode_single_stream_tokens_per_s"],
                                            d["estimate"]["decode_single_stream_tokens_per_s"]))
        # batch 1: a single stream is the whole decode
        check(abs(d["estimate"]["decode_single_stream_tokens_per_s"] - d["estimate"]["decode_tokens_per_s"]) <= 0.02,
              "batch 1 single stream %s != decode %s" % (d["estimate"]["decode_single_stream_tokens_per_s"],
                                                        d["estimate"]["decode_tokens_per_s"]))
    # a batch: throughput's aggregate decode is the highest of the four objectives', devices'
    # device count the lowest
    got = {}
    for o in ("devices", "latency", "throughput"):
        got[o] = plan(axl, "llama3.1-8b", "--batch", "64", "--objective", o, sim=H100X8)
    if all(got.values()):
        n = {o: x["plan"]["strategy"]["tp"] * x["plan"]["strategy"]["pp"] * x["plan"]["strategy"]["dp"] for o, x in got.items()}
        dec = {o: x["estimate"]["decode_tokens_per_s"] for o, x in got.items()}
        check(all(dec["throughput"] >= v for v in dec.values()), "throughput not the highest: %s" % dec)
        check(all(n["devices"] <= v for v in n.values()), "devices not the fewest: %s" % n)
        # 16 GB of weights and 69 GB of KV cache (64 x 8192 tokens): two H100s, not one
        check(n["devices"] == 2, "8b batch 64 on two H100: %s" % n)
        for x in got.values():
            invariants(x, "8b batch 64 %s" % x["request"]["objective"])
    # the 70B needs two H100 at bf16: the default takes two, throughput all eight
    d = plan(axl, "llama3.1-70b", "--quant", "bf16", sim=H100X8)
    if d:
        check(d["plan"]["strategy"]["tp"] * d["plan"]["strategy"]["pp"] == 2, "70b default: %s" % d["plan"]["strategy"])
    # on the mixed node (H100s and MI300Xs) every objective still gives a plan under its roofline
    for o in ("devices", "latency", "throughput"):
        x = plan(axl, "llama3.1-70b", "--objective", o.upper(), sim=MIXED)
        if x:
            invariants(x, "mixed %s" % o)
    for bad in ("fastest", "", "cost,latency"):
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--objective", bad], sim=H100X8)
        check(rc != 0 and not out and ("objective" in err), "--objective %r: rc %d %r" % (bad, rc, err))
    return 0


def case_cost(axl, work):
    """Cost per million tokens from a price per device-hour or node-hour, a node file's
    price, or the price table by the node's instance type; the cost objective's choice;
    bad prices refused."""
    d = plan(axl, "llama3.1-8b", "--price-device-hour", "2.5", sim=H100X8)
    if d:
        invariants(d, "8b priced")
        c = d["estimate"]["cost"]
        check(c and c["basis"] == "device-hour" and c["devices"] == 1 and abs(c["per_hour"] - 2.5) < 1e-9, "cost %s" % c)
        want = 2.5 / (d["estimate"]["decode_tokens_per_s"] * 3600) * 1e6
        check(c and abs(c["decode_per_million_tokens"] - want) <= 0.001 * want + 1e-4, "decode cost %s vs %s" % (c, want))
        want = 2.5 / (d["estimate"]["prefill_tokens_per_s"] * 3600) * 1e6
        check(c and abs(c["prefill_per_million_tokens"] - want) <= 0.001 * want + 1e-4, "prefill cost %s vs %s" % (c, want))
    d = plan(axl, "llama3.1-8b", sim=H100X8)
    if d:
        check(d["estimate"]["cost"] is None, "no price: cost %s" % d["estimate"]["cost"])
    # per device-hour, the cost objective weighs devices against speed; per node-hour the
    # node is paid whole, so the fastest use of it is the cheapest
    dev = plan(axl, "llama3.1-8b", "--batch", "64", "--objective", "cost", "--price-device-hour", "12.29", sim=H100X8)
    node = plan(axl, "llama3.1-8b", "--batch", "64", "--objective", "cost", "--price-node-hour", "98.32", sim=H100X8)
    thr = plan(axl, "llama3.1-8b", "--batch", "64", "--objective", "throughput", "--price-device-hour", "12.29", sim=H100X8)
    dvs = plan(axl, "llama3.1-8b", "--batch", "64", "--price-device-hour", "12.29", sim=H100X8)
    if dev and node and thr and dvs:
        per = lambda x: x["estimate"]["cost"]["decode_per_million_tokens"]
        check(per(dev) <= per(thr) and per(dev) <= per(dvs), "cost objective not the cheapest: %s %s %s" % (per(dev), per(thr), per(dvs)))
        check(node["estimate"]["cost"]["nodes"] == 1 and node["estimate"]["cost"]["per_hour"] == 98.32, "node-hour %s" % node["estimate"]["cost"])
        check(node["estimate"]["decode_tokens_per_s"] >= thr["estimate"]["decode_tokens_per_s"] * 0.999,
              "node-hour cost plan slower than throughput's")
    # a node file: its own price, then the price table by instance type
    rc, out, err = run(axl, ["list", "--json"], sim=H100X8)
    if check(rc == 0, "list --json: %s" % err):
        doc = json.loads(out)
        def node_file(tag, mutate):
            x = json.loads(json.dumps(doc))
            mutate(x)
            path = os.path.join(work, tag + ".json")
            with open(path, "w") as f:
                json.dump(x, f)
            return path
        p5 = node_file("p5", lambda x: x["host"].setdefault("runtime", {}).setdefault("cloud", {}).update(instance_type="p5.48xlarge"))
        d = plan(axl, "llama3.1-8b", "--objective", "cost", "--node", p5)
        if d:
            invariants(d, "8b on a p5 node file")
            c = d["estimate"]["cost"]
            check(c and c["basis"] == "price table" and "p5.48xlarge" in c["source"] and "2026" in c["source"] and
                  abs(c["per_hour"] - 98.32) < 1e-9, "p5 table price %s" % c)
        for itype, price in (("p4d.24xlarge", 32.77), ("trn1.32xlarge", 21.50)):
            path = node_file(itype, lambda x, itype=itype: x["host"].setdefault("runtime", {}).setdefault("cloud", {}).update(instance_type=itype))
            d = plan(axl, "llama3.1-8b", "--node", path)
            if d:
                c = d["estimate"]["cost"]
                check(c and c["basis"] == "price table" and itype in c["source"] and abs(c["per_hour"] - price) < 1e-9,
                      "%s table price %s" % (itype, c))
        own = node_file("own", lambda x: x.update(price={"per_device_hour": 3.0, "source": "our contract"}))
        d = plan(axl, "llama3.1-8b", "--batch", "8", "--node", own)
        if d:
            c = d["estimate"]["cost"]
            n = d["plan"]["strategy"]["tp"] * d["plan"]["strategy"]["pp"] * d["plan"]["strategy"]["dp"]
            check(c and c["basis"] == "node file" and "our contract" in c["source"] and abs(c["per_hour"] - 3.0 * n) < 1e-9,
                  "node file price %s" % c)
        # the command line's price wins over the node's
        d = plan(axl, "llama3.1-8b", "--node", own, "--price-node-hour", "40")
        if d:
            check(d["estimate"]["cost"]["basis"] == "node-hour" and d["estimate"]["cost"]["per_hour"] == 40, "given wins")
        for tag, price in (("neg", {"per_node_hour": -1}), ("str", {"per_device_hour": "3"}), ("zero", {"per_node_hour": 0})):
            path = node_file(tag, lambda x, price=price: x.update(price=price))
            rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", path])
            check(rc == 1 and "price" in err and "positive" in err and not out, "%s price: rc %d %r" % (tag, rc, err))
        unknown = node_file("unknown", lambda x: x["host"].setdefault("runtime", {}).setdefault("cloud", {}).update(instance_type="x9.nothing"))
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--objective", "cost", "--node", unknown])
        check(rc == 1 and "needs a price" in err, "unknown instance type: rc %d %r" % (rc, err))
    for args in (["--price-device-hour", "-1"], ["--price-node-hour", "nan"], ["--price-node-hour", "inf"],
                 ["--price-device-hour", "0"], ["--price-device-hour", "1", "--price-node-hour", "2"],
                 ["--objective", "cost"], ["--price-device-hour"]):
        rc, out, err = run(axl, ["plan", "llama3.1-8b"] + args, sim=H100X8)
        check(rc != 0 and not out and ("price" in err or "needs a value" in err), "%s: rc %d %r" % (args, rc, err))
    return 0


def case_cpu(axl, work):
    """CPU plans: a node without accelerators, or --devices cpu, is planned on the host's
    memory (the cgroup limit when lower) and memory bandwidth (the node's SMBIOS figure,
    else an assumption the plan flags), with compute from the cores and ISA."""
    d = plan(axl, "llama3.1-8b", "--devices", "cpu", "--quant", "q4_k_m", sim=H100X8)
    if d:
        invariants(d, "8b on the sim's cpu")
        sh = d["plan"]["shards"]
        check(len(sh) == 1 and sh[0]["device"] == "cpu" and sh[0]["capacity_bytes"] == 549755813888, "cpu shard %s" % sh)
        # no --engine: a plan on the host alone takes llama.cpp's factors and all of its memory
        check(d["request"]["engine"] == "llama.cpp" and d["request"]["memory_fraction"] == 1, "cpu engine %s" % d["request"])
        check(any("memory bandwidth assumed" in w and "DDR4-3200" in w for w in d["warnings"]), "assumed not flagged: %s" % d["warnings"])
        # two sockets of 56 cores: 2 x 8 channels x 25.6 GB/s bounds decode
        check(d["estimate"]["decode_roofline_tokens_per_s"] <= 2 * 8 * 25.6e9 / (d["memory"]["weights_bytes"] * 0.9),
              "cpu roofline %s" % d["estimate"]["decode_roofline_tokens_per_s"])
    # without --devices the accelerators are planned on, never the host
    d = plan(axl, "llama3.1-8b", sim=H100X8)
    if d:
        check(all(s["device"] != "cpu" for s in d["plan"]["shards"]), "cpu used beside the GPUs")
        check(d["request"]["engine"] == "vllm", "gpu engine %s" % d["request"]["engine"])
    # an engine named applies to the host too, its fraction included
    d = plan(axl, "llama3.1-8b", "--devices", "cpu", "--quant", "q4_k_m", "--engine", "vllm", sim=H100X8)
    if d:
        check(d["request"]["engine"] == "vllm" and d["plan"]["shards"][0]["capacity_bytes"] == int(549755813888 * 0.9),
              "cpu with vllm: %s %s" % (d["request"], d["plan"]["shards"]))
    rc, out, err = run(axl, ["list", "--json"], sim=H100X8)
    if not check(rc == 0, "list --json: %s" % err):
        return 0
    doc = json.loads(out)

    def cpu_node(tag, cpu=None, memory=None):
        x = json.loads(json.dumps(doc))
        x["devices"] = []
        x["links"] = []
        if cpu is not None:
            x["host"]["cpu"].update(cpu)
        if memory is not None:
            x["host"]["memory"] = memory
        path = os.path.join(work, tag + ".json")
        with open(path, "w") as f:
            json.dump(x, f)
        return path
    # a server with its SMBIOS bandwidth known (one socket, 12 channels of DDR5-4800)
    bw = 12 * 4800e6 * 8
    amx = cpu_node("amx", cpu={"sockets": 1, "cores": 56, "isa": ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"]},
                   memory={"total_bytes": 256 << 30, "bandwidth_bytes_per_s": int(bw)})
    d = plan(axl, "llama3.1-8b", "--quant", "q8_0", "--node", amx)
    if d:
        invariants(d, "8b on a CPU-only node")
        check(d["fits"] and d["plan"]["shards"][0]["device"] == "cpu", "cpu-only node: %s" % d["plan"])
        check(not any("memory bandwidth assumed" in w for w in d["warnings"]), "known bandwidth flagged: %s" % d["warnings"])
        read = d["memory"]["weights_bytes"]
        roof = d["estimate"]["decode_roofline_tokens_per_s"]
        # the weights once per token at the SMBIOS bandwidth (the KV cache adds a little)
        check(0.85 * bw / read <= roof <= bw / read * 1.0001, "roofline %.1f vs %.1f" % (roof, bw / read))
        check(d["estimate"]["bound"] == "memory-bandwidth", "amx bound %s" % d["estimate"]["bound"])
    # the same CPU without AMX: prefill (compute) slower, decode (memory) the same
    avx2 = cpu_node("avx2", cpu={"sockets": 1, "cores": 56, "isa": ["avx2", "fma"]},
                    memory={"total_bytes": 256 << 30, "bandwidth_bytes_per_s": int(bw)})
    d = plan(axl, "llama3.1-8b", "--quant", "bf16", "--node", amx)
    e = plan(axl, "llama3.1-8b", "--quant", "bf16", "--node", avx2)
    if d and e:
        check(abs(d["estimate"]["decode_tokens_per_s"] - e["estimate"]["decode_tokens_per_s"]) < 0.02 * d["estimate"]["decode_tokens_per_s"],
              "decode differs: amx %s avx2 %s" % (d["estimate"]["decode_tokens_per_s"], e["estimate"]["decode_tokens_per_s"]))
        check(e["estimate"]["prefill_tokens_per_s"] < d["estimate"]["prefill_tokens_per_s"] / 4,
              "amx prefill %s vs avx2 %s" % (d["estimate"]["prefill_tokens_per_s"], e["estimate"]["prefill_tokens_per_s"]))
    # a laptop: 8 cores, no bandwidth known: 2 channels assumed; a cgroup limit below the total
    lap = cpu_node("laptop", cpu={"sockets": 1, "cores": 8, "isa": ["avx2", "fma"]},
                   memory={"total_bytes": 32 << 30, "limit_bytes": 6 << 30})
    d = plan(axl, "llama3.1-8b", "--quant", "q4_k_m", "--node", lap)
    if d:
        invariants(d, "8b on a limited laptop")
        check(not d["fits"] and d["shortfall"]["available_bytes"] == 6 << 30, "limit ignored: %s" % d.get("shortfall"))
        check(any("51.2 GB/s" in w and "1 x 2 channels" in w for w in d["warnings"]), "laptop assumption %s" % d["warnings"])
    d = plan(axl, "llama3.2-1b", "--quant", "q4_k_m", "--node", lap)
    if d:
        check(d["fits"], "1b on the laptop")
    # nothing known of the host's memory: an empty plan, saying so (exit 0, as ai-hwaccel's
    # planner returns an empty plan)
    none = cpu_node("nomem", memory={})
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", none])
    check(rc == 0 and "no accelerator" in out and "host's memory is not known" in out and "Plan          none" in out,
          "no memory: rc %d %r" % (rc, out))
    bad = cpu_node("badbw", memory={"total_bytes": 1 << 34, "bandwidth_bytes_per_s": "fast"})
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", bad])
    check(rc == 1 and "bandwidth_bytes_per_s" in err, "bad bandwidth: rc %d %r" % (rc, err))
    return 0


def case_tpu_ici(axl, work):
    """A TPU VM's chips are planned as one ICI slice (the device database's ici key), not as
    PCIe peers: the recorded v5e VM (tests/trees/nodes/tpu-v5e-vm.json) lists ICI links at
    the chip's 200 GB/s, tensor parallelism runs over them, and the same node without
    those links (PCIe peers) is planned slower."""
    trees = os.path.join(HERE, "..", "..", "trees")
    tree = os.path.join(work, "tree-tpu-v5e")
    subprocess.run([sys.executable, os.path.join(trees, "mktree.py"), os.path.join(trees, "nodes", "tpu-v5e-vm.json"),
                    tree], check=True, stdout=subprocess.DEVNULL)
    rc, out, err = run(axl, ["list", "--json", "--sysroot", tree])
    if not check(rc == 0, "list the v5e tree: %s" % err):
        return
    inv = json.loads(out)
    tpus = [d for d in inv["devices"] if d["family"] == "tpu"]
    check(len(tpus) == 4, "4 TPU v5e chips, got %d" % len(tpus))
    for d in tpus:
        ic = d.get("interconnect") or {}
        check(ic == {"kind": "ici", "topology": "2d-torus", "ports": 4, "bandwidth_gbps": 200},
              "%s interconnect %s" % (d["id"], ic))
        check(d["field_sources"].get("interconnect.bandwidth_gbps") == "devicedb", "%s: ICI from the devicedb" % d["id"])
    ici = [l for l in inv["links"] if l["kind"] == "ici"]
    check(len(ici) == 6 and all(l["bandwidth_gbps"] == 200 and l["link_count"] == 4 for l in ici),
          "6 ICI links of 200 GB/s among 4 chips: %s" % ici)
    node = os.path.join(work, "tpu-v5e.json")
    with open(node, "w") as f:
        json.dump(inv, f)
    pcie = dict(inv, links=[])
    node_pcie = os.path.join(work, "tpu-v5e-pcie.json")
    with open(node_pcie, "w") as f:
        json.dump(pcie, f)
    a = plan(axl, "llama3.1-8b", "--node", node, "--objective", "latency")
    b = plan(axl, "llama3.1-8b", "--node", node_pcie, "--objective", "latency")
    if not a or not b:
        return
    invariants(a, "tpu ici")
    invariants(b, "tpu pcie")
    sa, sb = a["plan"]["shards"], b["plan"]["shards"]
    check(a["plan"]["strategy"]["tp"] == 4, "latency on 4 chips: tp %s" % a["plan"]["strategy"])
    check(all(x.get("tp_link") == "ici" and x.get("tp_link_gbps") == 200 for x in sa),
          "tensor parallel over ICI at 200 GB/s: %s" % [(x.get("tp_link"), x.get("tp_link_gbps")) for x in sa])
    check(all(x.get("tp_link") != "ici" for x in sb), "without the links: not ICI")
    da = a["estimate"]["decode_single_stream_tokens_per_s"]
    db = b["estimate"]["decode_single_stream_tokens_per_s"]
    check(da > db, "ICI decodes faster than PCIe peers: %s vs %s tok/s" % (da, db))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", node, "--objective", "latency"])
    check(rc == 0 and "(ici 200 GB/s)" in out, "the text says the slice's link: %s" % out[:600])


def case_gaudi_roce(axl, work):
    """The 8 Gaudi2 of an HLS-Gaudi2 box reach each other over the chips' own RoCE ports
    (21 scale-up ports, 3 to each other module: the device database's roce key), not over
    PCIe: the gaudi2-8x tree lists 28 roce links of 3 ports at 3 x 12.5 GB/s, tensor
    parallelism runs over them, and the same node with the PCIe paths discovery gave
    before (31.504 GB/s, Gen4 x16) is planned slower."""
    trees = os.path.join(HERE, "..", "..", "trees")
    tree = os.path.join(work, "tree-gaudi2-8x")
    subprocess.run([sys.executable, os.path.join(trees, "mktree.py"), os.path.join(trees, "nodes", "gaudi2-8x.json"),
                    tree], check=True, stdout=subprocess.DEVNULL)
    rc, out, err = run(axl, ["list", "--json", "--sysroot", tree])
    if not check(rc == 0, "list the gaudi2-8x tree: %s" % err):
        return
    inv = json.loads(out)
    gaudis = [d for d in inv["devices"] if d.get("devicedb_key") == "habana-gaudi2"]
    check(len(gaudis) == 8, "8 Gaudi2, got %d" % len(gaudis))
    for d in gaudis:
        ic = d.get("interconnect") or {}
        check(ic == {"kind": "roce", "ports": 24, "bandwidth_gbps": 300},
              "%s interconnect %s (24 x 12.5 GB/s)" % (d["id"], ic))
        check(d["field_sources"].get("interconnect.ports") == "devicedb", "%s: RoCE ports from the devicedb" % d["id"])
    roce = [l for l in inv["links"] if l["kind"] == "roce"]
    check(len(roce) == 28 and all(l["bandwidth_gbps"] == 37.5 and l["link_count"] == 3 and l["source"] == "devicedb"
                                  for l in roce), "28 roce links of 3 ports, 37.5 GB/s among 8 Gaudi2: %s" % roce)
    node = os.path.join(work, "gaudi2-8x.json")
    with open(node, "w") as f:
        json.dump(inv, f)
    pcie = dict(inv, links=[dict((k, v) for k, v in l.items() if k != "link_count") for l in inv["links"]])
    for l in pcie["links"]:
        l.update(kind="system", bandwidth_gbps=31.504, source="derived")
    node_pcie = os.path.join(work, "gaudi2-8x-pcie.json")
    with open(node_pcie, "w") as f:
        json.dump(pcie, f)
    a = plan(axl, "llama3.1-70b", "--node", node, "--objective", "latency")
    b = plan(axl, "llama3.1-70b", "--node", node_pcie, "--objective", "latency")
    if not a or not b:
        return
    invariants(a, "gaudi roce")
    invariants(b, "gaudi pcie")
    sa, sb = a["plan"]["shards"], b["plan"]["shards"]
    check(a["plan"]["strategy"]["tp"] == 8, "latency on 8 Gaudi2: tp %s" % a["plan"]["strategy"])
    check(all(x.get("tp_link") == "roce" and x.get("tp_link_gbps") == 37.5 for x in sa),
          "tensor parallel over RoCE at 37.5 GB/s: %s" % [(x.get("tp_link"), x.get("tp_link_gbps")) for x in sa])
    check(all(x.get("tp_link") == "system" and x.get("tp_link_gbps") == 31.504 for x in sb),
          "over PCIe: %s" % [(x.get("tp_link"), x.get("tp_link_gbps")) for x in sb])
    da = a["estimate"]["decode_single_stream_tokens_per_s"]
    db = b["estimate"]["decode_single_stream_tokens_per_s"]
    check(da > db, "RoCE decodes faster than PCIe paths: %s vs %s tok/s" % (da, db))
    rc, out, err = run(axl, ["plan", "llama3.1-70b", "--node", node, "--objective", "latency"])
    check(rc == 0 and "(roce 38 GB/s)" in out, "the text says the box's link: %s" % out[:600])


def case_nofit(axl, work):
    """Nothing fits (issue 34): llama3.1-405b on 2 x H100 prints no split and no decode speed,
    says what is needed against what the devices hold, and what would fit; the devices
    alternative's counts agree with its split and the node."""
    rc, out, err = run(axl, ["plan", "llama3.1-405b"], sim=H100X2)
    check(rc == 0, "405b on 2 H100: rc %d %s" % (rc, err))
    check("Fits          NO: needs " in out and "the 2 devices (2 x NVIDIA H100 80GB HBM3) hold" in out and " short" in out,
          "405b on 2 H100: %s" % out)
    for bad in ("Plan\n", "Estimate", "tok/s (expected", "Roofline", "stage 0"):
        check(bad not in out.split("What fits")[0], "405b on 2 H100 prints %r as a plan: %s" % (bad, out))
    check("What fits\n" in out, "405b on 2 H100: no 'What fits': %s" % out)
    d = plan(axl, "llama3.1-405b", sim=H100X2)
    if d:
        invariants(d, "405b on 2 H100")
        sf = d["shortfall"]
        # 2 x 0.9 x 80 GiB; 405.85e9 x 2 bytes of weights at least
        check(abs(sf["available_bytes"] - 2 * 0.9 * 80 * 2**30) < 1e9 and sf["needed_bytes"] > 811e9,
              "405b on 2 H100: shortfall %s" % sf)
        check(abs(d["shortfall_bytes"] - (sf["needed_bytes"] - sf["available_bytes"])) < 0.02 * d["shortfall_bytes"],
              "405b on 2 H100: shortfall %d vs needed - available %s" % (d["shortfall_bytes"], sf))
        dev = [a for a in d["alternatives"] if a["kind"] == "devices"]
        check(len(dev) == 1 and dev[0]["fits"], "405b on 2 H100: devices alternative %s" % dev)
    # summary through the public API agrees (python binding reads it): tp 0 when it does not fit
    # --quant auto where nothing fits: the closest format, no plan
    d = plan(axl, "llama3.1-405b", "--quant", "auto", sim=H100X2)
    if d:
        invariants(d, "405b auto on 2 H100")
        tried = [t["quantization"] for t in d["request"].get("quantization_tried", [])]
        check(not d["fits"] and tried[:4] == ["bf16", "fp8", "int8", "int4"] and "no format fits" in d["request"]["quantization_reason"],
              "405b auto on 2 H100: %s" % d["request"])


def case_network(axl, work):
    """--network takes a unit (400Gb/s is 50 GB/s); a bare number and --network-gbps are
    refused with the spelling to use."""
    for args, want in ((["--network", "400"], "400Gb/s"), (["--network", "fast"], "400Gb/s"),
                       (["--network", "400Gx"], "'Gx' is not a unit of rate (Gb/s"), (["--network-gbps", "50"], "--network 400Gb/s"),
                       (["--network-gbps=50"], "--network 400Gb/s")):
        rc, out, err = run(axl, ["plan", "llama3.1-8b"] + args, sim=H100X2)
        check(rc == 2 and want in err and not out, "%s: rc %d %r" % (args, rc, err))
    d = plan(axl, "llama3.1-8b", "--network", "400Gb/s", sim=H100X2)
    if d:
        check(d["estimate"]["factors"]["network_gbps"] == 50 and d["estimate"]["factors"]["network_source"] == "as given",
              "--network 400Gb/s: %s" % d["estimate"]["factors"])
    d = plan(axl, "llama3.1-8b", "--network", "25GB/s", sim=H100X2)
    if d:
        check(d["estimate"]["factors"]["network_gbps"] == 25, "--network 25GB/s: %s" % d["estimate"]["factors"])


def case_empty_node(axl, work):
    """A bad option is named even where there is nothing to plan on: an empty simulated node."""
    # a node file with no accelerators and no host memory known: nothing to plan on at all
    rc, out, err = run(axl, ["list", "--json"], sim=H100X2)
    if not check(rc == 0, "list --json: %s" % err):
        return
    doc = json.loads(out)
    doc["devices"], doc["links"] = [], []
    doc["host"]["memory"] = {}
    empty = os.path.join(work, "empty.json")
    with open(empty, "w") as f:
        json.dump(doc, f)
    # an empty plan with its reason, exit 0 (as ai-hwaccel's planner returns an empty plan)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", empty, "--json"])
    if check(rc == 0, "empty node: rc %d %r" % (rc, err)):
        d = json.loads(out)
        validate(d, SCHEMA, "empty node")
        check(d["plan"] is None and d["estimate"] is None and not d["fits"] and
              d["reason"].startswith("no devices to plan on"), "empty node: %s" % d)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", empty])
    check(rc == 0 and "no devices to plan on" in out, "empty node text: rc %d %r" % (rc, out))
    for args, want in ((["--quant", "int3"], "int3"), (["--kv-dtype", "fp4"], "fp4"), (["--engine", "vlm"], "vlm"),
                       (["--objective", "speed"], "speed"), (["--devices", "nvidia:7"], "nvidia:7"),
                       (["--memory-fraction", "1.5"], "1.5"), (["--network", "400"], "400Gb/s")):
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", empty] + args)
        check(rc != 0 and want in err and "no devices" not in err + out, "empty node %s: rc %d %r" % (args, rc, err))


def case_cost_alternatives(axl, work):
    """--objective cost: every alternative shows its cost per million tokens, and a cheaper
    format that fits is named."""
    d = plan(axl, "llama3.1-70b", "--objective", "cost", "--price-device-hour", "2.5", sim=H100X8)
    if d:
        invariants(d, "70b cost")
        for a in d["alternatives"]:
            check("decode_per_million_tokens" in a and "cost_per_hour" in a, "alternative without a cost: %s" % a)
            if a["fits"] and a["decode_tokens_per_s"]:
                want = a["cost_per_hour"] / (a["decode_tokens_per_s"] * 3600) * 1e6
                check(abs(a["decode_per_million_tokens"] - want) <= 0.002 * want + 1e-3, "alternative cost %s vs %s" % (a, want))
        c = d["estimate"]["cost"]
        cheaper = [a for a in d["alternatives"] if a["kind"] == "quantization" and a["fits"] and
                   a["decode_per_million_tokens"] is not None and a["decode_per_million_tokens"] < c["decode_per_million_tokens"]]
        if cheaper:
            best = min(cheaper, key=lambda a: a["decode_per_million_tokens"])
            check(c.get("cheaper_quantization") == best["quantization"], "cheaper format not named: %s %s" % (c, best))
        else:
            check("cheaper_quantization" not in c, "cheaper named without one: %s" % c)
        check(cheaper, "70b bf16 at cost on 8 H100: no fewer-bit format is cheaper? %s" % d["alternatives"])
    rc, out, err = run(axl, ["plan", "llama3.1-70b", "--objective", "cost", "--price-device-hour", "2.5"], sim=H100X8)
    check(rc == 0 and "Cheaper       " in out and "per million tokens" in out.split("Alternatives")[-1], "cost text: %s" % out)


def case_calibrated(axl, work):
    """The estimates say whether the engine is calibrated: vLLM (the default) and SGLang are
    not (no measurement recorded), pytorch and llama.cpp are."""
    for eng, cal in (("vllm", False), ("sglang", False), ("pytorch", True), ("llama.cpp", True)):
        d = plan(axl, "llama3.1-8b", "--engine", eng, sim=H100X2)
        if d:
            f = d["estimate"]["factors"]
            check(d["request"]["engine_calibrated"] is cal and f["calibrated"] is cal and (f["calibration_rows"] > 0) == cal,
                  "%s: calibrated %s rows %s" % (eng, f.get("calibrated"), f["calibration_rows"]))
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--engine", eng], sim=H100X2)
        word = "calibrated" if cal else "NOT calibrated"
        check(rc == 0 and ("Engine        %s, %s" % (eng, word)) in out and (("uncalibrated" in out) != cal),
              "%s text: %s" % (eng, out[:600]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    work = os.path.join(a.work, a.case)
    os.makedirs(work, exist_ok=True)
    rc = globals()["case_" + a.case](a.axl, work)
    if rc == 77:
        return 77
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
