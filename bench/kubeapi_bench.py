#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Throughput of the test API server (e2e/kubeapi) alone: what it can serve before it becomes
the bottleneck of a benchmark that means to measure Ingot.

One run starts the server as a child process (TLS and a bearer token, as Ingot's daemons use
it, on 127.0.0.1 only) and measures, in order:

* creates/s: N LoadBalancer Services (cluster IPs allocated by the server) over C keep-alive
  connections;
* CR creates/s: N IPAddressPools (custom resources: pruned, defaulted and validated against
  the CRD schema from crds/);
* updates/s: U unconditional PUTs of those Services (a changed annotation each);
* list latency with N objects present: the full list, a label-selected list (1%) and a paged
  list (limit 500, every page);
* watch fan-out: W watchers on Services, then W_EVENTS updates; events/s delivered is
  W x W_EVENTS divided by the time until the last watcher has seen the last event.

Each rate is given per wall-clock second and per second of the server's own CPU time
(utime + stime from /proc): the server is one Python process, so the second figure is what it
can do on one core whatever the client costs. Every phase is bounded by --phase-seconds.

--compare REF also runs the e2e/kubeapi of git revision REF (e.g. main) and prints the two side
by side with the ratio new/old. --compare-validation instead runs this tree's server twice, with
CRD schema validation on and off (--no-schema-validation), ratio on/off. --compare-rbac runs it
twice with every measured request made by a ServiceAccount token: authorised by RBAC (the chart's
RBAC objects from charts/manifests plus a Role and RoleBinding granting the benchmark's calls),
then with --no-rbac (the token is still authenticated), ratio on/off.

    /usr/bin/python3 bench/kubeapi_bench.py                     # this tree's server
    /usr/bin/python3 bench/kubeapi_bench.py --compare main -n 10000
    /usr/bin/python3 bench/kubeapi_bench.py --compare-validation -n 5000
    /usr/bin/python3 bench/kubeapi_bench.py --compare-rbac -n 5000
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench"
NS = "bench"
SERVICES = f"/api/v1/namespaces/{NS}/services"
CLK_TCK = os.sysconf("SC_CLK_TCK")
_LENGTH = re.compile(rb"\r\ncontent-length: *(\d+)", re.I)
_CONTINUE = re.compile(rb'"continue":"([^"]+)"')


class Connection:
    """One keep-alive HTTP/1.1 connection with just enough parsing for this server's replies
    (which always carry Content-Length), so the client costs little CPU."""

    def __init__(self, port: int, tls: bool, token: str = TOKEN):
        self.token = token
        raw = socket.create_connection(("127.0.0.1", port))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            raw = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        self.sock = raw
        self.buf = bytearray()

    def send(self, method: str, path: str, body: bytes = b"",
             content_type: str = "application/json") -> None:
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.token}"
                f"\r\nAccept: application/json\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n")
        self.sock.sendall(head.encode() + body)

    def request(self, method: str, path: str, body: bytes = b"") -> tuple:
        self.send(method, path, body)
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        end = self.buf.index(b"\r\n\r\n") + 4
        head = bytes(self.buf[:end])
        del self.buf[:end]
        length = int(_LENGTH.search(head).group(1))
        while len(self.buf) < length:
            self._fill()
        body = bytes(self.buf[:length])
        del self.buf[:length]
        return int(head[9:12]), body

    def _fill(self) -> None:
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.buf += data

    def close(self) -> None:
        self.sock.close()


class Server:
    """The server under test as a child process (its tree is e2e/kubeapi of some revision)."""

    def __init__(self, kubeapi_dir: Path, work: Path, tls: bool, history: int,
                 extra_args=()):
        self.tls = tls
        self.token = TOKEN  # what connect() authenticates with (as_service_account changes it)
        port_file = work / "port"
        args = [sys.executable, str(kubeapi_dir / "server.py"), "--token", TOKEN,
                "--port-file", str(port_file), "--namespace", NS, "--history", str(history)]
        args += list(extra_args)
        args += ["--cert-dir", str(work / "certs")] if tls else ["--insecure-http"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{kubeapi_dir / 'server.py'} did not start")
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def connect(self) -> Connection:
        return Connection(self.port, self.tls, self.token)

    def as_service_account(self) -> None:
        """Creates the chart's RBAC objects and a ServiceAccount allowed the benchmark's calls
        (with the admin token); later connections use that ServiceAccount's token."""
        import yaml  # python3-yaml; only this mode needs it

        manifest = ROOT / "charts" / "manifests" / "ingot-frr-k8s.yaml"
        objects = [d for d in yaml.safe_load_all(manifest.read_text()) if isinstance(d, dict)
                   and d["kind"] in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")]
        role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "bench", "namespace": NS}, "rules": [
                    {"apiGroups": [""], "resources": ["services"],
                     "verbs": ["get", "list", "watch", "create", "update"]},
                    {"apiGroups": ["metallb.io"], "resources": ["ipaddresspools"],
                     "verbs": ["create"]}]}
        binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "bench", "namespace": NS},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                               "name": "bench"},
                   "subjects": [{"kind": "ServiceAccount", "name": "bench", "namespace": NS}]}
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {
            "name": "bench-token", "annotations": {"kubernetes.io/service-account.name": "bench"}},
            "type": "kubernetes.io/service-account-token"}
        conn = self.connect()
        conn.request("POST", "/api/v1/namespaces", json.dumps(
            {"metadata": {"name": "metallb-system"}}).encode())  # 409 when it exists
        for obj in objects + [role, binding]:
            plural = obj["kind"].lower() + "s"
            ns = obj["metadata"].get("namespace")
            path = "/apis/rbac.authorization.k8s.io/v1" + (f"/namespaces/{ns}" if ns else "")
            status, body = conn.request("POST", f"{path}/{plural}", json.dumps(obj).encode())
            if status != 201:
                raise RuntimeError(f"creating {obj['kind']} {obj['metadata']['name']}: {body}")
        conn.request("POST", f"/api/v1/namespaces/{NS}/serviceaccounts",
                     json.dumps({"metadata": {"name": "bench"}}).encode())
        status, body = conn.request("POST", f"/api/v1/namespaces/{NS}/secrets",
                                    json.dumps(secret).encode())
        conn.close()
        if status != 201:
            raise RuntimeError(f"creating the token Secret: {body}")
        self.token = base64.b64decode(json.loads(body)["data"]["token"]).decode()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def service(i: int, annotation: str = "") -> bytes:
    meta = {"name": f"svc-{i}", "namespace": NS, "labels": {"app": f"a{i % 100}"}}
    if annotation:
        meta["annotations"] = {"bench/round": annotation}
    return json.dumps({"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": {
        "type": "LoadBalancer", "allocateLoadBalancerNodePorts": False,
        "selector": {"app": f"a{i}"}, "ports": [{"name": "http", "port": 80}]}}).encode()


POOLS = f"/apis/metallb.io/v1beta1/namespaces/{NS}/ipaddresspools"


def address_pool(i: int) -> bytes:
    """An IPAddressPool with every kind of field its schema checks (a pattern-free but typed,
    nested spec with selectors)."""
    return json.dumps({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool", "metadata": {
        "name": f"pool-{i}", "namespace": NS, "labels": {"tier": f"t{i % 10}"}}, "spec": {
        "addresses": [f"10.{i // 256 % 256}.{i % 256}.0/24", f"fc00:{i:x}::/120"],
        "avoidBuggyIPs": bool(i % 2), "serviceAllocation": {
            "priority": i % 50, "namespaces": ["default"],
            "serviceSelectors": [{"matchExpressions": [
                {"key": "app", "operator": "In", "values": ["web", "api"]}]}]}}}).encode()


def run_writes(server: Server, count: int, clients: int, deadline: float, make) -> int:
    """Sends make(i) -> (method, path, body) for i < count over `clients` connections; returns
    how many succeeded before the deadline. Any other status than 200/201 is a failure."""
    done, errors = [0] * clients, []

    def worker(slot: int) -> None:
        conn = server.connect()
        try:
            for i in range(slot, count, clients):
                if time.monotonic() > deadline:
                    return
                status, body = conn.request(*make(i))
                if status not in (200, 201):
                    errors.append(f"{status} {body[:200]!r}")
                    return
                done[slot] += 1
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"a write failed: {errors[0]}")
    return sum(done)


class Measured:
    """Wall-clock and server CPU time of one phase."""

    def __init__(self, server: Server):
        self.server = server

    def __enter__(self):
        self.wall, self.cpu = time.monotonic(), self.server.cpu_seconds()
        return self

    def __exit__(self, *exc):
        self.wall = time.monotonic() - self.wall
        self.cpu = self.server.cpu_seconds() - self.cpu


def rates(name: str, count: int, m: Measured) -> dict:
    return {f"{name} (count)": count, f"{name}/s (wall)": count / m.wall,
            f"{name}/s (server CPU)": count / max(m.cpu, 1e-9)}


def list_latency(server: Server, conn: Connection, path: str, repeat: int) -> tuple:
    """Median wall-clock milliseconds of `repeat` GETs of path (following continue tokens),
    and the server's mean CPU milliseconds per GET."""
    samples, cpu = [], server.cpu_seconds()
    for _ in range(repeat):
        began, query = time.monotonic(), path
        while True:
            status, body = conn.request("GET", query)
            if status != 200:
                raise RuntimeError(f"list {query}: {status} {body[:200]!r}")
            token = _CONTINUE.search(body, 0, body.find(b'"items":'))  # metadata comes first
            if not token:
                break
            query = f"{path}&continue={token.group(1).decode()}"
        samples.append((time.monotonic() - began) * 1000)
    return sorted(samples)[len(samples) // 2], (server.cpu_seconds() - cpu) * 1000 / repeat


class Watcher(threading.Thread):
    """One watch connection that counts event lines without decoding them."""

    MARK = b'{"type":"'

    def __init__(self, server: Server, rv: str, progress: threading.Condition):
        super().__init__(daemon=True)
        self.conn = server.connect()
        self.conn.send("GET", f"{SERVICES}?watch=1&resourceVersion={rv}")
        self.seen = 0
        self.progress = progress

    def run(self) -> None:
        tail, sock = b"", self.conn.sock
        while True:
            try:
                data = sock.recv(1 << 20)
            except OSError:
                data = b""
            chunk = tail + data
            with self.progress:
                self.seen += chunk.count(self.MARK) if data else 0
                self.progress.notify_all()
            if not data:
                return
            tail = chunk[-(len(self.MARK) - 1):]


def watch_fanout(server: Server, args, deadline: float) -> dict:
    conn = server.connect()
    rv = json.loads(conn.request("GET", f"{SERVICES}?limit=1")[1])["metadata"]["resourceVersion"]
    conn.close()
    progress = threading.Condition()
    watchers = [Watcher(server, rv, progress) for _ in range(args.watchers)]
    for w in watchers:
        w.start()
    events = min(args.watch_events, args.objects)
    with Measured(server) as m:
        written = run_writes(server, events, args.clients, deadline,
                             lambda i: ("PUT", f"{SERVICES}/svc-{i}", service(i, "watch")))
        with progress:
            progress.wait_for(lambda: all(w.seen >= written for w in watchers),
                              max(0.0, deadline - time.monotonic()))
    delivered = sum(min(w.seen, written) for w in watchers)
    for w in watchers:
        w.conn.sock.shutdown(socket.SHUT_RDWR)
        w.join()
        w.conn.close()
    return {"watchers": args.watchers, "watch writes": written,
            "events delivered": delivered, "events delivered/s (wall)": delivered / m.wall,
            "events delivered/s (server CPU)": delivered / max(m.cpu, 1e-9)}


def measure(kubeapi_dir: Path, args, extra_args=(), service_account: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="kubeapi-bench-") as work:
        server = Server(kubeapi_dir, Path(work), not args.insecure_http, args.history,
                        extra_args)
        try:
            if service_account:
                server.as_service_account()
            result = {}
            n, u = args.objects, min(args.updates, args.objects)
            with Measured(server) as m:
                created = run_writes(server, n, args.clients, time.monotonic() + args.phase_seconds,
                                     lambda i: ("POST", SERVICES, service(i)))
            result.update(rates("creates", created, m))
            if args.crs:
                with Measured(server) as m:
                    made = run_writes(server, args.crs, args.clients,
                                      time.monotonic() + args.phase_seconds,
                                      lambda i: ("POST", POOLS, address_pool(i)))
                result.update(rates("CR creates", made, m))
            with Measured(server) as m:
                updated = run_writes(server, min(u, created), args.clients,
                                     time.monotonic() + args.phase_seconds,
                                     lambda i: ("PUT", f"{SERVICES}/svc-{i}", service(i, "u")))
            result.update(rates("updates", updated, m))
            conn = server.connect()
            for name, query in (("list all", "?"), ("list labelSelector 1%",
                                                    "?labelSelector=app%3Da7"),
                                ("list limit=500, all pages", "?limit=500")):
                wall, cpu = list_latency(server, conn, SERVICES + query, args.repeat)
                result[f"{name} (ms, median)"] = wall
                result[f"{name} (server CPU ms)"] = cpu
            conn.close()
            result.update(watch_fanout(server, args, time.monotonic() + args.phase_seconds))
            return result
        finally:
            server.stop()


def decision_cost(count: int = 20000) -> None:
    """Prints the CPU time of one RBAC decision in process, under the chart's RBAC: what the
    end-to-end figures above hide in their noise."""
    import yaml  # python3-yaml

    sys.path.insert(0, str(ROOT / "e2e" / "kubeapi"))
    from kubeapi.rbac import Policy, Request, User

    manifest = ROOT / "charts" / "manifests" / "ingot-frr-k8s.yaml"
    docs = [d for d in yaml.safe_load_all(manifest.read_text()) if isinstance(d, dict)]
    kinds = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
    policy = Policy.build(*([d for d in docs if d["kind"] == k] for k in kinds))
    agent = User.service_account("metallb-system", "ingot-agent")
    print("RBAC decision, in process, under the chart's RBAC (CPU µs per decision):")
    for label, request in (
            ("allowed by the first ClusterRoleBinding (list services)",
             Request("list", "", "services")),
            ("allowed by the last RoleBinding (patch servicebgpstatuses/status)",
             Request("patch", "metallb.io", "servicebgpstatuses", "status", "metallb-system",
                     "x")),
            ("refused after every binding (create configmaps)",
             Request("create", "", "configmaps", namespace="default"))):
        start = time.process_time()
        for _ in range(count):
            policy.decide(agent, request)
        print(f"  {label}: {(time.process_time() - start) / count * 1e6:.1f}", flush=True)


def checkout(ref: str, into: Path) -> Path:
    """Extracts e2e/kubeapi of git revision ref into a directory; returns that folder."""
    paths = ["e2e/kubeapi"]
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{ref}:crds"],
                      capture_output=True).returncode == 0:
        paths.append("crds")  # the server preinstalls the repository's CRDs
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "e2e" / "kubeapi"


def fmt(value) -> str:
    return f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"


def report(columns: dict) -> None:
    names = list(columns)
    rows = list(next(iter(columns.values())))
    width = max(len(r) for r in rows)
    print(f"{'':{width}}  " + "  ".join(f"{n:>14}" for n in names)
          + ("  ratio 1st/2nd" if len(names) == 2 else ""))
    for row in rows:
        values = [columns[n].get(row) for n in names]
        line = f"{row:{width}}  " + "  ".join(f"{fmt(v):>14}" for v in values)
        if len(names) == 2 and values[1] and isinstance(values[1], (int, float)):
            line += f"  {values[0] / values[1]:7.2f}x"
        print(line, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--objects", type=int, default=10000, help="Services created")
    parser.add_argument("--updates", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=4, help="concurrent connections")
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--watch-events", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5, help="samples per list figure")
    parser.add_argument("--history", type=int, default=1000, help="server --history")
    parser.add_argument("--phase-seconds", type=float, default=300,
                        help="upper bound of each phase")
    parser.add_argument("--insecure-http", action="store_true", help="plain HTTP instead of TLS")
    parser.add_argument("--crs", type=int, help="IPAddressPools created (default: -n)")
    parser.add_argument("--compare", metavar="REF", help="also run e2e/kubeapi of git REF")
    parser.add_argument("--compare-validation", action="store_true",
                        help="run this tree with CRD schema validation on, then off")
    parser.add_argument("--compare-rbac", action="store_true",
                        help="run this tree as a ServiceAccount with RBAC on, then off")
    args = parser.parse_args()
    args.crs = args.objects if args.crs is None else args.crs
    columns = {}
    print(f"kubeapi_bench: {args.objects} Services, {args.clients} clients, "
          f"{'HTTP' if args.insecure_http else 'TLS'}, {args.watchers} watchers", flush=True)
    if args.compare_validation:
        columns["validation on"] = measure(ROOT / "e2e" / "kubeapi", args)
        columns["validation off"] = measure(ROOT / "e2e" / "kubeapi", args,
                                            ("--no-schema-validation",))
        report(columns)
        return 0
    if args.compare_rbac:
        tree = ROOT / "e2e" / "kubeapi"
        columns["RBAC on"] = measure(tree, args, service_account=True)
        columns["RBAC off"] = measure(tree, args, ("--no-rbac",), service_account=True)
        report(columns)
        decision_cost()
        return 0
    columns["this tree"] = measure(ROOT / "e2e" / "kubeapi", args)
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="kubeapi-bench-ref-") as tree:
            columns[args.compare] = measure(checkout(args.compare, Path(tree)), args)
    report(columns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
