"""The Java client's lines, and those of the console tools and Kafka Connect that use it.

A Java connection line (``Connection to node -1 (host/1.2.3.4:9092) ...``) names the endpoint the
exception lines below it are about; an ``OutOfMemoryError`` waits for the ``NetworkReceive.readFrom``
frame that makes it a TLS listener read as plaintext. Kafka's own error names (``UNKNOWN_TOPIC_OR_PARTITION``,
``LISTENER_NOT_FOUND``), which every client prints the same way, are read here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.explain.clients.framework_topics import topics_in
from kdiag.explain.clients.java_states import client_side_sasl, node_where
from kdiag.explain.sightings import (ANY, BOOTSTRAP, BOOTSTRAP_DISCONNECTED, CERT_NAME, CERT_UNTRUSTED, CONNECT,
                                     CONTEXT_LINES, HEAP_EXHAUSTED, HOST, HOSTPORT, JAVA, KERBEROS_PRINCIPAL,
                                     NO_LEADER, PLAINTEXT_ON_TLS, REQUEST_TIMEOUT, RESOLVE, SASL_CREDENTIALS,
                                     SASL_MECHANISM, TLS_FAILED, TLS_ON_PLAINTEXT, TOPIC_DENIED, TOPIC_MISSING,
                                     UNKNOWN, Fact, Item, Pattern, ScanState, Sighting, client_certificate_symptom,
                                     dns_status, parse_mechanisms, registrar, role_of, split_endpoint, with_connection)
from kdiag.explain.tls_readings import handshake_failure_alert, hung_up_in_handshake
PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


_JAVA_NODE = re.compile(r"\bnode (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\)")


# --- the Java client, the console tools, and the broker's own log ------------------------------------


@pattern("java.connection_failed", JAVA, "could not be established",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) could not "
         r"be established\.(?: (?:Broker|Node) may not be available\.)?",
         "[2026-11-21 14:25:11,623] WARN [Producer clientId=console-producer] Connection to node -1 "
         "(localhost/127.0.0.1:9092) could not be established. Node may not be available. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_connection_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    connection = scan.java_connection(m)
    # Java logs this for every refused or unroutable connect (a ConnectException); it does not say which. A group
    # coordinator's connection (id Integer.MAX_VALUE - broker id) is that broker's, reached as the coordinator.
    yield Sighting(CONNECT, JAVA, connection.host, connection.port, connection.address, status="refused",
                   detail="could not be established", **node_where(int(m.group("id"))))  # type: ignore[arg-type]


@pattern("java.terminated_during_authentication", JAVA, "terminated during authentication",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) "
         r"terminated during authentication(?!\. This may indicate that authentication failed)",  # (1.0's: hangups)
         "[2026-11-21 14:31:30,966] WARN [Producer clientId=console-producer] Connection to node -1 "
         "(/127.0.0.1:9092) terminated during authentication. This may happen due to any of the following reasons: "
         "(1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_terminated(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    connection = scan.java_connection(m)
    where = node_where(int(m.group("id")))
    sighting = Sighting(TLS_ON_PLAINTEXT, JAVA, connection.host, connection.port, connection.address,
                        detail="terminated during authentication", **where)  # type: ignore[arg-type]
    # TLS on: a hang-up in its handshake (its words name a firewall too); off: terminated_during_authentication's
    yield hung_up_in_handshake(sighting, "terminated during authentication")


@pattern("java.kerberos_login", JAVA, "kerberos.KerberosLogin",
         r"\[Principal=(?P<principal>[^\]\s]+)\]: .*\(org\.apache\.kafka\.common\.security\.kerberos\.KerberosLogin\)",
         "[2026-11-25 11:57:55,420] WARN [Principal=alice@EXAMPLE.TEST]: TGT renewal thread has been interrupted and "
         "will exit. (org.apache.kafka.common.security.kerberos.KerberosLogin)")
def _java_kerberos_login(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # The client logs in with Kerberos: its `terminated during authentication` is a Kerberos error it retries
    # quietly (LOOKING_UP_SERVER, at DEBUG), not TLS.
    yield Fact("kerberos", name=m.group("principal"))


@pattern("java.failed_authentication", JAVA, "failed authentication due to",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) failed "
         r"authentication due to: (?P<why>.*?)(?: \(org\.apache[^)]*\))?$",
         "[2026-11-21 14:31:55,573] ERROR [Producer clientId=console-producer] Connection to node -1 "
         "(localhost/127.0.0.1:9094) failed authentication due to: Authentication failed: Invalid username or "
         "password (org.apache.kafka.clients.NetworkClient)")
def _java_failed_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    connection = scan.java_connection(m)
    why = m.group("why")
    where = {"host": connection.host, "port": connection.port, "address": connection.address,
             **node_where(int(m.group("id")))}
    if "SSL handshake failed" in why or "post-handshake" in why:  # the Caused by: lines below say why; if none
        # does, this line says it. "Failed to process post-handshake messages": a TLS 1.3 alert after the handshake
        yield Sighting(TLS_FAILED, JAVA, detail=why, guess=why, alternatives=("TLS_HOSTNAME_MISMATCH",),
                       **where)  # type: ignore[arg-type]
    elif re.search(r"not enabled in the server|Unexpected handshake request|Too many connects", why) or \
            client_side_sasl(why):  # the mechanism patterns read the first two (ILLEGAL_SASL_STATE: the listener has
        pass  # no SASL); MSK's connection-rate quota, or the client's own JVM failing to set SASL up, is no refused login
    elif "not found in Kerberos database" in why:  # GSSAPI: the KDC has no service principal for the name
        principal = re.search(r"Server (\S+@\S+) not found in Kerberos database", why)
        yield Sighting(KERBEROS_PRINCIPAL, JAVA, detail=principal.group(1) if principal else None,
                       **where)  # type: ignore[arg-type]
    else:
        yield Sighting(SASL_CREDENTIALS, JAVA, detail=why, **where)  # type: ignore[arg-type]


# The same line with its endpoint left out of the paste ("Connection to node -1 (...) failed authentication due to: SSL
# handshake failed"): which TLS failure it was is a reading, the CA most likely (a truststore not loaded, or without it).
@pattern("java.failed_tls_unnamed", JAVA, "failed authentication due to: SSL handshake failed",
         r"Connection to node (?P<id>-?\d+) \((?![^()]*:\d{1,5}\))[^()]*\) failed authentication due to: SSL handshake failed",
         "[Producer clientId=producer-1] Connection to node -1 (...) failed authentication due to: SSL handshake failed")
def _java_failed_tls_unnamed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TLS_FAILED, JAVA, node_id=int(m.group("id")), role=role_of(int(m.group("id"))),
                   detail="SSL handshake failed", guess="SSL handshake failed", alternatives=("TLS_HOSTNAME_MISMATCH",))


@pattern("java.unknown_host", JAVA, "UnknownHostException", rf"UnknownHostException: (?P<host>{HOST})(?::\s*(?P<why>.*))?",
         "java.net.UnknownHostException: ip-172-31-18-160.us-west-2.compute.internal: Name or service not known")
def _java_unknown_host(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host = m.group("host")
    if m.string.startswith(" such host is known", m.end("host")):
        return  # Windows' wording: java.unknown_host_windows reads the host in brackets
    connection = scan.recent_connection(host)
    port = connection.port if connection else None
    node_id = connection.node_id if connection else None
    yield Sighting(RESOLVE, JAVA, host, port, None, node_id, role_of(node_id),
                   status=dns_status(m.group("why"), "nxdomain"), detail=m.group("why"))


# The Java client's DEBUG dump of the metadata it got: every broker with its advertised address, in the old form
# (Cluster(nodes = [Node(0, localhost, 9092)], ...) and the new (Cluster(id = x, nodes = [localhost:9092 (id: 0 ...)).
@pattern("java.metadata_dump", JAVA, "Updated cluster metadata", r"Updated cluster metadata.*?nodes = \[(?P<nodes>[^\]]*)\]",
         "DEBUG Metadata - Updated cluster metadata version 2 to Cluster(nodes = [Node(0, localhost, 9092)], partitions = [])")
def _java_metadata_dump(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    nodes = m.group("nodes")
    for node_id, host, port in re.findall(rf"Node\((-?\d+), ({HOST}), (\d+)\)", nodes):
        yield Fact("broker", host, int(port), int(node_id))
    for host, port, node_id in re.findall(rf"({HOST}):(\d+) \(id: (-?\d+)", nodes):
        yield Fact("broker", host, int(port), int(node_id))


@pattern("java.unresolved_address", JAVA, "UnresolvedAddressException", r"java\.nio\.channels\.UnresolvedAddressException",
         "java.nio.channels.UnresolvedAddressException")
def _java_unresolved_address(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """Java's other word for a name that did not resolve: the connection line above it names the host."""
    connection = scan.java
    if connection is None or scan.line - connection.line > CONTEXT_LINES or connection.host is None:
        yield Sighting(RESOLVE, JAVA, status="nxdomain", detail="UnresolvedAddressException")
        return
    yield Sighting(RESOLVE, JAVA, connection.host, connection.port, None, connection.node_id,
                   role_of(connection.node_id), status="nxdomain", detail="UnresolvedAddressException")


@pattern("java.unknown_host_windows", JAVA, "No such host is known",
         rf"UnknownHostException: No such host is known \((?P<host>{HOST})\)",
         "java.net.UnknownHostException: No such host is known (kafka)")
def _java_unknown_host_windows(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host = m.group("host")
    connection = scan.recent_connection(host)
    node_id = connection.node_id if connection else None
    yield Sighting(RESOLVE, JAVA, host, connection.port if connection else scan.port_of(host), None, node_id,
                   role_of(node_id), status="nxdomain", detail="No such host is known")


@pattern("java.bootstrap_unresolvable", JAVA, "from bootstrap.servers as DNS resolution failed",
         rf"Couldn't resolve server (?:[A-Za-z_]+://)?(?P<hp>{HOSTPORT}) from bootstrap\.servers as DNS resolution failed",
         "[2026-11-21 14:25:30,159] WARN Couldn't resolve server kafka-broker.invalid:9092 from bootstrap.servers "
         "as DNS resolution failed for kafka-broker.invalid (org.apache.kafka.clients.ClientUtils)")
def _java_bootstrap_unresolvable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    yield Sighting(RESOLVE, JAVA, host, port, role=BOOTSTRAP, status="nxdomain",
                   detail="DNS resolution failed")


@pattern("java.no_resolvable_bootstrap", JAVA, "No resolvable bootstrap urls",
         r"No resolvable bootstrap urls given in bootstrap\.servers",
         "Caused by: org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in "
         "bootstrap.servers")
def _java_no_resolvable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, JAVA, role=BOOTSTRAP, status="nxdomain", detail="No resolvable bootstrap urls")


@pattern("java.bootstrap_disconnected", JAVA, "Bootstrap broker",
         rf"Bootstrap broker (?P<hp>{HOSTPORT}) \(id: (?P<id>-?\d+) rack: [^)]*\) disconnected",
         "[2026-11-21 14:30:41,075] WARN [Producer clientId=console-producer] Bootstrap broker 127.0.0.1:9092 "
         "(id: -1 rack: null) disconnected (org.apache.kafka.clients.NetworkClient)")
def _java_bootstrap_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    yield Sighting(BOOTSTRAP_DISCONNECTED, JAVA, host, port, node_id=int(m.group("id")), role=BOOTSTRAP)


@pattern("java.metadata_errors", JAVA, "correlation id",
         r"(?:Error while fetching metadata|reported a recoverable issue) with correlation id \d+ : \{(?P<errors>[^}]*)\}",
         "[2026-11-21 14:28:38,421] WARN [Producer clientId=console-producer] The metadata response from the cluster "
         "reported a recoverable issue with correlation id 1 : {missing-topic=UNKNOWN_TOPIC_OR_PARTITION} "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_metadata_errors(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("metadata")  # a broker answered the metadata request
    for pair in m.group("errors").split(","):
        topic, _, error = pair.strip().rpartition("=")
        symptom = {"UNKNOWN_TOPIC_OR_PARTITION": TOPIC_MISSING, "TOPIC_AUTHORIZATION_FAILED": TOPIC_DENIED,
                   "LEADER_NOT_AVAILABLE": NO_LEADER, "LISTENER_NOT_FOUND": NO_LEADER}.get(error)
        if symptom is not None and topic:
            yield Sighting(symptom, JAVA, topic=topic, detail=error)


# A request on an open connection got no answer within request.timeout.ms, and the client dropped the connection:
# the WARN a producer logs for the batch it retries (below it, NetworkClient's INFO `Disconnecting from node 1 due
# to request timeout`). Seen in the lab behind a NAT that forgot the idle connection (idle-nat-drop).
@pattern("java.request_timeout", JAVA, "due to ",
         r"Disconnect(?:ed|ing) from node (?P<id>-?\d+) due to (?:request )?timeout",
         "[2026-11-25 12:45:02,515] WARN [Producer clientId=console-producer] Got error produce response with "
         "correlation id 5 on topic-partition orders-0, retrying (2 attempts left). Error: REQUEST_TIMED_OUT. Error "
         "Message: Disconnected from node 1 due to timeout (org.apache.kafka.clients.producer.internals.Sender)")
def _java_request_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id = int(m.group("id"))
    yield with_connection(scan, Sighting(REQUEST_TIMEOUT, JAVA, node_id=node_id, role=role_of(node_id),
                                         detail="request.timeout.ms passed without an answer"))


@pattern("any.unknown_topic", ANY, "does not host this topic-partition",
         r"(?:UnknownTopicOrPartitionException: )?This server does not host this topic-partition",
         "Caused by: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host "
         "this topic-partition.")
def _unknown_topic(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    client = JAVA if "Exception" in m.string else ANY
    # With no topic named anywhere above, the code alone is a likely reading: a produce or fetch to a partition the
    # topic does not have (a mirror whose source has more partitions), or to a broker that no longer hosts it (a
    # reassignment the client's metadata has not caught up with), is answered with the same words. The answer to a
    # Metadata request (kafkajs's "Response Metadata(...)") asks for no partition: a topic missing.
    certain = scan.topic or re.search(r"\bResponse Metadata\(", m.string)
    guess = None if certain else f"{m.group(0)} (no topic named: or a partition it does not have)"
    yield Sighting(TOPIC_MISSING, client, topic=scan.topic, guess=guess)


@pattern("any.topic_authorization", ANY, "Not authorized to access topics",
         r"Not authorized to access topics: \[(?P<topics>[^\]]*)\]",
         "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders]")
def _topic_authorization(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    client = JAVA if "Exception" in m.string else ANY
    topics = topics_in(m.group("topics"))  # kafkajs puts the error's words there: [Topic authorization failed]
    for topic in topics or [scan.topic]:
        yield Sighting(TOPIC_DENIED, client, topic=topic)


@pattern("any.no_listener_on_leader", ANY, "no listener on the leader broker",
         r"There is no listener on the leader broker that matches the listener on which metadata request was processed",
         "org.apache.kafka.common.errors.ListenerNotFoundException: There is no listener on the leader broker that "
         "matches the listener on which metadata request was processed.")
def _no_listener(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_LEADER, ANY, topic=scan.topic, detail="LISTENER_NOT_FOUND")


@pattern("java.out_of_memory", JAVA, "OutOfMemoryError", r"java\.lang\.OutOfMemoryError: Java heap space",
         "java.lang.OutOfMemoryError: Java heap space")
def _java_oom(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.pending_oom = (scan.line, scan.text)  # a Kafka client's only if NetworkReceive.readFrom follows
    yield Sighting(HEAP_EXHAUSTED, JAVA, detail=m.group(0))  # else a consequence, its frame unshown


@pattern("java.network_receive", JAVA, "NetworkReceive.readFrom", r"at org\.apache\.kafka\.common\.network\."
         r"NetworkReceive\.readFrom", "\tat org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:103)")
def _java_network_receive(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    pending, scan.pending_oom = scan.pending_oom, None
    if pending is not None and scan.line - pending[0] <= OOM_FRAMES:
        where = scan.java if scan.java is not None and scan.line - scan.java.line <= CONTEXT_LINES else None
        yield Sighting(PLAINTEXT_ON_TLS, JAVA, where.host if where else None, where.port if where else None,
                       node_id=where.node_id if where else None,
                       role=role_of(where.node_id) if where else UNKNOWN,
                       detail="OutOfMemoryError in NetworkReceive.readFrom", related=(pending[1],))


@pattern("java.sasl_authentication", JAVA, "SaslAuthenticationException",
         r"SaslAuthenticationException: (?P<why>.*)",
         "org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication due "
         "to invalid credentials with SASL mechanism SCRAM-SHA-256")
def _java_sasl_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if client_side_sasl(m.group("why")) or "not found in Kerberos database" in m.group("why"):
        return  # its JVM could not set its mechanism up, or the KDC knows no such service (kerberos): no broker refused
    mech = re.search(r"with SASL mechanism (\S+)", m.group("why"))
    yield with_connection(scan, Sighting(SASL_CREDENTIALS, JAVA, mechanism=mech.group(1) if mech else None,
                                          detail=m.group("why")))


@pattern("any.sasl_mechanism", JAVA, "not enabled in the server",
         r"Client SASL mechanism '(?P<mech>[^']+)' not enabled in the server, enabled mechanisms are \[(?P<enabled>[^\]]*)\]",
         "org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism 'SCRAM-SHA-512' "
         "not enabled in the server, enabled mechanisms are [PLAIN]")
def _java_sasl_mechanism(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    connection = _JAVA_NODE.search(m.string)
    sighting = Sighting(SASL_MECHANISM, JAVA, mechanism=m.group("mech").upper(),
                        mechanisms=parse_mechanisms(m.group("enabled")))
    if connection is not None:
        scan.java_connection(connection)
    yield with_connection(scan, sighting)


@pattern("java.subject_alternative_name", JAVA, "No subject alternative",
         r"No subject alternative (?:DNS name matching (?P<dns>\S+) found|names matching IP address (?P<ip>\S+) found"
         r"|names present)",
         "Caused by: java.security.cert.CertificateException: No subject alternative DNS name matching localhost found.")
def _java_san(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    name = (m.group("dns") or m.group("ip") or "").rstrip(".") or None
    sighting = with_connection(scan, Sighting(CERT_NAME, JAVA, detail=m.group(0)))
    yield replace(sighting, host=name or sighting.host)


# Java's words for a certificate without subjectAltNames whose CN is not the name connected to.
@pattern("java.no_name_matching", JAVA, "No name matching", r"No name matching (?P<dns>\S+?)\.? found",
         "Caused by: java.security.cert.CertificateException: No name matching kafka.example.com found")
def _java_no_name_matching(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    sighting = with_connection(scan, Sighting(CERT_NAME, JAVA, detail=m.group(0)))
    yield replace(sighting, host=m.group("dns") or sighting.host)


@pattern("java.pkix", JAVA, "PKIX path", r"PKIX path (?:building|validation) failed",
         "Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
         "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to "
         "requested target")
def _java_pkix(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield with_connection(scan, Sighting(CERT_UNTRUSTED, JAVA, detail="PKIX path building failed"))


# The cause under it, pasted alone as often as not (a framework's stack trace keeps only its last Caused by).
@pattern("java.no_certification_path", JAVA, "unable to find valid certification path",
         r"unable to find valid certification path to requested target",
         "Caused by: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification "
         "path to requested target")
def _java_no_certification_path(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield with_connection(scan, Sighting(CERT_UNTRUSTED, JAVA, detail="PKIX path building failed"))


# The JDK's validity check on the peer's chain (sun.security.x509.CertificateValidity.valid): a certificate in the
# chain the broker sent is past NotAfter (or before NotBefore), which no truststore makes valid.
@pattern("java.certificate_validity", JAVA, "java.security.cert.Certificate",
         r"java\.security\.cert\.Certificate(?P<why>Expired|NotYetValid)Exception: Not(?:After|Before): "
         r"(?P<when>[^\\\n]+?)(?:\\[nt]|\s*$)",
         "Caused by: java.security.cert.CertificateExpiredException: NotAfter: Sat Mar 01 12:00:00 UTC 2025")
def _java_certificate_validity(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    state = "expired" if m.group("why") == "Expired" else "not yet valid"
    yield with_connection(scan, Sighting(CERT_UNTRUSTED, JAVA, detail=f"certificate {state} ({m.group('when')})"))


@pattern("java.client_certificate_alert", JAVA, "Received fatal alert: ",
         r"Received fatal alert: (?P<alert>bad_certificate|certificate_required|certificate_unknown|unknown_ca"
         r"|certificate_expired|certificate_revoked|unsupported_certificate|access_denied|handshake_failure)",
         "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate")
def _java_client_certificate_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    alert = m.group("alert")
    sighting = with_connection(scan, Sighting(client_certificate_symptom(alert, scan), JAVA, detail=alert))
    # handshake_failure (40) is also JSSE's usual "no cipher suite or version both sides allow": likely
    yield handshake_failure_alert(sighting, scan, m.group(0)) if alert == "handshake_failure" else sighting

OOM_FRAMES = 8
"""How many stack frames below an OutOfMemoryError NetworkReceive.readFrom may appear."""
