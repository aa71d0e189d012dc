# SPDX-License-Identifier: Apache-2.0
"""The daemons' /metrics as MetalLB v0.16 serves it, end to end: a real ingot-controller and
ingot-agent on the test API server, scraped over HTTPS with a ServiceAccount token allowed to get
/metrics (200 and metric families), a token without that grant (403), a forged token and no
token (401); health stays plain HTTP. Then every PrometheusRule expression of the chart, in each
flavour, names only metric families some daemon of that flavour exports."""

from __future__ import annotations

import http.client
import re
import socket
import ssl

import pytest

import kubeapi
from conftest import POOLS, TOKEN, ApiClient, pool
from test_authz import sa_token
from test_chart import harness, rendered  # noqa: F401 (harness is a fixture)
from test_http_abuse import agent_binary, running_daemons
from test_ingot_webhooks import REPO, controller_binary, wait_for
from test_reviews import metrics_reader

NS = "metallb-system"


def scrape(port: int, token: str = "", path: str = "/metrics") -> tuple:
    """GET over HTTPS from 127.0.0.1 (the certificate is self-signed: not verified, as the
    chart's default tlsConfig insecureSkipVerify); (status, body text, peer certificate)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        conn.request("GET", path, headers=headers)
        cert = conn.sock.getpeercert(binary_form=True)
        response = conn.getresponse()
        return response.status, response.read().decode(), cert
    finally:
        conn.close()


def plain_get(port: int, path: str) -> tuple:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def plain_answer(port: int) -> bytes:
    """What a plain-HTTP GET /metrics gets from the HTTPS port (the start of the answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            return s.recv(4096)
        except OSError:
            return b""


def families(text: str) -> set:
    return set(re.findall(r"^# TYPE (\S+) ", text, re.MULTILINE))


@pytest.fixture(scope="module")
def scraped(tmp_path_factory, cert_dir):
    """{daemon: {"status": {case: status}, "families": set, "health": status, ...}} from one
    run of both daemons, shared by the tests of this module."""
    directory = tmp_path_factory.mktemp("metrics-https")
    server = kubeapi.KubeApiServer(tokens=(TOKEN,), cert_dir=cert_dir,
                                   bookmark_interval=0.2).start()
    try:
        client = ApiClient(server)
        allowed = sa_token(client, "prometheus")
        metrics_reader(client)
        denied = sa_token(client, "stranger")
        # a pool, so that the controller's allocator families have samples
        assert client.post(POOLS, pool("pool1")).status == 201
        out = {}
        with running_daemons(server, directory, controller_binary(), agent_binary()) as d:
            for name, ports in (("controller", d.controller), ("agent", d.agent)):
                port = ports["metricshttps"]
                assert port != 0, f"{name} serves no HTTPS /metrics"
                status = {}
                wanted = "metallb_allocator_addresses_total" if name == "controller" else \
                    "metallb_k8s_client_config_loaded_bool"
                wait_for(f"{wanted} from the {name}",
                         lambda: wanted in families(scrape(port, allowed)[1]))
                status["allowed"], body, cert = scrape(port, allowed)
                status["denied"], _, _ = scrape(port, denied)
                status["forged"], _, _ = scrape(port, allowed[:-2] + "xx")
                status["none"], _, _ = scrape(port)
                status["other path"], _, _ = scrape(port, allowed, "/debug")
                # the cached allow answers again, without the API server being asked
                status["again"], _, _ = scrape(port, allowed)
                health = plain_get(ports["health"], "/healthz")[0]
                out[name] = {"status": status, "families": families(body), "cert": cert,
                             "health": health, "plain_answer": plain_answer(port)}
            d.alive()
        return out
    finally:
        server.stop()


@pytest.mark.parametrize("daemon", ["controller", "agent"])
def test_https_metrics_need_an_allowed_token(scraped, daemon):
    assert scraped[daemon]["status"] == {"allowed": 200, "denied": 403, "forged": 401,
                                         "none": 401, "other path": 403, "again": 200}
    assert scraped[daemon]["cert"], "no certificate"
    assert any(f.startswith("metallb_") for f in scraped[daemon]["families"])


@pytest.mark.parametrize("daemon", ["controller", "agent"])
def test_health_stays_plain_http(scraped, daemon):
    assert scraped[daemon]["health"] == 200


@pytest.mark.parametrize("daemon", ["controller", "agent"])
def test_the_https_port_serves_no_plain_http(scraped, daemon):
    assert not scraped[daemon]["plain_answer"].startswith(b"HTTP/1.1 200")


# The agent's BGP session families exist only in frr mode, where it reads the node's FRR (a lab
# with FRR shows them; here the agent runs without): their names, from frr/session_metrics.
def frr_session_families() -> set:
    text = (REPO / "frr/session_metrics.cpp").read_text()
    assert 'kMetalLbSessions{"metallb"' in (REPO / "frr/session_metrics.h").read_text()
    return {f"metallb_{name}" for name in re.findall(r'\{"([a-z_]+)",\s*"', text)}


FLAVOURS = {
    "frr-k8s": [],
    "frr": ["frrk8s.enabled=false", "speaker.frr.enabled=true"],
    "native": ["frrk8s.enabled=false"],
}


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_every_alert_names_a_metric_the_flavour_exports(harness, scraped, flavour):  # noqa: F811
    objs = rendered(harness, "prometheus.prometheusRule.enabled=true", *FLAVOURS[flavour])
    rules = [r for g in objs[("PrometheusRule", "metallb")]["spec"]["groups"] for r in g["rules"]]
    exported = scraped["controller"]["families"] | scraped["agent"]["families"]
    if flavour == "frr":
        exported |= frr_session_families()
    for rule in rules:
        # metric names: the identifiers outside label matchers ({...})
        names = re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", re.sub(r"\{[^}]*\}", "", rule["expr"]))
        used = {m for m in names if m.startswith(("metallb_", "frrk8s_", "ingot_"))}
        assert used, f"{rule['alert']}: no metric found in {rule['expr']!r}"
        assert used <= exported, f"{flavour}: {rule['alert']} uses {used - exported}, not exported"
    alerts = {r["alert"] for r in rules}
    assert ("MetalLBBGPSessionDown" in alerts) == (flavour == "frr")
