# SPDX-License-Identifier: Apache-2.0
"""The nine metallb.io CustomResourceDefinitions, schema-compatible with MetalLB v0.16.1: the
same names, versions, printer columns and, for every property, the same type, enum, default,
bounds, pattern and CEL rule. The descriptions are Ingot's own."""

from __future__ import annotations

from schema import (IMMUTABLE, array, boolean, cel, column, crd, integer, label_selector, obj,
                    root, selectors, string, strings, uint32, version)

GROUP = "metallb.io"
NAMESPACE = "metallb-system"  # where the conversion webhook's Service lives

CONNECT_TIME_RULES = cel(
    ("duration(self).getSeconds() >= 1 && duration(self).getSeconds() <= 65535",
     "connect time should be between 1 seconds to 65535"),
    ("duration(self).getMilliseconds() % 1000 == 0",
     "connect time should contain a whole number of seconds"))

SERVICE_SELECTORS_RULE = cel((
    "!has(self.serviceSelectors) || self.serviceSelectors.size() == 0 || "
    "((!has(self.aggregationLength) || self.aggregationLength == 32) && "
    "(!has(self.aggregationLengthV6) || self.aggregationLengthV6 == 128))",
    "serviceSelectors and aggregationLength are mutually exclusive, can only be used together "
    "with default aggregationLength (32) and aggregationLengthV6 (128)"))

POOLS = strings("Names of the IPAddressPools this advertisement covers. With neither this "
                "list nor ipAddressPoolSelectors it covers every pool.")
POOL_SELECTORS = selectors("Label selectors of IPAddressPools this advertisement covers, in "
                           "addition to those named in ipAddressPools.")
SERVICE_SELECTORS = selectors("Only Services matching one of these selectors are announced "
                              "through this advertisement; empty means every Service.")
EMPTY_STATUS = obj("Not used: this kind reports no status.")


def ip_address_pool() -> dict:
    allocation = obj("Restricts which Services may be given addresses from this pool, and in "
                     "which order pools are tried.", {
                         "namespaces": strings("Namespaces whose Services may use this pool."),
                         "namespaceSelectors": selectors(
                             "Namespaces, chosen by their labels, whose Services may use this "
                             "pool."),
                         "priority": integer("Pools with a lower number are tried first; 0 "
                                             "(unset) pools come after all numbered ones."),
                         "serviceSelectors": selectors(
                             "Services matching any of these selectors may use this pool."),
                     })
    spec = obj("What addresses the pool holds and how they are handed out.", {
        "addresses": strings("The addresses of the pool: CIDRs (10.0.0.0/24, fc00::/64) or "
                             "inclusive ranges (10.0.0.10-10.0.0.20). A single address is "
                             "written as a /32 or /128."),
        "autoAssign": boolean("Whether Services without an explicit pool or address may get "
                              "addresses from this pool.", default=True),
        "avoidBuggyIPs": boolean("Skip IPv4 addresses ending in .0 or .255, which some "
                                 "network equipment mishandles.", default=False),
        "serviceAllocation": allocation,
    }, required=("addresses",))
    counter = integer("", "int64")
    status = obj("Address counters kept up to date by the controller.", {
        "assignedIPv4": dict(counter, description="IPv4 addresses given to Services."),
        "assignedIPv6": dict(counter, description="IPv6 addresses given to Services."),
        "availableIPv4": dict(counter, description="IPv4 addresses still free."),
        "availableIPv6": dict(counter, description="IPv6 addresses still free."),
    }, required=("assignedIPv4", "assignedIPv6", "availableIPv4", "availableIPv6"))
    columns = (column("Auto Assign", ".spec.autoAssign", "boolean"),
               column("Avoid Buggy IPs", ".spec.avoidBuggyIPs", "boolean"),
               column("Addresses", ".spec.addresses"))
    schema = root("A range of addresses LoadBalancer Services can be given.", spec, status,
                  required=("spec",))
    return crd(GROUP, "IPAddressPool", "ipaddresspools", [version("v1beta1", schema, columns)])


def l2_advertisement() -> dict:
    spec = obj("Which pools, nodes and interfaces the Layer 2 announcement uses.", {
        "interfaces": strings("Host interfaces the addresses are announced on; empty means "
                              "every interface."),
        "ipAddressPoolSelectors": POOL_SELECTORS,
        "ipAddressPools": POOLS,
        "nodeSelectors": selectors("Nodes that may announce the addresses; empty means every "
                                   "node."),
        # An extension beyond v0.16.1, with the schema MetalLB's development branch gives it.
        "preferredNodeSelectors": array(
            "Soft preferences among the eligible nodes: the announcing node is chosen among "
            "those with the highest total weight of matching preferences.",
            obj("One weighted preference.", {
                "preference": label_selector("Nodes this preference favours; an empty selector "
                                             "matches every node."),
                "weight": integer("Weight added for nodes matching preference.", "int32", 1,
                                  100),
            }, required=("preference", "weight"))),
        "serviceSelectors": SERVICE_SELECTORS,
    })
    columns = (column("IPAddressPools", ".spec.ipAddressPools"),
               column("IPAddressPool Selectors", ".spec.ipAddressPoolSelectors"),
               column("Interfaces", ".spec.interfaces"),
               column("Node Selectors", ".spec.nodeSelectors", priority=10))
    schema = root("Announces the addresses of some pools with ARP (IPv4) and NDP (IPv6) from "
                  "one node at a time.", spec, EMPTY_STATUS)
    return crd(GROUP, "L2Advertisement", "l2advertisements",
               [version("v1beta1", schema, columns)])


def bgp_advertisement() -> dict:
    spec = obj("How the addresses of some pools are advertised to BGP peers.", {
        "aggregationLength": integer("Prefix length IPv4 addresses are advertised with, so "
                                     "several addresses can share one route.", "int32",
                                     minimum=1, default=32),
        "aggregationLengthV6": integer("Prefix length IPv6 addresses are advertised with.",
                                       "int32", default=128),
        "communities": strings("BGP communities attached to the routes: a:b, large:a:b:c, or "
                               "the name of an alias defined in a Community."),
        "ipAddressPoolSelectors": POOL_SELECTORS,
        "ipAddressPools": POOLS,
        "localPref": integer("LOCAL_PREF attribute of the routes (sent to iBGP peers only).",
                             "int32"),
        "nodeSelectors": selectors("Nodes that advertise the routes (the next hops); empty "
                                   "means every node."),
        "peers": strings("Names of the BGPPeers the routes are sent to; empty means every "
                         "peer."),
        "serviceSelectors": SERVICE_SELECTORS,
    }, x_kubernetes_validations=SERVICE_SELECTORS_RULE)
    columns = (column("IPAddressPools", ".spec.ipAddressPools"),
               column("IPAddressPool Selectors", ".spec.ipAddressPoolSelectors"),
               column("Peers", ".spec.peers"),
               column("Node Selectors", ".spec.nodeSelectors", priority=10))
    schema = root("Advertises the addresses of some pools to BGP peers.", spec,
                  obj("Not used: this kind reports no status."))
    return crd(GROUP, "BGPAdvertisement", "bgpadvertisements",
               [version("v1beta1", schema, columns)])


def _legacy_selector() -> dict:
    expression = obj("One requirement on a label.", {
        "key": string("The label key."),
        "operator": string("In, NotIn, Exists or DoesNotExist."),
        "values": strings("The values the label is compared with.", minItems=1),
    }, required=("key", "operator", "values"))
    return obj("A label selector in the shape v1beta1 used.", {
        "matchExpressions": array("Requirements on labels, all of which must hold.",
                                  expression),
        "matchLabels": obj("Labels that must be present with exactly these values.",
                           additionalProperties={"type": "string"}),
    })


def _peer_common() -> dict:
    """Fields BGPPeer v1beta1 and v1beta2 share with the same schema."""
    return {
        "bfdProfile": string("Name of the BFDProfile run on this session; unset means no BFD."),
        "ebgpMultiHop": boolean("Whether the peer may be more than one hop away (eBGP)."),
        "holdTime": string("BGP hold time proposed to the peer, a duration such as 90s."),
        "keepaliveTime": string("BGP keepalive interval, a duration such as 30s."),
        "myASN": uint32("AS number the nodes use on this session."),
        "password": string("TCP MD5 password of the session."),
        "peerASN": uint32("AS number the peer is expected to have."),
        "peerAddress": string("IP address of the peer."),
        "routerID": string("BGP router ID the nodes use, an IPv4 address."),
        "sourceAddress": string("Local address the session is opened from."),
    }


def _peer_v1beta1() -> dict:
    properties = _peer_common()
    properties["nodeSelectors"] = array("Nodes that open this session; empty means every "
                                        "node.", _legacy_selector())
    properties["peerPort"] = integer("TCP port of the peer.", minimum=0, maximum=16384)
    spec = obj("The BGP session to open from the selected nodes.", properties,
               required=("myASN", "peerASN", "peerAddress"))
    return root("A BGP peer (deprecated version; use v1beta2).", spec,
                obj("Not used: this kind reports no status."))


def _peer_v1beta2() -> dict:
    properties = _peer_common()
    properties.update({
        "connectTime": string("How long to wait before retrying a failed connection, in whole "
                              "seconds between 1s and 65535s.",
                              x_kubernetes_validations=CONNECT_TIME_RULES),
        "disableMP": boolean("Deprecated, has no effect: each address family is negotiated on "
                             "its own session unless dualStackAddressFamily is set.",
                             default=False),
        "dualStackAddressFamily": boolean("Carry both IPv4 and IPv6 routes on this one "
                                          "session.", default=False),
        "dynamicASN": string("Accept the peer's AS number if it is internal (same as myASN) "
                             "or external (different); instead of peerASN.",
                             enum=["internal", "external"]),
        "enableGracefulRestart": boolean("Keep forwarding through a restart of the BGP "
                                         "speaker; fixed at creation.",
                                         x_kubernetes_validations=cel((
                                             "self == oldSelf", "EnableGracefulRestart cannot "
                                             "be changed after creation"))),
        "interface": string("Host interface for unnumbered BGP, instead of peerAddress."),
        "localASN": uint32("AS number presented to the peer in place of myASN.", minimum=1),
        "nodeSelectors": selectors("Nodes that open this session; empty means every node."),
        "passwordSecret": obj("A kubernetes.io/basic-auth Secret whose password key holds the "
                              "session password; instead of password.", {
                                  "name": string("Name of the Secret."),
                                  "namespace": string("Namespace of the Secret."),
                              }, x_kubernetes_map_type="atomic"),
        "peerPort": integer("TCP port of the peer.", minimum=1, maximum=16384, default=179),
        "vrf": string("Host VRF the session is opened from; empty means the default VRF."),
    })
    spec = obj("The BGP session to open from the selected nodes.", properties,
               required=("myASN",))
    return root("A BGP peer the nodes open a session with.", spec,
                obj("Not used: this kind reports no status."))


def bgp_peer() -> dict:
    columns = (column("Address", ".spec.peerAddress"), column("ASN", ".spec.peerASN"),
               column("BFD Profile", ".spec.bfdProfile"),
               column("Multi Hops", ".spec.ebgpMultiHop"))
    conversion = {"strategy": "Webhook", "webhook": {
        "clientConfig": {"service": {"name": "metallb-webhook-service", "namespace": NAMESPACE,
                                     "path": "/convert"}},
        "conversionReviewVersions": ["v1beta1", "v1beta2"]}}
    return crd(GROUP, "BGPPeer", "bgppeers", [
        version("v1beta1", _peer_v1beta1(), columns, storage=False,
                deprecation="v1beta1 is deprecated, please use v1beta2"),
        version("v1beta2", _peer_v1beta2(), columns),
    ], conversion=conversion)


def bfd_profile() -> dict:
    def interval(what: str) -> dict:
        return integer(f"{what}, in milliseconds.", "int32", 10, 60000)

    spec = obj("BFD timers and modes; an unset field keeps the BFD daemon's default.", {
        "detectMultiplier": integer("Missed packets after which the session is declared down.",
                                    "int32", 2, 255),
        "echoInterval": interval("Minimum interval between echo packets"),
        "echoMode": boolean("Send echo packets (IPv4 only)."),
        "minimumTtl": integer("Lowest TTL accepted on incoming packets (multi-hop sessions).",
                              "int32", 1, 254),
        "passiveMode": boolean("Wait for the peer to start the session."),
        "receiveInterval": interval("Minimum interval between received packets"),
        "transmitInterval": interval("Minimum interval between sent packets"),
    })
    columns = (column("Passive Mode", ".spec.passiveMode", "boolean"),
               column("Transmit Interval", ".spec.transmitInterval", "integer"),
               column("Receive Interval", ".spec.receiveInterval", "integer"),
               column("Multiplier", ".spec.detectMultiplier", "integer"))
    schema = root("BFD settings BGPPeers refer to by name.", spec,
                  obj("Not used: this kind reports no status."))
    return crd(GROUP, "BFDProfile", "bfdprofiles", [version("v1beta1", schema, columns)])


def community() -> dict:
    alias = obj("One named community.", {
        "name": string("The alias BGPAdvertisements use."),
        "value": string("The community: a:b (two 16-bit numbers) or large:a:b:c (three 32-bit "
                        "numbers)."),
    })
    spec = obj("The aliases this object defines.",
               {"communities": array("Aliases, each unique across all Communities.", alias)})
    schema = root("Names for BGP communities, usable in BGPAdvertisements.", spec,
                  obj("Not used: this kind reports no status."))
    return crd(GROUP, "Community", "communities", [version("v1beta1", schema)])


def _service_status(kind: str, plural: str, node_column: str, extra: dict,
                    description: str) -> dict:
    properties = {
        "node": string("The node announcing the Service.", x_kubernetes_validations=IMMUTABLE),
        "serviceName": string("Name of the Service.", x_kubernetes_validations=IMMUTABLE),
        "serviceNamespace": string("Namespace of the Service.",
                                   x_kubernetes_validations=IMMUTABLE),
    }
    properties.update(extra)
    status = obj("Where and how the Service is announced.", properties)
    columns = (column(node_column, ".status.node"),
               column("Service Name", ".status.serviceName"),
               column("Service Namespace", ".status.serviceNamespace"))
    schema = root(description, obj("Not used: the object only has a status."), status)
    return crd(GROUP, kind, plural, [version("v1beta1", schema, columns)])


def service_l2_status() -> dict:
    interfaces = array("Interfaces the address is announced on, when the L2Advertisement "
                       "restricts them.", obj("One interface.",
                                              {"name": string("Interface name.")}))
    return _service_status("ServiceL2Status", "servicel2statuses", "Allocated Node",
                           {"interfaces": interfaces},
                           "The node announcing a Service in Layer 2 mode.")


def service_bgp_status() -> dict:
    peers = strings("Names of the BGPPeers the Service's routes are sent to from this node.")
    return _service_status("ServiceBGPStatus", "servicebgpstatuses", "Node", {"peers": peers},
                           "A node advertising a Service over BGP.")


def configuration_state() -> dict:
    condition = obj("One aspect of the component's state.", {
        "lastTransitionTime": string("When the status last changed.", format="date-time"),
        "message": string("Human-readable details.", maxLength=32768),
        "observedGeneration": integer("The generation the condition was computed from.",
                                      "int64", minimum=0),
        "reason": string("Machine-readable reason in CamelCase.", maxLength=1024, minLength=1,
                         pattern="^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
        "status": string("True, False or Unknown.", enum=["True", "False", "Unknown"]),
        "type": string("The condition type, e.g. poolReconcilerValid.", maxLength=316,
                       pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
                       r"/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"),
    }, required=("lastTransitionTime", "message", "reason", "status", "type"))
    status = obj("The outcome of the component's last configuration load.", {
        "conditions": array("One condition per reconciler.", condition,
                            x_kubernetes_list_map_keys=["type"],
                            x_kubernetes_list_type="map"),
        "errorSummary": string("The configuration errors, one per line."),
        "result": string("Valid, Invalid or Unknown.", enum=["Valid", "Invalid", "Unknown"]),
    })
    columns = (column("Result", ".status.result"),
               column("ErrorSummary", ".status.errorSummary"),
               column("Age", ".metadata.creationTimestamp", "date"))
    schema = root("Whether a component (the controller or one node's agent) accepted the "
                  "configuration.", None, status)
    return crd(GROUP, "ConfigurationState", "configurationstates",
               [version("v1beta1", schema, columns)])


ALL = (ip_address_pool, bgp_peer, bfd_profile, bgp_advertisement, l2_advertisement, community,
       service_l2_status, service_bgp_status, configuration_state)
