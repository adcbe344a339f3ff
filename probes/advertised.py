"""Stage ``advertised``: use every broker the metadata advertises, the way a client will.

For each advertised ``host:port``, in parallel: resolve it, connect to it, do the TLS handshake and
SASL authentication the client settings ask for (TLS with the advertised host as SNI and as the
name the certificate must hold), speak ApiVersions and Metadata through it, and prove it is the
broker it claims to be (a ListOffsets for a partition it leads must not answer
NOT_LEADER_OR_FOLLOWER; the cluster id must match). Ten dead brokers cost one connect timeout, not
ten.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from probes import addresses, dns, tcp
from probes.codec.errors import NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION
from probes.deadline import Deadline
from probes.hostport import hostport
from probes.kafka import (KafkaConnection, KafkaProbeError, Security, authenticate, check_kafka, connect_secure,
                          start_tls)
from probes.results import (DnsResult, IdentityCheck, KafkaBroker, KafkaCheck, SaslResult, TcpResult, TlsResult,
                            TopicInfo)


@dataclass(frozen=True)
class EndpointCheck:
    dns: DnsResult
    tcp: TcpResult
    kafka: KafkaCheck
    identity: IdentityCheck
    tls: TlsResult | None = None  # None: the client settings ask for no TLS
    sasl: SaslResult | None = None  # None: no SASL
    tcp_attempts: tuple[TcpResult, ...] = ()  # every resolved address, when the name had several


def led_partitions(topics: tuple[TopicInfo, ...]) -> dict[int, tuple[str, int]]:
    """One (topic, partition) each broker leads, preferring user topics over internal ones."""
    led: dict[int, tuple[str, int]] = {}
    for topic in sorted(topics, key=lambda t: (t.is_internal, t.name)):
        for partition in topic.partitions:
            if partition.leader_id >= 0 and partition.error == "NONE":
                led.setdefault(partition.leader_id, (topic.name, partition.partition))
    return led


def connect_first(host_result: DnsResult, port: int, *, deadline: Deadline,
                  connect_timeout: float) -> tuple[TcpResult, object | None]:
    """Try the resolved addresses in order (as clients do); the first success wins."""
    first_failure: TcpResult | None = None
    for address in host_result.addresses:
        if deadline.expired:
            break
        result, sock = tcp.connect(address, port, timeout=deadline.cap(connect_timeout))
        if sock is not None:
            return result, sock
        first_failure = first_failure or result
    if first_failure is None:
        return TcpResult("timeout", None, port, "the run's deadline passed before connecting"), None
    return first_failure, None


def check_endpoints(brokers: tuple[KafkaBroker, ...], *, deadline: Deadline, connect_timeout: float,
                    metadata_version: int | None, led: dict[int, tuple[str, int]], cluster_id: str | None,
                    security: Security = Security()) -> list[EndpointCheck]:
    """``check_endpoint`` for every advertised broker at once (at most 64 in flight), in their order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(brokers), 64))) as pool:
        return list(pool.map(lambda broker: check_endpoint(
            broker, deadline=deadline, connect_timeout=connect_timeout, metadata_version=metadata_version,
            led=led.get(broker.node_id), cluster_id=cluster_id, security=security), brokers))


def check_endpoint(broker: KafkaBroker, *, deadline: Deadline, connect_timeout: float,
                   metadata_version: int | None, led: tuple[str, int] | None,
                   cluster_id: str | None, security: Security = Security()) -> EndpointCheck:
    resolved = dns.resolve(broker.host, timeout=deadline.cap(connect_timeout))
    skipped = KafkaCheck("skip")
    tls_skipped = TlsResult("skip", broker.host, port=broker.port) if security.tls else None
    sasl_skipped = SaslResult("skip", security.sasl.mechanism) if security.sasl else None
    if not resolved.ok:
        return EndpointCheck(resolved, TcpResult("skip"), skipped, IdentityCheck("skip"), tls_skipped, sasl_skipped)
    # Every address, not only the first that works: a client alternates between them (IPv6/IPv4 split).
    connected, sock, attempts = addresses.connect_every(resolved, broker.port, deadline=deadline,
                                                        connect_timeout=connect_timeout)

    def done(*checks: object) -> EndpointCheck:
        return EndpointCheck(resolved, connected, *checks, tcp_attempts=attempts)  # type: ignore[arg-type]

    if sock is None:
        return done(skipped, IdentityCheck("skip"), tls_skipped, sasl_skipped)

    def reconnect(timeout: float) -> KafkaConnection:
        return connect_secure(connected.address, broker.port, host=broker.host, tls=security.tls,
                              timeout=min(timeout, connect_timeout))

    tls = None
    if security.tls is not None:
        tls, conn = start_tls(sock, host=broker.host, tls=security.tls, timeout=deadline.remaining())
        if conn is None:
            blocked = KafkaCheck("error", error=f"not attempted: the TLS handshake failed ({tls.status})")
            return done(blocked, IdentityCheck("skip"), tls, sasl_skipped)
    else:
        conn = KafkaConnection(sock)
    with conn:
        sasl = None
        if security.sasl is not None:
            sasl, failed = authenticate(conn, security.sasl, timeout=deadline.remaining(),
                                        endpoint=hostport(broker.host, broker.port))
            if failed is not None:
                return done(failed, IdentityCheck("skip"), tls, sasl)
            if not sasl.ok:
                blocked = KafkaCheck("error", conn.api_versions.version if conn.api_versions else None,
                                     error=f"not attempted: SASL authentication failed ({sasl.status})")
                return done(blocked, IdentityCheck("skip"), tls, sasl)
        # The brokers and the cluster id only: the bootstrap's answer already listed every topic, and asking
        # each broker for all of them again would cost a large cluster's metadata once per broker.
        kafka, _metadata = check_kafka(conn, timeout=deadline.remaining(), metadata_version=metadata_version,
                                       reconnect=reconnect, topics=())
        identity = prove_identity(conn, kafka, led=led, cluster_id=cluster_id, deadline=deadline,
                                  node_id=broker.node_id)
    if identity.status == "wrong_broker":
        kafka = KafkaCheck("wrong_broker", kafka.api_versions_version, kafka.metadata_version, kafka.cluster_id,
                           kafka.controller_id, kafka.brokers, (), error=identity.error, duration_ms=kafka.duration_ms)
    return done(kafka, identity, tls, sasl)


def prove_identity(conn: KafkaConnection, kafka: KafkaCheck, *, led: tuple[str, int] | None,
                   cluster_id: str | None, deadline: Deadline, node_id: int | None = None) -> IdentityCheck:
    """Prove the endpoint is the broker that claims it (see :class:`IdentityCheck`).

    A leader that has only just been elected, or a partition still loading, can answer
    NOT_LEADER_OR_FOLLOWER for a moment; so before calling an endpoint the wrong broker, kdiag asks
    it for that partition's metadata again and retries once: only an answer that stays wrong while
    the metadata still names ``node_id`` as leader is proof.
    """
    if not kafka.ok:
        return IdentityCheck("skip")
    if cluster_id and kafka.cluster_id and kafka.cluster_id != cluster_id:
        return IdentityCheck("wrong_broker", error=f"this endpoint belongs to cluster {kafka.cluster_id}, "
                             f"not {cluster_id}", cluster_id=kafka.cluster_id)
    if led is None:
        return IdentityCheck("unverified", error="the broker leads no partition, so ListOffsets cannot prove "
                             "which broker answers", cluster_id=kafka.cluster_id)
    topic, partition = led
    for attempt in range(2):
        try:
            response = conn.list_offsets(topic, partition, timeout=deadline.cap(2.0))
        except KafkaProbeError as exc:
            return IdentityCheck("unverified", topic, partition, f"ListOffsets failed: {exc}", kafka.cluster_id)
        errors = [p.error for p in response.partitions if p.error.code]
        if not errors:
            return IdentityCheck("ok", topic, partition, None, kafka.cluster_id)
        if errors[0].code not in (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION):
            return IdentityCheck("unverified", topic, partition, f"ListOffsets answered {errors[0]}",
                                 kafka.cluster_id)
        if attempt == 0:
            wait_time(deadline, 0.25)
            leader = _current_leader(conn, topic, partition, deadline)
            if node_id is not None and leader is not None and leader != node_id:
                return IdentityCheck("unverified", topic, partition, f"leadership of {topic}-{partition} moved to "
                                     f"broker {leader} during the check", kafka.cluster_id)
    if len(kafka.brokers) == 1 and kafka.brokers[0].node_id == node_id:
        # No other broker of this cluster exists to answer in its place: a broker that has just started and is
        # still loading its partitions says NOT_LEADER_OR_FOLLOWER for seconds (seen from kdiag watch across
        # broker restarts). Only the cluster id, checked above, could show another cluster.
        return IdentityCheck("unverified", topic, partition,
                             f"ListOffsets for {topic}-{partition} answered {errors[0]} twice, but this is the only "
                             "broker of its cluster: a partition still loading, not a different broker",
                             kafka.cluster_id)
    return IdentityCheck("wrong_broker", topic, partition,
                         f"ListOffsets for {topic}-{partition}, which this broker leads, answered {errors[0]} "
                         "twice: the endpoint reaches a different broker", kafka.cluster_id)


def _current_leader(conn: KafkaConnection, topic: str, partition: int, deadline: Deadline) -> int | None:
    try:
        response = conn.metadata(timeout=deadline.cap(2.0), topics=(topic,))
    except KafkaProbeError:
        return None
    for found in response.topics:
        for p in found.partitions:
            if found.name == topic and p.partition_index == partition:
                return p.leader_id
    return None


def check_address(host: str, port: int, *, deadline: Deadline, connect_timeout: float) -> tuple[DnsResult, TcpResult]:
    """Resolve and connect only (for the coordinator when it is not among the advertised brokers)."""
    resolved = dns.resolve(host, timeout=deadline.cap(connect_timeout))
    if not resolved.ok:
        return resolved, TcpResult("skip")
    connected, sock = connect_first(resolved, port, deadline=deadline, connect_timeout=connect_timeout)
    if sock is not None:
        sock.close()
    return resolved, connected


def wait_time(deadline: Deadline, seconds: float) -> None:
    time.sleep(max(0.0, deadline.cap(seconds)))
