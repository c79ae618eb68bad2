#!/usr/bin/env python3
"""deploy/kubernetes: what an operator relies on, checked without a cluster.

Every manifest parses (python3-yaml) and the Kustomize base names them all; then:
 - the DaemonSet: its selector matches its pod labels; the image is the one the
   kustomization's images: entry rewrites; command /usr/bin/axl (the image's
   entrypoint) with a sub-command and options that `axl help CMD` lists (`axl agent`'s
   interface from docs/deploy.md where the built axl has no agent yet);
 - the mounts: /sys and /dev from the host read-only at the same paths, the host's root
   read-only at AXL_DRIVER_ROOT (/host, HostToContainer propagation: the GPU Operator's
   driver root appears there later), the NFD features.d folder and /var/run/cdi writable
   and exactly the folders of --labels-file and --cdi-dir; every mount names a volume,
   every volume is mounted;
 - the port 9400 named in --listen; readiness and liveness probes on /healthz at it;
 - the security context: read-only root, no privilege escalation, every capability
   dropped and none added, not privileged, no host network or IPC, seccomp
   RuntimeDefault, no service-account token; no container is both privileged and
   without privilege escalation (the API server refuses that pair);
 - small requests (cpu <= 50m, memory <= 64Mi) and a memory limit;
 - tolerations for the accelerator taints; the node affinity: accelerator nodes by
   NFD's PCI labels of accelerator classes (or by hand), every term on linux, amd64;
 - the device-plugin container: `axl device-plugin` with options axl knows, the
   kubelet's socket folder writable and /sys, /dev, the host's root read-only at the
   host's paths (the root at /host, AXL_DRIVER_ROOT), privileged as NVIDIA's and ROCm's
   own plugins are (the devices NVML and ROCm SMI open), read-only root, small
   requests; the limiter init container copies the limiter to a host folder at the same
   path (where the kubelet mounts it from for shares);
 - the Service selects the pods and targets the named port; the ServiceMonitor selects
   the Service by its labels, in its namespace, at that port and /metrics;
 - the all-nodes overlay: a patch of the same DaemonSet whose one term keeps linux and
   the image's architecture.
 - deploy/kubernetes/dra (axl dra-plugin, as kubernetes-sigs/dra-example-driver's chart
   deploys its kubelet plugin): the DaemonSet runs `axl dra-plugin` with options `axl help
   dra-plugin` lists, as the ServiceAccount the ClusterRoleBinding binds, NODE_NAME from
   spec.nodeName, the kubelet's registry and plugin folders, the CDI folder and the
   checkpoint's AXL_STATE_DIR from the host at the same paths, writable; the ClusterRole's
   rules exactly dra-example-driver's (resourceslices get/list/watch/create/update/patch/
   delete, resourceclaims get/list/watch, nodes get); the ValidatingAdmissionPolicy
   matches slice writes of the driver's account and compares the user's extra
   authentication.kubernetes.io/node-name with spec.nodeName; every DeviceClass and every
   claim of docs/kubernetes.md is resource.k8s.io/v1 with a DNS-subdomain name, its CEL
   reading the driver's or resource.kubernetes.io's attributes (a class's after has()),
   a class pinning device.driver; the extendedResourceNames are the vendors' usual names,
   one class each; claims name classes the folder makes. (That the attributes read are
   those the driver publishes: check_dra_classes.py, deploy.dra_classes.)

usage: check_manifests.py --axl BIN
"""

import argparse
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
KDIR = os.path.join(TOP, "deploy", "kubernetes")
# docs/deploy.md: `axl agent [--listen ADDR:PORT] [--labels-file PATH] [--cdi-dir DIR]
# [--cdi-format json|yaml] [--interval DURATION] [serve's options]`
AGENT_OPTIONS = {"--listen", "--labels-file", "--cdi-dir", "--cdi-format", "--interval"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def quantity(q):
    """a Kubernetes quantity as a number (cpu in cores, memory in bytes)"""
    m = re.fullmatch(r"([0-9.]+)(m|Ki|Mi|Gi|k|M|G)?", str(q))
    if not m:
        return None
    mult = {None: 1, "m": 1e-3, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "k": 1e3, "M": 1e6, "G": 1e9}
    return float(m.group(1)) * mult[m.group(2)]


def options_of(axl, cmd):
    """the options `axl help CMD` lists, or None when the command does not exist"""
    r = subprocess.run([axl, "help", cmd], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", r.stdout))


def check_args(axl, args):
    cmd = args[0]
    opts = options_of(axl, cmd)
    if opts is None and cmd == "agent":
        print("note: this axl has no `agent` yet; its options checked against docs/deploy.md")
        opts = AGENT_OPTIONS
    if not check(opts is not None, "the DaemonSet runs `axl %s`, which axl does not know" % cmd):
        return {}
    given = {}
    i = 1
    while i < len(args):
        o = args[i]
        check(o in opts, "`axl %s` takes no %s" % (cmd, o))
        check(i + 1 < len(args) and not args[i + 1].startswith("--"), "%s without a value" % o)
        given[o] = args[i + 1] if i + 1 < len(args) else None
        i += 2
    return given


# ---- deploy/kubernetes/dra: axl dra-plugin (docs/kubernetes.md, Dynamic Resource Allocation)
DDIR = os.path.join(KDIR, "dra")
DOCS = os.path.join(TOP, "docs", "kubernetes.md")
DRIVER = "gpu.axl.dev"
# kubernetes-sigs/dra-example-driver, deployments/helm/dra-example-driver/templates/
# clusterrole.yaml at 31914ceacda29bbc55208ef75e68c0991e1c9568: what a node's driver is
# granted (its resourceclaims/status and resourceclaims/driver writes left out: axl writes
# no claim status)
DRA_RULES = {
    ("resource.k8s.io", "resourceslices"): ["get", "list", "watch", "create", "update", "patch", "delete"],
    ("resource.k8s.io", "resourceclaims"): ["get", "list", "watch"],
    ("", "nodes"): ["get"],
}
# the vendors' usual extended resource names (their device plugins': NVIDIA's
# k8s-device-plugin, ROCm's k8s-device-plugin, Intel's gpu_plugin), by the vendor a class
# selects
VENDOR_RESOURCES = {"NVIDIA": "nvidia.com/gpu", "AMD": "amd.com/gpu", "Intel": "gpu.intel.com/i915"}
DNS_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
DNS_SUBDOMAIN = r"(?=.{1,253}$)%s(\.%s)*" % (DNS_LABEL, DNS_LABEL)
# device.attributes["DOMAIN"].NAME, device.capacity["DOMAIN"].NAME
CEL_REF = re.compile(r'device\.(attributes|capacity)\[\s*["\']([^"\']+)["\']\s*\]\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)')


def cel_refs(expr):
    """the (attributes|capacity, domain, name) an expression reads, and whether every
    device.attributes/device.capacity in it was understood"""
    refs = CEL_REF.findall(expr)
    whole = len(refs) == len(re.findall(r"device\.(?:attributes|capacity)\b", expr))
    return refs, whole


def dra_documents():
    """the documents of deploy/kubernetes/dra, by file"""
    kust = load(os.path.join(DDIR, "kustomization.yaml"))[0]
    files = sorted(f for f in os.listdir(DDIR) if f.endswith(".yaml") and f != "kustomization.yaml")
    check(sorted(kust["resources"]) == files, "dra: kustomization resources %r, folder holds %r" % (kust["resources"], files))
    return kust, {f: load(os.path.join(DDIR, f)) for f in files}


def doc_claims():
    """the YAML examples of docs/kubernetes.md that are resource.k8s.io objects"""
    text = open(DOCS).read()
    out = []
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        for d in yaml.safe_load_all(block):
            if isinstance(d, dict) and str(d.get("apiVersion", "")).startswith("resource.k8s.io"):
                out.append(d)
    return out


def selectors_of(obj):
    """(where, CEL expression) of a DeviceClass's or a claim's selectors"""
    out = []
    if obj["kind"] == "DeviceClass":
        for s in obj["spec"].get("selectors", []):
            out.append((obj["metadata"]["name"], s["cel"]["expression"]))
    else:
        for r in obj["spec"]["devices"]["requests"]:
            for s in r.get("exactly", {}).get("selectors", []):
                out.append(("%s/%s" % (obj["metadata"]["name"], r["name"]), s["cel"]["expression"]))
    return out


def check_dra(axl, ns):
    kust, byfile = dra_documents()
    docs = {}
    for f, ds in byfile.items():
        for d in ds:
            check({"apiVersion", "kind", "metadata"} <= set(d), "dra/%s: a document without apiVersion/kind/metadata" % f)
            docs.setdefault(d["kind"], []).append(d)
    check(set(docs) == {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "DaemonSet",
                        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "DeviceClass"},
          "dra: kinds %r" % sorted(docs))
    check(docs["Namespace"][0]["metadata"]["name"] == ns, "dra: namespace %s, the base's is %s" % (docs["Namespace"][0]["metadata"]["name"], ns))
    sa = docs["ServiceAccount"][0]["metadata"]
    check(sa.get("namespace") == ns, "dra: service account in %r" % sa.get("namespace"))

    # the DaemonSet
    ds = docs["DaemonSet"][0]
    check(ds["apiVersion"] == "apps/v1" and ds["metadata"].get("namespace") == ns, "dra: DaemonSet %s in %r" % (ds["apiVersion"], ds["metadata"].get("namespace")))
    pod = ds["spec"]["template"]
    sel = ds["spec"]["selector"]["matchLabels"]
    check(all(pod["metadata"]["labels"].get(k) == v for k, v in sel.items()), "dra: DaemonSet selector does not match its pods")
    spec = pod["spec"]
    check(spec.get("serviceAccountName") == sa["name"], "dra: pods run as %r, not %s" % (spec.get("serviceAccountName"), sa["name"]))
    check(spec.get("automountServiceAccountToken") is not False, "dra: the service-account token is not mounted (the driver needs it)")
    check(len(spec["containers"]) == 1, "dra: %d containers" % len(spec["containers"]))
    c = spec["containers"][0]
    names = [i["name"] for i in kust.get("images", [])]
    check(c["image"].rsplit(":", 1)[0] in names, "dra: image %s is not the one kustomization's images: rewrites" % c["image"])
    check(c.get("command") == ["/usr/bin/axl"], "dra: command %r" % c.get("command"))
    args = c.get("args", [])
    check(args[:1] == ["dra-plugin"], "dra: the DaemonSet runs axl %r, not dra-plugin" % args[:1])
    given = check_args(axl, args) if args[:1] == ["dra-plugin"] else {}
    check("--publish-only" not in given, "dra: --publish-only: no kubelet service")
    driver = given.get("--driver-name", DRIVER)
    check(driver == DRIVER, "dra: --driver-name %s, the DeviceClasses select %s" % (driver, DRIVER))
    env = {e["name"]: e for e in c.get("env", [])}
    check("--node-name" not in given and env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName",
          "dra: NODE_NAME is not the downward API's spec.nodeName (--node-name's default)")
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    check({m["name"] for m in mounts.values()} == set(vols), "dra: a volume is not mounted, or a mount names no volume")
    folders = {"--kubelet-registry-dir": given.get("--kubelet-registry-dir", "/var/lib/kubelet/plugins_registry"),
               "--kubelet-plugin-dir": given.get("--kubelet-plugin-dir", "/var/lib/kubelet/plugins/" + driver),
               "--cdi-dir": given.get("--cdi-dir", "/var/run/cdi")}
    check(folders["--kubelet-registry-dir"] == "/var/lib/kubelet/plugins_registry", "dra: registry dir %s is not the kubelet's" % folders["--kubelet-registry-dir"])
    check(folders["--kubelet-plugin-dir"] == "/var/lib/kubelet/plugins/" + driver, "dra: plugin dir %s" % folders["--kubelet-plugin-dir"])
    check(folders["--cdi-dir"] in ("/var/run/cdi", "/etc/cdi"), "dra: --cdi-dir %s is no CDI spec folder" % folders["--cdi-dir"])
    state = env.get("AXL_STATE_DIR", {}).get("value")
    for what, path in list(folders.items()) + [("AXL_STATE_DIR (the checkpoint)", state)]:
        m = next((m for p, m in mounts.items() if path and (path == p or path.startswith(p.rstrip("/") + "/"))), None)
        v = vols.get(m["name"], {}) if m else {}
        host = v.get("hostPath", {}).get("path")
        check(m is not None and not m.get("readOnly") and host is not None and host + path[len(m["mountPath"]):] == path,
              "dra: %s %s is not the host's folder at the same path, writable" % (what, path))
    for p in ("/sys", "/dev", "/host"):
        check(p in mounts and mounts[p].get("readOnly") is True, "dra: %s not mounted read-only" % p)
    check(env.get("AXL_DRIVER_ROOT", {}).get("value") == "/host", "dra: AXL_DRIVER_ROOT is not /host")
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, "dra: root file system not read-only")
    check(not (sc.get("privileged") and sc.get("allowPrivilegeEscalation") is False), "dra: privileged without privilege escalation")
    req, lim = c.get("resources", {}).get("requests", {}), c.get("resources", {}).get("limits", {})
    check(quantity(req.get("cpu")) is not None and quantity(req["cpu"]) <= 0.05, "dra: cpu request %r" % req.get("cpu"))
    check(quantity(lim.get("memory")) is not None, "dra: no memory limit")
    check(spec.get("affinity") is not None and spec.get("tolerations"), "dra: no node affinity or tolerations")
    # the liveness probe as the reference's: grpc on --healthcheck-port, service "liveness"
    probe, hport = c.get("livenessProbe", {}).get("grpc", {}), given.get("--healthcheck-port", "-1")
    check(int(hport) > 0 and probe.get("port") == int(hport) and probe.get("service") == "liveness",
          "dra: livenessProbe %r is not grpc on --healthcheck-port %s, service liveness" % (c.get("livenessProbe"), hport))

    # RBAC: exactly the reference's rules, bound to the DaemonSet's service account
    role = docs["ClusterRole"][0]
    rules = {}
    for r in role["rules"]:
        for g in r["apiGroups"]:
            for res in r["resources"]:
                check((g, res) not in rules, "dra: %s/%s in two rules" % (g, res))
                rules[(g, res)] = r["verbs"]
                check("resourceNames" not in r, "dra: rule %r has resourceNames" % r)
    check({k: sorted(v) for k, v in rules.items()} == {k: sorted(v) for k, v in DRA_RULES.items()},
          "dra: ClusterRole rules %r, dra-example-driver's are %r" % (rules, DRA_RULES))
    rb = docs["ClusterRoleBinding"][0]
    check(rb["roleRef"] == {"kind": "ClusterRole", "name": role["metadata"]["name"], "apiGroup": "rbac.authorization.k8s.io"},
          "dra: binding's roleRef %r" % rb["roleRef"])
    check(rb["subjects"] == [{"kind": "ServiceAccount", "name": sa["name"], "namespace": ns}], "dra: binding's subjects %r" % rb["subjects"])

    # the ValidatingAdmissionPolicy: the driver's writes of slices, on its own node only
    vap = docs["ValidatingAdmissionPolicy"][0]
    check(vap["apiVersion"] == "admissionregistration.k8s.io/v1", "dra: VAP apiVersion %s" % vap["apiVersion"])
    rr = vap["spec"]["matchConstraints"]["resourceRules"]
    check(any(r["resources"] == ["resourceslices"] and "resource.k8s.io" in r["apiGroups"] and "v1" in r["apiVersions"]
              and set(r["operations"]) >= {"CREATE", "UPDATE", "DELETE"} for r in rr), "dra: VAP does not match slice writes: %r" % rr)
    check(vap["spec"].get("failurePolicy") == "Fail", "dra: VAP failurePolicy %r" % vap["spec"].get("failurePolicy"))
    conds = " ".join(m["expression"] for m in vap["spec"].get("matchConditions", []))
    check("system:serviceaccount:%s:%s" % (ns, sa["name"]) in conds, "dra: VAP does not pick the driver's service account: %s" % conds)
    exprs = " ".join(v["expression"] for v in vap["spec"].get("variables", []) + vap["spec"]["validations"])
    check("'authentication.kubernetes.io/node-name'" in exprs and "request.userInfo.extra" in exprs, "dra: VAP does not read the node-name extra")
    check(re.search(r"\.spec\.\??nodeName", exprs) is not None and "oldObject" in exprs, "dra: VAP does not compare spec.nodeName (of the deleted object too)")
    vb = docs["ValidatingAdmissionPolicyBinding"][0]
    check(vb["spec"]["policyName"] == vap["metadata"]["name"] and vb["spec"]["validationActions"] == ["Deny"],
          "dra: VAP binding %r" % vb["spec"])

    # the DeviceClasses and the claims of docs/kubernetes.md
    classes = docs["DeviceClass"]
    claims = doc_claims()
    check(len(claims) >= 3, "dra: %d resource.k8s.io examples in docs/kubernetes.md, 3 claims wanted" % len(claims))
    cnames = {d["metadata"]["name"] for d in classes}
    ern = {}
    for d in classes + claims:
        name = d["metadata"]["name"]
        check(d["apiVersion"] == "resource.k8s.io/v1", "%s: apiVersion %s" % (name, d["apiVersion"]))
        check(re.fullmatch(DNS_SUBDOMAIN, name) is not None, "%s: not a DNS subdomain" % name)
        for where, expr in selectors_of(d):
            check(re.search(r'device\.driver\s*==\s*"%s"' % re.escape(DRIVER), expr) is not None or d["kind"] != "DeviceClass",
                  "%s: the selector does not pin device.driver to %s" % (where, DRIVER))
            refs, whole = cel_refs(expr)
            check(whole, "%s: a device.attributes/capacity read the check cannot parse: %s" % (where, expr))
            for kind, dom, attr in refs:
                check(dom in (DRIVER, "resource.kubernetes.io"), "%s: domain %s" % (where, dom))
                # a robust expression checks an attribute's presence before reading it
                # (the resource.k8s.io/v1 DeviceSelector's documentation); capacities and
                # the model read after the class's vendor pin are the claims' own choice
                if d["kind"] == "DeviceClass" and kind == "attributes":
                    check('has(device.attributes["%s"].%s)' % (dom, attr) in expr, "%s: reads %s without has()" % (where, attr))
    for d in classes:
        e = d["spec"].get("extendedResourceName")
        if e is None:
            continue
        check(e not in ern.values(), "dra: two classes serve %s" % e)
        ern[d["metadata"]["name"]] = e
        vendor = re.search(r'\.vendor\s*==\s*"([^"]+)"', " ".join(x for _, x in selectors_of(d)))
        check(vendor is not None and VENDOR_RESOURCES.get(vendor.group(1)) == e,
              "%s: extendedResourceName %s, the vendor's usual name is %s" % (d["metadata"]["name"], e,
                                                                               vendor and VENDOR_RESOURCES.get(vendor.group(1))))
    check(set(ern.values()) == set(VENDOR_RESOURCES.values()), "dra: extended resources served %r" % sorted(ern.values()))
    for cl in claims:
        check(cl["kind"] in ("ResourceClaim", "ResourceClaimTemplate"), "docs: a %s among the claims" % cl["kind"])
        for r in cl["spec"]["devices"]["requests"]:
            ex = r.get("exactly", {})
            check(ex.get("deviceClassName") in cnames, "docs: claim %s asks for class %r, which deploy/kubernetes/dra does not make"
                  % (cl["metadata"]["name"], ex.get("deviceClassName")))
            for cap in ex.get("capacity", {}).get("requests", {}):
                check(quantity(ex["capacity"]["requests"][cap]) is not None, "docs: claim %s: capacity %s" % (cl["metadata"]["name"], cap))
        for con in cl["spec"]["devices"].get("constraints", []):
            ma = con.get("matchAttribute", "")
            check(ma.startswith(DRIVER + "/") or ma.startswith("resource.kubernetes.io/"), "docs: matchAttribute %s" % ma)
    return classes, claims


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    a = ap.parse_args()

    kust = load(os.path.join(KDIR, "kustomization.yaml"))[0]
    files = sorted(f for f in os.listdir(KDIR) if f.endswith(".yaml") and f != "kustomization.yaml")
    check(sorted(kust["resources"]) == files, "kustomization resources %r, folder holds %r" % (kust["resources"], files))
    docs = {}
    for f in files:
        for d in load(os.path.join(KDIR, f)):
            check({"apiVersion", "kind", "metadata"} <= set(d), "%s: a document without apiVersion/kind/metadata" % f)
            docs[d["kind"]] = d
    check(set(docs) == {"Namespace", "DaemonSet", "Service", "ServiceMonitor"}, "kinds: %r" % sorted(docs))
    ns = docs["Namespace"]["metadata"]["name"]
    for k in ("DaemonSet", "Service", "ServiceMonitor"):
        check(docs[k]["metadata"].get("namespace") == ns, "%s not in namespace %s" % (k, ns))

    ds = docs["DaemonSet"]
    check(ds["apiVersion"] == "apps/v1", "DaemonSet apiVersion %s" % ds["apiVersion"])
    pod = ds["spec"]["template"]
    plabels = pod["metadata"]["labels"]
    sel = ds["spec"]["selector"]["matchLabels"]
    check(all(plabels.get(k) == v for k, v in sel.items()), "DaemonSet selector %r does not match pod labels %r" % (sel, plabels))
    spec = pod["spec"]
    byname = {x["name"]: x for x in spec["containers"]}
    check(set(byname) == {"axl", "device-plugin"}, "containers %r: axl (the agent) and device-plugin" % sorted(byname))
    c = byname.get("axl", spec["containers"][0])

    # image and command
    img = c["image"]
    names = [i["name"] for i in kust.get("images", [])]
    check(img.rsplit(":", 1)[0] in names, "image %s is not the one kustomization's images: rewrites (%r)" % (img, names))
    check(c.get("command") == ["/usr/bin/axl"], "command %r, the image's entrypoint is /usr/bin/axl" % c.get("command"))
    args = c["args"]
    check(args[0] == "agent", "the DaemonSet runs axl %s, not agent" % args[0])
    given = check_args(a.axl, args)
    listen = given.get("--listen", "")
    check(listen.startswith("0.0.0.0:"), "--listen %r does not listen on the pod's address" % listen)
    port = int(listen.rsplit(":", 1)[1]) if ":" in listen else None

    # mounts
    vols = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    every = spec["containers"] + spec.get("initContainers", [])
    for x in every:
        for m in x["volumeMounts"]:
            check(m["name"] in vols, "%s: mount %s names no volume" % (x["name"], m["mountPath"]))
    check({m["name"] for x in every for m in x["volumeMounts"]} == set(vols), "a volume is not mounted")

    def host(path):
        m = mounts.get(path)
        if not check(m is not None, "nothing mounted at %s" % path):
            return None, None
        v = vols.get(m["name"], {})
        return v.get("hostPath", {}).get("path"), m
    for p in ("/sys", "/dev"):
        hp, m = host(p)
        check(hp == p and m and m.get("readOnly") is True, "%s: host %s, readOnly %r" % (p, hp, m and m.get("readOnly")))

    def driver_root(x, xmounts):
        """AXL_DRIVER_ROOT set to where the host's / is mounted read-only"""
        env = {e["name"]: e.get("value") for e in x.get("env", [])}
        check("AXL_NVML_LIBRARY" not in env, "%s: AXL_NVML_LIBRARY names one file (a dead link on Debian)" % x["name"])
        root = env.get("AXL_DRIVER_ROOT")
        m = xmounts.get(root) if root else None
        v = vols.get(m["name"], {}) if m else {}
        check(root == "/host" and m is not None and v.get("hostPath", {}).get("path") == "/" and
              m.get("readOnly") is True and m.get("mountPropagation") == "HostToContainer",
              "%s: AXL_DRIVER_ROOT %r is not the host's root mounted read-only (HostToContainer)" % (x["name"], root))
    driver_root(c, mounts)
    labels_file = given.get("--labels-file", "")
    check(labels_file.startswith("/etc/kubernetes/node-feature-discovery/features.d/"), "--labels-file %r not in NFD's features.d" % labels_file)
    for opt, path in (("--labels-file", os.path.dirname(labels_file)), ("--cdi-dir", given.get("--cdi-dir"))):
        hp, m = host(path)
        check(hp == path and m and not m.get("readOnly"), "%s folder %s: host %s, writable %r" % (opt, path, hp, m and not m.get("readOnly")))
        check(vols.get(m["name"] if m else "", {}).get("hostPath", {}).get("type") == "DirectoryOrCreate",
              "%s's folder is not made when missing" % opt)
    check(given.get("--cdi-dir") in ("/var/run/cdi", "/etc/cdi"), "--cdi-dir %r is no CDI spec folder" % given.get("--cdi-dir"))
    check(mounts.get("/tmp") is not None and "emptyDir" in vols.get(mounts["/tmp"]["name"], {}), "/tmp is no emptyDir")

    # port and probes
    ports = {p["name"]: p for p in c["ports"]}
    check("metrics" in ports and ports["metrics"]["containerPort"] == port, "container port metrics %r, --listen %r" % (ports, listen))
    for probe in ("readinessProbe", "livenessProbe"):
        pr = c.get(probe, {}).get("httpGet", {})
        check(pr.get("path") == "/healthz" and pr.get("port") in ("metrics", port), "%s: %r" % (probe, pr))

    # security
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, "root file system not read-only")
    check(sc.get("allowPrivilegeEscalation") is False, "privilege escalation allowed")
    check(sc.get("privileged") in (None, False), "privileged")
    for x in every:
        xs = x.get("securityContext", {})
        check(not (xs.get("privileged") is True and xs.get("allowPrivilegeEscalation") is False),
              "%s: privileged with allowPrivilegeEscalation false, which the API server refuses" % x["name"])
    check(sc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities not all dropped")
    check(not sc.get("capabilities", {}).get("add"), "capabilities added: %r" % sc.get("capabilities", {}).get("add"))
    for k in ("hostNetwork", "hostIPC"):
        check(not spec.get(k), "%s set" % k)
    check(spec.get("automountServiceAccountToken") is False, "service-account token mounted")
    check(spec.get("securityContext", {}).get("seccompProfile", {}).get("type") == "RuntimeDefault", "no RuntimeDefault seccomp")

    # resources
    req = c.get("resources", {}).get("requests", {})
    lim = c.get("resources", {}).get("limits", {})
    check(quantity(req.get("cpu")) is not None and quantity(req["cpu"]) <= 0.05, "cpu request %r" % req.get("cpu"))
    check(quantity(req.get("memory")) is not None and quantity(req["memory"]) <= 64 * 2 ** 20, "memory request %r" % req.get("memory"))
    check(quantity(lim.get("memory")) is not None and quantity(lim["memory"]) >= quantity(req.get("memory", 0)), "memory limit %r" % lim.get("memory"))

    # the device plugin: the kubelet's socket folder writable at the same path, /sys and
    # /dev read-only, the same sandbox; its init container puts the limiter on the host
    dp = byname.get("device-plugin")
    if dp:
        check(dp.get("command") == ["/usr/bin/axl"] and dp["args"][0] == "device-plugin",
              "device-plugin runs %r %r" % (dp.get("command"), dp["args"][:1]))
        dg = check_args(a.axl, [x for x in dp["args"]])
        kdir = dg.get("--kubelet-dir", "/var/lib/kubelet/device-plugins")
        dmounts = {m["mountPath"]: m for m in dp["volumeMounts"]}
        for path, ro in (("/sys", True), ("/dev", True), (kdir, False)):
            m = dmounts.get(path)
            v = vols.get(m["name"], {}) if m else {}
            check(m is not None and v.get("hostPath", {}).get("path") == path and bool(m.get("readOnly")) == ro,
                  "device-plugin: %s from the host at the same path, readOnly %s" % (path, ro))
        driver_root(dp, dmounts)
        check(kdir == "/var/lib/kubelet/device-plugins", "--kubelet-dir %r is not the kubelet's" % kdir)
        dsc = dp.get("securityContext", {})
        check(dsc.get("readOnlyRootFilesystem") is True and dsc.get("privileged") is True
              and "allowPrivilegeEscalation" not in dsc and dsc.get("runAsUser") == 0,
              "device-plugin: security context %r (privileged, read-only root, root)" % dsc)
        dreq = dp.get("resources", {}).get("requests", {})
        check(quantity(dreq.get("cpu")) is not None and quantity(dreq["cpu"]) <= 0.05
              and quantity(dreq.get("memory")) is not None and quantity(dreq["memory"]) <= 64 * 2 ** 20
              and quantity(dp.get("resources", {}).get("limits", {}).get("memory")) is not None,
              "device-plugin: resources %r" % dp.get("resources"))
        inits = {x["name"]: x for x in spec.get("initContainers", [])}
        lim = inits.get("limiter")
        if check(lim is not None, "no init container puts the limiter on the host"):
            # cp LIMITER PRELOAD-LIST DIR/: both land in a host folder mounted at its own path
            dst = lim["command"][-1].rstrip("/")
            srcs = lim["command"][1:-1]
            lm = {m["mountPath"]: m for m in lim["volumeMounts"]}.get(dst)
            check(lim["command"][0] == "/bin/cp" and lm is not None
                  and vols.get(lm["name"], {}).get("hostPath", {}).get("path") == dst
                  and sorted(os.path.basename(s) for s in srcs) == ["ld.so.preload", "libaxl_limiter.so"]
                  and all(s.startswith("/usr/lib/x86_64-linux-gnu/axl/") for s in srcs),
                  "the limiter and its preload list are copied to the host at the same path: %r" % lim["command"])
            lsc = lim.get("securityContext", {})
            check(lsc.get("readOnlyRootFilesystem") is True and lsc.get("capabilities", {}).get("drop") == ["ALL"],
                  "limiter init container: security context %r" % lsc)

    # scheduling
    tol = {t.get("key"): t for t in spec.get("tolerations", [])}
    for key in ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi", "aws.amazon.com/neuron", "google.com/tpu"):
        check(key in tol and tol[key].get("operator") == "Exists", "no toleration of %s" % key)
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    pci = re.compile(r"feature\.node\.kubernetes\.io/pci-((03[0-9a-f]{2}|12[0-9a-f]{2}|0b40)_)?[0-9a-f]{4}\.present")
    chosen = set()
    for t in terms:
        exprs = {e["key"]: e for e in t["matchExpressions"]}
        check(exprs.get("kubernetes.io/os", {}).get("values") == ["linux"], "a term not limited to linux: %r" % t)
        check(exprs.get("kubernetes.io/arch", {}).get("values") == ["amd64"], "a term not limited to amd64: %r" % t)
        sel = [k for k in exprs if k not in ("kubernetes.io/os", "kubernetes.io/arch")]
        check(len(sel) == 1 and (pci.fullmatch(sel[0]) or sel[0] == "axl.dev/accelerator")
              and exprs[sel[0]].get("values") == ["true"], "a term on no accelerator label: %r" % sel)
        chosen.update(sel)
    # the vendors axl serves, each chosen by NFD's labels: NVIDIA, AMD, Intel, Habana
    for vid in ("10de", "1002", "8086", "1da3"):
        check(any(k.endswith(("-%s.present" % vid, "_%s.present" % vid)) for k in chosen), "no term for PCI vendor %s" % vid)
    check("axl.dev/accelerator" in chosen, "no term to choose a node by hand (axl.dev/accelerator=true)")

    # service and monitor
    svc = docs["Service"]
    check(all(plabels.get(k) == v for k, v in svc["spec"]["selector"].items()), "Service selector does not select the pods")
    sports = {p["name"]: p for p in svc["spec"]["ports"]}
    check(sports.get("metrics", {}).get("targetPort") in ("metrics", port), "Service port metrics: %r" % sports)
    check(svc["spec"].get("clusterIP") == "None", "Service not headless (one endpoint per node)")
    sm = docs["ServiceMonitor"]
    check(sm["apiVersion"] == "monitoring.coreos.com/v1", "ServiceMonitor apiVersion %s" % sm["apiVersion"])
    smsel = sm["spec"]["selector"]["matchLabels"]
    check(all(svc["metadata"]["labels"].get(k) == v for k, v in smsel.items()), "ServiceMonitor does not select the Service")
    check(sm["spec"]["namespaceSelector"]["matchNames"] == [ns], "ServiceMonitor looks in %r" % sm["spec"]["namespaceSelector"])
    ep = sm["spec"]["endpoints"]
    check(len(ep) == 1 and ep[0]["port"] in sports and ep[0].get("path", "/metrics") == "/metrics", "ServiceMonitor endpoints %r" % ep)

    # overlay
    odir = os.path.join(KDIR, "overlays", "all-nodes")
    ok = load(os.path.join(odir, "kustomization.yaml"))[0]
    check(ok["resources"] == ["../.."], "overlay resources %r" % ok["resources"])
    for p in ok["patches"]:
        patch = load(os.path.join(odir, p["path"]))[0]
        check(patch["kind"] == "DaemonSet" and patch["metadata"]["name"] == ds["metadata"]["name"]
              and patch["metadata"]["namespace"] == ns, "overlay patch %s names another object" % p["path"])
        terms = patch["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        check(len(terms) == 1, "overlay: %d terms, one (every node) wanted" % len(terms))
        for t in terms:
            keys = {e["key"]: e.get("values") for e in t["matchExpressions"]}
            check(keys == {"kubernetes.io/os": ["linux"], "kubernetes.io/arch": ["amd64"]},
                  "overlay term is not every linux amd64 node: %r" % t)

    check_dra(a.axl, ns)

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok: %s" % ", ".join(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
