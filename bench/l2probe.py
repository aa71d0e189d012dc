#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A client's view of one virtual IP, probed at a fixed interval (run inside a lab namespace;
used by bench/l2_failover.py):

    l2probe.py arp  --vip IP --out FILE [--device eth0] [--interval-ms 10]
    l2probe.py icmp --vip IP --out FILE [--interval-ms 10]

arp: a broadcast ARP request for the VIP from an AF_PACKET socket (the kernel's own neighbour
cache is not involved); every ARP reply from the VIP to this host is recorded with the sender's
MAC. icmp: an ICMP echo request through the kernel (so through its neighbour cache, as any
client's traffic), each with a 64-bit probe number in the payload; every echo reply is recorded.

Runs until SIGTERM or SIGINT, then writes {"sends": [t…], "replies": [[t, key]…], "gratuitous":
[[t, MAC]…]} to FILE, times in time.monotonic() seconds (one clock for every namespace), key =
MAC (arp) or probe number (icmp); gratuitous (arp only) lists the gratuitous ARP requests and
replies for the VIP (sender and target address both the VIP) with their sender MAC. Prints
"ready" once its socket is open.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ARP = 0x0806
ETH_P_IP = 0x0800


def ipv4_of(device: str) -> bytes:
    import fcntl

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        req = struct.pack("256s", device.encode()[:15])
        return fcntl.ioctl(s.fileno(), 0x8915, req)[20:24]  # SIOCGIFADDR
    finally:
        s.close()


class ArpProbe:
    def __init__(self, device: str, vip: str):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ARP))
        self.sock.bind((device, ETH_P_ARP))
        self.mac = self.sock.getsockname()[4]
        self.ip = ipv4_of(device)
        self.vip = socket.inet_aton(vip)
        self.request = (b"\xff" * 6 + self.mac + struct.pack("!H", ETH_P_ARP) +
                        struct.pack("!HHBBH", 1, ETH_P_IP, 6, 4, 1) + self.mac + self.ip +
                        b"\x00" * 6 + self.vip)

    def send(self, _index: int) -> None:
        self.sock.send(self.request)

    def receive(self):
        frame = self.sock.recv(2048)
        if len(frame) < 42 or frame[12:14] != b"\x08\x06":
            return None
        op = struct.unpack("!H", frame[20:22])[0]
        sha, spa, tpa = frame[22:28], frame[28:32], frame[38:42]
        if spa == self.vip and tpa == self.vip and op in (1, 2):
            return "gratuitous", sha.hex(":").upper()  # an announcement, not an answer
        if op != 2 or spa != self.vip or tpa != self.ip:
            return None  # other hosts' traffic
        return "replies", sha.hex(":").upper()


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


class IcmpProbe:
    def __init__(self, vip: str):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        self.vip = vip
        self.ident = os.getpid() & 0xFFFF

    def send(self, index: int) -> None:
        payload = struct.pack("!Q", index)
        header = struct.pack("!BBHHH", 8, 0, 0, self.ident, index & 0xFFFF)
        header = struct.pack("!BBHHH", 8, 0, checksum(header + payload), self.ident,
                             index & 0xFFFF)
        try:
            self.sock.sendto(header + payload, (self.vip, 0))
        except OSError:
            pass  # e.g. EHOSTUNREACH while the neighbour entry has failed: a lost probe

    def receive(self):
        packet, addr = self.sock.recvfrom(2048)
        ihl = (packet[0] & 0x0F) * 4
        icmp = packet[ihl:]
        if addr[0] != self.vip or len(icmp) < 16 or icmp[0] != 0:
            return None
        if struct.unpack("!H", icmp[4:6])[0] != self.ident:
            return None
        return "replies", struct.unpack("!Q", icmp[8:16])[0]


def run(probe, interval: float, out: str) -> None:
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    sends, seen = [], {"replies": [], "gratuitous": []}
    print("ready", flush=True)
    next_send = time.monotonic()
    while not stop:
        now = time.monotonic()
        if now >= next_send:
            sends.append(now)
            probe.send(len(sends) - 1)
            next_send += interval
            if next_send < now:  # fell behind (CPU starved): do not burst to catch up
                next_send = now + interval
            continue
        try:
            ready, _, _ = select.select([probe.sock], [], [], next_send - now)
        except InterruptedError:
            continue
        if ready:
            got = probe.receive()
            if got is not None:
                seen[got[0]].append([time.monotonic(), got[1]])
    with open(out, "w") as f:
        json.dump({"sends": sends, **seen}, f)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["arp", "icmp"])
    parser.add_argument("--vip", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="eth0")
    parser.add_argument("--interval-ms", type=float, default=10.0)
    args = parser.parse_args()
    probe = ArpProbe(args.device, args.vip) if args.kind == "arp" else IcmpProbe(args.vip)
    run(probe, args.interval_ms / 1000.0, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
