# SPDX-License-Identifier: Apache-2.0
"""Building blocks of the bad-input suite (test_bad_input.py): sockets opened inside a lab
namespace from the test process, hand-built ARP and Neighbor Solicitation frames (well-formed or
deliberately wrong), a raw view of one lab link, the daemons' resident memory, and HTTPS posts
to the controller's webhook.

Every socket is created on a thread that entered the namespace with setns(2) (netlab.kubeclient
does the same for its API connections); a socket stays in the namespace it was created in, so
the test's own thread then uses it directly."""

from __future__ import annotations

import http.client
import importlib.util
import ipaddress
import json
import select
import socket
import ssl
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from l2scenario import L2PROBE
from netlab.kubeclient import enter_netns
from netlab.proc import LabError, run

_SPEC = importlib.util.spec_from_file_location("l2probe", L2PROBE)
_L2PROBE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_L2PROBE)

ETH_P_ALL = 0x0003
ETH_P_ARP = 0x0806
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
PACKET_OUTGOING = 4
BROADCAST = b"\xff" * 6
NS_TYPE, NA_TYPE = 135, 136
ALL_NODES = ipaddress.IPv6Address("ff02::1")
UNSPECIFIED = ipaddress.IPv6Address("::")


def in_netns(namespace: str, fn: Callable, *args):
    """Runs fn(*args) on a fresh thread inside namespace and returns its result."""
    def call():
        enter_netns(namespace)
        return fn(*args)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def rss_kib(pid: int) -> int:
    """The resident set size of a process (VmRSS in /proc/<pid>/status), in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise LabError(f"no VmRSS for pid {pid}")


def mac_bytes(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


def link_local(namespace: str, device: str = "eth0") -> ipaddress.IPv6Address:
    out = run(["ip", "-n", namespace, "-j", "-6", "addr", "show", "dev", device]).stdout
    for info in json.loads(out)[0].get("addr_info", []):
        if info.get("scope") == "link" and "local" in info:
            return ipaddress.IPv6Address(info["local"])
    raise LabError(f"{namespace}: {device} has no link-local address")


# Frames ----------------------------------------------------------------------------------------

def ethernet(dst: bytes, src: bytes, ether_type: int, vlan: Optional[int] = None) -> bytes:
    tag = b"" if vlan is None else struct.pack("!HH", ETH_P_8021Q, vlan)
    return dst + src + tag + struct.pack("!H", ether_type)


def arp(eth_src: bytes, sender_mac: bytes, sender_ip: str, target_ip: str, *, op: int = 1,
        eth_dst: bytes = BROADCAST, vlan: Optional[int] = None) -> bytes:
    """An Ethernet/IPv4 ARP frame (a request unless op says otherwise)."""
    return (ethernet(eth_dst, eth_src, ETH_P_ARP, vlan) +
            struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sender_mac +
            socket.inet_aton(sender_ip) + b"\x00" * 6 + socket.inet_aton(target_ip))


def parse_arp(frame: bytes) -> Optional[dict]:
    """The fields of an untagged ARP frame, or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x06":
        return None
    op = struct.unpack("!H", frame[20:22])[0]
    return {"eth_dst": frame[0:6], "eth_src": frame[6:12], "op": op, "sender_mac": frame[22:28],
            "sender_ip": socket.inet_ntoa(frame[28:32]), "target_mac": frame[32:38],
            "target_ip": socket.inet_ntoa(frame[38:42])}


def icmp6_checksum(src: bytes, dst: bytes, icmp: bytes) -> int:
    """The ICMPv6 checksum: the Internet checksum (bench/l2probe.py's) over the IPv6
    pseudo-header and the message."""
    return _L2PROBE.checksum(src + dst + struct.pack("!I", len(icmp)) + b"\x00\x00\x00\x3a" +
                             icmp)


def solicited_node(ip: ipaddress.IPv6Address) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(int(ipaddress.IPv6Address("ff02::1:ff00:0")) |
                                 (int(ip) & 0xFFFFFF))


def multicast_mac(group: ipaddress.IPv6Address) -> bytes:
    return b"\x33\x33" + group.packed[12:]


def neighbor_solicit(eth_src: bytes, ip_src: ipaddress.IPv6Address, target: str, *,
                     option_mac: Optional[bytes] = None,
                     ip_dst: Optional[ipaddress.IPv6Address] = None,
                     vlan: Optional[int] = None) -> bytes:
    """A Neighbor Solicitation for target (to its solicited-node group unless ip_dst says
    otherwise), with a source link-layer option when option_mac is given."""
    tgt = ipaddress.IPv6Address(target)
    dst = ip_dst if ip_dst is not None else solicited_node(tgt)
    body = struct.pack("!BBHI", NS_TYPE, 0, 0, 0) + tgt.packed
    if option_mac is not None:
        body += b"\x01\x01" + option_mac
    body = body[:2] + struct.pack("!H", icmp6_checksum(ip_src.packed, dst.packed, body)) + body[4:]
    ipv6 = struct.pack("!IHBB", 0x60000000, len(body), 58, 255) + ip_src.packed + dst.packed
    return ethernet(multicast_mac(dst), eth_src, ETH_P_IPV6, vlan) + ipv6 + body


def parse_na(frame: bytes) -> Optional[dict]:
    """The fields of an untagged Neighbor Advertisement frame, or None."""
    if len(frame) < 78 or frame[12:14] != b"\x86\xdd" or frame[20] != 58 or frame[54] != NA_TYPE:
        return None
    flags = frame[58]
    return {"eth_dst": frame[0:6], "eth_src": frame[6:12],
            "ip_src": ipaddress.IPv6Address(frame[22:38]),
            "ip_dst": ipaddress.IPv6Address(frame[38:54]),
            "solicited": bool(flags & 0x40), "override": bool(flags & 0x20),
            "target": ipaddress.IPv6Address(frame[62:78])}


# A raw view of one link ------------------------------------------------------------------------

class Wire:
    """An AF_PACKET socket on device of a lab namespace: sends any frame, reads every frame
    other hosts put on the link (this host's own are skipped)."""

    def __init__(self, namespace: str, device: str = "eth0"):
        def open_socket():
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((device, ETH_P_ALL))
            s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE (root)
            return s
        self.sock = in_netns(namespace, open_socket)
        self.sock.setblocking(False)
        self.mac = self.sock.getsockname()[4]

    def close(self) -> None:
        self.sock.close()

    def send(self, frame: bytes) -> None:
        try:
            self.sock.send(frame)
        except BlockingIOError:  # the queue is full: wait for room once
            select.select([], [self.sock], [], 1.0)
            self.sock.send(frame)

    def drain(self) -> None:
        while self.receive(0) is not None:
            pass

    def receive(self, timeout: float) -> Optional[bytes]:
        """The next frame from another host within timeout seconds, or None."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                frame, addr = self.sock.recvfrom(65536)
                if addr[2] != PACKET_OUTGOING:
                    return frame
                continue
            except BlockingIOError:
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            select.select([self.sock], [], [], left)

    def collect(self, seconds: float) -> list:
        """Every frame from another host during the next seconds."""
        out, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            frame = self.receive(left)
            if frame is not None:
                out.append(frame)
        return out

    def ask_arp(self, own_ip: str, vip: str, wait: float = 1.0, first_only: bool = False
                ) -> tuple:
        """Sends one well-formed request for vip; returns (seconds to the first reply or None,
        MACs of every reply to it within wait seconds, or only the first's with first_only)."""
        self.drain()
        start = time.monotonic()
        self.send(arp(self.mac, self.mac, own_ip, vip))
        first, macs = None, []
        while (left := start + wait - time.monotonic()) > 0 and not (first_only and macs):
            frame = self.receive(left)
            p = parse_arp(frame) if frame else None
            if p and p["op"] == 2 and p["sender_ip"] == vip and p["target_mac"] == self.mac:
                first = first if first is not None else time.monotonic() - start
                macs.append(p["sender_mac"].hex(":").upper())
        return first, macs


# The controller's webhook ----------------------------------------------------------------------

def post_webhook(namespace: str, host: str, port: int, path: str, body: bytes,
                 timeout: float = 20.0) -> tuple:
    """POSTs body over HTTPS (certificate not verified: the lab's own CA) from namespace;
    returns (HTTP status, parsed JSON or raw text, seconds), or (0, the error, seconds) when the
    server closed the connection instead of answering."""
    def post():
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(host, port, context=context, timeout=timeout)
        start = time.monotonic()
        try:
            conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            raw = resp.read()
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = raw.decode(errors="replace")
            return resp.status, payload, time.monotonic() - start
        except (OSError, http.client.HTTPException) as e:
            return 0, repr(e), time.monotonic() - start
        finally:
            conn.close()
    return in_netns(namespace, post)


def admission_review(kind: Optional[dict], obj: Optional[dict], operation: str = "CREATE",
                     name: str = "probe", namespace: str = "metallb-system") -> bytes:
    """An AdmissionReview v1 request body; kind None leaves request.kind out."""
    request = {"uid": f"bad-input-{time.monotonic_ns()}", "operation": operation,
               "namespace": namespace, "name": name, "object": obj, "oldObject": None}
    if kind is not None:
        request["kind"] = kind
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": request}).encode()
