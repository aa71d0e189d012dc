# SPDX-License-Identifier: Apache-2.0
"""scripts/build-images: each image's root filesystem holds its binary and exactly the shared
libraries the binary loads, and the entrypoint runs from it (under chroot, as root, with the
image's user). With podman installed, the image itself is built and its entrypoint run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("INGOT_BUILD_DIR") or REPO / "build")
SCRIPT = REPO / "scripts/build-images"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")


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
