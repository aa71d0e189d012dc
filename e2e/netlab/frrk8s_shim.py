# SPDX-License-Identifier: Apache-2.0
"""The lab's frr-k8s shim: what frr-k8s does on one node, small enough for a test lab.

    ip netns exec <run>-nodeK /usr/bin/python3 -m netlab.frrk8s_shim --node nodeK --url URL \
        --token T --ca CA --namespace frr-k8s-system --ingotctl BIN --router-dir D --pathspace NS

It polls the API server (every --interval seconds) for the FRRConfigurations and Secrets of the
frr-k8s namespace and for its Node. Whenever any of them changed, it writes them to
D/frrk8s-input.json, runs `ingotctl frr-k8s --node N -f that file` (frrgen's selectForNode +
merge + render) and applies the frr.conf with frr-reload.py (reload.FrrReload.apply, the bounded
loop). A failed render or reload is logged and retried on the next poll. It logs one JSON line
per event to stdout and runs until SIGTERM.

It is a test double of frr-k8s, not frr-k8s: no FRRNodeState/BGPSessionState status, no
validating webhook, no alwaysBlock/allowed-prefix checks beyond what frrgen::merge does.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

from .kubeclient import ApiError, KubeClient
from .proc import LabError, run
from .reload import FrrReload


class RouterFiles:
    """What FrrReload needs of a router: its directory, pathspace and frr.conf."""

    def __init__(self, directory: Path, namespace: str):
        self.dir = directory
        self.namespace = namespace

    @property
    def config_path(self) -> Path:
        return self.dir / "frr.conf"

    def write_config(self, text: str, path=None) -> Path:
        from .frr import _chown_frr

        path = path or self.config_path
        path.write_text(text)
        _chown_frr(path)
        return path


def _log(event: str, **fields) -> None:
    print(json.dumps({"ts": round(time.time(), 3), "event": event, **fields}), flush=True)


def _strip(obj: dict) -> dict:
    """The parts of an object that matter to the result (not resourceVersion and friends)."""
    meta = obj.get("metadata", {})
    kept = {k: meta[k] for k in ("name", "namespace", "labels") if k in meta}
    return {**{k: v for k, v in obj.items() if k not in ("metadata", "status")},
            "metadata": kept}


class Shim:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.client = KubeClient(args.url, args.token, args.ca, timeout=10)
        self.router = RouterFiles(Path(args.router_dir), args.pathspace)
        self.reload = FrrReload(self.router, timeout=300)
        self.input_path = Path(args.router_dir) / "frrk8s-input.json"
        self.last_key = None
        self.stop = threading.Event()

    def snapshot(self) -> list:
        """The objects frr-k8s would read for this node, with kind and apiVersion set."""
        objs = []
        for kind, api_version in (("FRRConfiguration", "frrk8s.metallb.io/v1beta1"),
                                  ("Secret", "v1")):
            for item in self.client.list(kind, self.args.namespace):
                objs.append(_strip({**item, "kind": kind, "apiVersion": api_version}))
        node = self.client.get("Node", self.args.node)
        if node is None:
            raise LabError(f"Node {self.args.node} does not exist")
        objs.append(_strip({**node, "kind": "Node", "apiVersion": "v1"}))
        return sorted(objs, key=lambda o: (o["kind"], o["metadata"].get("name", "")))

    def apply(self, objs: list) -> None:
        self.input_path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                               "items": objs}, indent=1))
        out = run([self.args.ingotctl, "frr-k8s", "--node", self.args.node,
                   "--frrk8s-namespace", self.args.namespace, "-f", str(self.input_path)],
                  check=False, timeout=60)
        if out.returncode != 0:
            raise LabError(f"ingotctl frr-k8s exited {out.returncode}: "
                           f"{(out.stdout + out.stderr).strip()[:1500]}")
        start = time.monotonic()
        result = self.reload.apply(out.stdout)
        _log("applied", configs=sum(o["kind"] == "FRRConfiguration" for o in objs),
             seconds=round(time.monotonic() - start, 3), passes=len(result.passes))

    def step(self) -> None:
        try:
            objs = self.snapshot()
        except (ApiError, LabError) as e:
            _log("poll-failed", error=str(e))
            return
        key = json.dumps(objs, sort_keys=True)
        if key == self.last_key:
            return
        try:
            self.apply(objs)
            self.last_key = key
        except LabError as e:
            _log("apply-failed", error=str(e)[:3000])

    def serve(self) -> None:
        _log("started", node=self.args.node, namespace=self.args.namespace)
        while not self.stop.is_set():
            self.step()
            self.stop.wait(self.args.interval)
        _log("stopped")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="netlab.frrk8s_shim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--node", "--url", "--token", "--ca", "--ingotctl", "--router-dir",
                 "--pathspace"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--namespace", default="frr-k8s-system")
    parser.add_argument("--interval", type=float, default=0.2)
    args = parser.parse_args(argv)
    shim = Shim(args)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: shim.stop.set())
    shim.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
