"""The Go clients' lines: Sarama, franz-go and segmentio/kafka-go, with Go's net and crypto/tls errors, and
Sarama's command-line tools' ``-brokers``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.first_request import CUT_AT_FIRST_REQUEST
from kdiag.explain.sightings import (ADVERTISED, ALL_DOWN, ANY, BOOTSTRAP, CERT_NAME, CERT_UNTRUSTED, CONNECT,
                                     CONNECTION_CLOSED, COORDINATOR, GO, HOST, HOSTPORT, PLAINTEXT_ON_TLS, RESOLVE,
                                     SASL_CREDENTIALS, SASL_NEEDED, TLS_ON_PLAINTEXT, TOPIC_MISSING, UNKNOWN, Fact,
                                     Item, Pattern, ScanState, Sighting, bootstrap_facts, client_certificate_symptom,
                                     dns_status, registrar, role_of, split_endpoint, tcp_status)
from kdiag.explain.tls_readings import handshake_failure_alert
PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# --- Go: Sarama, franz-go, segmentio/kafka-go ----------------------------------------------------------
# Captured from Sarama v1.61.1 with sarama.Logger on stderr and franz-go v1.22.2 with kgo.BasicLogger at
# INFO, each ending with log.Fatal(err) (tests/clients/go, tests/fixtures/client_logs/*.sarama.log and
# *.franz.log). Sarama names an endpoint "broker host:port" and its role "broker -1" (a seed) or
# "broker N"; franz-go "addr: host:port, broker: seed_N | N".


@pattern("go.dial", GO, "dial tcp ",
         r"dial tcp (?P<addr>\[[0-9a-fA-F:.%]+\]|[^\s:]*):(?P<port>\d{1,5}): (?:connect(?:ex)?: )?(?P<why>connection refused|"
         r"no route to host|network is unreachable|connection timed out|i/o timeout|"  # and Windows' (connectex) words:
         r"No connection could be made because the target machine actively refused it|A connection attempt failed "
         r"because the connected party did not properly respond|A socket operation was attempted to an unreachable \w+)",
         "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: dial tcp "
         "127.0.0.1:58109: connect: connection refused")
def _go_dial(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    address, port = m.group("addr").strip("[]"), int(m.group("port"))
    host, node_id, role = _go_broker(m.string)
    if not address and host is None and node_id is not None and node_id >= 0:  # a broker the metadata named, no host
        yield Sighting(CONNECT, GO, "", port, node_id=node_id, role=ADVERTISED, status=tcp_status(m.group("why")),
                       detail=m.group(0))
        return
    if not address and host is None:  # Go's ":9092": no host at all, which Go's net dials on the local machine
        yield Sighting(CONNECT, GO, None, port, node_id=node_id, role=BOOTSTRAP, status=tcp_status(m.group("why")),
                       detail=m.group(0), role_from=EMPTY_HOST)
        return
    yield Sighting(CONNECT, GO, host or address, port, address, node_id, role, status=tcp_status(m.group("why")),
                   detail=m.group(0), role_from=after_metadata(m.string) if role in (ADVERTISED, COORDINATOR) else None)


EMPTY_HOST = ("the address has no host (`:port`), which no broker advertises (a listener without a host advertises "
              "the broker's own name): it is the client's own setting with its host left out, an unset variable or "
              "flag most often, and Go's net dials it on the client's own machine")


# crypto/tls DialWithDialer's timeoutError (Sarama dials TLS with it): the dial timeout covers the TCP connect and
# the handshake, so a filtered port and a listener that never answers the ClientHello end alike: a guess.
@pattern("go.tls_dial_timeout", GO, "DialWithDialer timed out", r"tls: DialWithDialer timed out",
         "[sarama] 2024/05/01 10:00:00 Failed to connect to broker kafka.example.com:9093: tls: DialWithDialer timed out")
def _go_tls_dial_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    named = re.search(rf"broker (?P<hp>{HOSTPORT}): tls:", m.string)
    if named is not None:  # without the address, the client's giving up (go.out_of_brokers) says as much
        sighting = _go_sighting(CONNECT, m.string, scan, hostport=named.group("hp"), detail=m.group(0))
        yield replace(sighting, status="timeout", guess="tls: DialWithDialer timed out")


@pattern("go.lookup", GO, "lookup ",
         rf"lookup (?P<host>{HOST}|<[\w .-]{{1,60}}>)(?: on (?P<resolver>\S+?))?: (?P<why>no such host|i/o timeout|server misbehaving|"
         r"Temporary failure in name resolution)",
         "[WARN] unable to open connection to broker; addr: ip-172-31-18-160.us-west-2.compute.internal:53395, "
         "broker: 1, err: dial tcp: lookup ip-172-31-18-160.us-west-2.compute.internal on 127.0.0.1:53: no such host")
def _go_lookup(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host = m.group("host")
    _, node_id, role = _go_broker(m.string)
    port = _go_port(m.string, host) or scan.port_of(host)
    yield Sighting(RESOLVE, GO, host, port, node_id=node_id, role=role, status=dns_status(m.group("why")),
                   detail=m.group(0), role_from=after_metadata(m.string) if role in (ADVERTISED, COORDINATOR) else None)


@pattern("go.sarama_broker", GO, "registered new broker", rf"registered new broker #(?P<id>-?\d+) at (?P<hp>{HOSTPORT})",
         "[sarama] 2026/11/21 17:27:08 client/brokers registered new broker #1 at "
         "ip-172-31-18-160.us-west-2.compute.internal:53395")
def _go_sarama_broker(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


@pattern("go.out_of_brokers", GO, "run out of available brokers", r"client has run out of available brokers",
         "2026/11/21 17:27:09 kafka: client has run out of available brokers to talk to: EOF")
def _go_out_of_brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # Sarama appends the last broker's error: ": EOF" is a broker that hung up on the client's first request.
    if re.search(r"run out of available brokers(?: to talk to)?(?: \(Is your cluster reachable\?\))?: EOF\b", m.string):
        yield Sighting(CONNECTION_CLOSED, GO, detail="client has run out of available brokers to talk to: EOF")
        return
    yield Sighting(ALL_DOWN, GO, detail="client has run out of available brokers")


# Go's crypto/tls when the other side answers the ClientHello with non-TLS bytes; a Kafka listener sends
# nothing back (see go.sarama_send_eof, go.franz_tls_eof), so this is from Go's source, not captured.
@pattern("go.tls_record", GO, "does not look like a TLS handshake", r"first record does not look like a TLS handshake",
         "unable to dial: tls: first record does not look like a TLS handshake")
def _go_tls_record(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TLS_ON_PLAINTEXT, GO, detail="first record does not look like a TLS handshake")


@pattern("go.franz_tls_eof", GO, "using TLS when the broker is not expecting it",
         r"using TLS when the broker is not expecting it",
         "[WARN] unable to open connection to broker due to an immediate EOF, which often means the client is using "
         "TLS when the broker is not expecting it (is TLS misconfigured?); addr: 127.0.0.1:50033, broker: seed_0, "
         "err: EOF")
def _go_franz_tls_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # its own words are a guess ("often means"), as Java's "EOF during handshake" and Sarama's dial EOF: likely
    yield replace(_go_sighting(TLS_ON_PLAINTEXT, m.string, scan, detail="immediate EOF after the TLS ClientHello"),
                  guess="an immediate EOF, which often means the client is using TLS when the broker is not expecting it",
                  alternatives=("BROKER_CLOSED_CONNECTION",))


# Go's crypto/tls when the listener answers the handshake with an alert (alert.go's names): about the client's
# certificate, as librdkafka's alerts; "handshake failure" says no more (no shared cipher or version, or a listener that
# wants a client certificate), and never the client's check of the broker's chain (that is x509): a client certificate, likely.
_GO_ALERTS = {"bad certificate": "bad_certificate", "certificate required": "certificate_required",
              "unknown certificate authority": "unknown_ca", "unknown certificate": "certificate_unknown",
              "expired certificate": "certificate_expired", "revoked certificate": "certificate_revoked",
              "unsupported certificate": "unsupported_certificate", "access denied": "access_denied"}


@pattern("go.tls_alert", GO, "remote error: tls: ", rf"remote error: tls: (?P<alert>{'|'.join(_GO_ALERTS)}|handshake failure)",
         "[sarama] Failed to connect to broker kafka:9093: remote error: tls: certificate required")
def _go_tls_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    alert = _GO_ALERTS.get(m.group("alert"))
    symptom = client_certificate_symptom(alert or "handshake_failure", scan)
    sighting = _go_sighting(symptom, m.string, scan, detail=alert)
    yield sighting if alert else handshake_failure_alert(sighting, scan, m.group(0))


# Go's TLS handshake runs on the first write: a listener that closes on the ClientHello makes Sarama's
# first request fail with EOF, which a plain TCP write never returns.
@pattern("go.sarama_send_eof", GO, "Failed to send ",
         rf"Failed to send (?P<request>\w+Request)(?: V\d+)? to (?P<hp>{HOSTPORT}): EOF\s*$",
         "[sarama] 2026/11/21 17:27:08 Failed to send ApiVersionsRequest V3 to 127.0.0.1:50033: EOF")
@pattern("go.sarama_api_versions_eof", GO, "Error while sending ",  # Sarama 1.29+, the request sent inside Open
         rf"Error while sending (?P<request>\w+Request)(?: V\d+)? to broker (?P<hp>{HOSTPORT}): EOF\s*$",
         "[sarama] 2024/05/01 10:00:00 Error while sending ApiVersionsRequest to broker kafka:9093: EOF")
def _go_sarama_send_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield _go_sighting(TLS_ON_PLAINTEXT, m.string, scan, hostport=m.group("hp"),
                       detail=f"{CUT_AT_FIRST_REQUEST}: EOF sending {m.group('request')}")


# Sarama's broker.go Open(): Logger.Printf("Failed to connect to broker %s: %s\n", b.addr, b.connErr), where connErr
# is the dial's: tls.DialWithDialer when conf.Net.TLS.Enable (Sarama releases that handshake inside Open), else
# dialer.Dial. A plain TCP dial never ends in EOF or a reset after connecting, so the line itself says TLS is on and
# its handshake was cut off: the closed-connection readings with TLS on (TLS_UNEXPECTED likely).
@pattern("go.sarama_connect_closed", GO, "Failed to connect to broker ",
         rf"Failed to connect to broker (?P<hp>{HOSTPORT}): (?P<why>(?:unexpected )?EOF|.*?(?:connection reset by peer|"
         r"broken pipe))\s*$", "[sarama] 2026/11/26 10:00:00 Failed to connect to broker kafka:9092: EOF")
def _go_sarama_connect_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("tls")
    yield _go_sighting(CONNECTION_CLOSED, m.string, scan, hostport=m.group("hp"),
                       detail=f"Failed to connect to broker: {m.group('why')[-60:]}")


# A TLS listener answers plaintext with a 7-byte TLS alert (0x15 0x03 0x03 ...) and closes: one byte short
# of the 8-byte response header Sarama reads, hence "unexpected EOF" (a plain close gives "EOF").
@pattern("go.sarama_header_eof", GO, "header from ",
         rf"Failed to read (?P<response>\w+Response)(?: V\d+)? header from (?P<hp>{HOSTPORT}): unexpected EOF",
         "[sarama] 2026/11/21 17:27:08 Failed to read ApiVersionsResponse V3 header from 127.0.0.1:38533: "
         "unexpected EOF")
def _go_sarama_header_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield _go_sighting(PLAINTEXT_ON_TLS, m.string, scan, hostport=m.group("hp"),
                       detail=f"{m.group('response')}: 7 bytes (a TLS alert record) where an 8-byte header was due")


@pattern("go.franz_tls_alert", GO, "tls alert record",
         r"invalid large response size(?: (?P<size>\d+))?.*?appear to be a tls alert record",
         "invalid large response size 352518912 > limit 104857600; the first three bytes received appear to be a tls "
         "alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?")
def _go_franz_tls_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield _go_sighting(PLAINTEXT_ON_TLS, m.string, scan,  # a paste may carry the hint without the size
                       detail=f"response size {m.group('size') or ''}".rstrip() + ": a TLS record")


@pattern("go.x509", GO, "x509: ", r"x509: (?P<why>certificate signed by unknown authority|certificate has expired[^\"]*"
         r"|certificate is valid for (?P<valid>.*?), not (?P<name>[^\s\"]+)|cannot validate certificate for "
         r"(?P<ip>\S+) because it doesn't contain any IP SANs|certificate is not valid for any names, but wanted to "
         r"match (?P<wanted>[^\s\"]+)|certificate relies on legacy Common Name field)",
         "[WARN] unable to open connection to broker; addr: 127.0.0.1:38567, broker: seed_0, err: tls: failed to "
         "verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs")
def _go_x509(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """Go checks the name before the chain: a self-signed certificate without the name connected to is reported
    for the name (captured); ``signed by unknown authority`` once the name is in it."""
    name = m.group("name") or m.group("ip") or m.group("wanted")
    symptom = CERT_NAME if name or "Common Name" in m.group("why") else CERT_UNTRUSTED
    yield Sighting(symptom, GO, host=name, detail=m.group("why"))


FRANZ_FIRST_READ = ("TLS_UNEXPECTED", "BROKER_TOO_OLD")
"""What else franz-go's "is SASL missing?" fits: a TLS client at a plaintext listener, a request version the broker
does not enable (it closes the connection), both as "Or:" readings beside it."""


@pattern("go.franz_sasl_missing", GO, "is SASL missing?", r"\(is SASL missing\?\)",
         "[WARN] read from broker errored, killing connection after 0 successful responses (is SASL missing?); req: "
         "Metadata, addr: 127.0.0.1:40341, broker: seed_0, err: EOF")
def _go_franz_sasl_missing(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # franz-go's own guess: a listener wanting TLS, or a TLS client at a plaintext one, hang up the same way.
    yield replace(_go_sighting(SASL_NEEDED, m.string, scan, detail="connection closed after 0 successful responses"),
                  guess="is SASL missing?", alternatives=FRANZ_FIRST_READ)


# franz-go's ErrFirstReadEOF (pkg/kgo/errors.go) as rpk and every franz-go caller print it: "broker closed the connection
# immediately after a request was issued, which happens when SASL is required but not provided: is SASL missing?" (older:
# "brokers keep immediately closing connections, ..."). Its guess: a broker that closes on a request version it does
# not enable (Kafka 3.7 at Metadata v13) says the same, and so does a TLS client at a plaintext listener.
@pattern("go.franz_first_read_eof", GO, "SASL is required but not provided",
         r"SASL is required but not provided", "unable to request metadata: broker closed the connection immediately "
         "after a request was issued, which happens when SASL is required but not provided: is SASL missing?")
def _go_franz_first_read_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield replace(_go_sighting(SASL_NEEDED, m.string, scan, detail="connection closed after the first request"),
                  guess="SASL is required but not provided", alternatives=FRANZ_FIRST_READ)


@pattern("go.sarama_api_versions", GO, "Completed ApiVersionsRequest",
         rf"Completed ApiVersionsRequest(?: V\d+)? to (?P<hp>{HOSTPORT})",
         "[sarama] 2026/11/21 17:27:08 Completed ApiVersionsRequest V3 to 127.0.0.1:40341. Broker supports 77 APIs")
def _go_sarama_api_versions(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.go_answered = (scan.line, m.group("hp"))  # the next lines may say the broker hung up after this
    return ()


# A SASL listener answers ApiVersions before authentication and closes the connection at any other
# request: Sarama logs the ApiVersions it completed, then an EOF for the Metadata request.
@pattern("go.sarama_metadata_eof", GO, "while fetching metadata: EOF",
         r"got error from broker (?P<id>-?\d+) while fetching metadata: EOF\s*$",
         "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: EOF")
def _go_sarama_metadata_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    answered = scan.go_answered
    if answered is not None and scan.line - answered[0] <= SARAMA_EOF_LINES:
        yield _go_sighting(SASL_NEEDED, m.string, scan, hostport=answered[1],
                           detail="the broker answered ApiVersions, then closed the connection at Metadata")
    else:
        yield _go_sighting(CONNECTION_CLOSED, m.string, scan, detail="EOF fetching metadata")


@pattern("go.sasl_failed", GO, "SASL Authentication failed",
         r"SASL Authentication failed\.?(?::\s*(?P<why>[^;]*))?",
         "[sarama] 2026/11/21 17:27:09 Closed connection to broker 127.0.0.1:40341 due to SASL v1 auth error: kafka "
         "server: SASL Authentication failed: Authentication failed: Invalid username or password")
def _go_sasl_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """Sarama's ``kafka server: SASL Authentication failed: ...`` and franz-go's ``SASL_AUTHENTICATION_FAILED: SASL
    Authentication failed.: ...``."""
    yield _go_sighting(SASL_CREDENTIALS, m.string, scan, detail=(m.group("why") or "").strip() or None)


@pattern("go.franz_topic", GO, "topic: ", r"\btopic: (?P<topic>[A-Za-z0-9._-]+), err: UNKNOWN_TOPIC_OR_PARTITION",
         "[INFO] new topic metadata wait failed, retrying wait; topic: missing-topic, err: UNKNOWN_TOPIC_OR_PARTITION: "
         "This server does not host this topic-partition.")
def _go_franz_topic(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.topic = m.group("topic")  # for the log.Fatal(err) line below, which names no topic
    yield Sighting(TOPIC_MISSING, GO, topic=m.group("topic"), detail="UNKNOWN_TOPIC_OR_PARTITION")


# Sarama's own command-line tools (kafka-console-producer -brokers ...) and many Go and Node apps take the
# bootstrap list as -brokers / --brokers.
@pattern("cli.brokers", ANY, "-brokers", r"(?:^|\s)--?brokers[ =](?P<list>\S+)",
         "$ ./produce -lib sarama -brokers 127.0.0.1:53395 -topic t")
def _cli_brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from bootstrap_facts(m.group("list").strip("'\""))
    topic = re.search(r"\s--?topic[ =]([A-Za-z0-9._-]+)", m.string)
    if topic is not None:
        yield Fact("topic", name=topic.group(1))

SARAMA_EOF_LINES = 6
"""How far below Sarama's ``Completed ApiVersionsRequest`` its Metadata EOF may come and still follow it."""


# franz-go: broker: seed_0 | broker: 1; Sarama: got error from broker -1 while ..., producer/broker/1 ...
_GO_BROKER = re.compile(r"(?:\"broker\":\"?|broker: ?|\bbroker=|from broker |producer/broker/)(?P<id>seed_\d+|-?\d+)"
                        r"(?![\w.:])")
_GO_ADDR = re.compile(rf"(?:to broker |\"addr\":\"|addr: ?|\baddr=)(?P<hp>{HOSTPORT})")


# Requests a Go client sends to a broker it found in the metadata, never to its bootstrap address: a line that
# names one is about an advertised broker (a produce's leader, a group's coordinator, every broker of a sharded
# admin request), whatever address it dialled.
_AFTER_METADATA = re.compile(r"\(\*(?:Client|Writer|Reader|Conn)\)\.(?:Produce|Fetch|JoinGroup|SyncGroup|Heartbeat|"
                             r"OffsetCommit|OffsetFetch|WriteMessages)\b|\bseparate shard errors\b|"
                             # (kafka-go's "connection to consumer group coordinator" dials the bootstrap list first)
                             r"\b(?:JoinGroup|SyncGroup|FindCoordinator|(?<!connection to consumer group )coordinator)\b|"
                             # franz-go's group loop and kafka-go's ConsumerGroup: requests to the group's coordinator
                             r"\b(?:(?:join|sync) group failed|heartbeat errored|failed to (?:join|sync) group)\b|"
                             # kafka-go's Writer: errors it returns only after the metadata named the partitions' leaders
                             r"\bwrite errors \(\d+/\d+\)|\berror writing messages to \S+ \(partition \d+(?:, attempt "
                             r"\d+)?\)", re.IGNORECASE)


def after_metadata(line: str) -> str | None:
    """How a Go line shows its connection is to a broker from the metadata, or None."""
    m = _AFTER_METADATA.search(line)
    if m is None:
        return None
    return f"the client dialled it inside `{m.group(0)}`, which goes to a broker the cluster's metadata named"


def _after_metadata_role(line: str) -> str:
    m = _AFTER_METADATA.search(line)
    if m is None:
        return UNKNOWN
    group = any(w in m.group(0).lower() for w in ("group", "coordinator", "heartbeat", "offset"))
    return COORDINATOR if group else ADVERTISED


def _go_broker(line: str) -> tuple[str | None, int | None, str]:
    """franz-go names a bootstrap connection seed_N and a broker by its node id; Sarama names host:port."""
    m = _GO_BROKER.search(line)
    if m is None:
        named = _GO_ADDR.search(line)
        role = _after_metadata_role(line)
        return (split_endpoint(named.group("hp"))[0] if named else None), None, role
    ident = m.group("id")
    if ident.startswith("seed_"):
        return None, None, BOOTSTRAP
    node_id = int(ident)
    return None, node_id, role_of(node_id)


def _go_sighting(symptom: str, line: str, scan: ScanState, *, hostport: str | None = None,
                 detail: str | None = None) -> Sighting:
    """A failure on the connection a Go line names: its address (``hostport``, else franz-go's ``addr:`` or
    Sarama's ``broker host:port``) and its role (franz-go's ``seed_N``, Sarama's ``broker -1``)."""
    if hostport is None:
        named = _GO_ADDR.search(line)
        hostport = named.group("hp") if named else None
    host, port = split_endpoint(hostport)
    _, node_id, role = _go_broker(line)
    return Sighting(symptom, GO, host, port, node_id=node_id, role=role, detail=detail)


def _go_port(line: str, host: str) -> int | None:
    m = _GO_ADDR.search(line)
    if m is None:
        return None
    named, port = split_endpoint(m.group("hp"))
    return port if named is not None and normalise_host(named) == normalise_host(host) else None
