# SPDX-License-Identifier: MIT
"""A kubelet's device manager, as far as a device plugin sees it, over real gRPC
(Debian's python3-grpcio) on unix sockets. Written from kubernetes/kubernetes:

  pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go (94bb3ab8): Start() makes the
    socket directory, removes every socket in it but the checkpoint (the manager's
    CleanupPluginDirectory: "Device plugins can monitor this and use it as a signal to
    re-register with the new Kubelet"), then serves Registration on kubelet.sock;
    Register() refuses a version other than v1beta1 and a resource name that is not an
    extended resource name, then connects to the plugin's endpoint (DIR/endpoint);
  .../v1beta1/client.go (b1ce15c5): dial() blocks up to 10 s; Run() reads ListAndWatch
    until it ends, then the client is disconnected;
  pkg/kubelet/cm/devicemanager/manager.go: PluginConnected() asks GetDevicePluginOptions
    first; CleanupPluginDirectory() (above);
  .../devicemanager/endpoint.go: Allocate and GetPreferredAllocation carry one
    container request each.

The messages come from the plugin API's published definition
(src/compat/kubernetes/deviceplugin.proto, compiled here with protoc --python_out).
"""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
import time
from concurrent import futures

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "..", "..", "src", "compat", "kubernetes")
CHECKPOINT = "kubelet_internal_checkpoint"


def load_pb(work: str):
    """deviceplugin_pb2, compiled from the proto into work."""
    out = os.path.join(work, "pb")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + out, "-I", PROTO_DIR,
                    os.path.join(PROTO_DIR, "deviceplugin.proto")], check=True)
    if out not in sys.path:
        sys.path.insert(0, out)
    import deviceplugin_pb2  # noqa: E402
    return deviceplugin_pb2


# k8s.io/kubernetes/pkg/apis/core/v1/helper IsExtendedResourceName: a qualified name
# with a domain that is not kubernetes.io (nor *.kubernetes.io), not "requests."-prefixed
_QUALIFIED = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)/"
                        r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")


def is_extended_resource_name(name: str) -> bool:
    m = _QUALIFIED.match(name)
    if not m or name.startswith("requests."):
        return False
    dom = m.group(1)
    return dom != "kubernetes.io" and not dom.endswith(".kubernetes.io") and len(m.group(5)) <= 63


class Client:
    """One registered plugin: its channel, options and ListAndWatch updates."""

    def __init__(self, pb, resource: str, socket_path: str):
        self.pb, self.resource, self.socket = pb, resource, socket_path
        self.updates: list = []
        self.cond = threading.Condition()
        self.ended = False
        self.channel = grpc.insecure_channel("unix:" + socket_path)
        grpc.channel_ready_future(self.channel).result(timeout=10)  # dial(): block, 10 s
        m = "/v1beta1.DevicePlugin/"
        self.options = self.channel.unary_unary(m + "GetDevicePluginOptions",
                                                request_serializer=pb.Empty.SerializeToString,
                                                response_deserializer=pb.DevicePluginOptions.FromString)(pb.Empty(), timeout=10)
        self._law = self.channel.unary_stream(m + "ListAndWatch", request_serializer=pb.Empty.SerializeToString,
                                              response_deserializer=pb.ListAndWatchResponse.FromString)
        self.allocate_rpc = self.channel.unary_unary(m + "Allocate", request_serializer=pb.AllocateRequest.SerializeToString,
                                                     response_deserializer=pb.AllocateResponse.FromString)
        self.preferred_rpc = self.channel.unary_unary(
            m + "GetPreferredAllocation", request_serializer=pb.PreferredAllocationRequest.SerializeToString,
            response_deserializer=pb.PreferredAllocationResponse.FromString)
        self.prestart_rpc = self.channel.unary_unary(
            m + "PreStartContainer", request_serializer=pb.PreStartContainerRequest.SerializeToString,
            response_deserializer=pb.PreStartContainerResponse.FromString)
        self.stream = self._law(pb.Empty())
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        try:
            for resp in self.stream:
                with self.cond:
                    self.updates.append((time.monotonic(), resp))
                    self.cond.notify_all()
        except grpc.RpcError:
            pass
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def wait_update(self, n: int, timeout: float = 10.0):
        """The n-th ListAndWatch response (1-based), or None after timeout."""
        end = time.monotonic() + timeout
        with self.cond:
            while len(self.updates) < n and time.monotonic() < end:
                self.cond.wait(end - time.monotonic())
            return self.updates[n - 1][1] if len(self.updates) >= n else None

    def devices(self) -> dict:
        """The last list: ID -> (health, [NUMA ids])."""
        with self.cond:
            if not self.updates:
                return {}
            resp = self.updates[-1][1]
        return {d.ID: (d.health, [n.ID for n in d.topology.nodes]) for d in resp.devices}

    def allocate(self, ids, timeout=10):
        pb = self.pb
        return self.allocate_rpc(pb.AllocateRequest(container_requests=[pb.ContainerAllocateRequest(devices_ids=ids)]),
                                 timeout=timeout)

    def preferred(self, avail, must, size, timeout=10):
        pb = self.pb
        r = self.preferred_rpc(pb.PreferredAllocationRequest(container_requests=[
            pb.ContainerPreferredAllocationRequest(available_deviceIDs=avail, must_include_deviceIDs=must,
                                                   allocation_size=size)]), timeout=timeout)
        return list(r.container_responses[0].deviceIDs)

    def close(self):
        self.stream.cancel()
        self.channel.close()


class Kubelet:
    """The device manager's registration server and its clients."""

    def __init__(self, pb, socket_dir: str):
        self.pb, self.dir = pb, socket_dir
        self.clients: dict[str, Client] = {}
        self.registrations: list = []
        self.cond = threading.Condition()
        self.server = None

    def cleanup_plugin_directory(self):
        for name in os.listdir(self.dir):
            if name == CHECKPOINT:
                continue
            p = os.path.join(self.dir, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode) or not stat.S_ISSOCK(st.st_mode):
                continue
            os.remove(p)

    def start(self):
        os.makedirs(self.dir, mode=0o750, exist_ok=True)
        self.cleanup_plugin_directory()
        pb = self.pb
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        handler = grpc.method_handlers_generic_handler("v1beta1.Registration", {
            "Register": grpc.unary_unary_rpc_method_handler(
                self._register, request_deserializer=pb.RegisterRequest.FromString,
                response_serializer=pb.Empty.SerializeToString)})
        self.server.add_generic_rpc_handlers((handler,))
        self.server.add_insecure_port("unix:" + os.path.join(self.dir, "kubelet.sock"))
        self.server.start()

    def stop(self):
        for c in list(self.clients.values()):
            c.close()
        self.clients.clear()
        if self.server:
            self.server.stop(0).wait()
            self.server = None

    def _register(self, req, context):
        with self.cond:
            self.registrations.append(req)
            self.cond.notify_all()
        if req.version != "v1beta1":
            context.abort(grpc.StatusCode.UNKNOWN,
                          "Requested device plugin version %s is not supported. Supported versions are [v1beta1]"
                          % req.version)
        if not is_extended_resource_name(req.resource_name):
            context.abort(grpc.StatusCode.UNKNOWN, 'the ResourceName "%s" is invalid' % req.resource_name)
        try:
            c = Client(self.pb, req.resource_name, os.path.join(self.dir, req.endpoint))
        except Exception as e:  # dial failed
            context.abort(grpc.StatusCode.UNKNOWN, "failed to dial device plugin: %s" % e)
        old = self.clients.get(req.resource_name)
        if old:
            old.close()
        with self.cond:
            self.clients[req.resource_name] = c
            self.cond.notify_all()
        return self.pb.Empty()

    def wait_clients(self, names, timeout=15.0) -> bool:
        end = time.monotonic() + timeout
        with self.cond:
            while not all(n in self.clients for n in names) and time.monotonic() < end:
                self.cond.wait(end - time.monotonic())
            return all(n in self.clients for n in names)
