# SPDX-License-Identifier: Apache-2.0
"""The daemons' HTTP server under abusive clients, end to end over loopback: a real
ingot-controller (its TLS webhook behind the test API server, and its /metrics and health
ports) and a real ingot-agent (its /metrics and health ports), each probed with slow-loris
connections (heads trickled a byte or a line at a time), idle connects, TCP connects that never
start TLS, floods from one address and a 1 MB request head, while normal requests from another
loopback address must keep getting the right answer within a 1 s client timeout.

The probes come from 127.0.0.2-127.0.0.11 and the normal client from 127.0.0.1, as an abusive
client and a kubelet or Prometheus are different hosts: the server caps connections per client
address, so a probe sharing the normal client's address would (rightly) be capped together with
it. SCALE multiplies every probe count."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from conftest import POOLS, ApiClient, pool
from test_ingot_webhooks import (CONFIGS, HOST, NS, POOL_PATH, REPO, SECRET, bundles_set,
                                 chart_webhook_configuration, controller_binary, expose,
                                 wait_for, webhook_port_in)

SCALE = int(os.environ.get("INGOT_HTTP_PROBE_SCALE", "1"))
CLIENT_TIMEOUT = 1.0  # the normal request's own timeout: the pass criterion
ROUNDS = 3            # normal requests per probe (one slow answer on a loaded machine is not luck)
TRICKLE_INTERVAL = 0.5


def agent_binary() -> Path:
    path = Path(os.environ.get("INGOT_AGENT") or REPO / "build/agent/ingot-agent")
    if not path.is_file():
        pytest.skip(f"{path} is not built")
    return path


def attacker(i: int) -> str:
    return f"127.0.0.{2 + i % 10}"


def connect_from(port: int, source: str, timeout: float = 5.0) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_ports(path: Path) -> dict:
    def ready():
        if not path.is_file():
            return None
        ports = dict(line.split() for line in path.read_text().splitlines() if line.strip())
        return {k: int(v) for k, v in ports.items()}
    return wait_for(f"ports file {path}", ready)


# Normal clients -------------------------------------------------------------------------------

def http_get(port: int, path: str, head: str = "", timeout: float = CLIENT_TIMEOUT):
    """GET over plain HTTP from 127.0.0.1; (status, body). Raises when no complete answer came
    within timeout (the socket timeout bounds each step, the total is checked too)."""
    started = time.monotonic()
    with connect_from(port, "127.0.0.1", timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{head}Connection: close\r\n\r\n".encode())
        response = http.client.HTTPResponse(s)
        response.begin()
        body = response.read()
    elapsed = time.monotonic() - started
    assert elapsed <= timeout, f"GET {path} answered after {elapsed:.2f} s"
    return response.status, body


def webhook_post(port: int, context: ssl.SSLContext, timeout: float = CLIENT_TIMEOUT) -> dict:
    """One ConversionReview (a v1beta1 BGPPeer to v1beta2) over TLS from 127.0.0.1, verified
    against the controller's CA; returns the converted object. Conversion needs no API call, so
    the time is the webhook server's alone (an admission review lists objects from the API)."""
    started = time.monotonic()
    raw = connect_from(port, "127.0.0.1", timeout)
    with context.wrap_socket(raw, server_hostname=HOST) as tls:
        body = json.dumps({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "u-1", "desiredAPIVersion": "metallb.io/v1beta2", "objects": [{
                "apiVersion": "metallb.io/v1beta1", "kind": "BGPPeer",
                "metadata": {"name": "probe", "namespace": NS},
                "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1"}}]}}).encode()
        tls.sendall(f"POST /convert HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: "
                    f"application/json\r\nContent-Length: {len(body)}\r\nConnection: close"
                    "\r\n\r\n".encode() + body)
        response = http.client.HTTPResponse(tls)
        response.begin()
        answer = json.loads(response.read())
    elapsed = time.monotonic() - started
    assert elapsed <= timeout, f"the webhook answered after {elapsed:.2f} s"
    assert response.status == 200
    assert answer["response"]["uid"] == "u-1"
    assert answer["response"]["result"]["status"] == "Success"
    (converted,) = answer["response"]["convertedObjects"]
    return converted


# Probes ---------------------------------------------------------------------------------------

class Idle:
    """count connections that connect and send nothing, spread over the attacker addresses."""

    def __init__(self, port: int, count: int):
        self.port, self.count, self.socks = port, count, []

    def __enter__(self) -> "Idle":
        for i in range(self.count):
            self.socks.append(connect_from(self.port, attacker(i)))
        return self

    def __exit__(self, *exc) -> None:
        for s in self.socks:
            s.close()


class Trickle:
    """count connections that send their request head one piece every TRICKLE_INTERVAL: one
    byte over plain HTTP, one header line after a completed handshake over TLS."""

    def __init__(self, port: int, count: int, tls: Optional[ssl.SSLContext] = None):
        self.port, self.count, self.tls = port, count, tls
        self.socks: list = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.cut = 0  # connections the server closed while they trickled

    def __enter__(self) -> "Trickle":
        for i in range(self.count):
            s = connect_from(self.port, attacker(i))
            if self.tls is not None:
                s = self.tls.wrap_socket(s, server_hostname=HOST)
            self.socks.append(s)
        self.thread.start()
        return self

    def _pieces(self):
        if self.tls is None:
            yield from (bytes([b]) for b in b"GET /metrics HTTP/1.1\r\nX-Slow: " + b"a" * 500)
        else:
            yield f"POST {POOL_PATH} HTTP/1.1\r\n".encode()
            for i in range(500):
                yield f"X-Slow-{i}: a\r\n".encode()

    def _run(self) -> None:
        alive = list(self.socks)
        for piece in self._pieces():
            if self.stop.is_set() or not alive:
                return
            for s in list(alive):
                try:
                    s.sendall(piece)
                except OSError:
                    alive.remove(s)
                    self.cut += 1
            self.stop.wait(TRICKLE_INTERVAL)

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        for s in self.socks:
            s.close()


# The daemons ----------------------------------------------------------------------------------

@dataclass
class Daemons:
    client: ApiClient
    webhook_port: int
    controller: dict  # {"metrics": port, "health": port}
    agent: dict
    procs: list

    def webhook_context(self) -> ssl.SSLContext:
        ca = base64.b64decode(self.client.get(SECRET).body["data"]["ca.crt"])
        return ssl.create_default_context(cadata=ca.decode())

    def alive(self) -> None:
        for name, proc, log in self.procs:
            assert proc.poll() is None, f"{name} exited {proc.returncode}: {log.read_text()}"


@contextlib.contextmanager
def running_daemons(server, directory: Path, controller_path: Path, agent_path: Path):
    """Starts, on the test API server, ingot-controller (webhook, metrics and health) with the
    chart's webhook configuration and ingot-agent (metrics and health), all on loopback; yields
    Daemons once the webhook's CA bundles are published; stops both by PID."""
    client = ApiClient(server)
    assert client.post(CONFIGS, chart_webhook_configuration()).status == 201
    kubeconfig = directory / "kubeconfig"
    server.write_kubeconfig(kubeconfig)
    procs = []

    def launch(name: str, argv: list) -> dict:
        log = directory / f"{name}.log"
        ports = directory / f"{name}.ports"
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                argv + ["--kubeconfig", str(kubeconfig), "--namespace", NS, "--port", "7472",
                        "--health-probe-port", "7473", "--ports-file", str(ports)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        procs.append((name, proc, log))
        return read_ports(ports)

    try:
        # With --ports-file and no --webhook-port the webhook takes a free loopback port too (no
        # port is guessed and handed over, which races with other sockets); its log says which.
        controller = launch("controller", [str(controller_path)])
        log = directory / "controller.log"
        webhook_port = wait_for("the webhook's port", lambda: webhook_port_in(log))
        expose(client, webhook_port)
        agent = launch("agent", [str(agent_path), "--node-name", "node1"])
        running = Daemons(client, webhook_port, controller, agent, procs)
        wait_for("the controller's CA bundles", lambda: running.alive() or bundles_set(client))
        yield running
    finally:
        for _, proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)


@pytest.fixture
def daemons(start_server, tmp_path):
    server = start_server()
    with running_daemons(server, tmp_path, controller_binary(), agent_binary()) as running:
        yield running
        running.alive()


def expect_webhook_served(d: Daemons, context: ssl.SSLContext) -> None:
    for _ in range(ROUNDS):
        converted = webhook_post(d.webhook_port, context)
        assert converted["apiVersion"] == "metallb.io/v1beta2"
        assert converted["spec"]["peerAddress"] == "10.0.0.1"
    d.alive()


def expect_endpoints_served(ports: dict) -> None:
    for _ in range(ROUNDS):
        status, body = http_get(ports["metrics"], "/metrics")
        assert status == 200 and b"# TYPE ingot_build_info gauge" in body
        assert http_get(ports["health"], "/healthz") == (200, b"ok\n")


# Tests ----------------------------------------------------------------------------------------

def test_the_webhook_answers_while_tls_heads_trickle(daemons):
    context = daemons.webhook_context()
    with Trickle(daemons.webhook_port, 8 * SCALE, tls=context):
        expect_webhook_served(daemons, context)
        # The API server's own call through the webhook (failurePolicy Fail) is not denied.
        created = daemons.client.post(POOLS, pool("during-trickle", addresses=("10.78.0.0/24",)))
        assert created.status == 201, created.body


def test_the_webhook_answers_while_connects_never_start_tls(daemons):
    context = daemons.webhook_context()
    with Idle(daemons.webhook_port, 8 * SCALE):
        expect_webhook_served(daemons, context)
        created = daemons.client.post(POOLS, pool("during-idle", addresses=("10.79.0.0/24",)))
        assert created.status == 201, created.body


@pytest.mark.parametrize("daemon", ["controller", "agent"])
def test_metrics_and_health_answer_under_idle_connects(daemons, daemon):
    ports = getattr(daemons, daemon)
    with Idle(ports["metrics"], 500 * SCALE), Idle(ports["health"], 50 * SCALE):
        expect_endpoints_served(ports)
    daemons.alive()


@pytest.mark.parametrize("daemon", ["controller", "agent"])
def test_metrics_and_health_answer_while_heads_trickle(daemons, daemon):
    ports = getattr(daemons, daemon)
    with Trickle(ports["metrics"], 20 * SCALE), Trickle(ports["health"], 20 * SCALE):
        expect_endpoints_served(ports)


def test_a_one_megabyte_head_is_refused_with_431(daemons):
    for port in (daemons.agent["metrics"], daemons.agent["health"]):
        status, _ = http_get(port, "/healthz", head=f"X-Big: {'a' * (1 << 20)}\r\n",
                             timeout=10.0)
        assert status == 431
    expect_endpoints_served(daemons.agent)


def test_one_address_cannot_take_every_connection(daemons):
    """A flood from one address is capped: connections past the cap are closed at once (a read
    sees end of stream or a reset, where a kept connection would wait), and other clients are
    served meanwhile."""
    port = daemons.agent["health"]
    flood = [connect_from(port, "127.0.0.2") for _ in range(100 * SCALE)]
    try:
        def closed(s: socket.socket, wait: float) -> bool:
            s.settimeout(wait)
            try:
                return s.recv(1) == b""
            except socket.timeout:
                return False
            except ConnectionResetError:
                return True
        assert closed(flood[-1], 10.0), "the last connection of the flood was kept"
        refused = sum(closed(s, 0.05) for s in flood[:-1]) + 1
        assert refused >= 100 * SCALE - 64, "the server kept more than its per-client cap"
        assert refused < 100 * SCALE, "the first connections of the address were refused too"
        expect_endpoints_served(daemons.agent)
    finally:
        for s in flood:
            s.close()
