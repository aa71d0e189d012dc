# SPDX-License-Identifier: Apache-2.0
"""ingot-controller's webhooks against the test API server, over real sockets on 127.0.0.1: the
chart's ValidatingWebhookConfiguration with the CA bundle the controller writes, MetalLB's
denials and warnings, BGPPeer conversion, bad requests and TLS clients the server refuses, and
--disable-cert-rotation with mounted certificates."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
import yaml

import kubeapi
from conftest import KUBECTL, POOLS, ApiClient, pool

REPO = Path(__file__).resolve().parents[2]
NS = "metallb-system"
SVC = "metallb-webhook-service"
HOST = f"{SVC}.{NS}.svc"
CONFIGS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
VWC = f"{CONFIGS}/metallb-webhook-configuration"
CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bgppeers.metallb.io"
SECRET = f"/api/v1/namespaces/{NS}/secrets/metallb-webhook-cert"
PEERS = f"/apis/metallb.io/{{}}/namespaces/{NS}/bgppeers"
POOL_PATH = "/validate-metallb-io-v1beta1-ipaddresspool"


def controller_binary() -> Path:
    path = Path(os.environ.get("INGOT_CONTROLLER") or REPO / "build/controller/ingot-controller")
    if not path.is_file():
        pytest.skip(f"{path} is not built")
    return path


def free_port() -> int:
    """A port free on every address, as the controller binds it ([::], dual-stack): a port only
    free on 127.0.0.1 may be held on another loopback address (the abuse tests' probes)."""
    with socket.socket(socket.AF_INET6) as s:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.bind(("::", 0))
        return s.getsockname()[1]


def wait_for(what: str, predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def chart_webhook_configuration() -> dict:
    """The ValidatingWebhookConfiguration as the chart renders it (charts/manifests)."""
    docs = yaml.safe_load_all((REPO / "charts/manifests/ingot-frr-k8s.yaml").read_text())
    return next(d for d in docs if d and d["kind"] == "ValidatingWebhookConfiguration")


def expose(client: ApiClient, port: int) -> None:
    """The webhook Service and an EndpointSlice pointing at the controller on 127.0.0.1:port."""
    assert client.post(f"/api/v1/namespaces/{NS}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": SVC, "namespace": NS},
        "spec": {"ports": [{"name": "webhook", "port": 443, "targetPort": 9443}]}}).status == 201
    assert client.post(f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices", {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
        "metadata": {"name": f"{SVC}-1", "namespace": NS,
                     "labels": {"kubernetes.io/service-name": SVC}},
        "ports": [{"name": "webhook", "port": port}],
        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]}).status == 201


@dataclass
class Running:
    server: kubeapi.KubeApiServer
    client: ApiClient
    port: int
    proc: subprocess.Popen
    log: Path

    def ca_pem(self) -> bytes:
        return base64.b64decode(self.client.get(SECRET).body["data"]["ca.crt"])

    def context(self, ca_pem: bytes) -> ssl.SSLContext:
        context = ssl.create_default_context(cadata=ca_pem.decode())
        return context

    def post(self, path: str, body: bytes, context: ssl.SSLContext = None):
        """POSTs body over TLS to 127.0.0.1, verifying the name the API server verifies."""
        context = context or self.context(self.ca_pem())
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=20)
        with context.wrap_socket(raw, server_hostname=HOST) as tls:
            tls.sendall(f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\n"
                        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                        "Connection: close\r\n\r\n".encode())
            try:
                tls.sendall(body)
            except OSError:
                pass  # a server refusing a huge body may close before reading it: read its answer
            response = http.client.HTTPResponse(tls)
            response.begin()
            return response.status, response.read()


def bundles_set(client: ApiClient) -> bool:
    hooks = client.get(VWC).body["webhooks"]
    conversion = client.get(CRD).body["spec"]["conversion"]["webhook"]["clientConfig"]
    return all(h["clientConfig"].get("caBundle") for h in hooks) and bool(
        conversion.get("caBundle"))


@pytest.fixture
def start_controller(start_server, tmp_path):
    """Starts the test API server, the chart's webhook objects and
    ingot-controller --webhook-mode=onlywebhook; stops the controller (by its PID) after."""
    procs = []

    def start(*flags: str, wait_bundles: bool = True) -> Running:
        server = start_server()
        client = ApiClient(server)
        port = free_port()
        expose(client, port)
        assert client.post(CONFIGS, chart_webhook_configuration()).status == 201
        kubeconfig = tmp_path / "kubeconfig"
        server.write_kubeconfig(kubeconfig)
        log = tmp_path / "controller.log"
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                [str(controller_binary()), "--kubeconfig", str(kubeconfig), "--namespace", NS,
                 "--port", "0", "--health-probe-port", "0", "--webhook-port", str(port),
                 "--webhook-mode", "onlywebhook", *flags],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        procs.append(proc)
        running = Running(server, client, port, proc, log)
        if wait_bundles:
            wait_for("the controller's CA bundles", lambda: proc.poll() is None
                     and bundles_set(client) or _exited(proc, log))
        return running

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=20)


def webhook_port_in(log: Path) -> Optional[int]:
    """The port of the controller's "webhook listening" log line in log, once logged (also used by
    test_http_abuse)."""
    for line in log.read_text().splitlines() if log.is_file() else ():
        if line.startswith("{") and '"event":"listening"' in line:
            entry = json.loads(line)
            if entry.get("op") == "webhook":
                return int(entry["port"])
    return None


def _exited(proc: subprocess.Popen, log: Path) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"ingot-controller exited {proc.returncode}: {log.read_text()}")
    return False


def test_invalid_objects_are_denied_with_metallbs_messages(start_controller):
    c = start_controller().client
    assert c.post(POOLS, pool("a", addresses=("10.0.0.0/16",))).status == 201
    denied = c.post(POOLS, pool("b", addresses=("10.0.1.0/24",)))
    assert denied.status == 403, denied.body
    assert denied.body["message"] == (
        'admission webhook "ipaddresspoolvalidationwebhook.metallb.io" denied the request: '
        'CIDR "10.0.1.0/24" in pool "b" overlaps with already defined CIDR "10.0.0.0/16"')
    elsewhere = pool("c", addresses=("10.9.0.0/24",))
    elsewhere["metadata"]["namespace"] = "default"
    outside = c.post("/apis/metallb.io/v1beta1/namespaces/default/ipaddresspools", elsewhere)
    assert outside.status == 403
    assert outside.body["message"].endswith("resource must be created in metallb-system namespace")
    peer = {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": "old", "namespace": NS},
            "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1",
                     "disableMP": True}}
    created = c.post(PEERS.format("v1beta2"), peer)
    assert created.status == 201
    assert "disable mp is deprecated" in created.headers.get("Warning", "")
    status = {"assignedIPv4": 0, "assignedIPv6": 0, "availableIPv4": 1, "availableIPv6": 0}
    assert c.patch(f"{POOLS}/a/status", {"status": status}).status == 200


def test_a_v1beta1_peer_is_stored_as_v1beta2_through_the_controller(start_controller):
    running = start_controller()
    c = running.client
    old_style = {"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
                 "metadata": {"name": "tor", "namespace": NS},
                 "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}}
    assert c.post(PEERS.format("v1beta1"), old_style).status == 201
    stored = running.server.cluster.store.get(("metallb.io", "bgppeers"), NS, "tor")
    assert stored["apiVersion"] == "metallb.io/v1beta2"
    assert stored["spec"]["peerAddress"] == "10.0.0.1"
    back = c.get(PEERS.format("v1beta1") + "/tor").body
    assert back["apiVersion"] == "metallb.io/v1beta1" and back["spec"]["peerASN"] == 64501


def test_kubectl_gets_an_invalid_v1beta1_peer_denied_by_the_v1beta2_webhook(start_controller,
                                                                             tmp_path):
    """The chart's rule names v1beta2 only; with matchPolicy Equivalent the server converts a
    v1beta1 BGPPeer through the controller's /convert and sends it to
    /validate-metallb-io-v1beta2-bgppeer, so kubectl gets MetalLB's denial as on a real
    cluster."""
    running = start_controller()
    kubeconfig = tmp_path / "kubectl-config"
    running.server.write_kubeconfig(kubeconfig)
    peer = {"apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
            "metadata": {"name": "keyed", "namespace": NS},
            "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1",
                     "password": "k" * 81}}
    env = dict(os.environ, HOME=str(tmp_path), KUBECACHEDIR=str(tmp_path / "cache"))
    result = subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), "create", "-f", "-"],
                            input=json.dumps(peer), capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode != 0, result.stdout
    assert 'admission webhook "bgppeervalidationwebhook.metallb.io" denied the request' \
        in result.stderr, result.stderr
    assert "TCP-MD5 keys are at most 80 bytes" in result.stderr, result.stderr
    assert running.client.get(PEERS.format("v1beta2") + "/keyed").status == 404
    peer["spec"]["password"] = "k" * 80
    ok = subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), "create", "-f", "-"],
                        input=json.dumps(peer), capture_output=True, text=True, env=env,
                        timeout=60)
    assert ok.returncode == 0, ok.stderr


def review(kind: str, obj) -> bytes:
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": {"uid": "u-1", "kind": {"group": "metallb.io",
                                                          "version": "v1beta1", "kind": kind},
                                   "operation": "CREATE", "namespace": NS, "name": "x",
                                   "object": obj}}).encode()


def test_bad_requests_get_clear_errors_and_never_crash_the_server(start_controller, tmp_path):
    running = start_controller()
    status, body = running.post(POOL_PATH, b"this is not json")
    assert status == 400
    answer = json.loads(body)["response"]
    assert answer["allowed"] is False
    assert answer["status"]["message"].startswith("the request body is not JSON")
    status, _ = running.post(POOL_PATH, b"{" + b" " * (8 << 20) + b"}")
    assert status == 413
    status, _ = running.post("/validate-nothing", review("IPAddressPool", {}))
    assert status == 404
    # A review for a kind the path does not validate is refused, never let through unchecked.
    status, body = running.post(POOL_PATH, review("ServiceL2Status", {"junk": True}))
    answer = json.loads(body)["response"]
    assert status == 200 and answer["allowed"] is False and answer["status"]["code"] == 400
    assert "not metallb.io/v1beta1 ServiceL2Status" in answer["status"]["message"]
    status, body = running.post("/convert", b'{"kind":"ConversionReview"}')
    assert status == 400 and "expected an apiextensions.k8s.io/v1" in json.loads(body)["message"]
    other = kubeapi.generate_certs(tmp_path / "other-ca")
    with pytest.raises(ssl.SSLCertVerificationError):
        running.post(POOL_PATH, review("IPAddressPool", {}), running.context(other.ca.read_bytes()))
    old_client = running.context(running.ca_pem())
    old_client.maximum_version = ssl.TLSVersion.TLSv1_2  # the default minimum is TLS 1.3
    with pytest.raises(ssl.SSLError):
        running.post(POOL_PATH, review("IPAddressPool", {}), old_client)
    assert running.proc.poll() is None
    status, body = running.post(POOL_PATH, review("IPAddressPool", {
        "apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
        "metadata": {"name": "ok", "namespace": NS}, "spec": {"addresses": ["10.1.0.0/24"]}}))
    assert status == 200 and json.loads(body)["response"]["allowed"] is True


def test_tls12_and_named_cipher_suites_when_configured(start_controller):
    running = start_controller("--tls-min-version=VersionTLS12",
                               "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
    client = running.context(running.ca_pem())
    client.maximum_version = ssl.TLSVersion.TLSv1_2
    conn = socket.create_connection(("127.0.0.1", running.port), timeout=10)
    with client.wrap_socket(conn, server_hostname=HOST) as tls:
        assert tls.version() == "TLSv1.2"
        assert tls.cipher()[0] == "ECDHE-ECDSA-AES128-GCM-SHA256"


def test_a_lost_secret_is_regenerated_and_the_new_ca_is_published(start_controller):
    running = start_controller()
    first = running.ca_pem()
    running.proc.terminate()
    running.proc.wait(timeout=20)
    assert running.client.delete(SECRET).status == 200
    kubeconfig = running.log.parent / "kubeconfig"
    # The restarted controller picks its own webhook port (--ports-file, no --webhook-port) and
    # the EndpointSlice follows it: the old port, free since the first controller exited, may
    # have been taken by another socket meanwhile.
    log = running.log.parent / "restarted.log"
    with open(log, "ab") as out:
        restarted = subprocess.Popen(
            [str(controller_binary()), "--kubeconfig", str(kubeconfig), "--namespace", NS,
             "--port", "0", "--health-probe-port", "0",
             "--ports-file", str(running.log.parent / "restarted.ports"),
             "--webhook-mode", "onlywebhook"], stdout=out, stderr=subprocess.STDOUT)
    try:
        port = wait_for("the restarted webhook's port",
                        lambda: restarted.poll() is None and webhook_port_in(log)
                        or _exited(restarted, log))
        assert running.client.patch(
            f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices/{SVC}-1",
            {"ports": [{"name": "webhook", "port": port}]}).status == 200
        def published():
            secret = running.client.get(SECRET)
            if secret.status != 200:
                return None
            ca = base64.b64decode(secret.body["data"]["ca.crt"])
            bundle = running.client.get(VWC).body["webhooks"][0]["clientConfig"]["caBundle"]
            return ca if ca != first and base64.b64decode(bundle) == ca else None
        wait_for("a new CA in the webhook configuration", published)
        assert running.client.post(POOLS, pool("after")).status == 201
    finally:
        restarted.terminate()
        restarted.wait(timeout=20)


def test_disabled_rotation_serves_the_mounted_certificate(start_controller, tmp_path):
    mounted = kubeapi.generate_certs(tmp_path / "mounted", dns_names=(HOST,))
    cert_dir = tmp_path / "serving-certs"
    cert_dir.mkdir()
    (cert_dir / "tls.crt").write_bytes(mounted.cert.read_bytes())
    (cert_dir / "tls.key").write_bytes(mounted.key.read_bytes())
    running = start_controller("--disable-cert-rotation", f"--cert-dir={cert_dir}",
                               wait_bundles=False)
    context = running.context(mounted.ca.read_bytes())
    wait_for("the webhook on the mounted certificate", lambda: _answers(running, context))
    assert running.client.get(SECRET).status == 404  # nothing generated, nothing patched
    assert "caBundle" not in running.client.get(VWC).body["webhooks"][0]["clientConfig"]


def _answers(running: Running, context: ssl.SSLContext) -> bool:
    _exited(running.proc, running.log)
    try:
        status, _ = running.post(POOL_PATH, review("ServiceL2Status", {}), context)
    except OSError:
        return False
    return status == 200
