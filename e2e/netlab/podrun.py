# SPDX-License-Identifier: Apache-2.0
"""Running a rendered Pod's container in the lab: the I/O half of podspec.py.

materialise() writes the files of each mounted volume under the Pod's directory in the run
(<run dir>/pods/<namespace>_<name>/); command() wraps the plan's argv so that the process runs
in its host's network namespace (`ip netns exec`) inside a private mount namespace (`unshare -m`)
where every volume is bind-mounted at the path the Pod spec gives (podspec.mount_script), so
the daemon reads /etc/ml_secret_key, /var/run/secrets/kubernetes.io/serviceaccount/token and so
on as in a cluster. wait_ready() polls the plan's httpGet probes from inside that network
namespace, and check_ports() that every declared containerPort is bound there."""

from __future__ import annotations

import http.client
import json
import os
import re
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Optional

from . import podspec
from .kubeclient import enter_netns
from .proc import LabError

REPO = Path(__file__).resolve().parents[2]
IMAGES = REPO / "images"
READY_TIMEOUT = 60.0     # seconds until every probe of a container must pass
POLL = 0.1
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PASSED_THROUGH = ("ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS")


def image_entrypoint(image: str) -> list:
    """The ENTRYPOINT of the repository's image build for image (images/<name>/Containerfile,
    name = the last path component of the repository, with or without an `ingot-` prefix);
    [] when there is none."""
    repository = image.split("@", 1)[0]
    last = repository.rsplit("/", 1)[-1].split(":", 1)[0]
    for name in (last, last.removeprefix("ingot-"), f"ingot-{last}"):
        path = IMAGES / name / "Containerfile"
        if path.is_file():
            m = re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", path.read_text(), re.M)
            if m:
                return json.loads(m.group(1))
    return []


def base_env(pod: dict, api_host: str, api_port: int) -> dict:
    """What a kubelet and the image put into every container's environment (LAB_OVERRIDES)."""
    env = {"PATH": IMAGE_PATH, "HOSTNAME": pod["metadata"]["name"],
           "KUBERNETES_SERVICE_HOST": api_host, "KUBERNETES_SERVICE_PORT": str(api_port)}
    env.update({k: os.environ[k] for k in PASSED_THROUGH if k in os.environ})
    return env


def _write(path: Path, data: bytes, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)


def materialise(plan: podspec.LaunchPlan, pod_dir: Path, shared: Callable[[str], Optional[Path]]
                ) -> list:
    """Writes each mount's files (configMap, secret, projected) under pod_dir and returns the
    binds (source, target, read_only, is_file) for podspec.mount_script. shared(volume) is the
    host directory of an emptyDir the lab replaces (LAB_OVERRIDES: frr), else None: then the
    Pod's own directory pod_dir/empty/<volume> (shared by its containers)."""
    binds = []
    for i, mount in enumerate(plan.mounts):
        volume = mount.volume
        if volume.files is not None:
            source = pod_dir / "volumes" / plan.container / f"{i}-{volume.name}"
            source.mkdir(parents=True, exist_ok=True)
            for rel, (data, mode) in sorted(volume.files.items()):
                _write(source / rel, data, mode)
        elif volume.shared:
            source = shared(volume.shared) or pod_dir / "empty" / volume.shared
            source.mkdir(parents=True, exist_ok=True)
        else:
            source = Path(volume.host_path)
        if mount.sub_path:
            source = source / mount.sub_path
        if not source.exists():
            raise LabError(f"{plan.pod} container {plan.container}: volumeMount {mount.path}: "
                           f"subPath {mount.sub_path!r} does not exist in volume {volume.name}")
        binds.append((str(source), mount.path, mount.read_only, source.is_file()))
    return binds


def command(plan: podspec.LaunchPlan, netns: str, program: str, binds: list,
            working_dir: str = "", extra: tuple = ()) -> list:
    """The argv that runs plan in netns with its mounts: program replaces argv[0] (the
    in-image path), extra flags follow the rendered ones."""
    script = podspec.mount_script(binds, os.path.lexists, os.path.realpath, working_dir)
    return ["ip", "netns", "exec", netns, "unshare", "-m", "--propagation", "private",
            "/bin/sh", "-c", script, plan.container, program, *plan.argv[1:], *extra]


class Prober:
    """httpGet probes from inside one network namespace (a thread that entered it)."""

    def __init__(self, netns: str):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix=f"probe-{netns}",
                                        initializer=enter_netns, initargs=(netns,))

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def get(self, probe: podspec.Probe) -> tuple:
        """(status, None) or (None, error text)."""
        return self._pool.submit(_get, probe).result()


def _get(probe: podspec.Probe) -> tuple:
    try:
        if probe.scheme.upper() == "HTTPS":
            context = ssl._create_unverified_context()  # a kubelet does not verify either
            conn = http.client.HTTPSConnection(probe.host, probe.port, timeout=2,
                                               context=context)
        else:
            conn = http.client.HTTPConnection(probe.host, probe.port, timeout=2)
        try:
            conn.request("GET", probe.path, headers={"User-Agent": "kube-probe/lab"})
            response = conn.getresponse()
            response.read()
            return response.status, None
        finally:
            conn.close()
    except OSError as e:
        return None, str(e)


def wait_ready(plan: podspec.LaunchPlan, netns: str, alive: Callable[[], Optional[str]],
               timeout: float = READY_TIMEOUT) -> None:
    """Polls the startup, then the readiness probe until each answers 200–399, then checks the
    liveness probe once. alive() returns None while the process runs, else why it stopped.
    Raises LabError naming the Pod, container, probe and last answer."""
    prober = Prober(netns)
    try:
        deadline = time.monotonic() + timeout
        for probe in plan.probes:
            last = "no answer yet"
            while True:
                stopped = alive()
                if stopped:
                    raise LabError(f"{plan.pod} container {plan.container} stopped before its "
                                   f"{probe.kind} passed: {stopped}")
                status, error = prober.get(probe)
                if status is not None and 200 <= status < 400:
                    break
                last = f"HTTP {status}" if status is not None else error
                if status == 404:
                    raise LabError(f"{plan.pod} container {plan.container}: {probe.kind} GET "
                                   f"{probe.url} answered 404: the daemon does not serve that "
                                   "path")
                if probe.kind == "livenessProbe" or time.monotonic() >= deadline:
                    raise LabError(f"{plan.pod} container {plan.container}: {probe.kind} GET "
                                   f"{probe.url} did not pass within {timeout:.0f} s; last: "
                                   f"{last}")
                time.sleep(POLL)
    finally:
        prober.close()


def _bound(pid: int) -> set:
    """(port, protocol) bound in pid's network namespace: TCP listening, UDP any."""
    out = set()
    for name, proto in (("tcp", "TCP"), ("tcp6", "TCP"), ("udp", "UDP"), ("udp6", "UDP")):
        try:
            lines = Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if proto == "TCP" and fields[3] != "0A":
                continue
            out.add((int(fields[1].rsplit(":", 1)[1], 16), proto))
    return out


def check_ports(plan: podspec.LaunchPlan, pid: int) -> None:
    """Raises LabError when a declared containerPort is not bound in the daemon's namespace."""
    bound = _bound(pid)
    missing = [p for p in plan.ports if (p.number, p.protocol.upper()) not in bound]
    if missing:
        text = ", ".join(f"{p.number}/{p.protocol} ({p.name})" for p in missing)
        raise LabError(f"{plan.pod} container {plan.container} declares containerPort {text} "
                       "but nothing is bound there")
