# SPDX-License-Identifier: Apache-2.0
"""`python3 nsprobe.py TARGET DEVICE [WAIT_MS]` (inside a lab namespace): sends one IPv6
Neighbor Solicitation for TARGET to its solicited-node multicast group on DEVICE and prints
the target link-layer address of every Neighbor Advertisement for TARGET received within
WAIT_MS (default 700), one per line.

ndisc6 cannot serve here: it ignores advertisements whose source address is not the target,
and responders that do not own the address (MetalLB's, Ingot's) answer from the interface's
link-local address, which RFC 4861 allows and the kernel accepts."""

from __future__ import annotations

import ipaddress
import select
import socket
import struct
import sys
import time

NS, NA = 135, 136
OPT_SOURCE_LL, OPT_TARGET_LL = 1, 2


def solicited_node(target: ipaddress.IPv6Address) -> str:
    return str(ipaddress.IPv6Address("ff02::1:ff00:0") + (int(target) & 0xFFFFFF))


def own_mac(device: str) -> bytes:
    with open(f"/sys/class/net/{device}/address") as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def target_mac(packet: bytes, target: bytes):
    """The target link-layer address of a solicited NA for target, or None (unsolicited
    advertisements are announcements, not answers)."""
    if len(packet) < 24 or packet[0] != NA or packet[8:24] != target or not packet[4] & 0x40:
        return None
    options = packet[24:]
    while len(options) >= 8 and options[1] > 0:
        size = options[1] * 8
        if options[0] == OPT_TARGET_LL and size >= 8:
            return options[2:8].hex(":").upper()
        options = options[size:]
    return None


def probe(target_text: str, device: str, wait: float) -> list:
    target = ipaddress.IPv6Address(target_text)
    index = socket.if_nametoindex(device)
    sock = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, 255)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())
    # type, code, checksum (the kernel fills it in for ICMPv6 raw sockets), reserved, target,
    # source link-layer address option
    message = struct.pack("!BBHI", NS, 0, 0, 0) + target.packed + \
        bytes([OPT_SOURCE_LL, 1]) + own_mac(device)
    sock.sendto(message, (solicited_node(target), 0, 0, index))
    macs = []
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([sock], [], [], left)
        if ready:
            mac = target_mac(sock.recv(2048), target.packed)
            if mac is not None:
                macs.append(mac)
    sock.close()
    return macs


if __name__ == "__main__":
    wait_ms = float(sys.argv[3]) if len(sys.argv) > 3 else 700.0
    for found in probe(sys.argv[1], sys.argv[2], wait_ms / 1000.0):
        print(found)
