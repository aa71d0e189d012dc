#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""How long a normal request takes while abusive clients hold the daemons' HTTP ports, and the
daemons' memory; loopback only, no root.

    /usr/bin/python3 bench/http_probes.py [--controller PATH] [--agent PATH] [--timeout 30]
                                          [--scale 1]

Starts the test API server (e2e/kubeapi, in this process), ingot-controller (its TLS webhook
behind the chart's ValidatingWebhookConfiguration, /metrics, health) and ingot-agent (/metrics,
health), the same set-up as e2e/kubeapi/test_http_abuse.py, whose probes it reuses. For each
probe it opens the abusive connections from 127.0.0.2-127.0.0.11, then times three normal
requests from 127.0.0.1 (each with --timeout as its own timeout; a request that fails or times
out is printed as such), and closes the probe. Then it prints each daemon's VmRSS once started
and its VmHWM at the end (/proc/<pid>/status). Figures only; nothing is asserted. Point --agent
and --controller at another build's binaries to compare servers.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "e2e/kubeapi"))

import kubeapi  # noqa: E402
import test_http_abuse as probes  # noqa: E402
from conftest import TOKEN  # noqa: E402


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def timed(request, timeout: float) -> str:
    started = time.monotonic()
    try:
        request(timeout)
    except (OSError, AssertionError, ValueError) as e:
        return f"failed after {time.monotonic() - started:.2f} s ({type(e).__name__})"
    return f"{(time.monotonic() - started) * 1000:.1f} ms"


class Connects(probes.Idle):
    """Idle, with non-blocking connects: a server whose short backlog drops SYNs leaves them to
    the kernel's retries (as an attacker would) instead of stalling the benchmark."""

    def __enter__(self):
        for i in range(self.count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((probes.attacker(i), 0))
            s.connect_ex(("127.0.0.1", self.port))
            self.socks.append(s)
        return self


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--controller", default=str(REPO / "build/controller/ingot-controller"))
    parser.add_argument("--agent", default=str(REPO / "build/agent/ingot-agent"))
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--scale", type=int, default=1)
    args = parser.parse_args()
    n = args.scale
    # A SIGTERM unwinds like an exception, so the daemons are stopped (by PID) on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    with tempfile.TemporaryDirectory(prefix="ingot-http-probes-") as tmp:
        directory = Path(tmp)
        kubeapi.generate_certs(directory / "certs")
        server = kubeapi.KubeApiServer(tokens=(TOKEN,), cert_dir=directory / "certs",
                                       bookmark_interval=0.2).start()
        try:
            with probes.running_daemons(server, directory, Path(args.controller),
                                        Path(args.agent)) as d:
                pids = {name: proc.pid for name, proc, _ in d.procs}
                started = {name: status_kib(pid, "VmRSS") for name, pid in pids.items()}
                context = d.webhook_context()
                agent = d.agent
                metrics = lambda t: probes.http_get(agent["metrics"], "/metrics", timeout=t)  # noqa: E731
                health = lambda t: probes.http_get(agent["health"], "/healthz", timeout=t)  # noqa: E731
                webhook = lambda t: probes.webhook_post(d.webhook_port, context, timeout=t)  # noqa: E731
                cases = [
                    ("no probe: agent GET /metrics", None, metrics),
                    ("no probe: webhook POST /convert (TLS)", None, webhook),
                    (f"{500 * n} idle connects to the agent's metrics port: GET /metrics",
                     lambda: Connects(agent["metrics"], 500 * n), metrics),
                    (f"{20 * n} connections trickling a byte / 0.5 s to the metrics port: "
                     "GET /metrics", lambda: probes.Trickle(agent["metrics"], 20 * n), metrics),
                    (f"{50 * n} idle connects to the agent's health port: GET /healthz",
                     lambda: Connects(agent["health"], 50 * n), health),
                    (f"{8 * n} TLS connections trickling a header line / 0.5 s: "
                     "webhook POST /convert",
                     lambda: probes.Trickle(d.webhook_port, 8 * n, tls=context), webhook),
                    (f"{8 * n} TCP connects that never start TLS: webhook POST /convert",
                     lambda: Connects(d.webhook_port, 8 * n), webhook),
                ]
                print(f"{'probe':<80} normal requests (timeout {args.timeout:.0f} s)")
                for name, probe, request in cases:
                    if probe is None:
                        times = [timed(request, args.timeout) for _ in range(3)]
                    else:
                        with probe():
                            times = [timed(request, args.timeout) for _ in range(3)]
                    print(f"{name:<80} {', '.join(times)}", flush=True)
                for name, pid in pids.items():
                    print(f"{name}: VmRSS {started[name] / 1024:.1f} MiB once started, "
                          f"VmHWM {status_kib(pid, 'VmHWM') / 1024:.1f} MiB at the end")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
