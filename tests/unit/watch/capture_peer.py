"""A peer that plays Kafka just far enough to be sent a login, and keeps every byte it receives.

What an attacker would run: it answers ApiVersions (offering SaslHandshake and SaslAuthenticate) and
SaslHandshake (every mechanism kdiag speaks), so a client that was going to log in sends its PLAIN
password or its SCRAM client-first message; any other request is recorded and the connection closed.
With ``tls=`` it is a TLS server that asks for a client certificate (verifying it against the CA it
is given, so a client with a certificate does present it) and records the certificates presented.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading

from probes.codec import RequestHeader
from tests.fakebroker import (API_VERSIONS, DEFAULT_API_KEYS, SASL_HANDSHAKE, api_versions_response, response_frame,
                              sasl_handshake_response)

SASL_AUTHENTICATE = 36
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER")
_MAX_FRAME = 1 << 20


class CapturePeer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.received = bytearray()
        self.client_certificates: list[bytes] = []
        self.connections = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server((host, port))
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.endpoint = f"{host}:{self.port}"
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, daemon=True)]

    def __enter__(self) -> CapturePeer:
        self._threads[0].start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        self._listener.close()

    def captured(self) -> bytes:
        with self._lock:
            return bytes(self.received)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._lock:
                self.connections += 1
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
                certificate = conn.getpeercert(binary_form=True)
                if certificate:
                    with self._lock:
                        self.client_certificates.append(certificate)
            while not self._stop.is_set() and self._answer(conn):
                pass
        except (OSError, ssl.SSLError):
            pass
        finally:
            conn.close()

    def _answer(self, conn: socket.socket) -> bool:
        size_bytes = _read(conn, 4)
        (size,) = struct.unpack(">i", size_bytes)
        if not 8 <= size <= _MAX_FRAME:
            return False
        frame = _read(conn, size)
        with self._lock:
            self.received += size_bytes + frame
        api_key, api_version, correlation_id = struct.unpack_from(">hhi", frame)
        header = RequestHeader(api_key, api_version, correlation_id, None)
        if api_key == API_VERSIONS:
            keys = (*DEFAULT_API_KEYS, (SASL_AUTHENTICATE, 0, 2))
            conn.sendall(response_frame(header, api_versions_response(api_version, api_keys=keys)))
            return True
        if api_key == SASL_HANDSHAKE:
            conn.sendall(response_frame(header, sasl_handshake_response(0, MECHANISMS)))
            return True
        return False  # SaslAuthenticate (the login is captured), Metadata, …: recorded, then hang up


def _read(conn: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return bytes(data)
