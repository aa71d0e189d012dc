# SPDX-License-Identifier: Apache-2.0
"""The frrk8s.metallb.io CustomResourceDefinitions Ingot writes and reads, schema-compatible
with frr-k8s v0.0.25. frr-k8s installs its own CRDs on a real cluster; these copies are only
preinstalled by the test API server (e2e/kubeapi), so that it checks what Ingot writes as a real
server with frr-k8s would. The descriptions are Ingot's own."""

from __future__ import annotations

from metallb import CONNECT_TIME_RULES
from schema import (array, boolean, column, crd, integer, label_selector, obj, root, string,
                    strings, uint32, version)

GROUP = "frrk8s.metallb.io"


def _bfd_profile() -> dict:
    def interval(what: str) -> dict:
        return integer(f"{what}, in milliseconds.", "int32", 10, 60000)

    return obj("A named BFD profile neighbors refer to.", {
        "detectMultiplier": integer("Missed packets before the session goes down.", "int32",
                                    2, 255),
        "echoInterval": interval("Minimum interval between echo packets"),
        "echoMode": boolean("Send echo packets."),
        "minimumTtl": integer("Lowest TTL accepted (multi-hop).", "int32", 1, 254),
        "name": string("Profile name."),
        "passiveMode": boolean("Wait for the peer to start the session."),
        "receiveInterval": interval("Minimum interval between received packets"),
        "transmitInterval": interval("Minimum interval between sent packets"),
    }, required=("name",))


def _cidrs(description: str) -> dict:
    return array(description, {"type": "string"}, format="cidr", minItems=1)


def _to_advertise() -> dict:
    mode = string("all, or only the listed prefixes (filtered).", enum=["all", "filtered"],
                  default="filtered")
    return obj("Which of the router's prefixes are sent to this neighbor, and with what.", {
        "allowed": obj("The prefixes sent.", {
            "mode": mode, "prefixes": strings("Prefixes sent in filtered mode.")}),
        "withCommunity": array("Communities attached to some prefixes.", obj(
            "One community and its prefixes.", {
                "community": string("The community value."),
                "prefixes": _cidrs("Prefixes carrying it.")})),
        "withLocalPref": array("LOCAL_PREF set on some prefixes.", obj(
            "One LOCAL_PREF and its prefixes.", {
                "localPref": integer("The LOCAL_PREF value.", "int32"),
                "prefixes": _cidrs("Prefixes carrying it.")})),
    })


def _to_receive() -> dict:
    length = integer("Prefix length bound.", "int32", 1, 128)
    mode = string("all, or only the listed prefixes (filtered).", enum=["all", "filtered"],
                  default="filtered")
    return obj("Which prefixes are accepted from this neighbor.", {
        "allowed": obj("The prefixes accepted.", {
            "mode": mode,
            "prefixes": array("Prefixes accepted in filtered mode.", obj("One prefix match.", {
                "ge": dict(length, description="Shortest length accepted."),
                "le": dict(length, description="Longest length accepted."),
                "prefix": string("The prefix.", format="cidr")}))}),
    })


def _neighbor() -> dict:
    return obj("One BGP neighbor of the router.", {
        "address": string("Neighbor IP address."),
        "asn": uint32("Neighbor AS number."),
        "bfdProfile": string("BFD profile name, from bfdProfiles."),
        "connectTime": string("Connect retry interval, whole seconds.",
                              x_kubernetes_validations=CONNECT_TIME_RULES),
        "disableMP": boolean("Deprecated, no effect.", default=False),
        "dualStackAddressFamily": boolean("Both address families on one session.",
                                          default=False),
        "dynamicASN": string("internal or external, instead of asn.",
                             enum=["internal", "external"]),
        "ebgpMultiHop": boolean("Neighbor may be several hops away."),
        "enableGracefulRestart": boolean("BGP graceful restart."),
        "holdTime": string("Hold time, a duration."),
        "interface": string("Interface for unnumbered BGP."),
        "keepaliveTime": string("Keepalive interval, a duration."),
        "localASN": uint32("AS number presented instead of the router's.", minimum=1),
        "password": string("TCP MD5 password."),
        "passwordSecret": obj("Secret holding the password.", {
            "name": string("Secret name."), "namespace": string("Secret namespace.")},
            x_kubernetes_map_type="atomic"),
        "port": integer("Neighbor TCP port.", minimum=0, maximum=16384),
        "sourceaddress": string("Local source address."),
        "toAdvertise": _to_advertise(),
        "toReceive": _to_receive(),
    })


def frr_configuration() -> dict:
    router = obj("One BGP router (per VRF).", {
        "asn": uint32("Router AS number."),
        "id": string("Router ID."),
        "imports": array("VRFs whose routes are imported.", obj("One import.", {
            "vrf": string("VRF name.")})),
        "neighbors": array("The router's neighbors.", _neighbor()),
        "prefixes": strings("Prefixes the router originates."),
        "vrf": string("VRF of the router; empty means the default VRF."),
    }, required=("asn",))
    spec = obj("FRR configuration for the selected nodes.", {
        "bgp": obj("BGP routers and BFD profiles.", {
            "bfdProfiles": array("BFD profiles.", _bfd_profile()),
            "routers": array("BGP routers.", router)}),
        "nodeSelector": label_selector("Nodes the configuration applies to; empty means all."),
        "raw": obj("Raw FRR configuration appended as is.", {
            "priority": integer("Order among raw snippets."),
            "rawConfig": string("The FRR configuration text.")}),
    })
    schema = root("A piece of FRR configuration frr-k8s merges per node.", spec,
                  obj("Not used."))
    return crd(GROUP, "FRRConfiguration", "frrconfigurations", [version("v1beta1", schema)])


def frr_node_state() -> dict:
    status = obj("The node's FRR state.", {
        "lastConversionResult": string("Result of the last configuration merge."),
        "lastReloadResult": string("Result of the last FRR reload."),
        "runningConfig": string("FRR's running configuration."),
    })
    schema = root("FRR state of one node.", obj("Not used."), status)
    return crd(GROUP, "FRRNodeState", "frrnodestates", [version("v1beta1", schema)],
               scope="Cluster")


def bgp_session_state() -> dict:
    status = obj("The session's state.", {
        "bfdStatus": string("BFD state."), "bgpStatus": string("BGP state."),
        "node": string("The node."), "peer": string("The peer."), "vrf": string("The VRF."),
    })
    columns = (column("Node", ".status.node"), column("Peer", ".status.peer"),
               column("VRF", ".status.vrf"), column("BGP", ".status.bgpStatus"),
               column("BFD", ".status.bfdStatus"))
    schema = root("State of one BGP session of one node.", obj("Not used."), status)
    return crd(GROUP, "BGPSessionState", "bgpsessionstates",
               [version("v1beta1", schema, columns)])


ALL = (frr_configuration, frr_node_state, bgp_session_state)
