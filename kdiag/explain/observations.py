"""What a log's lines said, gathered: ``Group`` (every line that reported one failure for one endpoint),
``Facts`` (the bootstrap lists, advertised brokers and topics a log reveals) and ``Observations`` (both,
for one log, with the secrets learned on the way). ``message_of`` takes a line's logger prefix off.

The engine fills them (``engine.observe``); the findings read them (``findings.findings_from``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, fields, replace

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.reader import LogLine
from kdiag.secrets import Secrets
from kdiag.explain.sightings import CONNECT, Fact, Sighting
from kdiag.explain.timestamps import time_of
from kdiag.report import Endpoint

MAX_EXAMPLES = 5
MAX_GROUPS = 256
MAX_FACTS = 256
MAX_QUOTE = 400
MAX_TIMES = 8

_DIGITS = re.compile(r"\d+")
_LIBRDKAFKA_HEAD = re.compile(r"^%\d\|[\d.]+\|[A-Z_]+\|[^|]*\|\s*(?:\[thrd:[^\]]*\]:\s*)?")
_KCAT_HEAD = re.compile(r"^% (?:ERROR|WARNING|FATAL): ")
_LOG4J_HEAD = re.compile(r"^\[?\d{4}-\d\d-\d\d[ T][\d:.,]+\]?\s+(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+"
                         r"(?:\[[^\]]*\]\s+)?")
_LOG4J_TAIL = re.compile(r"\s+\((?:org\.apache|kafka)\.[\w.$]+\)\s*$")
_JSON_MESSAGE = re.compile(r'"message"\s*:\s*"(?P<message>(?:[^"\\]|\\.)*)"')
_AFTER_TAIL = re.compile(r"\s*\(after \d+ms in state [A-Z_]+(?:, \d+ identical error\(s\) suppressed)?\)\s*$")


def message_of(line: str) -> str:
    """The words of a log line without the logger's prefix, timestamps and suffixes."""
    text = line.strip()
    json_message = _JSON_MESSAGE.search(text) if text.startswith("{") else None
    if json_message is not None:
        text = json_message.group("message")
    text = _LIBRDKAFKA_HEAD.sub("", text)
    text = _KCAT_HEAD.sub("", text)
    text = _LOG4J_HEAD.sub("", text)
    text = _LOG4J_TAIL.sub("", text)
    text = _AFTER_TAIL.sub("", text)
    return text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE - 1] + "…"


@dataclass
class Group:
    """Every line that reported one failure for one endpoint (or topic), gathered."""

    first: Sighting
    count: int = 0
    examples: list[tuple[int, str]] = field(default_factory=list)  # (line number, scrubbed line)
    shapes: set[str] = field(default_factory=set)  # each example's line with the numbers taken out
    clients: list[str] = field(default_factory=list)
    roles: set[str] = field(default_factory=set)
    node_ids: set[int] = field(default_factory=set)
    addresses: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    protocols: set[str] = field(default_factory=set)
    related: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # the first lines' own timestamps, in seconds (timestamps)

    def add(self, number: int, text: str, sighting: Sighting) -> None:
        self.count += 1
        if self.first.guess and not sighting.guess:  # a line says plainly what the first only let one guess
            self.first = replace(sighting, **{f.name: getattr(self.first, f.name) for f in fields(sighting)
                                              if getattr(sighting, f.name) is None and f.name != "guess"})
        if len(self.times) < MAX_TIMES and (when := time_of(text)) is not None:
            self.times.append(when)
        if sighting.up_ms is not None and self.first.up_ms is None:  # librdkafka's FAIL line after its REQTMOUT
            self.first = replace(self.first, up_ms=sighting.up_ms)
        if len(self.examples) < MAX_EXAMPLES:
            shape = _DIGITS.sub("#", message_of(text))
            if shape not in self.shapes:
                self.shapes.add(shape)
                self.examples.append((number, text))
                self.related.extend(r for r in sighting.related if r not in self.related)
        if sighting.client not in self.clients:
            self.clients.append(sighting.client)
        self.roles.add(sighting.role)
        if sighting.node_id is not None and len(self.node_ids) < MAX_EXAMPLES:
            self.node_ids.add(sighting.node_id)
        if sighting.address and sighting.address not in self.addresses and len(self.addresses) < MAX_EXAMPLES:
            self.addresses.append(sighting.address)
        if sighting.status:
            self.statuses[sighting.status] += 1
        if sighting.protocol:
            self.protocols.add(sighting.protocol)

    @property
    def symptom(self) -> str:
        return self.first.symptom

    @property
    def line_numbers(self) -> list[int]:
        return [number for number, _ in self.examples]


def group_key(sighting: Sighting) -> tuple[object, ...]:
    host = normalise_host(sighting.host) if sighting.host is not None else None  # "": a host advertised empty
    status = sighting.status if sighting.symptom == CONNECT else None  # refused and timed out are two findings
    return sighting.symptom, host, sighting.port, status, sighting.topic


@dataclass
class Facts:
    """What the log reveals besides failures: the bootstrap lists, the advertised brokers, topics.

    A paste often holds several commands: the bootstrap list that applies to a line is the last one
    named above it (``bootstrap_at``), and each broker list is kept with its line.
    """

    bootstrap_runs: list[tuple[int, tuple[Endpoint, ...], str]] = field(default_factory=list)  # (line, list, text)
    listed: list[tuple[int, int, Endpoint, str]] = field(default_factory=list)  # (line, node id, endpoint, text)
    topics: list[str] = field(default_factory=list)
    kerberos: bool = False  # the client logs in with Kerberos (GSSAPI in its command line, Java's KerberosLogin)
    sasl_seen: bool = False  # the client authenticates (its own "Sending username and password", a SASL_* protocol)
    security: str | None = None  # the security.protocol the client's configuration in the paste shows
    tls_switch: bool = False  # a command line's or a configuration's TLS switch (--ssl, -tls, ssl: true)
    sasl_settings: bool = False  # SASL settings in the client's configuration (sasl.mechanism=..., sasl: {...})
    sasl_reauth: bool = False  # a SASL session with a lifetime: the connection logged in and re-authenticates (KIP-368)
    listener_sasl: bool = False  # the broker's side of the paste shows a SASL listener (clients.broker_configs)
    listener_tls: bool = False  # ... a TLS listener
    retried: bool = False  # the client says it retried, each time on a new connection (kafkajs's retryCount)
    metadata: bool = False  # a line shows the cluster's metadata answer arrived (its partitions' errors, its brokers)
    replicas: int = 0  # the broker replicas a chart's values or a manifest asks for
    unpaired: list[tuple[int, Endpoint, str]] = field(default_factory=list)  # advertised listeners with no broker id
    taken: list[tuple[int, int, Endpoint, str]] = field(default_factory=list)  # an address another broker id holds
    connected: set[tuple[str, int | None]] = field(default_factory=set)  # endpoints a line shows connected (host, port)

    def add(self, number: int, text: str, fact: Fact) -> None:
        if fact.kind in ("kerberos", "sasl", "sasl_setting", "sasl_reauth", "tls", "security", "listener_sasl",
                         "listener_tls", "retried", "metadata"):
            self._add_setting(fact)
            return
        if fact.kind == "topic":
            if fact.name and fact.name not in self.topics and len(self.topics) < MAX_EXAMPLES:
                self.topics.append(fact.name)
            return
        if fact.kind == "replicas":
            self.replicas = max(self.replicas, int(fact.name or 0))
            return
        if fact.host is None:
            return
        if fact.kind == "connected":  # telnet's "Connected to h.", librdkafka's state CONNECT -> APIVERSION_QUERY
            if len(self.connected) < MAX_FACTS:
                self.connected.add((normalise_host(fact.host), fact.port))
            return
        endpoint = Endpoint(fact.host, fact.port or 9092)
        if fact.kind == "taken_endpoint" and fact.node_id is not None:
            if len(self.taken) < MAX_EXAMPLES:
                self.taken.append((number, fact.node_id, endpoint, text))
            return
        if fact.kind == "unpaired_listener":
            if len(self.unpaired) < MAX_EXAMPLES and all(e != endpoint for _, e, _ in self.unpaired):
                self.unpaired.append((number, endpoint, text))
            return
        if fact.kind == "bootstrap":
            self._add_bootstrap(number, text, endpoint)
        elif fact.node_id is not None and fact.node_id >= 0 and len(self.listed) < MAX_FACTS:
            if not any(n == fact.node_id and e == endpoint for _, n, e, _ in self.listed):
                self.listed.append((number, fact.node_id, endpoint, text))

    def _add_setting(self, fact: Fact) -> None:
        if fact.kind == "kerberos":
            self.kerberos = True
        elif fact.kind == "sasl":
            self.sasl_seen = True
        elif fact.kind == "sasl_setting":
            self.sasl_settings = True
        elif fact.kind == "sasl_reauth":
            self.sasl_reauth = self.sasl_seen = True
        elif fact.kind == "tls":
            self.tls_switch = True
        elif fact.kind == "listener_sasl":
            self.listener_sasl = True
        elif fact.kind == "listener_tls":
            self.listener_tls = True
        elif fact.kind == "retried":
            self.retried = True
        elif fact.kind == "metadata":
            self.metadata = True
        elif fact.kind == "security" and self.security is None:
            self.security = fact.name

    @property
    def sasl(self) -> bool:
        """The client authenticates with SASL: its lines say so, or its settings do (a security.protocol shown wins
        over SASL settings, which a Java config dump lists whatever the protocol)."""
        if self.sasl_seen or (self.security or "").startswith("SASL_"):
            return True
        return self.sasl_settings and self.security is None

    @property
    def tls(self) -> bool | None:
        """The client speaks TLS (True), plaintext (False), or the paste does not say (None)."""
        if self.security is not None:
            return self.security.endswith("SSL")
        return True if self.tls_switch else None

    def _add_bootstrap(self, number: int, text: str, endpoint: Endpoint) -> None:
        runs = self.bootstrap_runs
        if runs and runs[-1][0] == number:  # one more address of the same list
            if endpoint not in runs[-1][1]:
                runs[-1] = (number, runs[-1][1] + (endpoint,), text)
            return
        if runs and runs[-1][1] == (endpoint,):  # the same list again (a Java log repeats it every reconnect)
            return
        if len(runs) < MAX_FACTS:
            runs.append((number, (endpoint,), text))

    @property
    def bootstrap(self) -> tuple[Endpoint, ...]:
        """Every bootstrap address the log names, in order."""
        return tuple(dict.fromkeys(e for _, endpoints, _ in self.bootstrap_runs for e in endpoints))

    def bootstrap_at(self, line: int) -> tuple[Endpoint, ...]:
        """The bootstrap list in force at ``line``: the last named above it, else the first named."""
        before = [endpoints for number, endpoints, _ in self.bootstrap_runs if number <= line]
        if before:
            return before[-1]
        return self.bootstrap_runs[0][1] if self.bootstrap_runs else ()

    def bootstrap_line_at(self, line: int) -> tuple[int, str] | None:
        before = [(number, text) for number, _, text in self.bootstrap_runs if number <= line]
        if before:
            return before[-1]
        return (self.bootstrap_runs[0][0], self.bootstrap_runs[0][2]) if self.bootstrap_runs else None

    @property
    def brokers(self) -> dict[int, Endpoint]:
        """Node id -> the first endpoint the log lists for it."""
        first: dict[int, Endpoint] = {}
        for _, node_id, endpoint, _ in self.listed:
            first.setdefault(node_id, endpoint)
        return first


@dataclass
class Observations:
    """Everything gathered from one log."""

    groups: dict[tuple[object, ...], Group] = field(default_factory=dict)
    facts: Facts = field(default_factory=Facts)
    secrets: Secrets = field(default_factory=Secrets)
    lines: int = 0  # lines with something on them
    recognised_lines: int = 0
    truncated_lines: int = 0
    binary_lines: int = 0
    dropped: int = 0  # sightings not kept once MAX_GROUPS distinct things were said
    error_lines: list[tuple[int, str]] = field(default_factory=list)  # unrecognised lines that look like errors

    def add(self, line: LogLine, items: list[Sighting | Fact]) -> None:
        text = self.secrets.scrub(line.text)
        for item in items:
            if isinstance(item, Fact):
                self.facts.add(line.number, text, item)
                continue
            key = group_key(item)
            group = self.groups.get(key)
            if group is None:
                if len(self.groups) >= MAX_GROUPS:
                    self.dropped += 1
                    continue
                group = self.groups[key] = Group(item)
            group.add(line.number, text, item)
