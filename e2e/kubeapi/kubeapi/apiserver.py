# SPDX-License-Identifier: Apache-2.0
"""The server object used by pytest fixtures, benchmarks and the command line."""

from __future__ import annotations

import ipaddress
import random
import ssl
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

from .authn import TokenIssuer
from .authz import RbacAuthorizer
from .certs import CertPaths, generate_certs, kubeconfig_text, write_file_atomically
from .cluster import Cluster
from .errors import bad_request
from .faults import EventReaper, FaultPlan, Faults
from .handler import Handler
from .registry import BUILTIN_CRDS, BUILTIN_RESOURCES, Registry, load_crds
from .services import ServiceAllocator
from .store import Store
from .transport import HttpServer


DEFAULT_NAMESPACES = ("default", "kube-system", "metallb-system")


def _seconds(value: object) -> bool:
    """True for a positive number (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0


class KubeApiServer:
    """A running test API server. Usable as a context manager.

    The fault-injection knobs are plain attributes that may be changed while it runs:
    `latency_ms`, `fail_writes` (fraction of writes answered 500, drawn from a RNG seeded with
    `seed`; call `reseed()` to restart the sequence), `close_watches_after` (seconds, or None)
    and `bookmark_interval` (seconds; a real server sends one about every minute), and
    `cluster.store.compaction_window` (seconds of history kept; older resourceVersions get
    410, as after etcd's compaction every 5 minutes). `configure()` changes the last two and
    the fault plan from a JSON object (the admin endpoint's PUT). The overload faults (429 with Retry-After, 504 after a
    committed write, Event expiry) are `faults.plan` (faults.py), also changeable through the
    admin endpoint; `faults` passed here is the initial plan."""

    def __init__(self, *, address: str = "127.0.0.1", port: int = 0, tokens=(),
                 tls: bool = True, cert_dir=None, namespaces=(), history: int = 1000,
                 bookmark_interval: float = 60.0, compaction_window: Optional[float] = 300.0,
                 close_watches_after: Optional[float] = None,
                 fail_writes: float = 0.0, seed: Optional[int] = None, latency_ms: float = 0.0,
                 service_cidrs=("10.96.0.0/12",), builtin_crds: bool = True,
                 crd_dirs=None, schema_validation: bool = True,
                 rbac: bool = True, authz_log: Optional[str] = None, verbose: bool = False,
                 faults: Optional[FaultPlan] = None, grace_scale: float = 1.0):
        try:
            address = str(ipaddress.ip_address(address))
        except ValueError:
            raise ValueError(f"address {address!r} is not an IP address literal") from None
        self.address, self.requested_port = address, port
        self.tokens = frozenset(tokens)
        self.tls = tls
        self.cert_dir = cert_dir
        self.extra_namespaces = tuple(namespaces)
        self.bookmark_interval = bookmark_interval
        self.close_watches_after = close_watches_after
        self.fail_writes = fail_writes
        self.latency_ms = latency_ms
        self.verbose = verbose
        self.builtin_crds = builtin_crds
        self.crds = load_crds(crd_dirs) if crd_dirs else BUILTIN_CRDS
        self.cluster = Cluster(Registry(BUILTIN_RESOURCES), Store(history, compaction_window),
                               ServiceAllocator(service_cidrs))
        self.cluster.validation.enabled = schema_validation
        # Pod grace periods last deletionGracePeriodSeconds times this (tests shorten them).
        self.cluster.collector.grace_scale = grace_scale
        # ServiceAccount tokens (authn.py), authorised by RBAC (authz.py); the `tokens` above
        # are all-powerful. Admission plugins: cluster.admission.
        self.token_issuer = TokenIssuer()
        self.cluster.token_issuer = self.token_issuer
        self.authorizer = RbacAuthorizer(self.cluster.store, authz_log)
        self.authorizer.enabled = rbac
        self.stopping = threading.Event()
        self.certs: Optional[CertPaths] = None
        self._seed = seed
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._httpd: Optional[HttpServer] = None
        self._thread: Optional[threading.Thread] = None
        self._scratch: Optional[tempfile.TemporaryDirectory] = None
        self.faults = Faults(faults or FaultPlan(), self._draw)
        event_keys = tuple(r.key for r in (self.cluster.registry.lookup("", "v1", "events"),
                                           self.cluster.registry.lookup("events.k8s.io", "v1",
                                                                        "events")) if r)
        self.event_reaper = EventReaper(self.cluster.store, event_keys, self.faults,
                                        self.stopping)

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> "KubeApiServer":
        self._bootstrap()
        self.cluster.collector.start()
        httpd = HttpServer((self.address, self.requested_port), Handler, self)
        if self.tls:
            httpd.socket = self._tls_context().wrap_socket(
                httpd.socket, server_side=True, do_handshake_on_connect=False)
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name=f"kubeapi-{self.port}", daemon=True)
        self._thread.start()
        self.event_reaper.start()
        return self

    def stop(self) -> None:
        """Stops serving: ends every watch, closes every connection, joins every thread."""
        if self._httpd is None:
            return
        self.stopping.set()
        self.cluster.collector.stop()
        with self.cluster.store.cond:
            self.cluster.store.cond.notify_all()
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        self._thread.join(timeout=10)
        self.event_reaper.join()
        self._httpd = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def __enter__(self) -> "KubeApiServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _bootstrap(self) -> None:
        """Creates the initial namespaces and, unless disabled, the built-in CRDs."""
        namespaces = self.cluster.registry.lookup("", "v1", "namespaces")
        for name in dict.fromkeys(DEFAULT_NAMESPACES + self.extra_namespaces):
            self.cluster.create(namespaces, "", {"metadata": {"name": name}})
        if self.builtin_crds:
            crds = self.cluster.registry.lookup("apiextensions.k8s.io", "v1",
                                                "customresourcedefinitions")
            for manifest in self.crds:
                self.cluster.create(crds, "", manifest)

    def _tls_context(self) -> ssl.SSLContext:
        if self.cert_dir is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="ingot-kubeapi-")
            self.cert_dir = self._scratch.name
        self.certs = generate_certs(self.cert_dir, (self.address,))
        self.token_issuer.ca_pem = self.certs.ca.read_bytes()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.certs.cert, self.certs.key)
        context.set_alpn_protocols(["http/1.1"])
        return context

    # -- addresses and client configuration ---------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def host_port(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host_port}"

    @property
    def ca_file(self) -> Optional[Path]:
        return self.certs.ca if self.certs else None

    def kubeconfig(self, token: Optional[str] = None) -> str:
        """Returns a kubeconfig for this server; token defaults to the first configured one."""
        if token is None and self.tokens:
            token = sorted(self.tokens)[0]
        ca_pem = self.certs.ca.read_bytes() if self.certs else None
        return kubeconfig_text(self.url, ca_pem, token)

    def write_kubeconfig(self, path, token: Optional[str] = None) -> None:
        write_file_atomically(path, self.kubeconfig(token))

    # -- fault injection ----------------------------------------------------------------------

    def configure(self, changes: object) -> None:
        """Applies the admin endpoint's PUT: `bookmarkInterval` (seconds, > 0),
        `compactionWindow` (seconds, > 0, or null: no time limit) and the fault plan's fields
        (faults.py). Raises 400 naming a bad field, changing nothing then."""
        if not isinstance(changes, dict):
            raise bad_request("the fault plan must be a JSON object")
        rest = dict(changes)
        bookmark = rest.pop("bookmarkInterval", None)
        window_given = "compactionWindow" in rest
        window = rest.pop("compactionWindow", None)
        if "bookmarkInterval" in changes and not _seconds(bookmark):
            raise bad_request("field 'bookmarkInterval' must be a positive number of seconds")
        if window is not None and not _seconds(window):
            raise bad_request("field 'compactionWindow' must be a positive number of seconds "
                              "or null")
        self.faults.configure(rest)
        if bookmark is not None:
            self.bookmark_interval = float(bookmark)
        if window_given:
            with self.cluster.store.cond:
                self.cluster.store.compaction_window = None if window is None else float(window)

    def describe(self) -> dict:
        """The admin endpoint's GET: the watch cache knobs, the fault plan and counters."""
        return dict(self.faults.describe(), bookmarkInterval=self.bookmark_interval,
                    compactionWindow=self.cluster.store.compaction_window)

    def reseed(self, seed: Optional[int]) -> None:
        with self._rng_lock:
            self._seed = seed
            self._rng = random.Random(seed)

    def should_fail_write(self) -> bool:
        if self.fail_writes <= 0:
            return False
        with self._rng_lock:
            return self._rng.random() < self.fail_writes

    def _draw(self) -> float:
        with self._rng_lock:
            return self._rng.random()

    def apply_latency(self) -> None:
        if self.latency_ms > 0:
            time.sleep(self.latency_ms / 1000.0)
