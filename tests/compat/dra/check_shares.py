#!/usr/bin/python3
"""axl dra-plugin --shares N: devices as consumable capacity, and each claim's share held by
the limiter, against the fake API server (fake_apiserver.py, every slice validated against
the resource.k8s.io/v1 OpenAPI schema of openapi/) and the fake kubelet (fake_kubelet.py).

Written from kubernetes/kubernetes staging/src/k8s.io/api/resource/v1/types.go
(Device.allowMultipleAllocations; DeviceCapacity.requestPolicy {default, validRange {min,
max, step}}: "Max (if set) and requestPolicy.default must be a multiple of Step", "Min +
Step must be less than or equal to the capacity value"; DeviceRequestAllocationResult
{consumedCapacity, shareID}) and staging/src/k8s.io/dynamic-resource-allocation/structured/
internal/experimental/consumed_capacity.go (what the scheduler writes in consumedCapacity:
the request rounded up to min + k*step; the policy's default for a capacity not
requested). No scheduler runs here: the claims carry what it would have written.

usage: check_shares.py AXL WORKDIR CASE   (CASE: slices, prepare, bad, gate_off)
  slices:  --shares 4 on the 8xH100 and mixed sims: each NVIDIA device published with
           allowMultipleAllocations, memory (80Gi; default, min, step 20Gi, max 80Gi) and
           compute (100; 25, 25, 25, 100); the AMD devices whole; --shares 3: max 3 steps;
           without --shares: no policy.
  prepare: a 1/4 share (memory 20Gi of 80Gi, compute 25), a second claim on the same
           device with no consumedCapacity (the defaults), two shares of one device in one
           claim (they add up): the CDI spec of each claim holds the limiter's variables
           and mounts; idempotent; kill -9 and restart; unprepare removes the spec.
  bad:     more memory than the device has, not a quantity, zero compute, two shares
           adding up past the device: an error for that claim only, the others prepared.
  gate_off: a server that drops allowMultipleAllocations (DRAConsumableCapacity off, as the
           upstream resourceslice controller's tests make one): written once, no loop.
The work directory is removed when the check passes, kept when it fails.
"""
import json
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import workdir  # noqa: E402
import check_kubelet as ck  # noqa: E402
import check_slices as cs  # noqa: E402

DRIVER, NS, SIMS = ck.DRIVER, ck.NS, ck.SIMS
check, Fail = cs.check, cs.Fail
GI = 1 << 30
LIMITER = "/opt/axl/lib/libaxl_limiter.so"  # KP_LIMITER_PATH (src/compat/kubernetes/limiter.h)


def shared_claim(name, uid, node, results):
    """An allocated claim; results: [(device, consumedCapacity or None, shareID)]."""
    c = ck.claim(name, uid, node, [("gpus", DRIVER, dev, False) for dev, _, _ in results])
    for r, (_, consumed, share) in zip(c["status"]["allocation"]["devices"]["results"], results):
        if consumed is not None:
            r["consumedCapacity"] = consumed
        if share:
            r["shareID"] = share
    return c


def published(env):
    return cs.wait_for("the pool's slices", lambda: cs.pool_devices(env.srv, env.node), 15)


def policy(dev, name):
    c = dev.get("capacity", {}).get(name)
    check(c is not None, "%s: no capacity %s: %s" % (dev["name"], name, dev.get("capacity")))
    return c


def claim_spec(env, uid):
    p = os.path.join(env.cdi, "%s-claim-%s.json" % (DRIVER, uid))
    return json.load(open(p)) if os.path.exists(p) else None


def check_limits(env, uid, want):
    """The claim's CDI spec: one device whose edits preload the limiter with want's limits
    (uuid -> (bytes, percent))."""
    spec = claim_spec(env, uid)
    check(spec is not None, "claim %s: no CDI spec of its shares in %s: %s" % (uid, env.cdi, os.listdir(env.cdi)))
    check(spec["kind"] == DRIVER + "/claim" and len(spec["devices"]) == 1, "spec %s" % spec)
    ed = spec["devices"][0]["containerEdits"]
    env_ = dict(e.split("=", 1) for e in ed["env"])
    # the claim's own set of the limiter's lists, named after its UID (docs/limits.md)
    sfx = "_" + re.sub(r"[^A-Z0-9]", "_", uid.upper())
    check(not any(k in env_ for k in ("AXL_LIMIT_DEVICES", "AXL_LIMIT_MEMORY_BYTES")), "a plain set: %s" % env_)
    devs = env_["AXL_LIMIT_DEVICES" + sfx].split(",")
    mem = [int(x) for x in env_["AXL_LIMIT_MEMORY_BYTES" + sfx].split(",")]
    pct = [int(x) for x in env_["AXL_LIMIT_COMPUTE_PERCENT" + sfx].split(",")]
    check(env_["AXL_LIMIT_VERSION"] == "1", "version %s" % env_)
    got = {d: (m, p) for d, m, p in zip(devs, mem, pct)}
    check(got == want, "claim %s: limits %s, want %s" % (uid, got, want))
    mounts = {m["containerPath"]: m for m in ed["mounts"]}
    check(LIMITER in mounts and os.path.exists(mounts[LIMITER]["hostPath"]), "limiter mount: %s" % ed["mounts"])
    check("ro" in mounts[LIMITER]["options"], "the limiter is mounted read-only: %s" % mounts[LIMITER])
    # the build tree's limiter has its ld.so.preload beside it: no LD_PRELOAD of ours
    check("/etc/ld.so.preload" in mounts and "LD_PRELOAD" not in env_, "preload: %s %s" % (ed["mounts"], env_))
    check(open(mounts["/etc/ld.so.preload"]["hostPath"]).read() == LIMITER + "\n", "the preload list")
    return "%s/claim=%s" % (DRIVER, spec["devices"][0]["name"])


def case_slices(axl, work):
    for sim, n, extra in (("h100x8-nvswitch.json", 4, ["--shares", "4"]), ("mixed.json", 4, ["--shares", "4"]),
                          ("h100x8-nvswitch.json", 3, ["--shares", "3"]), ("h100x8-nvswitch.json", 1, [])):
        sub = os.path.join(work, "%s-%d" % (sim.split(".")[0], n))
        os.makedirs(sub)
        cs.make_certs(sub)
        env = ck.Env(axl, sub, os.path.join(SIMS, sim))
        try:
            env.start_server()
            env.kubelet.start()
            env.start_driver(extra + ["--publish-only"])
            devs = published(env)
            nv = [d for d in devs if d["attributes"].get("vendor", {}).get("string") == "NVIDIA"]
            others = [d for d in devs if d not in nv]
            check(nv, "%s: no NVIDIA device" % sim)
            for d in nv:
                if n == 1:
                    check("allowMultipleAllocations" not in d and set(d["capacity"]) == {"memory"} and
                          "requestPolicy" not in d["capacity"]["memory"], "%s without --shares: %s" % (sim, d))
                    continue
                check(d.get("allowMultipleAllocations") is True, "%s: not shared: %s" % (d["name"], d))
                mem, cpu = policy(d, "memory"), policy(d, "compute")
                if "h100" in sim:
                    check(mem["value"] == "80Gi", "memory %s" % mem)
                    step = {4: "20Gi", 3: "27306Mi"}[n]
                    mx = {4: "80Gi", 3: "81918Mi"}[n]
                    rp = mem["requestPolicy"]
                    check(rp == {"default": step, "validRange": {"min": step, "max": mx, "step": step}},
                          "--shares %d: memory policy %s" % (n, rp))
                    cstep, cmax = str(100 // n), str(100 // n * n)
                    check(cpu == {"value": "100", "requestPolicy": {"default": cstep, "validRange": {
                        "min": cstep, "max": cmax, "step": cstep}}}, "--shares %d: compute %s" % (n, cpu))
            for d in others:  # no limiter holds them: whole, as the device plugin advertises them
                check("allowMultipleAllocations" not in d and "compute" not in d.get("capacity", {}),
                      "%s: %s is shared" % (sim, d["name"]))
            check(env.stop_driver() == 0, "exit status")
        finally:
            env.close()


def case_gate_off(axl, work):
    """A server without DRAConsumableCapacity drops allowMultipleAllocations from what it
    stores (as the resourceslice controller's tests make one: disableConsumableCapacity):
    the slice stored is taken as published once, not written again in a loop."""
    import time
    cs.make_certs(work)
    env = ck.Env(axl, work, os.path.join(SIMS, "h100x8-nvswitch.json"))
    try:
        env.start_server()
        env.srv.call("POST", "/_fake/drop_field", {"name": "allowMultipleAllocations"})
        env.start_driver(["--shares", "4", "--publish-only"])
        devs = published(env)
        check(all("allowMultipleAllocations" not in d for d in devs), "the server kept the field")
        check(all(d["capacity"]["memory"]["requestPolicy"]["default"] == "20Gi" for d in devs), "the policies")
        time.sleep(1)
        t = time.time()
        time.sleep(2)
        reqs = env.srv.requests(t)
        check(not reqs, "the field dropped by the server: a rewrite loop: %s" % reqs[:10])
        env.alive()
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def start(axl, work, claims_fn):
    cs.make_certs(work)
    env = ck.Env(axl, work, os.path.join(SIMS, "h100x8-nvswitch.json"))
    env.start_server()
    env.kubelet.start()
    env.start_driver(["--shares", "4"])
    names = [d["name"] for d in published(env)]
    uuids = {d["name"]: d["attributes"]["uuid"]["string"] for d in published(env)}
    env.stop_driver()
    env.srv.stop()
    env.add_claims(claims_fn(env.node, names))
    env.start_server()
    env.start_driver(["--shares", "4"])
    env.registered()
    return env, names, uuids


def case_prepare(axl, work):
    def claims(node, names):
        g0, g1 = names[0], names[1]
        return [shared_claim("quarter", "uid-quarter", node, [(g0, {"memory": "20Gi", "compute": "25"}, "s-1")]),
                shared_claim("default", "uid-default", node, [(g0, None, "s-2")]),
                shared_claim("two", "uid-two", node, [(g1, {"memory": "20Gi", "compute": "25"}, "s-3"),
                                                      (g1, {"memory": "40Gi", "compute": "50"}, "s-4")])]
    env, names, uuids = start(axl, work, claims)
    try:
        u0, u1 = uuids[names[0]], uuids[names[1]]
        g0 = env.claim_gets()
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-quarter", "quarter"), (NS, "uid-default", "default"),
                                         (NS, "uid-two", "two")])
        for uid in ("uid-quarter", "uid-default", "uid-two"):
            check(not r.claims[uid].error, "%s: %s" % (uid, r.claims[uid].error))
        # two claims on one device: both prepared, each with its own spec and CDI id
        q = check_limits(env, "uid-quarter", {u0: (20 * GI, 25)})
        d = check_limits(env, "uid-default", {u0: (20 * GI, 25)})  # the policy's defaults
        t = check_limits(env, "uid-two", {u1: (60 * GI, 75)})  # two shares of one device add up
        check(len({q, d, t}) == 3, "CDI ids repeat: %s" % [q, d, t])
        # one container given the quarter and the default claim: a runtime applies both
        # specs' env (a name given again replaces the value, as runtime-tools'
        # AddProcessEnv does for the CDI edits); both claims' sets stay, and the limiter
        # adds them up on the device (limiter.claims)
        merged = {}
        for uid in ("uid-quarter", "uid-default"):
            for e in claim_spec(env, uid)["devices"][0]["containerEdits"]["env"]:
                k, v = e.split("=", 1)
                merged[k] = v
        sets = sorted(k for k in merged if k.startswith("AXL_LIMIT_DEVICES_"))
        check(sets == ["AXL_LIMIT_DEVICES_UID_DEFAULT", "AXL_LIMIT_DEVICES_UID_QUARTER"]
              and all(merged[k] == u0 for k in sets), "two claims in one container: %s" % merged)
        ids = ck.cdi_devices(env.cdi)
        for uid, cid in (("uid-quarter", q), ("uid-default", d), ("uid-two", t)):
            devs = r.claims[uid].devices
            all_ids = [c for x in devs for c in x.cdi_device_ids]
            check(all_ids.count(cid) == 1, "%s: its share's CDI id %s once: %s" % (uid, cid, all_ids))
            check(all(c in ids for c in all_ids), "%s: CDI ids %s not all in %s" % (uid, all_ids, sorted(ids)[:5]))
            check(all(x.device_name in names[:2] for x in devs), "%s: devices %s" % (uid, devs))
        check(len(r.claims["uid-two"].devices) == 2, "two results, two devices: %s" % r.claims["uid-two"])
        # each device answered with its result's shareID (kubelet v1 Device.share_id)
        sids = {uid: sorted(x.share_id for x in r.claims[uid].devices) for uid in r.claims}
        check(sids == {"uid-quarter": ["s-1"], "uid-default": ["s-2"], "uid-two": ["s-3", "s-4"]},
              "share ids %s" % sids)
        # idempotent, and kept across kill -9
        g1 = env.claim_gets()
        check(g1 - g0 == 3, "%d claim reads for 3 claims" % (g1 - g0))
        env.restart_driver(signal.SIGKILL)
        again = env.kubelet.prepare(DRIVER, [(NS, "uid-quarter", "quarter")])
        check(again.claims["uid-quarter"] == r.claims["uid-quarter"], "after a restart: %s" % again)
        check(env.claim_gets() == g1, "a prepared claim was read again")
        # unprepare: the claim's spec goes, the other claim's on the same device stays
        u = env.kubelet.unprepare(DRIVER, [(NS, "uid-quarter", "quarter")])
        check(not u.claims["uid-quarter"].error, "unprepare: %s" % u)
        check(claim_spec(env, "uid-quarter") is None, "the unprepared claim's spec stays")
        check_limits(env, "uid-default", {u0: (20 * GI, 25)})
        u = env.kubelet.unprepare(DRIVER, [(NS, "uid-default", "default"), (NS, "uid-two", "two")])
        check(not any(v.error for v in u.claims.values()), "unprepare: %s" % u)
        left = [f for f in os.listdir(env.cdi) if "-claim-" in f]
        check(left == [], "claims' specs left: %s" % left)
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def case_bad(axl, work):
    def claims(node, names):
        g0 = names[0]
        return [shared_claim("toomuch", "uid-toomuch", node, [(g0, {"memory": "100Gi", "compute": "25"}, "s-1")]),
                shared_claim("nan", "uid-nan", node, [(g0, {"memory": "lots"}, "s-2")]),
                shared_claim("zero", "uid-zero", node, [(g0, {"memory": "20Gi", "compute": "0"}, "s-3")]),
                shared_claim("over", "uid-over", node, [(g0, {"memory": "60Gi", "compute": "75"}, "s-4"),
                                                        (g0, {"memory": "40Gi", "compute": "50"}, "s-5")]),
                shared_claim("fine", "uid-fine", node, [(g0, {"memory": "40Gi", "compute": "50"}, "s-6")])]
    env, names, uuids = start(axl, work, claims)
    try:
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-" + n, n) for n in ("toomuch", "nan", "zero", "over", "fine")])
        want = {"uid-toomuch": "more than the device has", "uid-nan": "memory is not a quantity",
                "uid-zero": "compute is 0", "uid-over": "add up to more than the device has"}
        for uid, part in want.items():
            check(part in r.claims[uid].error, "%s: error %r, want %r" % (uid, r.claims[uid].error, part))
            check(claim_spec(env, uid) is None, "%s: a spec was written for a refused claim" % uid)
        check(not r.claims["uid-fine"].error, "fine: %s" % r.claims["uid-fine"].error)
        check_limits(env, "uid-fine", {uuids[names[0]]: (40 * GI, 50)})
        env.alive()
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def main():
    axl, work, case = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    fn = {"slices": case_slices, "prepare": case_prepare, "bad": case_bad, "gate_off": case_gate_off}[case]
    return workdir.run_fresh(work, lambda w: fn(axl, w), Fail)


if __name__ == "__main__":
    sys.exit(main())
