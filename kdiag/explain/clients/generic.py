"""Clients of no family kdiag knows by name (Erlang/Elixir brod, kafka_ex and klife; ruby-kafka; Rust rskafka; Dart;
.NET clients not built on librdkafka; kafka-node): what their *runtime* says when a name does not resolve, a connect
is refused, times out or finds no route, wherever a Kafka client built on it prints it.

The words are the runtime's, not the library's, so one pattern per runtime reads every client on it:

- Erlang's inet atoms (``{error,nxdomain}``, ``{connection_failure,econnrefused}``, ``{:error, :nxdomain}``);
- Ruby's ``Errno::ECONNREFUSED`` / ``Connection refused - connect(2) for "host" port 9092`` and ``SocketError``'s
  ``getaddrinfo: Name or service not known``;
- Dart's ``SocketException: Failed host lookup: 'host'`` and ``SocketException: Connection refused (OS Error: ...),
  address = host, port = 9092``;
- .NET's ``SocketException (10061): No connection could be made because the target machine actively refused it.
  192.0.2.1:9092`` and ``(11001): No such host is known``;
- Rust's ``std::io::Error`` (``Connection refused (os error 111)``, ``failed to lookup address information: ...``).

The endpoint is the one the line names, else the one a line just above named (``remember``: ``failed to connect to
host:port``, ``gen_tcp:connect("host",9092,...)``, ``Running worker on host h:p``). Its role comes from the facts the
family modules read (``erlang``, ``ruby``) or, when nothing says it, from the kind of host, both readings given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import classify_host
from kdiag.explain.sightings import (ALL_DOWN, CONNECT, CONNECTION_CLOSED, HOST, OTHER, RESOLVE, TOPIC_MISSING, UNKNOWN, Handler, Item, Pattern, ScanState, Sighting,
                                     registrar, split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

RECENT_LINES = 20
"""How far below the line that named an endpoint the runtime's error may come and still be about it (a few records
of a structured log, each a message and its error's lines, as a JSON or ECS logger writes them)."""

# Each runtime's words -> (symptom, status).
_ERLANG = {"nxdomain": (RESOLVE, "nxdomain"), "econnrefused": (CONNECT, "refused"), "ehostunreach": (CONNECT, "unreachable"),
           "enetunreach": (CONNECT, "unreachable"), "etimedout": (CONNECT, "timeout")}
_WORDS = (("No such host is known", RESOLVE, "nxdomain"), ("Name or service not known", RESOLVE, "nxdomain"),
          ("nodename nor servname provided", RESOLVE, "nxdomain"), ("No address associated", RESOLVE, "no_answer"),
          ("Temporary failure in name resolution", RESOLVE, "servfail"), ("Failed host lookup", RESOLVE, "nxdomain"),
          ("actively refused", CONNECT, "refused"), ("Connection refused", CONNECT, "refused"),
          ("ECONNREFUSED", CONNECT, "refused"), ("No route to host", CONNECT, "unreachable"),
          ("EHOSTUNREACH", CONNECT, "unreachable"), ("Network is unreachable", CONNECT, "unreachable"),
          ("did not properly respond", CONNECT, "timeout"), ("timed out", CONNECT, "timeout"),
          ("ETIMEDOUT", CONNECT, "timeout"))


# Ports of the services an application's log names beside Kafka (PostgreSQL, MySQL, Redis, MongoDB, RabbitMQ,
# Elasticsearch, etcd, Memcached, HTTP, SSH): a runtime's error about one of them is not about a Kafka broker.
NOT_KAFKA_PORTS = frozenset({22, 80, 443, 2379, 3306, 5432, 5672, 6379, 8080, 9200, 9300, 11211, 27017})


def runtime_failure(words: str) -> tuple[str, str] | None:
    """(symptom, status) for a runtime's words for a failed lookup or connect, or None."""
    for needle, symptom, status in _WORDS:
        if needle in words:
            return symptom, status
    for atom, reading in _ERLANG.items():
        if re.search(rf"(?<![\w]){atom}\b", words):
            return reading
    return None


def failure_at(scan: ScanState, words: str, host: str | None, port: int | None, *, role: str = UNKNOWN,
               client: str = OTHER) -> Iterator[Sighting]:
    """The sighting a runtime's words make, about the endpoint given or the one a line just above named."""
    reading = runtime_failure(words)
    if reading is None:
        return
    if host is None and (recent := scan.recent_endpoint(RECENT_LINES)) is not None:
        host, port = recent
    if host is not None and port is None:
        port = scan.port_of(host)
    if port in NOT_KAFKA_PORTS:
        return
    symptom, status = reading
    yield Sighting(symptom, client, host, port, role=role, status=status, detail=words.strip()[:160])


def gave_up(words: str) -> Handler:
    """The handler of a client's line that says only that it reached no broker (ALL_DOWN, a consequence)."""
    def handler(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        yield Sighting(ALL_DOWN, OTHER, detail=words)
    return handler


def remember(scan: ScanState, host: str | None, port: int | None) -> None:
    if host:
        scan.recent = (scan.line, host.strip('"[]'), port)


# --- lines that name the endpoint a client is about to reach -------------------------------------------------

_QUOTED_HOST = rf'"?(?P<host>{HOST})"?'
_TRYING = re.compile(
    rf'(?:[Ff]ailed to connect to|[Cc]ould not connect to(?: broker)?|\(re\)connect to|[Cc]onnecting to|'
    rf'[Oo]pening connection to|on host|[Ee]stablishing connection to broker \d+:|[Uu]nable to connect to|'
    rf'[Ee]rror connecting to broker|[Ff]ailed to establish connection to) '
    rf'(?:tcp://|ssl://|tls://)?{_QUOTED_HOST}'
    rf'(?::(?P<port>\d{{1,5}})| on port (?P<port2>\d{{1,5}}))')


def _trying(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    port = m.group("port") or m.group("port2")
    host, number = m.group("host"), int(port) if port else None
    remember(scan, host, number)
    yield from failure_at(scan, m.string[m.end():], host, number)


# Each example with the runtime's words on the same line; on their own these lines only name the endpoint.
for _needle, _example in (("connect to ", "client client1 failed to connect to kafka-1.example:9092 reason:econnrefused"),
                          ("onnecting to ", "Connecting to b1.example:9092: Connection refused (os error 111)"),
                          ("onnection to ", "Opening connection to b1.example:9092 failed: ETIMEDOUT"),
                          ("on host ", "Worker on host b1.example:9092: SocketException: Failed host lookup: 'b1'"),
                          # rskafka src/connection.rs: "error connecting to broker \"{broker}\": {error}"
                          ("connecting to broker ", 'error connecting to broker "b1.example:9092": IO error: Connection '
                           "refused (os error 111)"),
                          # kafka-rust src/client/network.rs: "Failed to establish connection to {}: {:?}"
                          ("establish connection to ", "Failed to establish connection to b1.example:9092: Io(Os { "
                           'code: 111, kind: ConnectionRefused, message: "Connection refused" })'),
                          # PHP's stream_socket_client (nmred/kafka-php, longlang/phpkafka)
                          ("to connect to ", "stream_socket_client(): unable to connect to tcp://b1.example:9092 "
                           "(php_network_getaddresses: getaddrinfo failed: Name or service not known)")):
    pattern(f"other.trying.{len(PATTERNS)}", OTHER, _needle, _TRYING.pattern, _example)(_trying)


# Erlang's call trace of gen_tcp (dbg/recon): the call names the endpoint, the returned line the error.
@pattern("erlang.gen_tcp_call", OTHER, "gen_tcp:connect(", r'gen_tcp:connect\("(?P<host>[^"]{1,255})",\s*(?P<port>\d{1,5})',
         '(<0.305.0>) call gen_tcp:connect("kafka-1.example",9092,[{active,false},binary],5000)')
def _gen_tcp_call(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    remember(scan, m.group("host"), int(m.group("port")))
    return iter(())


# --- the runtimes' words --------------------------------------------------------------------------------------

def _runtime_words(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from failure_at(scan, m.group(0), None, None)


# Erlang/Elixir inet errors, as a tuple or an Elixir atom: {error,nxdomain}, {connection_failure,econnrefused},
# {:error, :econnrefused}, reason:econnrefused.
for _atom in _ERLANG:
    pattern(f"erlang.{_atom}", OTHER, _atom, rf"(?<![\w]):?{_atom}\b",
            {"nxdomain": "(<0.305.0>) returned from gen_tcp:connect/4 -> {error,nxdomain}",
             "econnrefused": "reason:{connection_failure,econnrefused}",
             "ehostunreach": "[error] Could not connect to broker \"kafka-1.example\":9092 because of error "
                             "{:error, :ehostunreach}",
             "enetunreach": "{connection_failure,enetunreach}",
             "etimedout": "{error,etimedout}"}[_atom])(_runtime_words)


# Ruby: Errno::ECONNREFUSED's message "Connection refused - connect(2) for \"host\" port 9092" names the endpoint;
# SocketError's "getaddrinfo: Name or service not known" does not.
@pattern("ruby.connect2", OTHER, "connect(2) for ",
         rf'(?P<why>[A-Z][\w ]+?) - connect\(2\) for {_QUOTED_HOST}(?::| port )(?P<port>\d{{1,5}})',
         'Errno::ECONNREFUSED: Connection refused - connect(2) for "kafka-1.example" port 9092')
def _ruby_connect2(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    if scan.recent is not None and scan.recent[0] == scan.line and scan.recent[2] == port and \
            classify_host(host).is_ip:
        return  # ruby-kafka's "Failed to connect to h:9092: ... - connect(2) for <h's IP>:9092": the same endpoint
    yield from failure_at(scan, m.group("why"), host, port)


@pattern("ruby.getaddrinfo", OTHER, "getaddrinfo: ", r"getaddrinfo: (?P<why>[^\n(]{3,80})",
         "SocketError: getaddrinfo: Name or service not known")
def _ruby_getaddrinfo(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from failure_at(scan, m.group("why"), None, None)


# Dart dart:io: "SocketException: Failed host lookup: 'host' (OS Error: ..., errno = 8)" and "SocketException:
# Connection refused (OS Error: Connection refused, errno = 111), address = host, port = 9092".
@pattern("dart.socket_exception", OTHER, "SocketException: ",
         r"SocketException: (?:Failed host lookup: '(?P<host>[^']{1,255})'|(?P<why>[^(,]{3,80}) \(OS Error)"
         r"(?:.*?address = (?P<address>[^,\s]+), port = (?P<port>\d{1,5}))?",  # "(OS Error": Dart's, not Java's
         "SocketException: Failed host lookup: 'kafka-1.example' (OS Error: nodename nor servname provided, or not "
         "known, errno = 8)")
def _dart_socket(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("host"):
        yield from failure_at(scan, "Failed host lookup", m.group("host"), None)
        return
    port = m.group("port")
    yield from failure_at(scan, m.group("why"), m.group("address"), int(port) if port else None)


# .NET System.Net.Sockets.SocketException: "(10061): No connection could be made because the target machine
# actively refused it. 192.0.2.1:9092", "(11001): No such host is known.", "(111): Connection refused 192.0.2.1:9092".
@pattern("dotnet.socket_exception", OTHER, "SocketException (",
         rf"SocketException \([\dxA-Fa-f, ]+\): (?P<why>[^.\n]{{3,120}})\.?(?: (?P<hp>{HOST}:\d{{1,5}}))?",
         "System.Net.Sockets.SocketException (10061): No connection could be made because the target machine "
         "actively refused it. 192.0.2.1:9092")
def _dotnet_socket(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield from failure_at(scan, m.group("why"), host, port)


# Rust std::io::Error's Display: "Connection refused (os error 111)"; the resolver's "failed to lookup address
# information: Name or service not known".
@pattern("rust.os_error", OTHER, "(os error ", r"(?P<why>[A-Z][\w ]{3,60}) \(os error \d+\)",
         "Failed to connect to broker: IO error: Connection refused (os error 111)")
def _rust_os_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from failure_at(scan, m.group("why"), None, None)


# kafka-rust's Error::NoHostReachable: no bootstrap host answered, and the line says no more.
pattern("rust.no_host_reachable", OTHER, "NoHostReachable", r"\bNoHostReachable\b",
        "Error: Kafka Error (NoHostReachable)")(gave_up("NoHostReachable"))


# criteo/kafka-sharp (.NET) Producer: "[Producer] No partition available for topic {0}, postponing messages." -- the
# metadata lists no partition for the topic: most likely it does not exist (kafka-sharp never asks the broker to create
# it), or none of its partitions has a leader.
@pattern("kafka_sharp.no_partition", OTHER, "No partition available for topic",
         r"No partition available for topic (?P<topic>[A-Za-z0-9._-]{1,249}|<[\w .-]{1,60}>)",
         "[2026-11-26 10:00:00] ERROR [Producer] No partition available for topic orders, postponing messages.")
def _kafka_sharp_no_partition(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TOPIC_MISSING, OTHER, topic=m.group("topic"), detail=m.group(0), guess=m.group(0),
                   alternatives=("NO_LEADER",))


# Rust's io::ErrorKind::UnexpectedEof as tokio and std words it: the broker hung up mid-answer.
@pattern("rust.early_eof", OTHER, "early eof", r"\bearly eof\b",
         "Failed to connect to broker: cannot sync versions: Cannot read framed message: Cannot read data: early eof")
def _rust_early_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, OTHER, detail=m.string.strip()[-120:])


# Rust's std::io::Error as Debug prints it (a panic's unwrap, kafka-rust's "{:?}"): Os { code, kind, message }.
@pattern("rust.os_error_debug", OTHER, "Os { code: ", r'Os \{ code: \d+, kind: \w+, message: "(?P<why>[^"]{3,80})" \}',
         'called `Result::unwrap()` on an `Err` value: Io(Os { code: 111, kind: ConnectionRefused, message: '
         '"Connection refused" })')
def _rust_os_error_debug(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from failure_at(scan, m.group("why"), None, None)


@pattern("rust.lookup", OTHER, "failed to lookup address information",
         r"failed to lookup address information: (?P<why>[^\n]{3,80})",
         "Failed to connect: failed to lookup address information: Name or service not known")
def _rust_lookup(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from failure_at(scan, m.group("why"), None, None)
