"""The Kafka conversation over one TCP connection: ApiVersions, then Metadata (and friends).

The socket work is here; the bytes are the codec's. Every call takes ``timeout=`` and never waits
longer: a peer that sends one byte a second, or a 2 GB frame length, ends in a bounded error.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from probes import __version__
from probes import limits, tcp
from probes.certificates import name_in_certificate
from probes.codec import (
    SPECS,
    ApiVersionsRequest,
    ApiVersionsResponse,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    MAX_FRAME_SIZE,
    FrameTooLarge,
    KafkaClientProtocol,
    ListOffsetsRequest,
    ListOffsetsResponse,
    MalformedFrame,
    MetadataRequest,
    MetadataResponse,
    NotKafka,
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    foreign_or_garbage,
)
from probes.codec.errors import (ILLEGAL_SASL_STATE, SASL_AUTHENTICATION_FAILED, UNSUPPORTED_SASL_MECHANISM,
                                 UNSUPPORTED_VERSION)
from probes.deadline import elapsed_ms
from probes.hostport import hostport
from probes.results import (ForeignBytes, KafkaBroker, KafkaCheck, PartitionInfo, SaslResult, TlsResult, TopicInfo,
                            VersionGap)
from probes.sasl import SaslProtocolError, SaslSettings, exchange_for
from probes.tls import TlsAlertReceived, TlsClient, refused
from probes.tls_settings import TlsSettings

CLIENT_ID = "kdiag"
# A broker answers ApiVersions in milliseconds; a port silent this long is not a working broker.
API_VERSIONS_WAIT = 5.0
# A running server of any protocol notices at once when its client closes its side of the connection;
# a frozen process does not. At most this long (and a fifth of the first request's wait) is kept for
# that reaction when the first ApiVersions gets no answer.
REACTION_WAIT = 0.5


class KafkaProbeError(Exception):
    """A Kafka conversation that could not complete; ``status`` is the KafkaCheck status."""

    def __init__(self, status: str, message: str, *, foreign: ForeignBytes | None = None,
                 received: int = 0, gap: VersionGap | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.foreign = foreign
        self.received = received
        self.gap = gap  # no version of the request is shared with the broker


class ConnectionClosed(KafkaProbeError):
    """The peer closed the connection before answering: ``sent`` bytes of the request, ``after_ms`` before."""

    sent: int | None = None
    after_ms: float | None = None


class _Budget:
    """Bytes the run's connections may buffer at once, shared by every thread (``limits.IN_FLIGHT_BUDGET``)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._used = 0
        self._lock = threading.Lock()

    def reserve(self, size: int) -> bool:
        with self._lock:
            if self._used + size > self.total:
                return False
            self._used += size
            return True

    def release(self, size: int) -> None:
        with self._lock:
            self._used = max(0, self._used - size)

    def available(self) -> int:
        with self._lock:
            return self.total - self._used


IN_FLIGHT = _Budget(limits.IN_FLIGHT_BUDGET)


def _too_large(what: str, size: int, maximum: int, preview: str, received: int, *, budget: bool = False
               ) -> KafkaProbeError:
    cap = (f"the {maximum}-byte room left of kdiag's {limits.IN_FLIGHT_BUDGET}-byte budget for responses in flight"
           if budget else f"the {maximum}-byte cap kdiag sets for an answer to {what}")
    foreign = ForeignBytes("too_large", f"an answer to {what} declared {size} bytes, above {cap}", preview,
                           request=what)
    return KafkaProbeError("error", f"{what}: a response of {size} bytes declared, above {cap}; refused unread",
                           foreign=foreign, received=received)


class TlsRefused(ConnectionClosed):
    """The peer ended the TLS connection with an alert before answering (``alert``: its name)."""

    def __init__(self, message: str, *, alert: str, received: int = 0) -> None:
        super().__init__("error", message, received=received)
        self.alert = alert


class KafkaConnection:
    """A connected socket speaking Kafka through the sans-I/O ``KafkaClientProtocol``."""

    def __init__(self, sock: socket.socket, *, client_id: str = CLIENT_ID) -> None:
        self.sock = sock
        self.protocol = KafkaClientProtocol(client_id=client_id)
        self.api_versions: ApiVersionsResponse | None = None
        self.negotiation_error: KafkaProbeError | None = None  # how ApiVersions ended, when it failed
        self.received = 0

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> KafkaConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, request: Any, *, timeout: float) -> Any:
        """Send ``request`` and wait for its response, at most ``timeout`` seconds in all.

        The response may be at most ``limits.max_response_size`` for this request, and what is being
        received counts against the run's ``IN_FLIGHT_BUDGET``: a larger one is refused at its size
        prefix, before it is buffered."""
        # The first request on a plain connection keeps back the time ``_silent`` needs to tell why it got
        # no answer, if it gets none.
        first = self.received == 0 and isinstance(request, ApiVersionsRequest) and isinstance(self.sock, socket.socket)
        reaction_wait = min(REACTION_WAIT, timeout / 5) if first else 0.0
        deadline = time.monotonic() + timeout - reaction_wait
        what = type(request).__name__.removesuffix("Request")
        self.protocol.max_frame_size = limits.max_response_size(request.API_KEY)
        correlation_id, data = self.protocol.send_request(request)
        received_before = self.received
        reserved = 0
        sent_at = None
        try:
            self.sock.settimeout(max(timeout, 0.001))
            self.sock.sendall(data)
            sent_at = time.monotonic()
            chunk: bytes | None = b""  # first, an error an earlier read left pending (bytes after its answer)
            while True:
                if chunk is None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise socket.timeout
                    self.sock.settimeout(left)
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        got = self.received - received_before
                        closed = ForeignBytes("closed", f"the peer closed the connection after {got} bytes of its "
                                              f"answer to {what}" + (f" (and {received_before} bytes before it)"
                                                                     if received_before else self._from()), "",
                                              request=what)
                        raise _closed(ConnectionClosed(
                            "error", f"the peer closed the connection after {self.received} bytes without "
                            f"answering {type(request).__name__[:-7]}", received=self.received, foreign=closed),
                            sent=len(data), sent_at=sent_at)
                first = self.received == 0
                self.received += len(chunk)
                try:
                    for got_id, response in self.protocol.receive_bytes(chunk):
                        if got_id == correlation_id:
                            return response
                except NotKafka as exc:
                    raise KafkaProbeError("tls_expected" if exc.foreign.is_tls else "not_kafka",
                                          f"the port answered with {exc.foreign.description}", foreign=exc.foreign,
                                          received=self.received) from None
                except FrameTooLarge as exc:
                    if exc.size <= MAX_FRAME_SIZE:  # Kafka-sized, but not for this request: refused, and said so
                        raise _too_large(what, exc.size, exc.maximum, exc.preview, self.received) from None
                    garbage = foreign_or_garbage(chunk if first else b"")
                    foreign = ForeignBytes(garbage.kind, str(exc), exc.preview)
                    raise KafkaProbeError("not_kafka", str(exc), foreign=foreign, received=self.received) from None
                except MalformedFrame as exc:
                    foreign = ForeignBytes("binary", f"a frame that does not decode as Kafka: {exc}", "")
                    raise KafkaProbeError("not_kafka", str(exc), foreign=foreign, received=self.received) from None
                incoming = self.protocol.incoming_size
                if incoming > reserved:
                    if not IN_FLIGHT.reserve(incoming - reserved):
                        raise _too_large(what, incoming, IN_FLIGHT.available() + reserved, "", self.received,
                                         budget=True)
                    reserved = incoming
                chunk = None
        except socket.timeout:
            got = self.received - received_before
            if got:
                stalled = ForeignBytes("stalled", f"{got} bytes of the answer to {what} arrived, then nothing more "
                                       f"within {timeout:g}s" + (f" (a frame of {self.protocol.incoming_size} bytes "
                                                                 "was declared)" if self.protocol.incoming_size else ""),
                                       "", request=what)
                raise KafkaProbeError("error", f"{what}: only {got} bytes arrived within {timeout:g}s "
                                      "(a very slow or stalled peer)", received=self.received,
                                      foreign=stalled) from None
            if self.protocol.in_flight == 1 and isinstance(request, ApiVersionsRequest):
                raise self._silent(what, timeout - reaction_wait, reaction_wait) from None
            stalled = ForeignBytes("stalled", f"no answer to {what} within {timeout:g}s after "
                                   f"{received_before} bytes of earlier answers", "", request=what)
            raise KafkaProbeError("error", f"no answer to {what} within {timeout:.3g}s "
                                  "(the broker accepted the connection but stalled)", received=self.received,
                                  foreign=stalled) from None
        except TlsAlertReceived as exc:
            raise TlsRefused(f"the server ended the TLS connection with the alert {exc.alert} instead of answering "
                             f"{what}", alert=exc.alert, received=self.received) from None
        except OSError as exc:
            if isinstance(exc, KafkaProbeError):
                raise
            closed = ForeignBytes("closed", f"the connection failed while waiting for {what}: "
                                  f"{exc.strerror or exc}" + ("" if self.received else self._from()), "",
                                  request=what)
            raise _closed(ConnectionClosed("error", f"connection failed: {exc.strerror or exc}",
                                           received=self.received, foreign=closed),
                          sent=len(data), sent_at=sent_at) from None
        finally:
            if reserved:
                IN_FLIGHT.release(reserved)

    def _from(self) -> str:
        """`` (kdiag connected from ADDRESS)``: the client address a broker's log names a connection by."""
        try:
            return f" (kdiag connected from {self.sock.getsockname()[0]})"
        except OSError:
            return ""

    def _silent(self, what: str, waited: float, reaction_wait: float) -> KafkaProbeError:
        """Nothing at all came back to the first request, which a Kafka broker answers in milliseconds.

        Either a server of another protocol is waiting for input of its own (HTTP's end of line), or the
        process behind the port is not reading at all: frozen (a stop-the-world GC pause, SIGSTOP, a paused
        VM) or hung, while its kernel still completes handshakes and buffers requests. Closing kdiag's side
        of the connection tells them apart: a running server sees the end at once and closes too, or says
        what it speaks; a process that does not read does nothing."""
        reaction = _reaction_to_close(self.sock, reaction_wait) if reaction_wait > 0 else b""
        waited_s = f"{waited:.3g}s"
        if reaction is None:
            hung = ForeignBytes("hung", f"no answer to {what} within {waited_s}, and no reaction within "
                                f"{reaction_wait:.3g}s when kdiag then closed its side of the connection: the "
                                "kernel accepted the connection, but the process behind the port is not reading "
                                "it (frozen or hung)", "", request=what)
            return KafkaProbeError("error", f"no answer to {what} within {waited_s}, and no reaction to kdiag "
                                   "closing its side: the process behind the port is not reading (frozen or hung)",
                                   foreign=hung)
        if reaction:
            self.received += len(reaction)
            seen = foreign_or_garbage(reaction)
            foreign = ForeignBytes(seen.kind, f"no answer to {what} within {waited_s}; only when kdiag closed its "
                                   f"side of the connection, {seen.description}", seen.preview)
            return KafkaProbeError("tls_expected" if foreign.is_tls else "not_kafka",
                                   f"no answer to {what} within {waited_s}, then {seen.description} when kdiag "
                                   "closed its side", foreign=foreign, received=self.received)
        why = (", and closed it when kdiag closed its side (a server of another protocol waiting for input of its "
               "own, e.g. HTTP)" if reaction_wait else " (a server of another protocol waiting for input of its own, "
               "e.g. HTTP, or a hung broker)")
        silent = ForeignBytes("silent", f"no answer at all within {waited_s}: the port accepted the connection but "
                              f"sent nothing back{why}", "")
        return KafkaProbeError("not_kafka", f"no answer to {what} within {waited_s}", foreign=silent)

    # --- the conversations ----------------------------------------------------------------------

    def negotiate(self, *, timeout: float) -> ApiVersionsResponse:
        """ApiVersions at kdiag's highest version; on UNSUPPORTED_VERSION, again at the broker's.

        Once per connection: a failure is kept and raised again to whoever asks next."""
        if self.negotiation_error is not None:
            raise self.negotiation_error
        try:
            return self._negotiate(timeout=timeout)
        except KafkaProbeError as exc:
            self.negotiation_error = exc
            raise

    def _negotiate(self, *, timeout: float) -> ApiVersionsResponse:
        deadline = time.monotonic() + timeout
        version = SPECS[ApiVersionsRequest.API_KEY].max_version
        for _ in range(3):
            response = self.request(ApiVersionsRequest(version=version, client_software_version=__version__),
                                    timeout=max(deadline - time.monotonic(), 0.001))
            if response.error.code != UNSUPPORTED_VERSION:
                break
            offered = response.range_for(ApiVersionsRequest.API_KEY)
            version = min(version - 1, offered.max_version if offered else 0)
            if version < 0:
                break
        if response.error.code:
            raise KafkaProbeError("error", f"ApiVersions answered {response.error}")
        self.api_versions = response
        return response

    def version_for(self, api_key: int, pinned: int | None = None) -> int:
        """The version to use for ``api_key``: ``pinned`` if given, else the best both sides speak."""
        spec = SPECS[api_key]
        if pinned is not None:
            offered = self.api_versions.range_for(api_key) if self.api_versions else None
            if offered is not None and not offered.min_version <= pinned <= offered.max_version:
                raise KafkaProbeError("error", f"{spec.name} v{pinned} was asked for, but the broker speaks "
                                      f"v{offered.min_version}-v{offered.max_version}")
            return pinned
        offered = self.api_versions.range_for(api_key) if self.api_versions else None
        chosen = spec.pick_version(offered)
        if chosen is None:
            gap = VersionGap(spec.name, offered.min_version if offered else None,
                             offered.max_version if offered else None, spec.min_version, spec.max_version)
            offered_text = "" if offered is None else (f"the broker speaks v{offered.min_version}-"
                                                       f"v{offered.max_version}, ")
            raise KafkaProbeError("error", f"the broker supports no {spec.name} version kdiag speaks "
                                  f"({offered_text}kdiag v{spec.min_version}-v{spec.max_version})", gap=gap)
        return chosen

    def metadata(self, *, timeout: float, version: int | None = None,
                 topics: tuple[str, ...] | None = None, allow_auto_topic_creation: bool = False) -> MetadataResponse:
        chosen = self.version_for(MetadataRequest.API_KEY, version)
        return self.request(MetadataRequest(version=chosen, topics=topics,
                                            allow_auto_topic_creation=allow_auto_topic_creation), timeout=timeout)

    def list_offsets(self, topic: str, partition: int, *, timeout: float) -> ListOffsetsResponse:
        chosen = self.version_for(ListOffsetsRequest.API_KEY)
        return self.request(ListOffsetsRequest(topic, partition, version=chosen,
                                               timeout_ms=max(int(timeout * 1000), 1)), timeout=timeout)

    def find_coordinator(self, group: str, *, timeout: float) -> FindCoordinatorResponse:
        chosen = self.version_for(FindCoordinatorRequest.API_KEY)
        return self.request(FindCoordinatorRequest(group, version=chosen), timeout=timeout)

    def sasl_handshake(self, mechanism: str, *, timeout: float) -> SaslHandshakeResponse:
        return self.request(SaslHandshakeRequest(mechanism, version=1), timeout=timeout)

    def sasl_authenticate(self, auth_bytes: bytes, *, timeout: float) -> SaslAuthenticateResponse:
        chosen = self.version_for(SaslAuthenticateRequest.API_KEY)
        return self.request(SaslAuthenticateRequest(auth_bytes, version=chosen), timeout=timeout)


def _closed(exc: ConnectionClosed, *, sent: int, sent_at: float | None) -> ConnectionClosed:
    """``exc`` with what kdiag had sent of its request (nothing, when sending failed) and when."""
    exc.sent = sent if sent_at is not None else 0
    exc.after_ms = None if sent_at is None else round((time.monotonic() - sent_at) * 1000, 1)
    return exc


def _reaction_to_close(sock: socket.socket, wait: float) -> bytes | None:
    """Close the sending side of ``sock`` (a FIN) and wait up to ``wait`` seconds for the peer's reaction:
    the bytes it sent then (at most 4 KiB), b"" when it closed or reset the connection, None for nothing."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(max(wait, 0.001))
        return sock.recv(4096)
    except socket.timeout:
        return None
    except OSError:
        return b""


def check_kafka(conn: KafkaConnection, *, timeout: float, metadata_version: int | None = None,
                reconnect=None, topics: tuple[str, ...] | None = None) -> tuple[KafkaCheck, MetadataResponse | None]:
    """ApiVersions then Metadata over ``conn``: the facts, or a status saying why not.

    ``reconnect`` (a callable giving a fresh ``KafkaConnection``) lets a listener that answered
    ApiVersions but hung up on Metadata be asked which SASL mechanisms it wants. ``topics``: the topics
    to ask about, every one by default; ``()`` for the brokers and cluster alone.
    """
    started = time.monotonic()
    deadline = started + timeout
    api_version = None
    try:
        api = conn.api_versions or conn.negotiate(timeout=min(timeout, API_VERSIONS_WAIT))
        api_version = api.version
        response = conn.metadata(timeout=max(deadline - time.monotonic(), 0.001), version=metadata_version,
                                 topics=topics)
    except ConnectionClosed as exc:
        if api_version is not None:
            mechanisms = _sasl_mechanisms(reconnect, max(deadline - time.monotonic(), 0.001))
            if mechanisms is not None:
                return KafkaCheck("auth_required", api_version, None, sasl_mechanisms=mechanisms,
                                  error="the listener answered ApiVersions, then closed the connection on Metadata: "
                                        "it requires SASL authentication first",
                                  duration_ms=elapsed_ms(started)), None
        return KafkaCheck("error", api_version, foreign=exc.foreign, error=str(exc),
                          duration_ms=elapsed_ms(started)), None
    except KafkaProbeError as exc:
        return failed_check(exc, api_version, started), None
    return metadata_check(response, api_version, elapsed_ms(started)), response


def failed_check(exc: KafkaProbeError, api_version: int | None, started: float) -> KafkaCheck:
    """The KafkaCheck of a conversation that ended in ``exc``."""
    return KafkaCheck(exc.status, api_version, foreign=exc.foreign, error=str(exc), duration_ms=elapsed_ms(started),
                      version_gap=exc.gap)


def metadata_check(response: MetadataResponse, api_version: int | None, duration_ms: float) -> KafkaCheck:
    """The facts of a Metadata answer, bounded (``probes.limits``): at most MAX_BROKERS brokers, MAX_TOPICS
    topics and MAX_PARTITIONS partitions kept (the rest counted), every name cut at its legal length."""
    clip = limits.clip
    brokers = tuple(KafkaBroker(b.node_id, clip(b.host, limits.MAX_HOST), b.port, clip(b.rack, limits.MAX_RACK))
                    for b in response.brokers[:limits.MAX_BROKERS])
    kept, partitions_left = [], limits.MAX_PARTITIONS
    for t in sorted(response.topics, key=lambda t: t.name or "")[:limits.MAX_TOPICS]:
        if partitions_left <= 0:
            break
        chosen = sorted(t.partitions, key=lambda p: p.partition_index)[:partitions_left]
        partitions_left -= len(chosen)
        kept.append(TopicInfo(
            name=clip(t.name or "", limits.MAX_TOPIC),
            partitions=tuple(PartitionInfo(p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes, p.error.name)
                             for p in chosen),
            is_internal=t.is_internal,
            error=t.error.name,
        ))
    error = None if response.error.ok else f"Metadata answered {response.error}"
    return KafkaCheck("ok" if response.error.ok else "error", api_version, response.version,
                      clip(response.cluster_id, limits.MAX_CLUSTER_ID), response.controller_id, brokers, tuple(kept),
                      error=error, duration_ms=duration_ms,
                      brokers_omitted=len(response.brokers) - len(brokers),
                      topics_omitted=len(response.topics) - len(kept))


def _sasl_mechanisms(reconnect, timeout: float) -> tuple[str, ...] | None:
    """Ask a fresh connection for the enabled SASL mechanisms; None if that is not a SASL listener."""
    if reconnect is None:
        return None
    try:
        with reconnect(timeout) as conn:
            response = conn.sasl_handshake("PLAIN", timeout=timeout)
    except (KafkaProbeError, OSError):
        return None
    if response.error.code in (0, 33):  # NONE or UNSUPPORTED_SASL_MECHANISM: a SASL listener
        return response.mechanisms
    return None


# --- TLS and SASL: what a client does before its first Kafka request ----------------------------


@dataclass(frozen=True)
class Security:
    """What the client settings ask of every new connection: TLS, SASL, both or neither."""

    tls: TlsClient | None = None
    sasl: SaslSettings | None = None

    @classmethod
    def from_librdkafka(cls, settings: Mapping[str, str]) -> Security:
        """Raises ``TlsConfigError`` / ``SaslConfigError`` when the settings cannot be used as they are."""
        tls_settings = TlsSettings.from_librdkafka(settings)
        return cls(TlsClient(tls_settings) if tls_settings else None, SaslSettings.from_librdkafka(settings))


def connect_secure(address: str, port: int, *, host: str, tls: TlsClient | None, timeout: float) -> KafkaConnection:
    """A new connection to ``address:port``, with TLS for ``host`` when ``tls`` is given (never SASL):
    for a second look at a listener. Raises KafkaProbeError."""
    deadline = time.monotonic() + timeout
    connected, sock = tcp.connect(address, port, timeout=timeout)
    if sock is None:
        raise KafkaProbeError("error", f"reconnect failed: {connected.status} ({connected.error})")
    if tls is None:
        return KafkaConnection(sock)
    shake = tls.handshake(sock, host=host, timeout=max(deadline - time.monotonic(), 0.001))
    if shake.stream is None:
        sock.close()
        raise KafkaProbeError("error", f"reconnect failed: TLS {shake.result.status} ({shake.result.error})")
    return KafkaConnection(shake.stream)


def connect_logged_in(address: str, port: int, *, host: str, security: Security, connect_timeout: float,
                      timeout: float) -> KafkaConnection:
    """A new connection as a client's own: ``connect_secure`` (within ``connect_timeout``), then the SASL login
    the settings ask for, all within ``timeout``. Raises KafkaProbeError, the connection closed."""
    deadline = time.monotonic() + timeout
    conn = connect_secure(address, port, host=host, tls=security.tls, timeout=min(connect_timeout, timeout))
    if security.sasl is None:
        return conn
    try:
        sasl, failed = authenticate(conn, security.sasl, timeout=max(deadline - time.monotonic(), 0.001),
                                    endpoint=hostport(host, port))
    except BaseException:
        conn.close()
        raise
    if failed is not None or not sasl.ok:
        conn.close()
        raise KafkaProbeError("error", f"SASL authentication failed ({sasl.status})")
    return conn


OFFSETS_TOPIC = "__consumer_offsets"


def every_topic_too_large(kafka: KafkaCheck) -> bool:
    """Whether the answer to Metadata for every topic was refused for its size (kdiag's cap, or its budget)."""
    return kafka.foreign is not None and kafka.foreign.kind == "too_large" and kafka.foreign.request == "Metadata"


def metadata_of_fewer_topics(address: str, port: int, *, host: str, security: Security, connect_timeout: float,
                             timeout: float, metadata_version: int | None, refused: KafkaCheck
                             ) -> tuple[KafkaConnection | None, KafkaCheck]:
    """The answer for every topic declared more than kdiag reads (a cluster with some hundreds of thousands
    of partitions): ask a fresh connection to ``address``, with the run's TLS and SASL, for
    ``__consumer_offsets`` alone, whose partitions' leaders are spread over the brokers and serve their
    identity checks. The check keeps the refused answer's facts as ``foreign``; when the second request
    fails too, the refused check stands."""
    deadline = time.monotonic() + timeout
    try:
        conn = connect_logged_in(address, port, host=host, security=security, connect_timeout=connect_timeout,
                                 timeout=timeout)
    except (KafkaProbeError, OSError):
        return None, refused
    kafka, _response = check_kafka(conn, timeout=max(deadline - time.monotonic(), 0.0),
                                   metadata_version=metadata_version, topics=(OFFSETS_TOPIC,))
    if not kafka.ok:
        conn.close()
        return None, refused
    return conn, replace(kafka, topics=tuple(t for t in kafka.topics if t.error == "NONE"), foreign=refused.foreign)


def metadata_from_first(conns: Sequence[tuple[Any, KafkaConnection]], *, security: Security, connect_timeout: float,
                        deadline: float, metadata_version: int | None,
                        failed: tuple[Any, KafkaCheck] | None = None) -> tuple[Any, KafkaConnection | None, KafkaCheck]:
    """ApiVersions and Metadata over the first of the bootstrap connections ``conns`` (``(endpoint, conn)``,
    the endpoint's ``host`` and ``port`` those the client was given) that answers; the others are closed.

    Returns the endpoint, its connection and the check that worked; or, when none did, the first failure
    (``failed`` when given: an earlier stage's), with no connection. ``deadline``: on the monotonic clock."""
    for index, (endpoint, conn) in enumerate(conns):
        conn, kafka = _metadata_over(endpoint, conn, security=security, connect_timeout=connect_timeout,
                                     deadline=deadline, metadata_version=metadata_version)
        if kafka.ok:
            for _endpoint, rest in conns[index + 1:]:
                rest.close()
            return endpoint, conn, kafka
        if conn is not None:
            conn.close()
        failed = failed or (endpoint, kafka)
    return failed[0], None, failed[1]


def _metadata_over(endpoint: Any, conn: KafkaConnection, *, security: Security, connect_timeout: float,
                   deadline: float, metadata_version: int | None) -> tuple[KafkaConnection | None, KafkaCheck]:
    """ApiVersions and Metadata over one bootstrap connection (or a fresh one, for fewer topics)."""
    address = conn.sock.getpeername()[0]

    def left() -> float:
        return max(deadline - time.monotonic(), 0.0)

    def reconnect(timeout: float) -> KafkaConnection:
        return connect_secure(address, endpoint.port, host=endpoint.host, tls=security.tls,
                              timeout=min(timeout, connect_timeout))

    kafka, _response = check_kafka(conn, timeout=left(), metadata_version=metadata_version, reconnect=reconnect)
    if not every_topic_too_large(kafka):
        return conn, kafka
    conn.close()
    return metadata_of_fewer_topics(address, endpoint.port, host=endpoint.host, security=security,
                                    connect_timeout=connect_timeout, timeout=left(),
                                    metadata_version=metadata_version, refused=kafka)


def start_tls(sock: socket.socket, *, host: str, tls: TlsClient,
              timeout: float) -> tuple[TlsResult, KafkaConnection | None]:
    """The TLS handshake on a connected socket, for ``host``; the Kafka connection over it when it worked.

    Under TLS 1.3 the server checks the client's certificate (or its absence) only after the client's
    handshake is over, and says no with an alert on the first read: so, as a client's first request
    would, ApiVersions goes out here, and an alert in answer is this handshake's failure. A connection
    whose ApiVersions failed otherwise keeps that failure for the metadata stage to report.

    A failure gets a second look on a new connection, within the same ``timeout``: the certificate
    the server presents (it could not be read from a handshake that failed verification), or, when
    the peer hung up on the ClientHello, whether the port answers a plaintext ApiVersions.
    """
    deadline = time.monotonic() + timeout
    shake = tls.handshake(sock, host=host, timeout=timeout)
    if shake.stream is not None:
        conn = KafkaConnection(shake.stream)
        if shake.result.version != "TLSv1.3":
            return shake.result, conn  # TLS 1.2: the server's Finished was its verdict on the client
        try:
            conn.negotiate(timeout=max(min(deadline - time.monotonic(), API_VERSIONS_WAIT), 0.001))
        except TlsRefused as exc:
            conn.close()
            return refused(shake.result, exc.alert, after_handshake=True), None
        except KafkaProbeError:
            pass  # not a TLS matter: check_kafka reports it from conn.negotiation_error
        return shake.result, conn
    sock.close()
    result = shake.result
    address, port = result.address, result.port
    if address is None or port is None or time.monotonic() >= deadline:
        return result, None

    def left() -> float:
        return max(deadline - time.monotonic(), 0.001)

    if result.status in ("untrusted", "hostname_mismatch"):
        _connected, fresh = tcp.connect(address, port, timeout=left())
        certificate = tls.fetch_certificate(fresh, host=host, timeout=left()) if fresh is not None else None
        if certificate is not None:
            result = replace(result, certificate=certificate,
                             name_in_certificate=name_in_certificate(certificate, host))
    elif result.status == "closed":
        try:
            with connect_secure(address, port, host=host, tls=None, timeout=left()) as plain:
                plain.negotiate(timeout=left())
        except KafkaProbeError:
            result = replace(result, plaintext_kafka=False)
        else:
            result = replace(result, status="not_tls", plaintext_kafka=True,
                             error=f"{result.error}; a plaintext ApiVersions on a new connection was answered: "
                                   "this is a plaintext Kafka listener")
    return result, None


def start_tls_all(sockets: Sequence[tuple[Any, socket.socket]], *, tls: TlsClient, timeout: float
                  ) -> list[tuple[TlsResult, KafkaConnection | None]]:
    """``start_tls`` on each ``(endpoint, sock)`` at once (for ``endpoint.host``; at most 32 in flight)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(sockets), 32))) as pool:
        return list(pool.map(lambda es: start_tls(es[1], host=es[0].host, tls=tls, timeout=timeout), sockets))


def authenticate_in_turn(conns: Sequence[tuple[Any, KafkaConnection]], sasl: SaslSettings, *, deadline: float
                         ) -> tuple[list[SaslResult], tuple[Any, KafkaConnection] | None, list[tuple[Any, KafkaCheck]]]:
    """SASL on the bootstrap connections ``conns`` (``(endpoint, conn)``) in order until one authenticates: one
    login is enough, and an answer that the next address of the same cluster would repeat (mechanism not
    enabled, no SASL, credentials rejected, not probed) ends it. Every connection but the chosen is closed.

    Returns the attempts in order, the ``(endpoint, conn)`` that authenticated (or None), and the connections
    that did not even answer ApiVersions as Kafka, with what they answered instead."""
    attempts: list[SaslResult] = []
    failures: list[tuple[Any, KafkaCheck]] = []
    for index, (endpoint, conn) in enumerate(conns):
        if time.monotonic() >= deadline:
            conn.close()
            continue
        result, failed = authenticate(conn, sasl, timeout=max(deadline - time.monotonic(), 0.0),
                                      endpoint=str(endpoint))
        attempts.append(result)
        if result.ok or result.status in ("not_probed", "unsupported_mechanism", "not_sasl", "auth_failed"):
            for _endpoint, rest in conns[index + 1:]:
                rest.close()
        if result.ok:
            return attempts, (endpoint, conn), failures
        conn.close()
        if failed is not None:
            failures.append((endpoint, failed))
        elif result.status in ("not_probed", "unsupported_mechanism", "not_sasl", "auth_failed"):
            break  # the next bootstrap address of the same cluster would answer the same
    return attempts, None, failures


def authenticate(conn: KafkaConnection, sasl: SaslSettings, *, timeout: float,
                 endpoint: str | None = None) -> tuple[SaslResult, KafkaCheck | None]:
    """ApiVersions, SaslHandshake v1 and SaslAuthenticate, as librdkafka does them.

    Returns the SASL result and, when the connection did not even answer ApiVersions as Kafka, the
    KafkaCheck saying what it answered instead (a TLS alert, another protocol, silence).
    """
    started = time.monotonic()
    deadline = started + timeout
    base = SaslResult("error", sasl.mechanism, sasl.username, endpoint=endpoint)

    def left() -> float:
        return max(deadline - time.monotonic(), 0.001)

    def done(**changes: Any) -> tuple[SaslResult, None]:
        return replace(base, duration_ms=elapsed_ms(started), **changes), None

    try:
        api = conn.api_versions or conn.negotiate(timeout=min(timeout, API_VERSIONS_WAIT))
    except KafkaProbeError as exc:
        skipped = replace(base, status="skip", error=f"ApiVersions before the SASL handshake failed: {exc}",
                          duration_ms=elapsed_ms(started))
        return skipped, failed_check(exc, None, started)
    handshake_range = api.range_for(SaslHandshakeRequest.API_KEY)
    if handshake_range is not None and handshake_range.max_version < 1:  # Kafka before 1.0: raw tokens
        gap = VersionGap("SaslHandshake", handshake_range.min_version, handshake_range.max_version, 1, 1)
        return done(status="too_old", version_gap=gap,
                    error=f"the broker offers no SaslHandshake v1, the version whose SaslAuthenticate kdiag "
                          f"logs in with ({gap})")
    try:
        handshake = conn.sasl_handshake(sasl.mechanism, timeout=left())
    except ConnectionClosed as exc:
        return done(**_closed_on("SaslHandshake", exc))
    except KafkaProbeError as exc:
        return done(error=f"SaslHandshake: {exc}")
    error = handshake.error
    base = replace(base, enabled_mechanisms=handshake.mechanisms, handshake_version=1,
                   error_code=error.code or None, error_name=None if error.ok else error.name)
    if error.code == UNSUPPORTED_SASL_MECHANISM:
        return done(status="unsupported_mechanism",
                    error=f"{sasl.mechanism} is not enabled on this listener; it enables "
                          f"{', '.join(handshake.mechanisms) or 'none'}")
    if error.code == ILLEGAL_SASL_STATE:
        return done(status="not_sasl", error="the listener answered SaslHandshake with ILLEGAL_SASL_STATE: it has no "
                                             "SASL (its security protocol is PLAINTEXT or SSL)")
    if error.code:
        return done(error=f"SaslHandshake answered {error}")
    if not sasl.probed:
        return done(status="not_probed", error=f"{sasl.mechanism} is enabled on this listener; kdiag does not "
                                               f"authenticate with {sasl.mechanism} (not probed by kdiag)")
    exchange = exchange_for(sasl)
    token: bytes | None = exchange.first()
    lifetime = None
    try:
        while token is not None:
            response = conn.sasl_authenticate(token, timeout=left())
            base = replace(base, authenticate_version=response.version)
            if response.error.code:
                status = "auth_failed" if response.error.code == SASL_AUTHENTICATION_FAILED else "error"
                said = f": {response.error_message}" if response.error_message else ""
                return done(status=status, error_code=response.error.code, error_name=response.error.name,
                            error_message=response.error_message,
                            error=f"SaslAuthenticate answered {response.error}{said}")
            lifetime = response.session_lifetime_ms
            token = exchange.respond(response.auth_bytes)
    except ConnectionClosed as exc:
        return done(**_closed_on("SaslAuthenticate", exc))
    except KafkaProbeError as exc:
        if exc.gap is not None:
            return done(status="too_old", version_gap=exc.gap, error=f"SaslAuthenticate: {exc}")
        return done(error=f"SaslAuthenticate: {exc}")
    except SaslProtocolError as exc:
        return done(error=f"{sasl.mechanism}: {exc}")
    return done(status="ok", session_lifetime_ms=lifetime, error=None)


def _closed_on(request: str, exc: ConnectionClosed) -> dict[str, Any]:
    """The SaslResult fields of a connection the peer closed instead of answering ``request``."""
    when = f" {exc.after_ms:g} ms after kdiag sent its {exc.sent} bytes" if exc.after_ms is not None else ""
    return dict(status="closed", closed_after=request, sent_bytes=exc.sent, closed_after_ms=exc.after_ms,
                error=f"the peer closed the connection{when} instead of answering {request}")
