# SPDX-License-Identifier: MIT
"""A kubelet's plugin manager and DRA manager, as far as a DRA driver sees them, over real
gRPC (Debian's python3-grpcio) on unix sockets. Written from kubernetes/kubernetes and
k8s.io/kubelet (read with the fetch tool; the commits are those of the files read):

  pkg/kubelet/pluginmanager/pluginwatcher/plugin_watcher.go: the registry directory is
    made at start (os.MkdirAll) and walked; every socket in it (not a dot-file) is a plugin
    to register, a socket removed one to deregister;
  pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go: dial the socket
    (10 s), GetInfo (1 s), find the handler of infoResp.Type, ValidatePlugin and
    RegisterPlugin with (name, endpoint, supported_versions), then
    NotifyRegistrationStatus (5 s) with plugin_registered and the error;
  pkg/kubelet/cm/dra/plugin/registration.go (032a9eae) validateSupportedServices: an empty
    list is refused, the newest service the kubelet knows is chosen from it;
    dra_plugin_manager.go / dra_plugin.go (03aae5e3): the services known, newest first
    ("v1.DRAPlugin" in k8s.io/kubelet pkg/apis/dra/v1/types.go at 63b32497, then
    "v1beta1.DRAPlugin"), the endpoint dialled with a 1 s wait, calls with a 45 s
    deadline; NodePrepareResources must answer every claim of the request by UID.
With health=True, the ResourceHealthStatus gate's side (KEP-4680), from
  pkg/kubelet/cm/dra/plugin/dra_plugin_manager.go (f8297306) add(): once a plugin is
    registered, NodeWatchResources of "v1alpha1.DRAResourceHealth" is called whatever
    GetInfo listed, and called again 5 s after it failed or ended (wait.UntilWithContext);
    DeRegisterPlugin cancels it;
  pkg/kubelet/cm/dra/manager.go (HandleWatchResourcesStream): each message replaces the
    driver's devices by (pool_name, device_name), a timeout <= 0 is the default; the
    stream's end clears the driver's cache (clearDriver);
  pkg/kubelet/cm/dra/healthinfo.go (DefaultHealthTimeout 30 s, getHealthInfo): a device
    not reported within its timeout reads Unknown.
The messages come from the protos the driver is built with (src/compat/dra/dra.proto,
pluginregistration.proto, drahealth.proto: k8s.io/kubelet's, provenance in each),
compiled here with protoc --python_out. Every call the fake makes is counted (calls), so a test sees that
nothing is asked twice and nothing spins.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "..", "..", "src", "compat", "dra")
SERVICES = ["v1.DRAPlugin", "v1beta1.DRAPlugin"]  # newest first
GRPC_SERVICE = {"v1.DRAPlugin": "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/",
                "v1beta1.DRAPlugin": "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/"}


def load_pb(work: str):
    """(dra_pb2, pluginregistration_pb2), compiled from the protos into work."""
    out = os.path.join(work, "pb")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + out, "-I", PROTO_DIR, os.path.join(PROTO_DIR, "dra.proto"),
                    os.path.join(PROTO_DIR, "pluginregistration.proto")], check=True)
    if out not in sys.path:
        sys.path.insert(0, out)
    import dra_pb2  # noqa: E402
    import pluginregistration_pb2  # noqa: E402
    return dra_pb2, pluginregistration_pb2


def load_health_pb(work: str):
    """drahealth_pb2 (v1alpha1's messages, the same as v1's), compiled into work."""
    out = os.path.join(work, "pb")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + out, "-I", PROTO_DIR, os.path.join(PROTO_DIR, "drahealth.proto")],
                   check=True)
    if out not in sys.path:
        sys.path.insert(0, out)
    import drahealth_pb2  # noqa: E402
    return drahealth_pb2


HEALTH_METHOD = "/v1alpha1.DRAResourceHealth/NodeWatchResources"
DEFAULT_HEALTH_TIMEOUT = 30.0  # healthinfo.go DefaultHealthTimeout
HEALTH_RETRY_S = 5.0           # dra_plugin_manager.go: wait.UntilWithContext(..., 5*time.Second)


class Plugin:
    """A registered DRA plugin: its name, endpoint, the service chosen, GetInfo's list."""

    def __init__(self, name, endpoint, service, socket, versions=()):
        self.name, self.endpoint, self.service, self.socket = name, endpoint, service, socket
        self.versions = list(versions)
        self.cancel = threading.Event()  # DeRegisterPlugin: the health stream's context


class FakeKubelet:
    def __init__(self, work: str, registry_dir: str, pb, poll_s: float = 0.02, health=False):
        self.work, self.dir = work, registry_dir
        self.dra, self.reg = pb
        self.hpb = load_health_pb(work) if health else None
        # driver -> {(pool, device): {"health", "message", "timeout", "seen"}}; the messages
        # received, (monotonic time, driver, [(pool, device, health, message, timeout, last)]);
        # the streams' ends, (time, driver, why)
        self.health: dict[str, dict] = {}
        self.health_msgs: list = []
        self.health_ends: list = []
        self.poll_s = poll_s
        self.lock = threading.Lock()
        self.plugins: dict[str, Plugin] = {}   # by name
        self.seen: dict[str, tuple] = {}        # socket path -> (inode, ctime) registered (or tried)
        self.calls: dict[str, int] = {}         # method -> count
        self.errors: list[str] = []             # registrations refused
        self.stopping = threading.Event()
        self.thread = None

    def count(self, m):
        with self.lock:
            self.calls[m] = self.calls.get(m, 0) + 1

    # ---- the plugin watcher ------------------------------------------------------------
    def start(self, wipe: bool = False):
        """Start watching; wipe: empty the registry directory first, as a kubelet whose
        plugins_registry is recreated on restart (a new emptyDir, a cleaned host path)."""
        if wipe and os.path.isdir(self.dir):
            for e in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, e))
        os.makedirs(self.dir, exist_ok=True)
        self.stopping.clear()
        with self.lock:
            self.seen = {}
            self.plugins = {}
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def stop(self):
        self.stopping.set()
        with self.lock:
            for p in self.plugins.values():
                p.cancel.set()
        if self.thread:
            self.thread.join()
            self.thread = None

    def _watch(self):
        while not self.stopping.is_set():
            now = {}
            try:
                for e in os.scandir(self.dir):
                    if e.name.startswith("."):
                        continue
                    try:
                        st = os.lstat(e.path)
                    except FileNotFoundError:
                        continue
                    if stat.S_ISSOCK(st.st_mode):  # a socket made anew may reuse the inode: ctime too
                        now[e.path] = (st.st_ino, st.st_ctime_ns)
            except FileNotFoundError:
                pass
            for path, ino in now.items():
                if self.seen.get(path) != ino:
                    self.seen[path] = ino
                    self._register(path)
            for path in list(self.seen):
                if path not in now:
                    del self.seen[path]
                    with self.lock:
                        for n, p in list(self.plugins.items()):
                            if p.socket == path:
                                del self.plugins[n]  # DeRegisterPlugin
                                p.cancel.set()
            self.stopping.wait(self.poll_s)

    def _register(self, path):
        ch = grpc.insecure_channel("unix:" + path)
        try:
            grpc.channel_ready_future(ch).result(timeout=10)
            get_info = ch.unary_unary("/pluginregistration.Registration/GetInfo",
                                      request_serializer=self.reg.InfoRequest.SerializeToString,
                                      response_deserializer=self.reg.PluginInfo.FromString)
            notify = ch.unary_unary("/pluginregistration.Registration/NotifyRegistrationStatus",
                                    request_serializer=self.reg.RegistrationStatus.SerializeToString,
                                    response_deserializer=self.reg.RegistrationStatusResponse.FromString)
            self.count("GetInfo")
            info = get_info(self.reg.InfoRequest(), timeout=1)
            err = ""
            service = None
            if info.type != "DRAPlugin":
                err = "no handler registered for plugin type: %s at socket %s" % (info.type, path)
            elif not info.supported_versions:
                err = "version check of plugin %s failed: empty list of supported gRPC services" % info.name
            else:
                service = next((s for s in SERVICES if s in info.supported_versions), None)
                if not service:
                    err = "none of the DRA services %s is supported by this kubelet" % list(info.supported_versions)
            if not err:
                ep = grpc.insecure_channel("unix:" + info.endpoint)
                try:
                    grpc.channel_ready_future(ep).result(timeout=1)
                except grpc.FutureTimeoutError:
                    err = "cannot connect to the plugin's endpoint %s" % info.endpoint
                ep.close()
            self.count("NotifyRegistrationStatus")
            notify(self.reg.RegistrationStatus(plugin_registered=not err, error=err), timeout=5)
            if err:
                self.errors.append(err)
            else:
                plugin = Plugin(info.name, info.endpoint, service, path, info.supported_versions)
                with self.lock:
                    old = self.plugins.get(info.name)
                    self.plugins[info.name] = plugin
                if old:
                    old.cancel.set()
                if self.hpb:
                    threading.Thread(target=self._health_loop, args=(plugin,), daemon=True).start()
        except (grpc.RpcError, grpc.FutureTimeoutError) as e:
            self.errors.append("RegisterPlugin error at socket %s: %s" % (path, e))
        finally:
            ch.close()

    # ---- the health streams (ResourceHealthStatus) ----------------------------------------
    def _health_loop(self, plugin):
        while not (plugin.cancel.is_set() or self.stopping.is_set()):
            self._health_stream(plugin)
            plugin.cancel.wait(HEALTH_RETRY_S)

    def _health_stream(self, plugin):
        ch = grpc.insecure_channel("unix:" + plugin.endpoint)
        why, done = "EOF", None
        try:
            watch = ch.unary_stream(HEALTH_METHOD,
                                    request_serializer=self.hpb.NodeWatchResourcesRequest.SerializeToString,
                                    response_deserializer=self.hpb.NodeWatchResourcesResponse.FromString)
            self.count("NodeWatchResources")
            stream = watch(self.hpb.NodeWatchResourcesRequest())
            done = threading.Event()

            def stopper():  # the stream's context, cancelled by DeRegisterPlugin or the kubelet's stop
                while not done.wait(0.05):
                    if plugin.cancel.is_set() or self.stopping.is_set():
                        stream.cancel()
                        return
            threading.Thread(target=stopper, daemon=True).start()
            for resp in stream:
                now = time.monotonic()
                got = []
                with self.lock:
                    cache = self.health.setdefault(plugin.name, {})
                    for d in resp.devices:
                        t = d.health_check_timeout_seconds
                        got.append((d.device.pool_name, d.device.device_name, d.health, d.message, t,
                                    d.last_updated_time))
                        cache[(d.device.pool_name, d.device.device_name)] = {
                            "health": self.hpb.HealthStatus.Name(d.health), "message": d.message,
                            "timeout": float(t) if t > 0 else DEFAULT_HEALTH_TIMEOUT, "seen": now}
                    self.health_msgs.append((now, plugin.name, got))
        except grpc.RpcError as e:
            why = e.code().name if hasattr(e, "code") else str(e)
        finally:
            if done:
                done.set()
            with self.lock:
                self.health.pop(plugin.name, None)  # clearDriver
                self.health_ends.append((time.monotonic(), plugin.name, why))
            ch.close()

    def device_health(self, driver, pool, device):
        """getHealthInfo: (health, message) of a device, Unknown when it timed out or was
        never reported."""
        with self.lock:
            d = self.health.get(driver, {}).get((pool, device))
            if not d or time.monotonic() - d["seen"] > d["timeout"]:
                return ("UNKNOWN", "")
            return (d["health"], d["message"])

    def wait_registered(self, name, timeout=10.0):
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                if name in self.plugins:
                    return self.plugins[name]
            time.sleep(0.01)
        return None

    # ---- the DRA manager -----------------------------------------------------------------
    def _call(self, name, method, req, resp_type, service=None, timeout=45):
        with self.lock:
            p = self.plugins.get(name)
        if not p:
            raise RuntimeError("DRA driver %s is not registered" % name)
        ch = grpc.insecure_channel("unix:" + p.endpoint)
        try:
            f = ch.unary_unary(GRPC_SERVICE[service or p.service] + method,
                               request_serializer=lambda m: m.SerializeToString() if hasattr(m, "SerializeToString") else m,
                               response_deserializer=resp_type.FromString)
            self.count(method)
            return f(req, timeout=timeout)
        finally:
            ch.close()

    def claims(self, triples):
        return [self.dra.Claim(namespace=ns, uid=uid, name=name) for ns, uid, name in triples]

    def prepare(self, name, triples, service=None, raw=None):
        """NodePrepareResources for (namespace, uid, name) claims; raw: bytes sent as the
        request instead (a malformed one)."""
        req = raw if raw is not None else self.dra.NodePrepareResourcesRequest(claims=self.claims(triples))
        return self._call(name, "NodePrepareResources", req, self.dra.NodePrepareResourcesResponse, service)

    def unprepare(self, name, triples, service=None):
        req = self.dra.NodeUnprepareResourcesRequest(claims=self.claims(triples))
        return self._call(name, "NodeUnprepareResources", req, self.dra.NodeUnprepareResourcesResponse, service)
