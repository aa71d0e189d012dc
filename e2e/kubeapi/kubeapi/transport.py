# SPDX-License-Identifier: Apache-2.0
"""HTTP/1.1 transport: the thread-per-connection server (TLS handshake, keep-alive, closing
every connection on stop) and a request handler base with lean request parsing and
single-write responses. The routing and API semantics are in handler."""

from __future__ import annotations

import http.server
import socket
import ssl
import sys
import threading
from http import HTTPStatus
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .apiserver import KubeApiServer

MAX_HEADER_LINE = 65536
MAX_HEADERS = 100


class HttpServer(http.server.ThreadingHTTPServer):
    """Thread-per-connection server that can close every open connection on stop."""

    daemon_threads = False  # stop() joins every handler thread
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, handler, api: "KubeApiServer"):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.api = api
        self._connections: set = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def server_bind(self):
        # HTTPServer.server_bind would resolve the host name; loopback needs no DNS.
        socketserver_bind = http.server.socketserver.TCPServer.server_bind
        socketserver_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request, client_address):
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if isinstance(error, (OSError, ssl.SSLError)) and not self.api.verbose:
            return  # clients hanging up or failing the TLS handshake are normal in tests
        super().handle_error(request, client_address)


class Headers(dict):
    """Request headers by lower-case name. Like email.message.Message.get (what
    BaseHTTPRequestHandler offers), get() ignores case and a repeated header yields its first
    value."""

    def get(self, name: str, default=None):
        return dict.get(self, name.lower(), default)


class RequestHandler(http.server.BaseHTTPRequestHandler):
    """BaseHTTPRequestHandler with the two costs of a small request removed: header parsing
    through the email package (a third of the CPU time of a create) and responses written as
    two TLS records (status line and headers, then body)."""

    protocol_version = "HTTP/1.1"
    server_version = "ingot-kubeapi"

    def setup(self):
        # Without TCP_NODELAY, Nagle's algorithm and the client's delayed ACK add ~40 ms to a
        # response that needs more than one segment.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        super().setup()

    def parse_request(self) -> bool:
        """Parses the request line and headers (HTTP/1.0 and 1.1); False after answering a
        malformed request with an error."""
        self.command, self.request_version = None, self.default_request_version
        self.close_connection = True
        self.requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if not words:
            return False
        if len(words) != 3 or words[2] not in ("HTTP/1.0", "HTTP/1.1"):
            self.send_error(HTTPStatus.BAD_REQUEST, f"Bad request syntax ({self.requestline!r})")
            return False
        self.command, self.path, self.request_version = words
        if self.path.startswith("//"):
            self.path = "/" + self.path.lstrip("/")  # as the standard library does (gh-87389)
        headers = self._read_headers()
        if headers is None:
            return False
        self.headers = headers
        connection = headers.get("connection", "").lower()
        self.close_connection = connection == "close" or (
            self.request_version == "HTTP/1.0" and connection != "keep-alive")
        if headers.get("expect", "").lower() == "100-continue" \
                and self.request_version == "HTTP/1.1":
            return self.handle_expect_100()
        return True

    def _read_headers(self):
        headers = Headers()
        for _ in range(MAX_HEADERS + 1):
            line = self.rfile.readline(MAX_HEADER_LINE + 1)
            if len(line) > MAX_HEADER_LINE:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long")
                return None
            if line in (b"\r\n", b"\n", b""):
                return headers
            name, colon, value = str(line, "iso-8859-1").partition(":")
            if colon:
                headers.setdefault(name.strip().lower(), value.strip())
        self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers")
        return None

    def write_response(self, code: int, data, content_type: str, extra=()) -> None:
        """Sends a complete response in one write; data is the body as bytes or as a list of
        bytes (concatenated once, with the headers)."""
        parts = data if isinstance(data, list) else [data]
        self.log_request(code)
        lines = [f"{self.protocol_version} {code} {self.responses.get(code, ('',))[0]}",
                 f"Server: {self.version_string()}", f"Date: {self.date_time_string()}",
                 f"Content-Type: {content_type}", "Cache-Control: no-cache, private",
                 f"Content-Length: {sum(map(len, parts))}", *extra, "", ""]
        self.wfile.write(b"".join(["\r\n".join(lines).encode("latin-1", "strict"), *parts]))
