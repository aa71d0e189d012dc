# SPDX-License-Identifier: Apache-2.0
"""scripts/build-images: each image's root filesystem holds its binary and exactly the shared
libraries the binary loads, and the entrypoint runs from it (under chroot, as root, with the
image's user). Every container the chart renders, in every flavour, runs from the image it names
as the chart invokes it (its command or the image's entrypoint, with the rendered arguments and
environment), and the FRR container runs the FRR version the agent's and ingot-frr's tools speak.
With podman installed, the image itself is built and its entrypoint run."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("INGOT_BUILD_DIR") or REPO / "build")
SCRIPT = REPO / "scripts/build-images"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")


sys.path.insert(0, str(REPO / "charts"))
import render  # noqa: E402 (charts/render.py: builds the chart harness and renders the chart)


def binary(relative: str) -> Path:
    path = BUILD / relative
    if not path.is_file():
        pytest.skip(f"{path} is not built")
    return path


def version_of(built: Path) -> str:
    """What the build tree's binary prints for --version: the image must carry that binary (the
    match with the source tree's commit is ingot_version_binaries_test's)."""
    done = subprocess.run([str(built), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith(built.name + " version "), done.stdout
    return done.stdout


def assemble(tmp_path: Path, image: str) -> Path:
    subprocess.run([str(SCRIPT), "--rootfs-only", "--build-dir", str(BUILD), "--work",
                    str(tmp_path), image], check=True, capture_output=True, text=True)
    return tmp_path / image


def containerfile(context: Path) -> tuple[list[str], str]:
    text = (context / "Containerfile").read_text()
    entrypoint = re.findall(r'"([^"]+)"', re.search(r"^ENTRYPOINT (.*)$", text, re.M)[1])
    user = re.search(r"^USER (\S+)$", text, re.M)[1]
    return entrypoint, user


def elf_files(rootfs: Path) -> set[str]:
    out = set()
    for f in rootfs.rglob("*"):
        if f.is_file() and not f.is_symlink() and f.open("rb").read(4) == b"\x7fELF":
            out.add("/" + str(f.relative_to(rootfs)))
    return out


def loaded_libraries(path: Path) -> set[str]:
    ldd = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True).stdout
    return {os.path.realpath(m) for m in re.findall(r"(/\S+) \(0x", ldd)}


def test_controller_image_is_the_binary_and_its_libraries_and_runs_as_nobody(tmp_path):
    built = binary("controller/ingot-controller")
    context = assemble(tmp_path, "controller")
    rootfs = context / "rootfs"
    entrypoint, user = containerfile(context)
    assert entrypoint == ["/usr/bin/ingot-controller"] and user == "65534:65534"
    assert elf_files(rootfs) == {"/usr/bin/ingot-controller"} | loaded_libraries(built)
    done = subprocess.run(["chroot", "--userspec=65534:65534", str(rootfs), *entrypoint,
                           "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == version_of(built)
    shown = subprocess.run(["chroot", "--userspec=65534:65534", str(rootfs), *entrypoint,
                            "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and shown.stdout.startswith("Usage: ingot-controller")


def test_agent_image_runs_the_agent_and_the_frr_mode_tools(tmp_path):
    built = binary("agent/ingot-agent")
    context = assemble(tmp_path, "agent")
    rootfs = context / "rootfs"
    entrypoint, user = containerfile(context)
    assert entrypoint == ["/usr/bin/ingot-agent"] and user == "0:0"
    version = subprocess.run(["chroot", str(rootfs), *entrypoint, "--version"],
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0, version.stderr
    assert version.stdout == version_of(built)
    # frr mode runs these two from the agent's container; vtysh passes its PAM check (with no
    # FRR to talk to, it says so instead of refusing the user).
    vtysh = subprocess.run(["chroot", str(rootfs), "/usr/bin/vtysh", "--help"],
                           capture_output=True, text=True, timeout=60)
    assert vtysh.returncode == 0 and "Integrated shell for FRR" in vtysh.stdout, vtysh.stderr
    shell = subprocess.run(["chroot", str(rootfs), "/usr/bin/vtysh", "-c", "show version"],
                           capture_output=True, text=True, timeout=60)
    assert "pam" not in (shell.stdout + shell.stderr).lower(), shell
    reload = subprocess.run(["chroot", str(rootfs), "/usr/bin/python3",
                             "/usr/lib/frr/frr-reload.py", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert reload.returncode == 0 and "--reload" in reload.stdout, reload.stderr


def test_frr_image_runs_tini_frr_and_the_init_containers_copy(tmp_path):
    if subprocess.run(["dpkg-query", "-W", "frr", "tini"], capture_output=True).returncode:
        pytest.skip("frr or tini is not installed (scripts/setup installs both)")
    context = assemble(tmp_path, "frr")
    rootfs = context / "rootfs"
    entrypoint, user = containerfile(context)
    assert entrypoint == ["/sbin/tini", "--", "/usr/lib/frr/docker-start"] and user == "0:0"
    for argv, expected in ((["/sbin/tini", "--version"], "tini version"),
                           (["/usr/lib/frr/bgpd", "--version"], "bgpd version"),
                           (["/usr/lib/frr/watchfrr", "--version"], "watchfrr"),
                           (["/bin/sh", "-c", "cp --version"], "GNU coreutils")):
        done = subprocess.run(["chroot", str(rootfs), *argv], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0 and expected in done.stdout + done.stderr, (argv, done)
    assert os.access(rootfs / "usr/lib/frr/docker-start", os.X_OK)


def podman() -> list[str]:
    """podman, with runc when installed: crun refuses a hybrid cgroup v1/v2 layout (as on
    containers running in Docker with cgroup v1), runc does not."""
    return ["podman"] + (["--runtime", "runc"] if shutil.which("runc") else [])


# rlimits no higher than the current ones: raising them needs CAP_SYS_RESOURCE, which a
# container host may not have; no network: --version needs none.
RUN_OPTIONS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "--network", "none"]


@pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed")
def test_podman_builds_the_controller_image_and_runs_its_entrypoint(tmp_path):
    built = binary("controller/ingot-controller")
    tag = tmp_path.name.lower()
    image = f"localhost/ingot/controller:{tag}"
    subprocess.run([str(SCRIPT), "--build-dir", str(BUILD), "--work", str(tmp_path), "--tag",
                    tag, "controller"], check=True, capture_output=True,
                   text=True, timeout=600)
    try:
        user = subprocess.run(["podman", "image", "inspect", "--format", "{{.Config.User}}",
                               image], capture_output=True, text=True, check=True).stdout
        assert user.strip() == "65534:65534"
        done = subprocess.run([*podman(), "run", "--rm", *RUN_OPTIONS, image, "--version"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout == version_of(built)
    finally:
        subprocess.run(["podman", "rmi", "--force", image], capture_output=True)


# The chart's flavours: frr-k8s (default), frr, Layer 2 only, and ingot-frr in frr-k8s' place.
FLAVOURS = {"frr-k8s": [], "frr": ["frrk8s.enabled=false", "speaker.frr.enabled=true"],
            "native": ["frrk8s.enabled=false"], "ingot-frr": ["frrk8s.ingotFrr.enabled=true"]}
IMAGE = re.compile(r"^localhost/ingot/([a-z-]+):(\S+)$")
# What the kubelet gives the fieldRef variables the pods read.
FIELD_VALUES = {"spec.nodeName": "node1", "metadata.name": "pod-1",
                "metadata.namespace": "metallb-system", "status.hostIP": "192.0.2.1",
                "status.podIP": "192.0.2.1"}


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    return render.build_harness(tmp_path_factory.mktemp("chart-render"))


@pytest.fixture(scope="module")
def rootfs_of(tmp_path_factory):
    """image name -> its assembled root filesystem (once per module); skips when its inputs are
    missing (a binary not built, a Debian package not installed)."""
    work = tmp_path_factory.mktemp("images")
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            done = subprocess.run([str(SCRIPT), "--rootfs-only", "--build-dir", str(BUILD),
                                   "--work", str(work), name], capture_output=True, text=True)
            if "skipping" in done.stdout:
                pytest.skip(done.stdout.strip())
            assert done.returncode == 0, done.stderr
            built[name] = work / name
        return built[name]
    return get


def chart_containers(harness: Path, sets: list) -> list:
    """(workload, container, init?) of every Pod template the chart renders with sets."""
    args = [a for s in sets for a in ("--set", s)]
    out = []
    for obj in yaml.safe_load_all(render.render(harness, args)):
        if obj and obj["kind"] in ("Deployment", "DaemonSet"):
            spec = obj["spec"]["template"]["spec"]
            out += [(obj, c, True) for c in spec.get("initContainers", [])]
            out += [(obj, c, False) for c in spec["containers"]]
    return out


def environment(container: dict) -> dict:
    env = {}
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        else:
            env[e["name"]] = FIELD_VALUES[e["valueFrom"]["fieldRef"]["fieldPath"]]
    return env


def in_rootfs(rootfs: Path, path: str) -> Path:
    """path inside rootfs, following symlinks (absolute ones relative to rootfs)."""
    current = rootfs / path.lstrip("/")
    for _ in range(20):
        if not current.is_symlink():
            return current
        target = os.readlink(current)
        current = rootfs / target.lstrip("/") if target.startswith("/") else \
            current.parent / target
    raise AssertionError(f"{path}: symlink loop")


def user_of(workload: dict, container: dict) -> list:
    pod = workload["spec"]["template"]["spec"].get("securityContext", {})
    uid = container.get("securityContext", {}).get("runAsUser", pod.get("runAsUser"))
    return [f"--userspec={uid}:{uid}"] if uid is not None else []


def argv_with_env(argv: list, env: dict) -> list:
    """The kubelet's $(VAR) expansion of command and args."""
    return [re.sub(r"\$\((\w+)\)", lambda m: env.get(m[1], m[0]), a) for a in argv]


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_every_container_the_chart_renders_runs_from_the_image_it_names(harness, rootfs_of,
                                                                        flavour, tmp_path):
    version = re.search(r"project\(ingot VERSION (\S+)",
                        (REPO / "CMakeLists.txt").read_text())[1]
    for workload, container, init in chart_containers(harness, FLAVOURS[flavour]):
        where = f"{workload['metadata']['name']}/{container['name']}"
        image = IMAGE.match(container["image"])
        assert image and image[2] == version, f"{where}: {container['image']}"
        context = rootfs_of(image[1])
        rootfs = context / "rootfs"
        entrypoint, _ = containerfile(context)
        argv = argv_with_env(container.get("command", entrypoint) + container.get("args", []),
                             environment(container))
        assert os.access(in_rootfs(rootfs, argv[0]), os.X_OK), f"{where}: no {argv[0]}"
        if argv[:2] == ["/bin/sh", "-c"]:
            # Every program the shell line names by path, and the first word of each command.
            for word in re.findall(r"(?:^|\s)(/[\w/.-]+)", argv[2]):
                if not word.startswith(("/tmp/", "/etc/")):
                    assert os.access(in_rootfs(rootfs, word), os.X_OK), f"{where}: no {word}"
            if init:  # the init container's copy, run: seed the volume it reads
                (rootfs / "tmp/frr").mkdir(parents=True, exist_ok=True)
                (rootfs / "tmp/frr/daemons").write_text("bgpd=yes\n")
                done = subprocess.run(["chroot", str(rootfs), *argv], capture_output=True,
                                      text=True, timeout=60)
                assert done.returncode == 0, (where, done.stderr)
                assert (rootfs / "etc/frr/daemons").read_text() == "bgpd=yes\n", where
            continue
        # An Ingot daemon: it parses every rendered flag and variable, then prints its usage.
        done = subprocess.run(["chroot", *user_of(workload, container), str(rootfs), *argv,
                               "--help"], capture_output=True, text=True, timeout=60,
                              env={"PATH": "/usr/sbin:/usr/bin", **environment(container)})
        assert done.returncode == 0, (where, argv, done.stderr)
        assert "Usage: " in done.stdout + done.stderr, where


def frr_version(text: str) -> str:
    found = re.search(r"(?:version|FRR \(version) (\d+\.\d+(?:\.\d+)?)", text)
    assert found, text
    return found[1]


def test_the_frr_container_runs_the_version_the_agents_tools_speak(harness, rootfs_of):
    # frr mode: the agent drives the FRR container with its own vtysh and frr-reload.py, and
    # ingot-frr with its vtysh; all three come from the FRR the frr image runs, the version the
    # chart pins (and refuses FRRouting's image at any other).
    frr = rootfs_of("frr") / "rootfs"
    bgpd = subprocess.run(["chroot", str(frr), "/usr/lib/frr/bgpd", "--version"],
                          capture_output=True, text=True, timeout=60)
    daemons = frr_version(bgpd.stdout + bgpd.stderr)
    for image in ("agent", "ingot-frr"):
        shell = subprocess.run(["chroot", str(rootfs_of(image) / "rootfs"), "/usr/bin/vtysh",
                                "--help"], capture_output=True, text=True, timeout=60)
        assert frr_version(shell.stdout) == daemons, image
    chart = (REPO / "charts/ingot/templates/_helpers.tpl").read_text()
    pinned = re.search(r'define "ingot.toolsFrrVersion" -}}([\d.]+)\{\{', chart)[1]
    assert daemons.startswith(pinned + "."), (daemons, pinned)
    for sets in (FLAVOURS["frr"], FLAVOURS["ingot-frr"]):
        frr_images = {c["image"] for _, c, _ in chart_containers(harness, sets)
                      if c["name"] in ("frr", "cp-frr-files")}
        assert {IMAGE.match(i)[1] for i in frr_images} == {"frr"}, frr_images


def free_port() -> int:
    """A port free on every address (the daemons bind [::])."""
    with socket.socket(socket.AF_INET6) as s:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.bind(("::", 0))
        return s.getsockname()[1]


def http_status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def service_account(rootfs: Path, ca: Path) -> None:
    """The files a Pod's service account mounts (token, namespace, the API server's CA)."""
    account = rootfs / "var/run/secrets/kubernetes.io/serviceaccount"
    account.mkdir(parents=True, exist_ok=True)
    (account / "token").write_text("probe-token")
    (account / "namespace").write_text("metallb-system")
    shutil.copy(ca, account / "ca.crt")
    for f in account.iterdir():
        f.chmod(0o644)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_the_controller_image_answers_the_charts_probes(harness, rootfs_of, tmp_path):
    # The controller's container as the chart renders it (free ports, no webhook: this machine's
    # ports are shared), run from its image under chroot as the Pod's user, with the in-cluster
    # configuration a Pod gets (service-account files, KUBERNETES_SERVICE_*), against the test
    # API server: the rendered liveness and readiness probes answer 200.
    sys.path.insert(0, str(REPO / "e2e/kubeapi"))
    import kubeapi  # noqa: E402
    metrics, health = free_port(), free_port()
    (workload, container, _), = [
        c for c in chart_containers(harness, [
            f"prometheus.metricsPort={metrics}", f"controller.livenessProbe.port={health}",
            "controller.webhookMode=disabled", "speaker.enabled=false"])
        if c[0]["kind"] == "Deployment"]
    rootfs = rootfs_of("controller") / "rootfs"
    server = kubeapi.KubeApiServer(tokens=("probe-token",), cert_dir=tmp_path / "certs").start()
    try:
        # The controller reads its Pod and Deployment (the memberlist Secret's owner).
        server.write_kubeconfig(tmp_path / "kubeconfig")
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "pod-1", "namespace": "metallb-system"},
               "spec": {"containers": [{"name": container["name"],
                                        "image": container["image"]}]}}
        subprocess.run(["kubectl", "--kubeconfig", str(tmp_path / "kubeconfig"), "create", "-f",
                        "-"], input=yaml.safe_dump_all([workload, pod]), text=True, check=True,
                       capture_output=True, timeout=60)
        service_account(rootfs, tmp_path / "certs/ca.crt")
        env = {"PATH": "/usr/sbin:/usr/bin", **environment(container),
               "KUBERNETES_SERVICE_HOST": "127.0.0.1",
               "KUBERNETES_SERVICE_PORT": str(server.port)}
        log = open(tmp_path / "controller.log", "wb")
        proc = subprocess.Popen(["chroot", *user_of(workload, container), str(rootfs),
                                 *container.get("command", ["/usr/bin/ingot-controller"]),
                                 *container["args"]], env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            for probe in ("livenessProbe", "readinessProbe"):
                get = container[probe]["httpGet"]
                deadline = time.monotonic() + 60
                while http_status(get["port"], get["path"]) != 200:
                    assert proc.poll() is None, (tmp_path / "controller.log").read_text()
                    assert time.monotonic() < deadline, (probe, (tmp_path / "controller.log")
                                                         .read_text()[-2000:])
                    time.sleep(0.2)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            log.close()
    finally:
        server.stop()


def mount_volumes(rootfs: Path, pod: dict, container: dict, configmaps: dict) -> None:
    """Writes into rootfs what the kubelet mounts for container: a key for each Secret volume,
    the rendered data of each ConfigMap volume (an optional one that does not exist: nothing)."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        target = rootfs / mount["mountPath"].lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        if "secret" in volume:
            (target / "secretkey").write_text("a" * 64)
        elif "configMap" in volume:
            for key, text in configmaps.get(volume["configMap"]["name"], {}).items():
                (target / key).write_text(text)


@pytest.mark.skipif(shutil.which("ip") is None or shutil.which("kubectl") is None,
                    reason="needs iproute2 and kubectl")
def test_the_agent_image_answers_the_charts_probes(harness, rootfs_of, tmp_path):
    # The agent's container exactly as the chart renders it (host network, fixed ports), run from
    # its image under chroot in a network namespace of its own with the test API server, with
    # the files its volumes mount and a Pod's in-cluster configuration: the rendered startup,
    # liveness and readiness probes answer 200.
    docs = [d for d in yaml.safe_load_all(render.render(harness, [])) if d]
    configmaps = {d["metadata"]["name"]: d["data"] for d in docs if d["kind"] == "ConfigMap"}
    (workload, container, _), = [c for c in chart_containers(harness, [])
                                 if c[0]["kind"] == "DaemonSet"]
    pod = workload["spec"]["template"]["spec"]
    rootfs = rootfs_of("agent") / "rootfs"
    mount_volumes(rootfs, pod, container, configmaps)
    netns = f"ingot-img-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", netns], check=True)
    procs = []
    try:
        inside = ["ip", "netns", "exec", netns]
        subprocess.run([*inside, "ip", "link", "set", "lo", "up"], check=True)
        port_file, kubeconfig = tmp_path / "port", tmp_path / "kubeconfig"
        procs.append(subprocess.Popen(
            [*inside, sys.executable, str(REPO / "e2e/kubeapi/server.py"), "--port-file",
             str(port_file), "--token", "probe-token", "--cert-dir", str(tmp_path / "certs"),
             "--kubeconfig-out", str(kubeconfig)], stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / "server.log", "wb")))
        deadline = time.monotonic() + 60
        while not port_file.exists() or not kubeconfig.exists():
            assert procs[0].poll() is None and time.monotonic() < deadline, \
                (tmp_path / "server.log").read_text()
            time.sleep(0.1)
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"},
                "status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}]}}
        me = {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": "pod-1", "namespace": "metallb-system",
                           "labels": workload["spec"]["template"]["metadata"]["labels"]},
              "spec": {"nodeName": "node1", "hostNetwork": True,
                       "containers": [{"name": container["name"], "image": container["image"]}]}}
        subprocess.run([*inside, "kubectl", "--kubeconfig", str(kubeconfig), "create", "-f", "-"],
                       input=yaml.safe_dump_all([node, me]), text=True, check=True,
                       capture_output=True, timeout=60)
        service_account(rootfs, tmp_path / "certs/ca.crt")
        env = {"PATH": "/usr/sbin:/usr/bin", **environment(container),
               "METALLB_HOST": "127.0.0.1", "METALLB_ML_BIND_ADDR": "127.0.0.1",
               "KUBERNETES_SERVICE_HOST": "127.0.0.1",
               "KUBERNETES_SERVICE_PORT": port_file.read_text().strip()}
        log = tmp_path / "agent.log"
        procs.append(subprocess.Popen(
            [*inside, "chroot", *user_of(workload, container), str(rootfs),
             *container.get("command", ["/usr/bin/ingot-agent"]), *container["args"]],
            env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL))
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            get = container[probe]["httpGet"]
            url = f"http://{get['host']}:{get['port']}{get['path']}"
            check = [*inside, sys.executable, "-c",
                     f"import urllib.request; urllib.request.urlopen({url!r}, timeout=5)"]
            deadline = time.monotonic() + 60
            while subprocess.run(check, capture_output=True).returncode != 0:
                assert procs[1].poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, (probe, log.read_text()[-3000:])
                time.sleep(0.5)
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        subprocess.run(["ip", "netns", "del", netns], check=False)
