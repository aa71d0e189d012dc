# SPDX-License-Identifier: Apache-2.0
"""Pod spec → process launch plan: the pure half of running the chart's Pods in the lab.

The lab plays the kubelet for the Pods the chart renders (podrun.py does the I/O). This module
decides, from a Pod (the rendered template with the lab's name, node and addresses) and one of
its containers, what to run: the argv (command + args with Kubernetes' $(VAR) expansion), the
environment (values, Downward API fieldRefs, Secret and ConfigMap keys), the files of every
mounted volume, the ports and the httpGet probes. Nothing here touches the system: objects the
Pod refers to come through a `lookup(kind, namespace, name)` function.

Every field of a Pod spec is either honoured here or listed, with the reason, in UNHONOURED;
the lab-only replacements of what a kubelet or an image would supply are in LAB_OVERRIDES.
A field in neither list fails the plan with its name, so a chart that starts to rely on
something the lab would silently drop breaks the lab instead (e2e/netlab/README.md,
"Pods from the chart", repeats both lists).
"""

from __future__ import annotations

import base64
import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from .proc import LabError

# Field (Pod spec or container) -> why the lab cannot honour it inside a network namespace.
# The lab runs each daemon as a root process of the host in its node's namespace.
UNHONOURED = {
    "image": "no container runtime: the binary the image's entrypoint names is the build's "
             "(LAB_OVERRIDES: images)",
    "imagePullPolicy": "no images are pulled",
    "imagePullSecrets": "no images are pulled",
    "resources": "no cgroup per daemon: requests and limits are not enforced",
    "securityContext": "the daemons run as root with every capability in the host's user "
                       "namespace: capabilities, runAsUser/NonRoot, fsGroup, read-only root "
                       "and privilege escalation are not enforced",
    "hostNetwork": "a node's Pods (hostNetwork or not) run in the node's namespace, the "
                   "controller's in the api host's; no Pod gets a network namespace of its own",
    "nodeSelector": "no scheduler: the lab places one Pod of each DaemonSet on every node and "
                    "the Deployment's on the api host",
    "tolerations": "no scheduler (see nodeSelector)",
    "affinity": "no scheduler (see nodeSelector)",
    "priorityClassName": "no scheduler or eviction",
    "terminationGracePeriodSeconds": "the lab stops a daemon with SIGTERM, then SIGKILL after "
                                     "its own grace (proc.kill_pid)",
    "restartPolicy": "no restarts: a daemon that exits fails the test that needs it",
    "dnsPolicy": "no cluster DNS in the lab",
    "terminationMessagePath": "no container status",
    "terminationMessagePolicy": "no container status",
    "probe timings": "initialDelaySeconds, periodSeconds, timeoutSeconds, successThreshold and "
                     "failureThreshold are not waited out: the lab polls every 0.1 s from the "
                     "start and gives up after podrun.READY_TIMEOUT; a 404 fails at once (the "
                     "path is not served); liveness is checked once, no restarts",
    "containers replaced by the lab's FRR": "the chart's FRR container (the FRR image, 10.x) "
                                            "cannot run here: the node's FRR 8.4 that the lab "
                                            "runs stands in for it (LAB_OVERRIDES: frr)",
}

# What the lab supplies in place of a kubelet, a cluster or an image. Minimal by design.
LAB_OVERRIDES = {
    "images": "an image's entrypoint (or the command's absolute path) is mapped to the build's "
              "binary of the same name (ingot-agent, ingot-controller, ingot-frr); system tools "
              "(/bin/sh, cp) are the host's",
    "api server": "KUBERNETES_SERVICE_HOST/PORT name the test API server (a kubelet sets them "
                  "from the kubernetes Service)",
    "service account": "the token mounted at /var/run/secrets/kubernetes.io/serviceaccount is "
                       "the test API server's token for the Pod's ServiceAccount (a "
                       "service-account-token Secret), ca.crt its CA (kubelet's projected "
                       "kube-api-access volume)",
    "addresses": "status.podIP and status.hostIP are the lab address of the Pod's host",
    "frr": "emptyDir volumes shared with the FRR container are the node router's directories: "
           "the one mounted there at /var/run/frr is /var/run/frr/<namespace> (FRR's sockets), "
           "the one at /etc/frr is the router's directory",
    "base environment": "PATH as a container image sets it, HOSTNAME, and the test run's "
                        "sanitizer options",
    "test flags": "a test may append flags after the rendered args (ClusterSpec.agent_args, "
                  "controller_args, start_agent(extra)); the chart's own are never removed",
}

POD_FIELDS = {"containers", "initContainers", "volumes", "serviceAccountName",
              "serviceAccount", "automountServiceAccountToken", "nodeName"}
CONTAINER_FIELDS = {"name", "command", "args", "env", "envFrom", "ports", "volumeMounts",
                    "livenessProbe", "readinessProbe", "startupProbe", "workingDir"}
PROBE_KINDS = ("startupProbe", "readinessProbe", "livenessProbe")
PROBE_TIMINGS = {"initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold",
                 "failureThreshold", "terminationGracePeriodSeconds"}
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"

class Missing(LabError):
    """An object the Pod refers to does not exist (yet): a kubelet waits for it."""


Lookup = Callable[[str, str, str], Optional[dict]]  # (kind, namespace, name) → object or None


@dataclass(frozen=True)
class Probe:
    kind: str       # startupProbe | readinessProbe | livenessProbe
    scheme: str     # HTTP | HTTPS
    host: str
    port: int
    path: str

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme.lower()}://{host}:{self.port}{self.path}"


@dataclass(frozen=True)
class Port:
    name: str
    number: int
    protocol: str   # TCP | UDP


@dataclass(frozen=True)
class Volume:
    """What a mount shows: `files` (relative path → (bytes, mode)) for configMap, secret and
    projected volumes, or a directory: `shared` names the Pod's emptyDir (one directory per Pod,
    shared by its containers), `host_path` a host directory."""
    name: str
    files: Optional[dict] = None
    shared: str = ""
    host_path: str = ""


@dataclass(frozen=True)
class Mount:
    path: str           # absolute path inside the container
    volume: Volume
    sub_path: str = ""
    read_only: bool = False


@dataclass
class LaunchPlan:
    pod: str                    # namespace/name
    container: str
    argv: list                  # in-image paths; argv[0] is the program
    env: dict
    mounts: list                # of Mount, parents before children
    ports: list = field(default_factory=list)
    probes: list = field(default_factory=list)

    @property
    def program(self) -> str:
        return self.argv[0]


def _where(pod: dict, container: Optional[dict] = None) -> str:
    meta = pod.get("metadata", {})
    text = f"Pod {meta.get('namespace', '')}/{meta.get('name', '')}"
    return text + (f" container {container.get('name')}" if container is not None else "")


# $(VAR) expansion (Kubernetes' expansion of command, args and env values) -----------------------

_REF = re.compile(r"\$(\$|\(([A-Za-z_][A-Za-z0-9_.-]*)\))")


def expand(text: str, env: dict) -> str:
    """Kubernetes' $(VAR) expansion: `$(NAME)` becomes NAME's value when NAME is defined (else
    stays as written), `$$` becomes `$`, any other `$` stays."""
    def sub(m: re.Match) -> str:
        if m.group(1) == "$":
            return "$"
        return env.get(m.group(2), m.group(0))
    return _REF.sub(sub, text)


# The Downward API ---------------------------------------------------------------------------------

_SUBSCRIPT = re.compile(r"^metadata\.(labels|annotations)\['([^']+)'\]$")


def field_ref(pod: dict, path: str) -> str:
    """The value of a fieldRef's fieldPath on pod (the paths Kubernetes supports for env)."""
    meta, spec, status = pod.get("metadata", {}), pod.get("spec", {}), pod.get("status", {})
    simple = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
              "spec.serviceAccountName": spec.get("serviceAccountName"),
              "status.hostIP": status.get("hostIP"), "status.podIP": status.get("podIP"),
              "status.hostIPs": ",".join(i["ip"] for i in status.get("hostIPs", [])),
              "status.podIPs": ",".join(i["ip"] for i in status.get("podIPs", []))}
    if path in simple:
        value = simple[path]
        if value in (None, ""):
            raise LabError(f"{_where(pod)}: fieldRef {path} has no value on the Pod")
        return value
    m = _SUBSCRIPT.match(path)
    if m:
        return meta.get(m.group(1), {}).get(m.group(2), "")
    raise LabError(f"{_where(pod)}: fieldRef {path!r} is not a field the Downward API offers")


def _key_of(kind: str, obj: dict, key: str) -> Optional[str]:
    if key in (obj.get("data") or {}):
        value = obj["data"][key]
        return base64.b64decode(value).decode() if kind == "Secret" else value
    if kind == "Secret" and key in (obj.get("stringData") or {}):
        return obj["stringData"][key]
    if kind == "ConfigMap" and key in (obj.get("binaryData") or {}):
        return base64.b64decode(obj["binaryData"][key]).decode()
    return None


def _object(lookup: Lookup, kind: str, namespace: str, name: str, optional: bool,
            where: str) -> Optional[dict]:
    obj = lookup(kind, namespace, name)
    if obj is None and not optional:
        raise Missing(f"{where}: {kind} {namespace}/{name} not found")
    return obj


def environment(pod: dict, container: dict, lookup: Lookup, base: Optional[dict] = None) -> dict:
    """The container's environment: base (what the lab supplies as a kubelet would), then
    envFrom, then env in order; each env value is $(VAR)-expanded against the ones before."""
    where = _where(pod, container)
    namespace = pod["metadata"]["namespace"]
    env = dict(base or {})
    for source in container.get("envFrom", []):
        prefix = source.get("prefix", "")
        for kind, ref_key in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
            ref = source.get(ref_key)
            if ref is None:
                continue
            obj = _object(lookup, kind, namespace, ref["name"], ref.get("optional", False),
                          f"{where} envFrom") or {}
            for key in sorted(set(obj.get("data") or {}) | set(obj.get("binaryData") or {})):
                env[prefix + key] = _key_of(kind, obj, key)
    for item in container.get("env", []):
        name = item["name"]
        if "value" in item:
            env[name] = expand(str(item["value"]), env)
            continue
        source = item.get("valueFrom") or {}
        if not source:  # `- name: X` alone is the empty string
            env[name] = ""
        elif "fieldRef" in source:
            env[name] = field_ref(pod, source["fieldRef"]["fieldPath"])
        elif "secretKeyRef" in source or "configMapKeyRef" in source:
            kind = "Secret" if "secretKeyRef" in source else "ConfigMap"
            ref = source["secretKeyRef" if kind == "Secret" else "configMapKeyRef"]
            optional = ref.get("optional", False)
            obj = _object(lookup, kind, namespace, ref["name"], optional, f"{where} env {name}")
            value = None if obj is None else _key_of(kind, obj, ref["key"])
            if value is None and not optional:
                raise LabError(f"{where} env {name}: {kind} {namespace}/{ref['name']} has no "
                               f"key {ref['key']!r}")
            if value is not None:
                env[name] = value
        else:
            raise LabError(f"{where} env {name}: valueFrom {sorted(source)} is not supported by "
                           "the lab (resources are not honoured: podspec.UNHONOURED)")
    return env


# Volumes ------------------------------------------------------------------------------------------

def _mode(value: Optional[int], default: int) -> int:
    return default if value is None else int(value)


def _key_files(kind: str, obj: Optional[dict], source: dict, where: str) -> dict:
    """relative path → (bytes, mode) of a configMap/secret volume (or projection)."""
    default = _mode(source.get("defaultMode"), 0o644)
    if obj is None:
        return {}
    keys = {k: _key_of(kind, obj, k) for k in
            set(obj.get("data") or {}) | set(obj.get("stringData") or {}) |
            set(obj.get("binaryData") or {})}
    items = source.get("items")
    if items is None:
        return {k: (v.encode(), default) for k, v in keys.items()}
    out = {}
    for item in items:
        if item["key"] not in keys:
            if source.get("optional"):
                continue
            raise LabError(f"{where}: {kind} has no key {item['key']!r}")
        out[item["path"]] = (keys[item["key"]].encode(), _mode(item.get("mode"), default))
    return out


def volume(pod: dict, spec: dict, lookup: Lookup, service_account: Callable[[], dict]) -> Volume:
    """What a Pod volume shows. service_account() returns the files of the Pod's
    service-account token projection (token, ca.crt, namespace), as (bytes, mode)."""
    name = spec["name"]
    where = f"{_where(pod)} volume {name}"
    namespace = pod["metadata"]["namespace"]
    if "emptyDir" in spec:
        return Volume(name, shared=name)
    if "hostPath" in spec:
        return Volume(name, host_path=spec["hostPath"]["path"])
    for kind, key, name_key in (("ConfigMap", "configMap", "name"),
                                ("Secret", "secret", "secretName")):
        if key in spec:
            source = spec[key]
            obj = _object(lookup, kind, namespace, source[name_key],
                          source.get("optional", False), where)
            return Volume(name, files=_key_files(kind, obj, source, where))
    if "projected" in spec:
        files = {}
        default = _mode(spec["projected"].get("defaultMode"), 0o644)
        for source in spec["projected"].get("sources", []):
            if "serviceAccountToken" in source:
                token = service_account()["token"][0]
                files[source["serviceAccountToken"]["path"]] = (token, default)
                continue
            for kind, key in (("ConfigMap", "configMap"), ("Secret", "secret")):
                if key in source:
                    ref = dict(source[key], defaultMode=default)
                    obj = _object(lookup, kind, namespace, ref["name"],
                                  ref.get("optional", False), where)
                    files.update(_key_files(kind, obj, ref, where))
            if "downwardAPI" in source:
                for item in source["downwardAPI"].get("items", []):
                    value = field_ref(pod, item["fieldRef"]["fieldPath"])
                    files[item["path"]] = (value.encode(), _mode(item.get("mode"), default))
        return Volume(name, files=files)
    raise LabError(f"{where}: volume type {sorted(k for k in spec if k != 'name')} is not "
                   "supported by the lab")


def _automount(pod: dict, service_account: Callable[[], dict]) -> Optional[Mount]:
    """kubelet's kube-api-access projection, unless the Pod or a mount opts out."""
    if pod["spec"].get("automountServiceAccountToken") is False:
        return None
    return Mount(SERVICE_ACCOUNT_DIR, Volume("kube-api-access", files=service_account()),
                 read_only=True)


# Probes and ports ---------------------------------------------------------------------------------

def _probe(pod: dict, container: dict, kind: str, host_default: str) -> Optional[Probe]:
    spec = container.get(kind)
    if spec is None:
        return None
    where = f"{_where(pod, container)} {kind}"
    handlers = [k for k in spec if k not in PROBE_TIMINGS]
    if handlers != ["httpGet"]:
        raise LabError(f"{where}: handler {handlers} is not supported by the lab (httpGet only)")
    get = spec["httpGet"]
    unknown = set(get) - {"path", "port", "host", "scheme", "httpHeaders"}
    if unknown or get.get("httpHeaders"):
        raise LabError(f"{where}: httpGet fields {sorted(unknown | {'httpHeaders'})} are not "
                       "supported by the lab")
    port = get["port"]
    if isinstance(port, str) and not port.isdigit():
        named = [p for p in container.get("ports", []) if p.get("name") == port]
        if not named:
            raise LabError(f"{where}: port {port!r} names no port of the container")
        port = named[0]["containerPort"]
    return Probe(kind, get.get("scheme", "HTTP"), get.get("host") or host_default, int(port),
                 get.get("path", "/"))


def _check_fields(pod: dict, container: dict) -> None:
    for keys, allowed, what in ((pod["spec"], POD_FIELDS, _where(pod)),
                                (container, CONTAINER_FIELDS, _where(pod, container))):
        for key in keys:
            if key not in allowed and key not in UNHONOURED:
                raise LabError(f"{what}: field {key!r} is neither run by the lab nor listed "
                               "with a reason in netlab/podspec.py UNHONOURED")


# The plan -----------------------------------------------------------------------------------------

def plan(pod: dict, container_name: str, lookup: Lookup, entrypoint: Callable[[str], list],
         service_account: Callable[[], dict], base_env: Optional[dict] = None,
         init: bool = False) -> LaunchPlan:
    """The launch plan of one container of pod. entrypoint(image) is the image's ENTRYPOINT
    (used when the container has no command)."""
    key = "initContainers" if init else "containers"
    found = [c for c in pod["spec"].get(key, []) if c["name"] == container_name]
    if not found:
        raise LabError(f"{_where(pod)}: no {key[:-1]} named {container_name!r}")
    container = found[0]
    _check_fields(pod, container)
    where = _where(pod, container)
    env = environment(pod, container, lookup, base_env)
    command = container.get("command") or entrypoint(container.get("image", ""))
    if not command:
        raise LabError(f"{where}: no command and no known entrypoint for image "
                       f"{container.get('image')!r}")
    argv = [expand(str(a), env) for a in [*command, *container.get("args", [])]]
    volumes = {v["name"]: v for v in pod["spec"].get("volumes", [])}
    mounts = []
    for m in container.get("volumeMounts", []):
        if m["name"] not in volumes:
            raise LabError(f"{where}: volumeMount {m['mountPath']} names volume {m['name']!r}, "
                           "which the Pod does not have")
        if not posixpath.isabs(m["mountPath"]):
            raise LabError(f"{where}: volumeMount {m['mountPath']!r} is not absolute")
        unknown = set(m) - {"name", "mountPath", "subPath", "readOnly", "mountPropagation"}
        if unknown:
            raise LabError(f"{where}: volumeMount fields {sorted(unknown)} are not supported")
        mounts.append(Mount(posixpath.normpath(m["mountPath"]),
                            volume(pod, volumes[m["name"]], lookup, service_account),
                            m.get("subPath", ""), bool(m.get("readOnly", False))))
    if not any(m.path == SERVICE_ACCOUNT_DIR for m in mounts):
        auto = _automount(pod, service_account)
        if auto is not None:
            mounts.append(auto)
    mounts.sort(key=lambda m: (m.path.count("/"), m.path))
    ports = [Port(p.get("name", ""), int(p["containerPort"]), p.get("protocol", "TCP"))
             for p in container.get("ports", [])]
    host = pod.get("status", {}).get("podIP", "")
    probes = [p for p in (_probe(pod, container, k, host) for k in PROBE_KINDS) if p]
    return LaunchPlan(f"{pod['metadata']['namespace']}/{pod['metadata']['name']}",
                      container_name, argv, env, mounts, ports, probes)


def pod_from_template(workload: dict, name: str, node: str, address: str,
                      namespace: Optional[str] = None) -> dict:
    """The Pod a workload's controller would create from its template, as the lab places it:
    name, node, and (host network or not) the host's lab address as pod and host IP."""
    template = workload["spec"]["template"]
    spec = dict(template.get("spec", {}))
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name,
                         "namespace": namespace or workload["metadata"]["namespace"],
                         "labels": dict(template.get("metadata", {}).get("labels", {}))},
            "spec": spec,
            "status": {"phase": "Running", "hostIP": address, "podIP": address,
                       "hostIPs": [{"ip": address}], "podIPs": [{"ip": address}],
                       "conditions": [{"type": "Ready", "status": "True"}]}}


# Finding the daemons in a render --------------------------------------------------------------

def container_binary(container: dict, entrypoint: Callable[[str], list]) -> str:
    """The program a container runs (basename of command[0], else of the image's entrypoint)."""
    command = container.get("command") or entrypoint(container.get("image", "")) or [""]
    return posixpath.basename(command[0])


def find_daemon(docs: list, kind: str, binary: str, entrypoint: Callable[[str], list]) -> tuple:
    """(workload, container name) of the one `kind` whose Pod template runs `binary` (found by
    what runs, not by object or container names). Raises LabError naming what was found."""
    found = []
    for doc in docs:
        if doc.get("kind") != kind:
            continue
        for c in doc["spec"]["template"]["spec"].get("containers", []):
            if container_binary(c, entrypoint) == binary:
                found.append((doc, c["name"]))
    if len(found) != 1:
        names = [f"{d['metadata']['name']}/{c}" for d, c in found]
        raise LabError(f"the render has {len(found)} {kind} containers running {binary} "
                       f"({names}); the lab needs exactly one")
    return found[0]


# Mounts inside a private mount namespace ----------------------------------------------------------

STAGE = "/tmp/.lab-pod"  # on the private /tmp of the daemon's mount namespace


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def mount_script(binds: list, exists: Callable[[str], bool], realpath: Callable[[str], str],
                 working_dir: str = "") -> str:
    """A /bin/sh script that, run inside a private mount namespace (`unshare -m`), shows each
    (source, target, read_only, is_file) of binds at its target and then execs "$@".

    The daemon's /tmp becomes a private tmpfs (as a container's would be); each source is first
    bind-mounted to a staging point there, so a later mount cannot hide it. A target whose
    directory does not exist on the host gets one without touching the host: the deepest
    existing ancestor (e.g. /etc or /run) is covered with an overlay whose upper layer is on the
    private /tmp, and the mount point is made in it. Targets inside an earlier target (a volume)
    get their mount point made in that volume, as a kubelet does."""
    lines = ["set -e", "mount -t tmpfs -o mode=1777 lab-pod-tmp /tmp"]
    staged = []
    for i, (source, target, read_only, is_file) in enumerate(binds):
        if _under(source, "/tmp"):
            raise LabError(f"mount source {source} is under /tmp, which the daemon gets private")
        stage = f"{STAGE}/src/{i}"
        lines.append(f"mkdir -p {STAGE}/src")
        lines.append(f": > {stage}" if is_file else f"mkdir -p {stage}")
        lines.append(f"mount --bind {_q(source)} {stage}")
        staged.append((stage, target, read_only, is_file))
    # Overlays first: an overlay mounted after a bind on its path would hide the bind.
    targets = [t for _, t, _, _ in staged]
    overlays: list = []
    for target in targets:
        inside = any(_under(target, t) and t != target for t in targets) or _under(target, "/tmp")
        if inside or exists(target):
            continue
        ancestor = posixpath.dirname(target)
        while not exists(ancestor):
            ancestor = posixpath.dirname(ancestor)
        ancestor = realpath(ancestor)
        if ancestor == "/":
            raise LabError(f"mount target {target}: no ancestor but / exists; the lab will not "
                           "cover / with an overlay")
        if ancestor not in overlays:
            up, work = f"{STAGE}/ov/{len(overlays)}/upper", f"{STAGE}/ov/{len(overlays)}/work"
            overlays.append(ancestor)
            lines.append(f"mkdir -p {up} {work}")
            lines.append(f"mount -t overlay lab-pod-ov -o lowerdir={_q(ancestor)},"
                         f"upperdir={up},workdir={work} {_q(ancestor)}")
    for stage, target, read_only, is_file in staged:
        if is_file:
            lines.append(f"mkdir -p {_q(posixpath.dirname(target))}; "
                         f"[ -e {_q(target)} ] || : > {_q(target)}")
        else:
            lines.append(f"mkdir -p {_q(target)}")
        lines.append(f"mount --bind {stage} {_q(target)}")
        if read_only:
            lines.append(f"mount -o remount,bind,ro {_q(target)}")
    if working_dir:
        lines.append(f"cd {_q(working_dir)}")
    lines.append('exec "$@"')
    return "\n".join(lines) + "\n"
