#!/usr/bin/python3
"""A fake Kubernetes API server for `axl dra-plugin`'s tests: HTTPS, bearer tokens,
resourceVersion, optimistic concurrency, chunked LIST and WATCH, and faults on demand.

Written from kubernetes/kubernetes (not from axl's docs):
  - the REST semantics of staging/src/k8s.io/apiserver (LIST with limit/continue and the
    list's metadata.resourceVersion; WATCH as a chunked stream of WatchEvent lines from a
    resourceVersion, an ERROR event with a 410 Status when that version is older than the
    history kept; PUT with a stale metadata.resourceVersion is 409 Conflict; POST of a taken
    name 409 AlreadyExists; generateName; metadata.generation bumped on a spec change;
    field selectors; a missing or wrong token is 401);
  - every ResourceSlice written is validated against the OpenAPI v3 schema of
    resource.k8s.io/v1 (openapi/, with its PROVENANCE), unknown fields refused (strict
    field validation), and against the rules of pkg/apis/resource/validation/validation.go
    and staging/src/k8s.io/api/resource/v1/types.go at 7fc9c57df50702c276dcdc36c1e8f652a923eb16:
    ResourceSliceMaxDevices 128 (64 with taints or counters), 32 attributes and capacities
    per device, DNS-label device names unique in the pool, qualified attribute names (a
    C identifier of at most 32 characters, after an optional DNS-subdomain domain of at
    most 63), exactly one value per attribute, strings and versions of at most 64
    characters, versions semver, quantities well-formed, exactly one of nodeName,
    nodeSelector, allNodes and perDeviceNodeSelection, immutable driver, nodeName and pool
    name, at most 16 taints with effects None/NoSchedule/NoExecute;
  - partitionable devices, from validation.go at 009801d930e2e3c8b3671a3ec28e31a2f64865ac
    (validateResourceSliceSpec, validateCounterSet, validateDevice,
    validateDeviceCounterConsumption) and types.go's limits: a slice has sharedCounters or
    devices, not both; at most 8 counter sets (ResourceSliceMaxCounterSets), unique, each
    with a DNS-label name and 1 to 32 counters (ResourceSliceMaxCountersPerCounterSet) of
    DNS-label names and quantity values; a device consumes from at most 2 counter sets
    (ResourceSliceMaxDeviceCounterConsumptionsPerDevice), unique, each with 1 to 32
    counters (ResourceSliceMaxCountersPerDeviceCounterConsumption).
A refused write is a 422 Invalid (and kept in /_fake/stats "rejected").

Objects of any other collection (nodes, resourceclaims, ...) are stored as given, so the
kubelet side's tests can serve claims from it: --objects FILE holds {"<collection path>":
[objects]}, e.g. {"/api/v1/nodes": [...], "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims": [...]}.

Control (no token, same port): GET /_fake/stats (request counts, rejections, the store),
POST /_fake/fault {"status": 500, "count": 3, "methods": ["PUT"], "path": "regex"} (the next
count matching requests are answered with status), POST /_fake/tokens {"tokens": [...]},
POST /_fake/close_watches, POST /_fake/compact (forget the event history: watches from an
older version get 410), POST /_fake/reset_counts, POST /_fake/drop_attribute {"name": ...}
(that device attribute is not stored, as a server drops a field whose feature gate is off),
POST /_fake/drop_field {"name": ...} (that Device field is not stored: "taints" on a server
without the DRADeviceTaints gate), POST /_fake/gate {"name": "DRAPartitionableDevices",
"enabled": false} (a server with that gate off: as pkg/registry/resource/resourceslice/
strategy.go's dropDisabledDRAPartitionableDevicesFields at 02d4c8c3d8ff2961e37c3b7dec11ad904ecffa57,
spec.sharedCounters, spec.perDeviceNodeSelection and each device's consumesCounters,
nodeName, nodeSelector and allNodes are dropped before validation, unless the slice being
updated already uses them).

--state FILE keeps the store across a restart (as etcd does); the event history is not
kept, so a watch from before the restart gets 410, as after a compaction.
"""
import argparse
import base64
import copy
import datetime
import json
import os
import random
import re
import ssl
import string
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema

SLICES = "/apis/resource.k8s.io/v1/resourceslices"
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# semver.org 2.0.0's regular expression
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
                    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
# resource.Quantity's grammar (staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go)
QUANTITY = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$")
LABEL_NAME = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                        r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def strict(schema):
    """Unknown fields refused: additionalProperties false wherever properties are listed."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


class Store:
    def __init__(self, args):
        self.lock = threading.Condition()
        self.rv = 1
        self.objects = {}  # collection -> {name: obj}
        self.history = []  # (rv, collection, type, obj)
        self.history_from = 1  # the oldest version a watch may start from
        self.state = args.state
        self.tokens = set(args.token)
        self.faults = []
        self.counts = {}
        self.log = []  # (time, method, kind, status)
        self.rejected = []
        self.closing = 0  # bumped to end every watch
        self.dropped = set()  # device attributes not kept (as a field whose feature gate is off)
        self.dropped_fields = set()  # Device fields not kept (taints without DRADeviceTaints)
        self.gates = {"DRAPartitionableDevices": True}
        doc = json.load(open(args.schema))
        root = strict(doc)
        self.validator = jsonschema.Draft7Validator(
            {"$ref": "#/components/schemas/io.k8s.api.resource.v1.ResourceSlice", **root},
            resolver=jsonschema.RefResolver.from_schema(root))
        if self.state and os.path.exists(self.state):
            st = json.load(open(self.state))
            self.rv, self.objects = st["rv"], st["objects"]
            self.history_from = self.rv + 1  # the history is not kept
        if args.objects:
            for coll, objs in json.load(open(args.objects)).items():
                for o in objs:
                    self.objects.setdefault(coll, {}).setdefault(o["metadata"]["name"], self.stamp(o))

    def stamp(self, o):
        o = copy.deepcopy(o)
        md = o.setdefault("metadata", {})
        md.setdefault("uid", str(uuid.uuid4()))
        md.setdefault("creationTimestamp", now())
        self.rv += 1
        md["resourceVersion"] = str(self.rv)
        return o

    def save(self):
        if self.state:
            tmp = self.state + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"rv": self.rv, "objects": self.objects}, f)
            os.replace(tmp, self.state)

    def event(self, coll, typ, obj):
        self.history.append((int(obj["metadata"]["resourceVersion"]), coll, typ, copy.deepcopy(obj)))
        self.save()
        self.lock.notify_all()


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def status(code, reason, message, details=None):
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
         "reason": reason, "code": code}
    if details:
        s["details"] = details
    return s


def validate_slice(store, obj, old):
    errs = [("schema: %s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path)))
            for e in store.validator.iter_errors(obj)]
    if errs:
        return errs
    if obj.get("apiVersion") != "resource.k8s.io/v1" or obj.get("kind") != "ResourceSlice":
        errs.append("apiVersion/kind: %s/%s" % (obj.get("apiVersion"), obj.get("kind")))
    spec = obj["spec"]
    if not DNS1123_SUBDOMAIN.match(spec["driver"]) or len(spec["driver"]) > 63:
        errs.append("spec.driver: not a DNS subdomain of at most 63 characters: %r" % spec["driver"])
    pool = spec["pool"]
    if not pool["name"] or len(pool["name"]) > 253 or not all(DNS1123_SUBDOMAIN.match(p) for p in pool["name"].split("/")):
        errs.append("spec.pool.name: %r" % pool["name"])
    if pool["generation"] < 0:
        errs.append("spec.pool.generation: negative")
    if pool["resourceSliceCount"] <= 0:
        errs.append("spec.pool.resourceSliceCount: must be greater than zero")
    where = [k for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(k)]
    if len(where) != 1:
        errs.append("spec: exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection: %s" % where)
    devices = spec.get("devices") or []
    tainted = any(d.get("taints") or d.get("consumesCounters") for d in devices)
    most = 64 if tainted else 128
    if len(devices) > most:
        errs.append("spec.devices: %d devices, at most %d" % (len(devices), most))
    validate_partitionable(errs, spec)
    names = set()
    for i, d in enumerate(devices):
        at = "spec.devices[%d]" % i
        if not DNS1123_LABEL.match(d["name"]) or len(d["name"]) > 63:
            errs.append("%s.name: not a DNS label: %r" % (at, d["name"]))
        if d["name"] in names:
            errs.append("%s.name: duplicate %r" % (at, d["name"]))
        names.add(d["name"])
        attrs, caps = d.get("attributes") or {}, d.get("capacity") or {}
        if len(attrs) + len(caps) > 32:
            errs.append("%s: %d attributes and capacities, at most 32" % (at, len(attrs) + len(caps)))
        for name in list(attrs) + list(caps):
            dom, _, ident = name.rpartition("/")
            if dom and (len(dom) > 63 or not DNS1123_SUBDOMAIN.match(dom)):
                errs.append("%s: %r: the domain is not a DNS subdomain of at most 63 characters" % (at, name))
            if len(ident) > 32 or not C_IDENTIFIER.match(ident):
                errs.append("%s: %r: not a C identifier of at most 32 characters" % (at, name))
        for name, a in attrs.items():
            set_ = [k for k in ("bool", "int", "string", "version") if k in a]
            if len(set_) != 1:
                errs.append("%s.attributes[%s]: exactly one value, got %s" % (at, name, set_))
            if "string" in a and len(a["string"]) > 64:
                errs.append("%s.attributes[%s]: a string longer than 64" % (at, name))
            if "version" in a and (len(a["version"]) > 64 or not SEMVER.match(a["version"])):
                errs.append("%s.attributes[%s]: not a semantic version: %r" % (at, name, a["version"]))
        for name, c in caps.items():
            v = c["value"]
            if not isinstance(v, str) or not QUANTITY.match(v):
                errs.append("%s.capacity[%s]: not a quantity: %r" % (at, name, v))
        taints = d.get("taints") or []
        if len(taints) > 16:
            errs.append("%s.taints: more than 16" % at)
        for t in taints:
            if t["effect"] not in ("None", "NoSchedule", "NoExecute"):
                errs.append("%s.taints: effect %r" % (at, t["effect"]))
            if not LABEL_NAME.match(t["key"]):
                errs.append("%s.taints: key %r" % (at, t["key"]))
    if old is not None:
        for k in ("driver", "nodeName"):
            if old["spec"].get(k) != spec.get(k):
                errs.append("spec.%s: field is immutable" % k)
        if old["spec"]["pool"]["name"] != pool["name"]:
            errs.append("spec.pool.name: field is immutable")
    node = spec.get("nodeName")
    if node:
        n = store.objects.get("/api/v1/nodes", {}).get(node)
        refs = obj["metadata"].get("ownerReferences") or []
        if n and refs and not any(r["kind"] == "Node" and r["name"] == node and r["uid"] == n["metadata"]["uid"]
                                  for r in refs):
            errs.append("metadata.ownerReferences: not the node %s (uid %s): %s" % (node, n["metadata"]["uid"], refs))
    return errs


def partitionable_in_use(obj):
    """strategy.go's draPartitionableDevicesFeatureInUse"""
    if obj is None:
        return False
    spec = obj.get("spec") or {}
    if spec.get("sharedCounters") or spec.get("perDeviceNodeSelection") is not None:
        return True
    return any(d.get("consumesCounters") or any(k in d for k in ("nodeName", "nodeSelector", "allNodes"))
               for d in spec.get("devices") or [])


def drop_disabled(store, obj, old):
    """strategy.go's dropDisabledDRAPartitionableDevicesFields (PrepareForCreate/Update, before
    validation)"""
    if store.gates.get("DRAPartitionableDevices", True) or partitionable_in_use(old):
        return
    spec = obj.get("spec") or {}
    spec.pop("sharedCounters", None)
    spec.pop("perDeviceNodeSelection", None)
    for d in spec.get("devices") or []:
        for k in ("consumesCounters", "nodeName", "nodeSelector", "allNodes"):
            d.pop(k, None)


def validate_counters(errs, at, counters):
    """validateMap(counters, 32, DNS1123LabelMaxLength, validateCounterName, validateDeviceCounter)"""
    if not counters:
        errs.append("%s: Required value" % at)
        return
    if len(counters) > 32:
        errs.append("%s: %d counters, at most 32" % (at, len(counters)))
    for name, c in counters.items():
        if not DNS1123_LABEL.match(name) or len(name) > 63:
            errs.append("%s[%s]: not a DNS label" % (at, name))
        v = c.get("value")
        if not isinstance(v, str) or not QUANTITY.match(v):
            errs.append("%s[%s].value: not a quantity: %r" % (at, name, v))


def validate_partitionable(errs, spec):
    sets = spec.get("sharedCounters")
    if sets is not None and spec.get("devices") is not None:
        errs.append("spec: only one of `sharedCounters` or `devices` is allowed")
    sets = sets or []
    if len(sets) > 8:
        errs.append("spec.sharedCounters: %d counter sets, at most 8" % len(sets))
    seen = set()
    for i, cs in enumerate(sets):
        at = "spec.sharedCounters[%d]" % i
        if not DNS1123_LABEL.match(cs["name"]) or len(cs["name"]) > 63:
            errs.append("%s.name: not a DNS label: %r" % (at, cs["name"]))
        if cs["name"] in seen:
            errs.append("%s.name: duplicate %r" % (at, cs["name"]))
        seen.add(cs["name"])
        validate_counters(errs, at + ".counters", cs.get("counters"))
    for i, d in enumerate(spec.get("devices") or []):
        cons = d.get("consumesCounters") or []
        at = "spec.devices[%d].consumesCounters" % i
        if len(cons) > 2:
            errs.append("%s: %d, at most 2" % (at, len(cons)))
        names = [c["counterSet"] for c in cons]
        if len(set(names)) != len(names):
            errs.append("%s: a counter set twice: %s" % (at, names))
        for j, c in enumerate(cons):
            if not DNS1123_LABEL.match(c["counterSet"]) or len(c["counterSet"]) > 63:
                errs.append("%s[%d].counterSet: not a DNS label: %r" % (at, j, c["counterSet"]))
            validate_counters(errs, "%s[%d].counters" % (at, j), c.get("counters"))


def drop(store, obj):
    """What a server does with a field it does not keep: it is gone from what is stored."""
    for d in (obj.get("spec") or {}).get("devices") or []:
        for name in store.dropped:
            (d.get("attributes") or {}).pop(name, None)
        for name in store.dropped_fields:
            d.pop(name, None)


def selector_match(obj, sel):
    for term in filter(None, (sel or "").split(",")):
        k, _, v = term.partition("=")
        cur = obj
        for p in k.split("."):
            cur = cur.get(p) if isinstance(cur, dict) else None
        if (cur or "") != v:
            return False
    return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    store = None

    def log_message(self, fmt, *a):
        pass

    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.record(code)

    def record(self, code):
        st = self.store
        kind = self.kind
        with st.lock:
            key = "%s %s %d" % (self.command, kind, code)
            st.counts[key] = st.counts.get(key, 0) + 1
            st.log.append((time.time(), self.command, kind, code))

    def body(self):
        try:
            return json.loads(self.raw or b"null")
        except ValueError:
            return None

    def route(self):
        # the body is read before any answer, a refusal included: on a kept-alive
        # connection what is left unread would be taken for the next request
        n = int(self.headers.get("Content-Length") or 0)
        self.raw = self.rfile.read(n) if n else b""
        u = urllib.parse.urlsplit(self.path)
        self.q = dict(urllib.parse.parse_qsl(u.query))
        path = u.path.rstrip("/")
        if path.startswith("/_fake/"):
            self.kind = "control"
            return self.control(path[len("/_fake/"):])
        watch = self.q.get("watch") in ("true", "1")
        self.kind = path.rsplit("/", 1)[-1]
        if path.startswith(SLICES):
            self.kind = "watch" if watch else ("slices" if path == SLICES else "slice")
        elif "/nodes/" in path:
            self.kind = "node"
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.store.tokens:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        st = self.store
        with st.lock:
            for f in st.faults:
                if f["count"] > 0 and self.command in f.get("methods", [self.command]) and \
                        re.search(f.get("path", ""), self.path):
                    f["count"] -= 1
                    code = f["status"]
                    reason = {409: "Conflict", 500: "InternalError", 410: "Expired", 429: "TooManyRequests"}.get(code, "Fault")
                    return self.send_json(code, status(code, reason, "injected fault"))
        if self.command == "GET" and watch:
            return self.watch(path)
        coll, name = self.split(path)
        if coll is None:
            return self.send_json(404, status(404, "NotFound", "the server could not find the requested resource"))
        if self.command == "GET":
            return self.get(coll, name)
        if self.command == "POST" and not name:
            return self.create(coll)
        if self.command == "PUT" and name:
            return self.update(coll, name)
        if self.command == "DELETE" and name:
            return self.delete(coll, name)
        return self.send_json(405, status(405, "MethodNotAllowed", "method not allowed"))

    def split(self, path):
        parts = path.strip("/").split("/")
        # /api/v1/<res>[/<name>], /api/v1/namespaces/<ns>/<res>[/<name>], /apis/<g>/<v>/...
        base = 2 if parts[0] == "api" else 3
        rest = parts[base:]
        if rest[:1] == ["namespaces"] and len(rest) >= 3:
            coll_len = base + 3
        else:
            coll_len = base + 1
        if len(parts) < coll_len or len(parts) > coll_len + 1:
            return None, None
        return "/" + "/".join(parts[:coll_len]), parts[coll_len] if len(parts) > coll_len else None

    def get(self, coll, name):
        st = self.store
        with st.lock:
            objs = st.objects.get(coll, {})
            if name:
                if name not in objs:
                    return self.send_json(404, status(404, "NotFound", "%s %r not found" % (coll, name)))
                return self.send_json(200, objs[name])
            items = sorted((o for o in objs.values() if selector_match(o, self.q.get("fieldSelector"))),
                           key=lambda o: o["metadata"]["name"])
            rv = str(st.rv)
            start = 0
            if self.q.get("continue"):
                tok = json.loads(base64.b64decode(self.q["continue"]))
                if tok["rv"] < st.history_from - 1:
                    return self.send_json(410, status(410, "Expired", "The provided continue parameter is too old"))
                start, rv = tok["start"], str(tok["rv"])
            limit = int(self.q.get("limit") or 0)
            page = items[start:start + limit] if limit else items[start:]
            md = {"resourceVersion": rv}
            if limit and start + limit < len(items):
                md["continue"] = base64.b64encode(json.dumps({"start": start + limit, "rv": int(rv)}).encode()).decode()
                md["remainingItemCount"] = len(items) - start - limit
            kind = "ResourceSliceList" if coll == SLICES else "List"
            return self.send_json(200, {"kind": kind, "apiVersion": "resource.k8s.io/v1", "metadata": md,
                                        "items": page})

    def create(self, coll):
        st = self.store
        obj = self.body()
        if not isinstance(obj, dict):
            return self.send_json(400, status(400, "BadRequest", "not an object"))
        md = obj.setdefault("metadata", {})
        with st.lock:
            objs = st.objects.setdefault(coll, {})
            if not md.get("name") and md.get("generateName"):
                md["name"] = md["generateName"] + "".join(random.choice(string.ascii_lowercase + string.digits)
                                                          for _ in range(5))
            name = md.get("name")
            if not name:
                return self.send_json(422, status(422, "Invalid", "metadata.name: Required value"))
            if name in objs:
                return self.send_json(409, status(409, "AlreadyExists", "%r already exists" % name))
            for k in ("uid", "resourceVersion", "creationTimestamp"):
                md.pop(k, None)
            if coll == SLICES:
                drop_disabled(st, obj, None)
                errs = validate_slice(st, obj, None)
                if errs:
                    st.rejected.append({"name": name, "errors": errs})
                    return self.send_json(422, status(422, "Invalid", "; ".join(errs)))
            md["generation"] = 1
            drop(st, obj)
            obj = st.stamp(obj)
            objs[name] = obj
            st.event(coll, "ADDED", obj)
        return self.send_json(201, obj)

    def update(self, coll, name):
        st = self.store
        obj = self.body()
        if not isinstance(obj, dict):
            return self.send_json(400, status(400, "BadRequest", "not an object"))
        md = obj.setdefault("metadata", {})
        with st.lock:
            objs = st.objects.setdefault(coll, {})
            old = objs.get(name)
            if old is None:
                return self.send_json(404, status(404, "NotFound", "%r not found" % name))
            if md.get("name") != name:
                return self.send_json(400, status(400, "BadRequest", "the name of the object does not match"))
            if md.get("resourceVersion") and md["resourceVersion"] != old["metadata"]["resourceVersion"]:
                return self.send_json(409, status(409, "Conflict", "Operation cannot be fulfilled on %r: the object has "
                                                  "been modified; please apply your changes to the latest version and "
                                                  "try again" % name))
            if coll == SLICES:
                drop_disabled(st, obj, old)
                errs = validate_slice(st, obj, old)
                if errs:
                    st.rejected.append({"name": name, "errors": errs})
                    return self.send_json(422, status(422, "Invalid", "; ".join(errs)))
            drop(st, obj)
            md["uid"] = old["metadata"]["uid"]
            md["creationTimestamp"] = old["metadata"]["creationTimestamp"]
            md["generation"] = old["metadata"].get("generation", 1) + (obj.get("spec") != old.get("spec"))
            st.rv += 1
            md["resourceVersion"] = str(st.rv)
            objs[name] = obj
            st.event(coll, "MODIFIED", obj)
        return self.send_json(200, obj)

    def delete(self, coll, name):
        st = self.store
        with st.lock:
            objs = st.objects.setdefault(coll, {})
            old = objs.pop(name, None)
            if old is None:
                return self.send_json(404, status(404, "NotFound", "%r not found" % name))
            st.rv += 1
            old = copy.deepcopy(old)
            old["metadata"]["resourceVersion"] = str(st.rv)
            st.event(coll, "DELETED", old)
        return self.send_json(200, old)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def watch(self, path):
        st = self.store
        coll = path
        try:
            since = int(self.q.get("resourceVersion") or 0)
        except ValueError:
            since = 0
        timeout = float(self.q.get("timeoutSeconds") or 1800)
        sel = self.q.get("fieldSelector")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.record(200)
        end = time.time() + timeout
        with st.lock:
            closing = st.closing
            if since and since < st.history_from - 1:
                err = {"type": "ERROR", "object": status(410, "Expired", "too old resource version: %d (%d)" %
                                                          (since, st.history_from - 1))}
                self.chunk(json.dumps(err).encode() + b"\n")
                self.chunk(b"")
                return
        sent = since
        try:
            while True:
                with st.lock:
                    evs = [e for e in st.history if e[0] > sent and e[1] == coll and selector_match(e[3], sel)]
                    if not evs:
                        if st.closing != closing or time.time() >= end:
                            break
                        st.lock.wait(min(1.0, max(0.01, end - time.time())))
                        continue
                for rv, _, typ, obj in evs:
                    self.chunk(json.dumps({"type": typ, "object": obj}).encode() + b"\n")
                    sent = rv
            self.chunk(b"")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass
        self.close_connection = True

    def control(self, what):
        st = self.store
        body = self.body() if self.command == "POST" else None
        with st.lock:
            if what == "stats":
                out = {"counts": st.counts, "log": st.log, "rejected": st.rejected, "rv": st.rv,
                       "objects": st.objects}
                return self.send_json(200, out)
            if what == "fault":
                st.faults.append(dict(body))
            elif what == "tokens":
                st.tokens = set(body["tokens"])
            elif what == "close_watches":
                st.closing += 1
                st.lock.notify_all()
            elif what == "drop_attribute":
                st.dropped.add(body["name"])
            elif what == "drop_field":
                st.dropped_fields.add(body["name"])
            elif what == "gate":
                st.gates[body["name"]] = bool(body["enabled"])
            elif what == "compact":
                st.history = []
                st.history_from = st.rv + 1
            elif what == "reset_counts":
                st.counts, st.log = {}, []
            else:
                return self.send_json(404, {"error": what})
        return self.send_json(200, {"ok": True})

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_DELETE(self):
        self.route()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--token", action="append", default=[])
    ap.add_argument("--schema", required=True)
    ap.add_argument("--state")
    ap.add_argument("--objects")
    args = ap.parse_args()
    Handler.store = Store(args)
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
