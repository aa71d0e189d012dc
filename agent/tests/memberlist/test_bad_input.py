# SPDX-License-Identifier: Apache-2.0
"""Bad input against a running Ingot member on 127.0.0.1: garbage, floods, oversized names,
wrongly encrypted packets and a push/pull stream that never ends are dropped and counted; the
member keeps answering and its peers stay alive."""

import random
import socket
import struct

import pytest

from memberlist_peers import Peer, ingot_peer_binary, wait_for


def raw(b):
    """msgpack raw string as Go's codec writes it (fixstr/str16/str32)."""
    if len(b) < 32:
        return bytes([0xA0 | len(b)]) + b
    if len(b) <= 0xFFFF:
        return b"\xda" + struct.pack(">H", len(b)) + b
    return b"\xdb" + struct.pack(">I", len(b)) + b


def fmap(fields):
    out = bytes([0x80 | len(fields)])
    for k, v in fields:
        out += raw(k.encode()) + v
    return out


def push_pull_header(nodes):
    return b"\x06" + fmap([("Join", b"\xc2"), ("Nodes", b"\xcd" + struct.pack(">H", nodes)),
                           ("UserStateLen", b"\x00")])


def node_state(name, meta=b""):
    return fmap([("Addr", raw(b"\x7f\x00\x00\x01")), ("Incarnation", b"\x01"),
                 ("Meta", raw(meta) if meta else b"\xc0"), ("Name", raw(name)), ("Port", b"\xcd\x1f\x0a"),
                 ("State", b"\x00"), ("Vsn", raw(bytes([1, 5, 2, 0, 0, 0])))])


@pytest.fixture
def pair(tmp_path):
    peers = []

    def start(name, join=None, secret=None):
        argv = [str(ingot_peer_binary()), "--name", name, "--port", "0"]
        if secret is not None:
            path = tmp_path / f"{name}.key"
            path.write_text(secret)
            argv += ["--secret-file", str(path)]
        if join is not None:
            argv += ["--join", f"127.0.0.1:{join.port}"]
        peers.append(Peer(argv, name))
        return peers[-1]

    yield start
    for p in peers:
        p.kill()


def test_garbage_floods_and_oversized_packets_are_counted_not_fatal(pair):
    a = pair("a")
    b = pair("b", join=a)
    wait_for(lambda: a.members() == {"a", "b"}, 10, "a and b joined")
    rng = random.Random(7)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _ in range(5000):  # one source, as fast as Python sends
            sock.sendto(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))),
                        ("127.0.0.1", a.port))
        huge_alive = b"\x04" + fmap([("Node", raw(b"n" * 60000))])
        sock.sendto(huge_alive, ("127.0.0.1", a.port))
    finally:
        sock.close()
    wait_for(lambda: sum(v for k, v in a.counters().items() if k.startswith("drop_")) > 1000,
             10, "drops counted")
    # Both still list each other (waited for: on a starved CI machine a fast-timing member may
    # flap for a moment and refute).
    wait_for(lambda: a.members() == {"a", "b"} and b.members() == {"a", "b"}, 10,
             "a and b still list each other")


def read_until_closed(conn, limit=10):
    conn.settimeout(limit)
    try:
        while conn.recv(65536):
            pass
    except ConnectionResetError:
        pass


def test_a_one_megabyte_member_name_in_push_pull_is_refused(pair):
    a = pair("a")
    with socket.create_connection(("127.0.0.1", a.port), timeout=10) as conn:
        try:
            conn.sendall(push_pull_header(1) + node_state(b"x" * (1 << 20)))
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused from the length alone, before the megabyte arrived
        read_until_closed(conn)
    wait_for(lambda: a.counters().get("drop_malformed", 0) >= 1, 10, "malformed stream counted")
    assert a.members() == {"a"}


def test_a_push_pull_stream_that_never_ends_is_cut(pair):
    a = pair("a")
    with socket.create_connection(("127.0.0.1", a.port), timeout=10) as conn:
        try:
            conn.sendall(push_pull_header(4096))
            # 4096 states at the name and meta limits are ~4.2 MB: past the 4 MiB bound.
            for i in range(4096):
                conn.sendall(node_state(b"%08d" % i + b"e" * 500, meta=b"m" * 512))
        except (BrokenPipeError, ConnectionResetError):
            pass
        read_until_closed(conn)
    # Cut at the byte bound, or by the 1 s stream deadline when this machine is slower.
    wait_for(lambda: sum(a.counters().get(k, 0) for k in ("drop_too_large", "drop_stream_timeout"))
             == 1, 10, "stream cut")
    assert a.members() == {"a"}


def test_wrongly_encrypted_and_plaintext_packets_to_an_encrypted_member_are_dropped(pair):
    a = pair("a", secret="right")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for payload in [b"\x01" + bytes(60), b"\x00\x85" + bytes(40), b"\x07\x00"]:
            sock.sendto(payload, ("127.0.0.1", a.port))
    finally:
        sock.close()
    wait_for(lambda: a.counters().get("drop_decrypt", 0) == 3, 10, "three decrypt drops")
