#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The planner's calibration (docs/plan.md "Calibration"): for every published batch-1
decode measurement in data/planner-calibration.tsv, plan the same model, weights, context
and engine on a simulated node of the same hardware (tests/sim/calibration/) with the real
`axl plan`, take the estimate of the split the run used (tp x pp), and compare it with the
measurement. Fails when the median of estimate / measured leaves 0.9-1.1, when a row's
split is not among the plan and its alternatives, when an estimate exceeds its roofline,
or (unless --baseline) when the error band is missing, does not hold the estimate, or
reaches above the roofline. Prints every row, the median, and the share within +-20%.

--baseline runs without --engine and without the band checks: how an axl from before
the calibration is measured with the same rows (the "before" figures of docs/plan.md)."""
import argparse
import json
import os
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def read_rows(path):
    rows, head = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if head is None:
                head = cols
                continue
            if len(cols) != len(head):
                raise SystemExit(f"{path}: row {cols[0]}: {len(cols)} columns, want {len(head)}")
            r = dict(zip(head, cols))
            if not r["source"].strip():
                raise SystemExit(f"{path}: row {r['id']} has no source")
            rows.append(r)
    return rows


def plan(axl, r, baseline):
    sim = os.path.join(TOP, "tests", "sim", "calibration", r["hardware"] + ".json")
    cmd = [axl, "--sim", sim, "plan", r["model"], "--quant", r["quant"], "--ctx", r["context"], "--json"]
    if not baseline:
        # the throughput objective (the fastest decode of the batch, 1 here): the split the run
        # used is then the plan or one of its split alternatives; the default objective,
        # devices, would prefer fewer devices than a run spread over (--baseline: an axl
        # from before the objective, whose only ranking was this one)
        cmd += ["--engine", r["axl_engine"], "--objective", "throughput"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit(f"{r['id']}: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def estimate_for(doc, r, baseline, errors):
    tp, pp = int(r["tp"]), int(r["pp"])
    est = doc.get("estimate")
    pl = doc.get("plan")
    if pl and est:
        dec, roof = est["decode_tokens_per_s"], est["decode_roofline_tokens_per_s"]
        if dec is not None and roof is not None and dec > roof * (1 + 1e-9):
            errors.append(f"{r['id']}: estimate {dec} above its roofline {roof}")
        if not baseline:
            band = est.get("decode_band_tokens_per_s")
            if not (isinstance(band, list) and len(band) == 2):
                errors.append(f"{r['id']}: no decode_band_tokens_per_s")
            elif dec is not None and not (band[0] <= dec <= band[1] <= roof * (1 + 1e-9)):
                errors.append(f"{r['id']}: band {band} does not hold {dec} under the roofline {roof}")
        s = pl["strategy"]
        if s["tp"] == tp and s["pp"] == pp and s["dp"] == 1:
            return dec, "plan"
    for a in doc.get("alternatives", []):
        s = a["strategy"]
        if a["kind"] == "split" and s["tp"] == tp and s["pp"] == pp and s["dp"] == 1:
            return a["decode_tokens_per_s"], "alternative"
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--data", default=os.path.join(TOP, "data", "planner-calibration.tsv"))
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--lo", type=float, default=0.9)
    ap.add_argument("--hi", type=float, default=1.1)
    args = ap.parse_args()
    rows = read_rows(args.data)
    errors, ratios, groups, skipped = [], [], {}, []
    banded = inband = 0
    print(f"{'id':6} {'model':11} {'hardware':11} {'quant':7} {'ctx':>5} {'engine':9} {'split':6} "
          f"{'measured':>9} {'estimate':>9} {'ratio':>6}")
    for r in rows:
        doc = plan(args.axl, r, args.baseline)
        dec, where = estimate_for(doc, r, args.baseline, errors)
        if dec is None:
            # the search never goes deeper than the shallowest pipeline that fits (at batch
            # 1 a deeper one is only slower), so a run that spread a small model over more
            # devices than it needs has no estimate to compare; it is listed, not counted
            best = doc.get("plan") or {}
            st = best.get("strategy", {})
            if int(r["tp"]) == 1 and st.get("tp") == 1 and 0 < st.get("pp", 0) < int(r["pp"]) and doc.get("fits"):
                skipped.append(f"{r['id']} (pp {r['pp']}; the model fits on {st['pp']})")
                continue
            errors.append(f"{r['id']}: no estimate for tp {r['tp']} x pp {r['pp']} on {r['hardware']}")
            continue
        meas = float(r["measured_decode_tok_s"])
        ratio = dec / meas
        ratios.append(ratio)
        if not args.baseline and where == "plan":
            band = doc["estimate"]["decode_band_tokens_per_s"]
            banded += 1
            inband += 1 if band[0] <= meas <= band[1] else 0
        fmt = r["quant"]
        groups.setdefault((r["axl_engine"], fmt), []).append(ratio)
        print(f"{r['id']:6} {r['model']:11} {r['hardware']:11} {fmt:7} {r['context']:>5} {r['axl_engine']:9} "
              f"{r['tp']}x{r['pp']:<4} {meas:9.2f} {dec:9.2f} {ratio:6.3f}")
    if not ratios:
        raise SystemExit("no measurement compared")
    med = statistics.median(ratios)
    within = sum(1 for x in ratios if 0.8 <= x <= 1.2)
    high = sum(1 for x in ratios if x > 1.0)
    print()
    for (eng, fmt), rs in sorted(groups.items()):
        print(f"  {eng:9} {fmt:7} n={len(rs):2} median ratio {statistics.median(rs):.3f}")
    lr = sorted(ratios)
    print(f"\n{len(ratios)} measurements: median estimate/measured {med:.3f}, within +-20% {within} "
          f"({100.0 * within / len(ratios):.0f}%), estimate above measured in {high}; "
          f"ratio 10th-90th percentile {lr[len(lr) // 10]:.3f}-{lr[(9 * len(lr)) // 10]:.3f}")
    if banded:
        # the bands are the residuals' 10th-90th percentiles: about 80% inside
        print(f"measured inside the stated band: {inband} of {banded} ({100.0 * inband / banded:.0f}%)")
        if inband < 0.7 * banded:
            errors.append(f"only {inband} of {banded} measurements inside their band")
    if skipped:
        print(f"not compared ({len(skipped)}): " + ", ".join(skipped))
    if not (args.lo <= med <= args.hi):
        errors.append(f"median ratio {med:.3f} outside {args.lo}-{args.hi}")
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
