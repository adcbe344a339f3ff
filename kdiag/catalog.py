"""The catalog of finding ids: what each means, where it is raised, the usual fix, and the lab
scenarios that reproduce it — what ``kdiag findings`` prints and ``docs/findings.md`` holds.

The title and severity of an id raised by a diagnosis rule come from that rule (``kdiag.diagnose``),
so the catalog cannot drift from what the rules say; the rest is written here once. A test keeps
this catalog, the rules, explain's patterns, the lab's expectations and ``docs/findings.md`` equal.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where an id is raised: a stage of ``kdiag bootstrap``, or another command.
DNS, TCP, TLS, SASL, METADATA, ADVERTISED, ROUNDTRIP = "dns", "tcp", "tls", "sasl", "metadata", "advertised", "roundtrip"
EXPLAIN, PCAP, DIFF, WATCH = "explain", "pcap", "diff", "watch"
IDLE_CHECK = "idle-check"  # kdiag bootstrap --idle-check SECONDS
WATCH_IDLE_CHECK = "watch-idle-check"  # kdiag watch --idle-check DURATION: one connection kept idle across probes


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    severity: str
    title: str
    meaning: str  # what it means, in a sentence or two
    raised_by: tuple[str, ...]  # bootstrap stages (dns, tcp, ...) and commands (explain, pcap, ...)
    fix: str  # the usual fix, in words; the finding itself carries the copy-paste lines
    scenarios: tuple[str, ...] = ()  # ``kdiag lab`` scenarios in which some vantage expects it


@dataclass(frozen=True)
class EntryText:
    meaning: str
    raised_by: tuple[str, ...]
    fix: str


ENTRY_TEXTS: dict[str, EntryText] = {
    "BOOTSTRAP_UNRESOLVABLE": EntryText(
        "No address for the bootstrap host: NXDOMAIN, no answer, SERVFAIL or a resolver that does not answer.",
        (DNS, EXPLAIN),
        "Fix the name in bootstrap.servers (a typo, a missing DNS record or hosts entry) or bootstrap with an "
        "address that resolves here."),
    "BOOTSTRAP_REFUSED": EntryText(
        "The bootstrap host resolves, but nothing listens on that port (or a firewall REJECTs with a reset).",
        (TCP, EXPLAIN),
        "Check the port in bootstrap.servers and that the broker listens on an interface this machine can reach "
        "(listeners=PLAINTEXT://0.0.0.0:9092, not 127.0.0.1), or use the listener that does (see "
        "OTHER_LISTENER_WORKS)."),
    "BOOTSTRAP_TIMEOUT": EntryText(
        "Connecting to the bootstrap address times out: packets are dropped on the way (security group, firewall, "
        "NACL) or the host is not there.",
        (TCP, EXPLAIN),
        "Open the port from this network (security group / firewall rule for the client's source address)."),
    "BOOTSTRAP_UNREACHABLE": EntryText(
        "No route to the bootstrap address (ICMP host or network unreachable): routing, VPN or peering.",
        (TCP, EXPLAIN),
        "Fix the route from this machine to the cluster's network (VPN, peering, route tables)."),
    "NOT_KAFKA": EntryText(
        "The port accepts connections but does not speak Kafka: HTTP, SSH, ZooKeeper, a proxy's page, or silence.",
        (METADATA, ADVERTISED, EXPLAIN, PCAP),
        "Bootstrap with the Kafka listener's port; the evidence says what answered instead."),
    "BROKER_STALLED": EntryText(
        "The peer began a Kafka answer (a size, a few bytes) and then sent nothing more, or trickled it too slowly "
        "to finish within the run's timeout: a hung broker, a proxy that cannot forward, an MTU black hole. Or it "
        "answered nothing and did not react when kdiag closed its side either: the kernel accepted the connection "
        "but the broker's process is not reading (frozen: a long GC pause, SIGSTOP, a paused VM; or hung).",
        (METADATA, ADVERTISED, EXPLAIN),
        "Check the broker's health (stopped? ps state T; GC log, jstack) and the network path (MTU); the evidence "
        "says how many bytes came in how long."),
    "BROKER_CLOSED_CONNECTION": EntryText(
        "The peer accepted the connection and closed it instead of answering: before ApiVersions, as a broker "
        "turns away an address that already has max.connections.per.ip connections (`Rejected connection from "
        "/IP` in its log) or a proxy without a backend does; mid-conversation, a request it would not serve or a "
        "broker shutting down.",
        (METADATA, ADVERTISED, EXPLAIN),
        "Read the broker's (or the proxy's) log at the time of the run for why it closed the connection; raise "
        "max.connections.per.ip(.overrides) for the client's address if it was rejected."),
    "RESPONSE_TOO_LARGE": EntryText(
        "The peer's answer declared a size no Kafka broker sends for that request (a 63 MiB ApiVersions answer); "
        "kdiag refused it unread to bound its memory. A bootstrap's Metadata answer for every topic over the cap "
        "can also be a real cluster with some hundreds of thousands of partitions: kdiag then asks for "
        "__consumer_offsets alone and goes on (a warning).",
        (METADATA, ADVERTISED),
        "Find what listens on that address; point the client at the Kafka listener."),
    "TLS_EXPECTED": EntryText(
        "A plaintext client on a TLS listener: the broker answers the client's first request with a TLS alert.",
        (METADATA, EXPLAIN, PCAP),
        "Set security.protocol=SSL (or SASL_SSL) and the CA (ssl.ca.location / ssl.truststore.location), or use "
        "the cluster's plaintext listener; the broker's listener.security.protocol.map says which listener speaks "
        "what."),
    "TLS_UNEXPECTED": EntryText(
        "A TLS client on a plaintext listener: the handshake gets Kafka bytes, or the connection closes.",
        (TLS, EXPLAIN, PCAP),
        "Set security.protocol=PLAINTEXT (or SASL_PLAINTEXT), or bootstrap with the TLS listener's port; the "
        "broker's listener.security.protocol.map says which listener speaks what."),
    "TLS_CERT_UNTRUSTED": EntryText(
        "The broker's certificate chain does not verify against the client's CA bundle.",
        (TLS, ADVERTISED, EXPLAIN),
        "Give the client the CA that signed the broker's certificate (ssl.ca.location / ssl.truststore.location); "
        "turning verification off (enable.ssl.certificate.verification=false) only hides it."),
    "TLS_HOSTNAME_MISMATCH": EntryText(
        "The name the client connects to (bootstrap or advertised) is not in the broker's certificate.",
        (TLS, ADVERTISED, EXPLAIN),
        "Reissue the certificate with that name in its subjectAltName, or advertise a name the certificate has "
        "(advertised.listeners); emptying ssl.endpoint.identification.algorithm turns the check off and only "
        "hides it."),
    "TLS_CLIENT_CERT_REQUIRED": EntryText(
        "The listener requires a client certificate (ssl.client.auth=required) and the client sent none.",
        (TLS, EXPLAIN),
        "Give the client a keystore or certificate and key (ssl.keystore.location / ssl.certificate.location and "
        "ssl.key.location), or set ssl.client.auth=none on the listener if it is not meant to require one."),
    "TLS_CLIENT_CERT_REJECTED": EntryText(
        "The client sent a certificate the broker does not trust.",
        (TLS, EXPLAIN),
        "Sign the client certificate with a CA in the broker's truststore (the broker's ssl.truststore.location), "
        "or add its CA there."),
    "SASL_REQUIRED": EntryText(
        "The listener wants SASL and the client sent none: the broker closes the connection on the first request.",
        (METADATA, SASL, EXPLAIN),
        "Set security.protocol=SASL_PLAINTEXT or SASL_SSL with the mechanism (sasl.mechanism; librdkafka: "
        "sasl.mechanisms) and credentials (sasl.jaas.config, or sasl.username and sasl.password)."),
    "SASL_MECHANISM_MISMATCH": EntryText(
        "The client's SASL mechanism is not among those the listener enables.",
        (SASL, EXPLAIN),
        "Use a mechanism the listener enables (the evidence lists them) in sasl.mechanism (librdkafka: "
        "sasl.mechanisms), or enable the client's on the broker (sasl.enabled.mechanisms, per listener)."),
    "SASL_AUTH_FAILED": EntryText(
        "The broker rejected the SASL credentials.",
        (SASL, EXPLAIN),
        "Check the user name and password (sasl.jaas.config, or sasl.username / sasl.password) and, for SCRAM, "
        "that the user exists with that mechanism (kafka-configs --describe --entity-type users)."),
    "SASL_CONNECTION_CLOSED": EntryText(
        "The broker closed the connection instead of answering the SASL login (SaslAuthenticate) or handshake: most "
        "likely rejected credentials, from a broker or proxy that closes rather than answering "
        "SASL_AUTHENTICATION_FAILED (Kafka before 1.0, franz-go's kfake, some proxies). The evidence has the bytes "
        "sent and how long after them the close came.",
        (SASL,),
        "Confirm in the broker's log (Failed authentication ...), then check the user name and password."),
    "BROKER_TOO_OLD": EntryText(
        "The broker's ApiVersions answer shares no version of a request kdiag needs (Metadata, SaslHandshake v1, "
        "FindCoordinator, ...): the evidence has both version ranges. From a log: a client's or an old broker's "
        "words for the same gap (UnsupportedVersionException, UNSUPPORTED_VERSION, `Wrong request type`); likely "
        "when a client says it, since a Kafka-compatible server lacking the request says the same.",
        (METADATA, SASL, ADVERTISED, EXPLAIN),
        "Upgrade the broker (or kdiag, when the broker is the newer side), or check it with a client of its era; "
        "for a client, pin its protocol versions to the broker's (Sarama config.Version, kafka-python api_version, "
        "librdkafka broker.version.fallback with api.version.request=false)."),
    "STAGE_FAILED_UNEXPLAINED": EntryText(
        "A stage failed and no other rule explains it: the most likely reading for that stage, hedged, with the "
        "command that would make it certain.",
        (DNS, TCP, TLS, SASL, METADATA, ADVERTISED, ROUNDTRIP),
        "Run the command in the finding; the stage summary is what kdiag saw."),
    "ADVERTISED_NONROUTABLE": EntryText(
        "A broker advertises 0.0.0.0, a multicast or another address no client can connect to.",
        (ADVERTISED, EXPLAIN, PCAP),
        "Set advertised.listeners to a name or address clients use; 0.0.0.0 belongs in listeners= only."),
    "ADVERTISED_LOOPBACK": EntryText(
        "A broker advertises localhost/127.x/::1 while this client reached the cluster through another address: "
        "every later connection goes to the client's own machine.",
        (ADVERTISED, EXPLAIN, PCAP),
        "Set advertised.listeners (KAFKA_ADVERTISED_LISTENERS in Docker images) to the address clients reach the "
        "broker by (the one the bootstrap used), per listener."),
    "ADVERTISED_UNRESOLVABLE": EntryText(
        "An advertised broker host does not resolve from here: an EC2 internal name, a container name, a "
        "Kubernetes service name.",
        (ADVERTISED, EXPLAIN),
        "Set advertised.listeners (KAFKA_ADVERTISED_LISTENERS in Docker images) to a name this network resolves, "
        "or add a listener for clients outside (its name in listeners, advertised.listeners and "
        "listener.security.protocol.map)."),
    "ADVERTISED_UNREACHABLE": EntryText(
        "An advertised broker resolves, but its port is refused, filtered or unroutable from here (NAT, port "
        "mapping, firewall on the brokers).",
        (ADVERTISED, EXPLAIN, PCAP),
        "Set advertised.listeners to the host and port clients can reach (the NAT'd or mapped one), or open the "
        "path to it."),
    "ADVERTISED_DUPLICATE": EntryText(
        "Two brokers advertise the same host and port, so clients cannot reach one of them.",
        (ADVERTISED, EXPLAIN, PCAP),
        "Give each broker its own advertised host:port (advertised.listeners differs per broker)."),
    "ADVERTISED_WRONG_BROKER": EntryText(
        "An advertised endpoint is reachable but answers as another broker or another cluster (port mappings "
        "crossed, a load balancer, a stale DNS record). explain: NOT_LEADER_OR_FOLLOWER and NOT_COORDINATOR "
        "answers together, or a send that failed on NOT_LEADER_OR_FOLLOWER, as a reading.",
        (ADVERTISED, EXPLAIN),
        "Point each advertised endpoint at its own broker (check port mappings and DNS records)."),
    "PARTIAL_CLUSTER": EntryText(
        "Some brokers are reachable and some are not: names the partitions and topics whose leaders cannot be "
        "reached.",
        (ADVERTISED, EXPLAIN),
        "Fix the unreachable brokers' advertised listeners (advertised.listeners; the other findings say how)."),
    "COORDINATOR_UNREACHABLE": EntryText(
        "The consumer-group coordinator's advertised endpoint cannot be reached: producers work, consumers hang. "
        "explain names a coordinator it saw fail by how it failed (ADVERTISED_UNRESOLVABLE, ADVERTISED_UNREACHABLE, "
        "...), with the coordinator's role.",
        (ADVERTISED, PCAP),
        "Fix that broker's advertised listener (advertised.listeners); consumers need the coordinator as much as "
        "the leaders."),
    "NO_LEADER": EntryText(
        "A partition has no leader (its replicas are offline), so produce and fetch to it fail.",
        (METADATA, EXPLAIN),
        "Bring the partition's replicas back; see kafka-topics --describe --unavailable-partitions."),
    "TOPIC_NOT_FOUND": EntryText(
        "The round-trip topic does not exist and the broker does not create it.",
        (ROUNDTRIP, EXPLAIN),
        "Create the topic, or enable auto.create.topics.enable on the brokers."),
    "TOPIC_AUTHORIZATION_FAILED": EntryText(
        "The client's principal may not use the topic, or its consumer group (ACLs; explain reads "
        "GROUP_AUTHORIZATION_FAILED as this too).",
        (ROUNDTRIP, EXPLAIN),
        "Grant the principal WRITE/READ on the topic (and READ on the group) with kafka-acls."),
    "ROUNDTRIP_FAILED": EntryText(
        "Produce or consume failed for another reason; the client's own error text is in the evidence.",
        (ROUNDTRIP, EXPLAIN),
        "Read the client's error in the evidence; it names the cause."),
    "ADVERTISED_ADDRESS_FAMILY_SPLIT": EntryText(
        "An advertised name has several addresses (localhost: ::1 and 127.0.0.1) and the broker answers on some "
        "only: clients that try the next address on every reconnect fail every other connect.",
        (ADVERTISED, TCP, EXPLAIN),
        "Make the broker listen on every address the name has (listeners=PLAINTEXT://[::]:9092), advertise an "
        "address literal, or pin the client's broker.address.family."),
    "LOAD_BALANCED_BOOTSTRAP": EntryText(
        "The bootstrap address is one round-robin load balancer for all brokers: fresh connections reach "
        "different brokers, and requests for a partition land on the wrong one. explain: a send that failed on "
        "NOT_LEADER_OR_FOLLOWER, as a reading.",
        (ADVERTISED, EXPLAIN),
        "Give each broker its own advertised address (one load balancer or port per broker); keep the shared "
        "one for the bootstrap only."),
    "INGRESS_DEFAULT_BACKEND": EntryText(
        "TLS reached an ingress controller's default backend (its fake certificate): SNI routing missed, because "
        "the client connected by IP address (no SNI) or with a name no route has. Clients name no certificate "
        "('certificate verify failed', 'PKIX path building failed', as for an untrusted CA); with verification off "
        "they read the default backend's HTTP answer inside TLS ('Invalid response size 1213486160').",
        (TLS, ADVERTISED, EXPLAIN),
        "Bootstrap with the ingress host name the route is for, and advertise per-broker ingress hosts "
        "(Strimzi: the ingress listener's bootstrap.host and brokers[].host)."),
    "IDLE_CONNECTION_DROPPED": EntryText(
        "A connection left idle is dropped silently by a NAT gateway, load balancer or firewall in the path: "
        "the next request hangs until the client's request timeout. librdkafka: 'N request(s) timed out: disconnect "
        "(after ...ms in state UP)' or 'Timed out ProduceRequest in flight'; Java: 'Disconnected from node N due to "
        "timeout'; explain reads those as the likely reading (a broker that stopped answering in time says the same), "
        "--idle-check makes it certain.",
        (IDLE_CHECK, WATCH_IDLE_CHECK, EXPLAIN),
        "Make the client's idle close shorter than the path's idle timeout (connections.max.idle.ms), or raise "
        "the NAT/LB idle timeout; TCP keepalive where the client has it."),
    "KERBEROS_PRINCIPAL_UNKNOWN": EntryText(
        "The KDC has no service principal for the name a GSSAPI client connects to: sasl.kerberos.service.name/"
        "host@REALM, the host canonicalised as MIT Kerberos does (forward lookup, then reverse DNS with rdns = "
        "true). librdkafka: 'Server kafka/...@REALM not found in Kerberos database'; Java: LOOKING_UP_SERVER.",
        (SASL, EXPLAIN),
        "Use the host name in the broker's principal (not an address), rdns = false / dns_canonicalize_hostname = "
        "false in krb5.conf when the name as written is right, or create the principal the client asks for and "
        "put it in the broker's keytab; check with kvno -S kafka HOST."),
    "OTHER_LISTENER_WORKS": EntryText(
        "Another listener of the bootstrap host works from here: its advertised brokers all resolve and answer.",
        (ADVERTISED, TCP),
        "Bootstrap with that listener's port instead, if it is meant for clients where you are."),
}


def catalog() -> tuple[CatalogEntry, ...]:
    """Every finding id, in the diagnosis catalog's order, with the lab scenarios that reproduce it."""
    from kdiag.diagnose import RULES

    rules = {rule.id: rule for rule in RULES}
    scenarios = _scenarios_by_id()
    ordered = list(rules) + [finding_id for finding_id in ENTRY_TEXTS if finding_id not in rules]
    entries = []
    for finding_id in ordered:
        rule = rules.get(finding_id)
        text = ENTRY_TEXTS.get(finding_id) or EntryText(rule.title if rule else finding_id, (), "")  # tests insist on one
        entries.append(CatalogEntry(
            id=finding_id, severity=rule.severity if rule else "error", title=rule.title if rule else finding_id,
            meaning=text.meaning, raised_by=text.raised_by, fix=text.fix,
            scenarios=tuple(sorted(scenarios.get(finding_id, ()))),
        ))
    return tuple(entries)


def entry(finding_id: str) -> CatalogEntry | None:
    wanted = finding_id.strip().upper()
    return next((e for e in catalog() if e.id == wanted), None)


def _scenarios_by_id() -> dict[str, set[str]]:
    from kdiag.lab.scenarios import all_scenarios

    found: dict[str, set[str]] = {}
    for scenario in all_scenarios():
        for vantage in scenario.vantages:
            for expected in (*vantage.expect.findings, *vantage.expect.hints):
                found.setdefault(expected.id, set()).add(scenario.name)
    return found
