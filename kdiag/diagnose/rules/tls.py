"""Rules for the TLS handshake the client would do: a plaintext client on a TLS listener, a TLS client on a
plaintext one, a chain that does not verify, a name that is not in the certificate, a client certificate that is
missing or rejected. They read the ``tls`` stage and each broker's ``tls`` handshake: verify codes, the
certificate's names and the broker's alerts.
"""

from __future__ import annotations

from collections.abc import Iterator

from kdiag.diagnose.facts import (bootstrap_used, client_sasl_mechanism, client_uses_sasl, client_uses_tls,
                                  security_protocol)
from kdiag.diagnose.fixes import (KRAFT_NOTE, client_settings_fix, free_port_base, listener_protocol, property_lines,
                                  secure_protocol_for)
from kdiag.diagnose.hosts import classify_host, normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.protocol import Probed, Secured, advertised_port_fix, is_tls, probed, routable_brokers
from kdiag.finding import Finding
from kdiag.report import Endpoint, Report, TlsDetail
from probes.hostport import bracketed, hostport
from probes.results import KafkaCheck, TlsResult

_MSK_TLS_PORTS = {9094: "MSK's TLS port", 9194: "MSK's public TLS port",
                  9096: "MSK's SASL/SCRAM port (SASL_SSL, SCRAM-SHA-512)",
                  9196: "MSK's public SASL/SCRAM port (SASL_SSL, SCRAM-SHA-512)",
                  9098: "MSK's IAM port (SASL_SSL, AWS_MSK_IAM)", 9198: "MSK's public IAM port (SASL_SSL, AWS_MSK_IAM)"}


# --- TLS_EXPECTED -------------------------------------------------------------------------------


def _tls_expected(report: Report) -> tuple[Finding, ...]:
    if client_uses_tls(report):
        return ()  # a TLS client that still fails is a TLS_* problem, not this one
    findings = []
    for target in probed(report):
        kafka = target.kafka
        if not (kafka.status == "tls_expected" or (kafka.status == "not_kafka" and is_tls(kafka.foreign))):
            continue
        port = target.endpoint.port
        seen = kafka.foreign.description if kafka.foreign else "a TLS record"
        explanation = (f"kdiag sent a plaintext Kafka request to {hostport(target.endpoint.host, port)} and got "
                       f"back {seen}. The listener expects a TLS handshake first; a client with "
                       f"security.protocol={security_protocol(report)} fails in misleading ways: librdkafka logs "
                       "`Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol "
                       "configuration (connecting to a SSL listener?) or broker version is < 0.10 (see "
                       "api.version.request)`, and a Java client reads the TLS alert bytes as a ~352 MB response "
                       "size and dies with `java.lang.OutOfMemoryError: Java heap space`.")
        if port in _MSK_TLS_PORTS:
            explanation += f" Port {port} is {_MSK_TLS_PORTS[port]}."
        if target.node_id is None:
            title = (f"{hostport(target.endpoint.host, port)} is a TLS listener, but the client connects without TLS "
                     f"(security.protocol={security_protocol(report)})")
            mechanism = client_sasl_mechanism(report)[0]
            if port in (9096, 9196):
                mechanism = "SCRAM-SHA-512"
            elif port in (9098, 9198):
                mechanism = "AWS_MSK_IAM"
            fix = client_settings_fix(report, protocol=secure_protocol_for(report, tls=True, sasl=(
                client_uses_sasl(report) or mechanism is not None)), mechanism=mechanism, ca_needed=True)
        else:
            title = (f"Broker {target.node_id} advertises {hostport(target.endpoint.host, port)}, a TLS port, to "
                     "clients that came in without TLS")
            explanation += (" The bootstrap answered in plaintext, so this broker's advertised address names the "
                            "port of a different listener than the one the client uses.")
            fix = advertised_port_fix(report, target, "the port of its plaintext listener")
        findings.append(finding("TLS_EXPECTED", "error", title, explanation,
                                {**target.evidence, "client_security_protocol": security_protocol(report),
                                 "preview": kafka.foreign.preview if kafka.foreign else None}, fix))
    return tuple(findings)


def tls_targets(report: Report) -> Iterator[Secured]:
    """Each endpoint's TLS handshake that failed: a bootstrap endpoint only when none of its addresses
    worked, each advertised broker's own; an endpoint once."""
    seen: set[tuple[str, int]] = set()
    detail = report.detail("tls")
    handshakes = detail.handshakes if isinstance(detail, TlsDetail) else ()
    by_endpoint: dict[tuple[str, int], list[TlsResult]] = {}
    for result in handshakes:
        if result.host is not None and result.port is not None:
            by_endpoint.setdefault((result.host, result.port), []).append(result)
    for (host, port), results in by_endpoint.items():
        failed = [r for r in results if r.status not in ("ok", "skip")]
        if failed and len(failed) == len(results):
            seen.add((normalise_host(host), port))
            yield Secured(Endpoint(host, port), tls=failed[0])
    for broker in routable_brokers(report):
        key = (normalise_host(broker.host), broker.port)
        if broker.tls is None or broker.tls.status in ("ok", "skip") or key in seen:
            continue
        seen.add(key)
        yield Secured(broker.endpoint, broker.node_id, tls=broker.tls)


# --- TLS ----------------------------------------------------------------------------------------

_SOCKET_REQUEST_MAX_BYTES = 104857600  # socket.request.max.bytes
_SASL_MAX_RECEIVE = 524288  # sasl.server.max.receive.size
_EXPIRED, _NOT_YET_VALID = 10, 9  # X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID


def _tls_evidence(target: Secured, result: TlsResult) -> dict[str, object]:
    cert = result.certificate
    return {**target.evidence, "tls_status": result.status, "sni": result.sni, "verify_code": result.verify_code,
            "verify_error": result.verify_error, "trust": result.trust, "error": result.error,
            "subject": cert.subject if cert else None, "issuer": cert.issuer if cert else None,
            "dns_names": list(cert.dns_names) if cert else None,
            "ip_addresses": list(cert.ip_addresses) if cert else None,
            "not_after": cert.not_after if cert else None}


def _tls_unexpected(report: Report) -> tuple[Finding, ...]:
    findings = []
    protocol = security_protocol(report)
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status not in ("not_tls", "closed"):
            continue
        confirmed = result.status == "not_tls"
        size = result.client_hello_size or 0x16030100
        where = target.where
        if result.plaintext_kafka:
            seen = ("closed the connection right after kdiag's TLS ClientHello, and the same port answered a "
                    "plaintext Kafka ApiVersions on a new connection: it is a plaintext listener")
        elif result.received:
            seen = f"answered kdiag's TLS ClientHello with bytes that are not TLS (`{result.received}`)"
        else:
            seen = ("closed the connection right after kdiag's TLS ClientHello without a TLS answer. That is what a "
                    "plaintext Kafka listener does, but a firewall or proxy that cuts TLS connections (PrivateLink, "
                    "an SNI router without a route for this name) looks the same")
        explanation = (f"The client has security.protocol={protocol}, so it starts with a TLS handshake; {where} "
                       f"{seen}. A plaintext Kafka listener reads the ClientHello's first four bytes as a request "
                       f"size of {size:,} bytes, logs `Invalid receive (size = {size} larger than "
                       f"{_SOCKET_REQUEST_MAX_BYTES})` (on a SASL_PLAINTEXT listener the limit is "
                       f"sasl.server.max.receive.size, {_SASL_MAX_RECEIVE}) and closes. librdkafka reports "
                       "`SSL handshake failed: Disconnected: connecting to a PLAINTEXT broker listener?`; Java "
                       "clients `... terminated during authentication. This may happen due to any of the following "
                       "reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) "
                       "Transient network issue.`")
        if target.node_id is None:
            title = (f"{where} is a plaintext listener, but the client speaks TLS (security.protocol={protocol})"
                     if confirmed else f"The TLS handshake with {where} was cut off: a plaintext listener?")
            plain, secure = secure_protocol_for(report, tls=False), secure_protocol_for(report, tls=True)
            host, port = hostport_parts(target.endpoint)
            tls_port = free_port_base(report, 1)
            broker_side = property_lines(None, [
                ("listeners", f"{plain}://0.0.0.0:{port},{secure}://0.0.0.0:{tls_port}"),
                ("advertised.listeners", f"{plain}://{hostport(host, port)},{secure}://{hostport(host, tls_port)}"),
                ("listener.security.protocol.map", f"{plain}:{plain},{secure}:{secure}"),
                ("ssl.keystore.type", "PEM"),
                ("ssl.keystore.location", "<the broker's private key and certificate chain, PEM>"),
            ], comment="a TLS listener next to the plaintext one (keep your other listeners and the CONTROLLER)")
            fix = ("Either connect without TLS, as this listener expects:\n\n"
                   + client_settings_fix(report, protocol=secure_protocol_for(report, tls=False),
                                         mechanism=client_sasl_mechanism(report)[0])
                   + "\n\nor bootstrap with the port of the broker's TLS listener; if it has none yet, add one:\n\n"
                   + broker_side + f"\n\n{KRAFT_NOTE}")
        else:
            title = (f"Broker {target.node_id} advertises {where}, a plaintext listener, to clients that use TLS"
                     if confirmed else f"The TLS handshake with broker {target.node_id}'s advertised address {where} "
                     "was cut off: a plaintext listener?")
            explanation += (" The bootstrap connection did TLS, so this broker advertises the port of a different "
                            "listener than the one the client uses.")
            fix = advertised_port_fix(report, Probed(target.endpoint, KafkaCheck("skip"), target.node_id),
                                       "the port of its TLS listener")
        findings.append(finding("TLS_UNEXPECTED", "error" if confirmed else "warning", title, explanation,
                                {**target.evidence, "client_security_protocol": protocol, "tls_status": result.status,
                                 "plaintext_kafka": result.plaintext_kafka, "received": result.received,
                                 "client_hello_size": result.client_hello_size, "error": result.error}, fix))
    return tuple(findings)


def _cert_untrusted(report: Report) -> tuple[Finding, ...]:
    findings = []
    bootstrap_issuer = _bootstrap_issuer(report)
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status != "untrusted":
            continue
        cert = result.certificate
        issuer = cert.issuer if cert else None
        where = target.where
        who = f"the broker at {where}" if target.node_id is None else f"broker {target.node_id} at {where}"
        if result.verify_code in (_EXPIRED, _NOT_YET_VALID):
            when = cert.not_after if result.verify_code == _EXPIRED and cert else (cert.not_before if cert else None)
            state = "expired" if result.verify_code == _EXPIRED else "is not valid yet"
            title = f"The certificate of {who} {state}" + (f" ({when})" if when else "")
            explanation = (f"The chain {who} presents fails verification: {result.verify_error}. Every client "
                           "refuses the connection (librdkafka `SSL handshake failed: ... certificate verify "
                           "failed`; Java `CertificateExpiredException` / `CertificateNotYetValidException`)."
                           + (" Check this machine's clock too." if result.verify_code == _NOT_YET_VALID else ""))
            fix = ("Renew the broker's certificate and load it (the broker's ssl.keystore.location, or "
                   "listener.name.<listener>.ssl.keystore.location; a dynamic update avoids a restart):\n"
                   f"  kafka-configs.sh --bootstrap-server {where} --entity-type brokers --entity-name "
                   f"{target.node_id if target.node_id is not None else '<node id>'} --alter --add-config "
                   "listener.name.<listener>.ssl.keystore.location=<renewed keystore>")
        else:
            signed = f"issued by {issuer}" if issuer else "whose issuer kdiag could not read"
            title = (f"The certificate of {who} ({signed}) is not trusted by the client's "
                     f"{_trust_words(result.trust)}")
            explanation = (f"OpenSSL could not build a chain from the certificate {who} presents to a CA the client "
                           f"trusts: {result.verify_error} (verified against {result.trust}).")
            if cert is not None and cert.self_signed:
                explanation += " The certificate is self-signed: the client must trust that very certificate."
            if target.node_id is not None and bootstrap_issuer and issuer and issuer != bootstrap_issuer:
                explanation += (f" The bootstrap broker's certificate, issued by {bootstrap_issuer}, verified: this "
                                "broker's comes from a different CA.")
            explanation += (" librdkafka logs `SSL handshake failed: error:0A000086:SSL routines::certificate verify "
                            "failed: broker certificate could not be verified, verify that ssl.ca.location is "
                            "correctly configured or root CA certificates are installed`; Java `PKIX path building "
                            "failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find "
                            "valid certification path to requested target`.")
            host = target.endpoint.host
            fix = (f"Give the client the CA certificate that issued the broker's ({issuer or 'see below'}), as a PEM "
                   "file:\n\n"
                   "librdkafka clients (confluent-kafka, kcat, kdiag -X):\n"
                   "ssl.ca.location=<ca.pem>\n\n"
                   "Java clients (client.properties, --command-config):\n"
                   "ssl.truststore.type=PEM\n"
                   "ssl.truststore.location=<ca.pem>\n\n"
                   "(or a JKS truststore: keytool -importcert -alias kafka-ca -file <ca.pem> -keystore "
                   "truststore.jks, then ssl.truststore.location=truststore.jks and ssl.truststore.password)\n\n"
                   "To see the chain the broker sends (its last certificate names the CA):\n"
                   f"  openssl s_client -connect {where} -servername {host} -showcerts </dev/null\n"
                   f"Check with:  kdiag bootstrap {_used(report)} -X security.protocol={security_protocol(report)} "
                   "-X ssl.ca.location=<ca.pem>")
        findings.append(finding("TLS_CERT_UNTRUSTED", "error", title, explanation, _tls_evidence(target, result), fix))
    return tuple(findings)


def _hostname_mismatch(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status != "hostname_mismatch":
            continue
        cert = result.certificate
        host, where = target.endpoint.host, target.where
        names = [*(f"DNS:{n}" for n in (cert.dns_names if cert else ())),
                 *(f"IP:{a}" for a in (cert.ip_addresses if cert else ()))]
        listed = ", ".join(names) if names else (f"no subject alternative names (subject {cert.subject})" if cert
                                                 else "names kdiag could not read")
        is_ip = classify_host(host).is_ip
        wanted = f"IP:{normalise_host(host)}" if is_ip else f"DNS:{host}"
        if target.node_id is None:
            title = f"{host} is not in the certificate of the broker at {where} ({listed})"
            named = f"The client connects to {host} and checks"
        else:
            title = f"Broker {target.node_id} advertises {host}, which is not in its certificate ({listed})"
            named = (f"Broker {target.node_id} advertises {where}: clients connect to exactly that name for the "
                     "partitions it leads, and check")
        explanation = (f"{named} that the name is among the certificate's subject alternative names (hostname "
                       "verification is on by default: librdkafka since v2.0.0, "
                       "ssl.endpoint.identification.algorithm=https; Java clients since Kafka 2.0). The certificate "
                       f"holds {listed}; {wanted} is not among them.")
        if is_ip:
            explanation += (" For an IP address only an IP SAN counts (a DNS SAN spelling the address does not), and "
                            "librdkafka builds with an OpenSSL older than 3.0 do not match IP SANs at all: advertise "
                            "a DNS name where you can. Java clients log `java.security.cert.CertificateException: No "
                            f"subject alternative names matching IP address {host} found`.")
        else:
            explanation += (" Java clients log `java.security.cert.CertificateException: No subject alternative DNS "
                            f"name matching {host} found.`")
        explanation += (" librdkafka: `SSL handshake failed: ... certificate verify failed` (OpenSSL: "
                        f"{(result.verify_error or 'hostname mismatch').rstrip('.')}).")
        san = ",".join(dict.fromkeys([*names, wanted]))
        options = [f"Reissue the broker's certificate with {wanted} among its subject alternative names (keep the "
                   "ones it has), signed by the same CA, e.g.:\n"
                   f'  openssl req -new -key broker.key -subj "/CN={host}" -addext "subjectAltName={san}" '
                   "-out broker.csr\n"
                   f"  keytool -certreq ... -ext SAN={san.replace('DNS:', 'dns:').replace('IP:', 'ip:')}"]
        dns_names = [n for n in (cert.dns_names if cert else ()) if "*" not in n]
        if dns_names and target.node_id is not None:
            options.append("or advertise a name the certificate already holds, if it resolves and connects from the "
                           "clients:\n\n" + property_lines(target.node_id, [(
                               "advertised.listeners", f"{listener_protocol(report)}://{dns_names[0]}:"
                               f"{target.endpoint.port}")]) + f"\n\n{KRAFT_NOTE}")
        elif dns_names:
            options.append(f"or bootstrap with a name the certificate holds: kdiag bootstrap "
                           f"{hostport(dns_names[0], target.endpoint.port)}")
        options.append("Only to confirm the diagnosis, never as the fix (it turns off a protection against "
                       "impersonation): librdkafka ssl.endpoint.identification.algorithm=none; Java "
                       "ssl.endpoint.identification.algorithm= (empty).")
        findings.append(finding("TLS_HOSTNAME_MISMATCH", "error", title, explanation,
                                {**_tls_evidence(target, result), "name_in_certificate": result.name_in_certificate},
                                "\n\n".join(options)))
    return tuple(findings)


# --- client certificates (mTLS) ---------------------------------------------------------------------

# What a server that wants a client certificate answers a client without one: TLS 1.3 defines
# certificate_required; Java (the Kafka broker) sends bad_certificate under TLS 1.2 and 1.3 alike.
_NO_CERTIFICATE_ALERTS = ("certificate_required", "bad_certificate", "handshake_failure", "certificate_unknown")
# ... and a client whose certificate it does not accept (Java: certificate_unknown for a chain it
# cannot verify).
_REJECTED_ALERTS = ("unknown_ca", "bad_certificate", "certificate_unknown", "certificate_expired",
                    "certificate_revoked", "unsupported_certificate", "access_denied")


def _cert_alert_evidence(target: Secured, result: TlsResult) -> dict[str, object]:
    mine = result.client_certificate
    return {**target.evidence, "tls_status": result.status, "tls_version": result.version, "alert": result.alert,
            "alert_after_handshake": result.alert_after_handshake,
            "client_certificate_requested": result.client_certificate_requested,
            "client_certificate": mine.subject if mine else None,
            "client_certificate_issuer": mine.issuer if mine else None,
            "client_certificate_not_after": mine.not_after if mine else None, "error": result.error}


def _alert_story(result: TlsResult) -> str:
    """How the refusal showed itself, in the words of the version it happened under."""
    version = result.version or "TLS"
    if result.alert_after_handshake:
        return (f"the {version} handshake completed on the client's side, and the broker's answer to the first "
                f"request was the TLS alert {result.alert}: under TLS 1.3 the server checks the client's "
                "certificate only after the client's Finished, so a client sees the handshake succeed and then a "
                "failure on its first read")
    requested = (" after its CertificateRequest (sent in the clear under TLS 1.2)"
                 if result.client_certificate_requested else "")
    return f"the broker refused the {version} handshake with the TLS alert {result.alert}{requested}"


def _client_keystore_fix(report: Report, *, why: str) -> str:
    return (f"Give the client {why}:\n\n"
            "librdkafka clients (confluent-kafka, kcat, kdiag -X), PEM files:\n"
            "ssl.certificate.location=<client.pem>\n"
            "ssl.key.location=<client.key>\n"
            "ssl.key.password=<key password, if the key is encrypted>\n"
            "or a PKCS#12 keystore:\n"
            "ssl.keystore.location=<client.p12>\n"
            "ssl.keystore.password=<keystore password>\n\n"
            "Java clients (client.properties, --command-config):\n"
            "ssl.keystore.type=PKCS12\n"
            "ssl.keystore.location=<client.p12>\n"
            "ssl.keystore.password=<keystore password>\n"
            "ssl.key.password=<key password>\n\n"
            f"Check with:  kdiag bootstrap {_used(report)} -X security.protocol={security_protocol(report)} "
            "-X ssl.certificate.location=<client.pem> -X ssl.key.location=<client.key>")


def _refused_for_no_certificate(result: TlsResult) -> bool:
    """A handshake refused because the client sent no certificate: the alert says so, and the server
    had asked for one (TLS 1.2) or refused after the handshake (TLS 1.3). A handshake_failure needs
    that proof: before the ServerHello it means no common cipher or version."""
    if result.status != "alert" or result.client_certificate is not None or result.alert not in _NO_CERTIFICATE_ALERTS:
        return False
    if result.client_certificate_requested is False:
        return False  # a TLS 1.2 server that did not ask refused for another reason
    if result.alert == "handshake_failure":
        return bool(result.client_certificate_requested or result.alert_after_handshake)
    return True


def _client_cert_required(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        if result is None or not _refused_for_no_certificate(result):
            continue
        where = target.where
        if target.node_id is None:
            title = f"The listener at {where} requires a client certificate, and the client has none"
        else:
            title = (f"Broker {target.node_id}'s advertised listener {where} requires a client certificate, and the "
                     "client has none")
        explanation = (f"The listener at {where} authenticates clients by TLS certificate (ssl.client.auth=required) "
                       "and the client presents none (no ssl.certificate.location / ssl.key.location, no "
                       f"ssl.keystore.location): {_alert_story(result)}. The broker logs `Failed authentication with "
                       "/<client address> (SSL handshake failed)`.")
        if target.node_id is not None:
            explanation += (" The bootstrap connection did not ask for one: this broker advertises a listener that "
                            "does, so the client fails only once it follows the metadata.")
        fix = (_client_keystore_fix(report, why="a certificate signed by a CA the listener trusts (the broker's "
                                    "ssl.truststore.location for that listener), with its private key")
               + "\n\nOr, if this listener should not demand client certificates, on the broker:\n\n"
               + property_lines(target.node_id, [("listener.name.<listener>.ssl.client.auth", "requested")],
                                comment="requested: ask for a certificate, accept a client without one; none: never "
                                        "ask"))
        findings.append(finding("TLS_CLIENT_CERT_REQUIRED", "error", title, explanation,
                                _cert_alert_evidence(target, result), fix))
    return tuple(findings)


def _client_cert_rejected(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        mine = result.client_certificate if result is not None else None
        if result is None or result.status != "alert" or mine is None or result.alert not in _REJECTED_ALERTS:
            continue
        where = target.where
        who = f"the listener at {where}" if target.node_id is None else f"broker {target.node_id}'s listener {where}"
        title = f"{who[0].upper()}{who[1:]} rejects the client's certificate ({mine.subject}, issued by {mine.issuer})"
        explanation = (f"The client presents the certificate {mine.subject}, issued by {mine.issuer}, valid until "
                       f"{mine.not_after}, and {_alert_story(result)}. The broker verifies client certificates "
                       "against the truststore of that listener (ssl.truststore.location): the issuing CA is not in "
                       "it, the chain is incomplete (the client must send its intermediate CAs), or the certificate "
                       "has expired or lacks the clientAuth extended key usage. A Java broker answers a chain it "
                       "cannot verify with certificate_unknown and logs `PKIX path building failed`.")
        fix = (_client_keystore_fix(report, why="a certificate the broker trusts: one signed by the CA in the "
                                    "listener's truststore, with its intermediate CAs in the same file or keystore")
               + "\n\nOr make the broker trust the client's CA: add it to the listener's truststore (a PEM "
               "truststore: append it to the file; JKS/PKCS#12: keytool -importcert -alias client-ca -file "
               "<client-ca.pem> -keystore <broker truststore>) and point the listener at it:\n\n"
               + property_lines(target.node_id, [("listener.name.<listener>.ssl.truststore.location",
                                                  "<truststore with the client's CA>")])
               + "\n\nWhat the client sends:  openssl x509 -in <client.pem> -noout -subject -issuer -dates "
               "-ext extendedKeyUsage")
        findings.append(finding("TLS_CLIENT_CERT_REJECTED", "error", title, explanation,
                                _cert_alert_evidence(target, result), fix))
    return tuple(findings)


def hostport_parts(endpoint: Endpoint) -> tuple[str, int]:
    """The host as a listener URL writes it (brackets around IPv6) and the port."""
    return bracketed(endpoint.host), endpoint.port


def _bootstrap_issuer(report: Report) -> str | None:
    detail = report.detail("tls")
    for result in detail.handshakes if isinstance(detail, TlsDetail) else ():
        if result.ok and result.certificate is not None:
            return result.certificate.issuer
    return None


def _trust_words(trust: str | None) -> str:
    if not trust:
        return "CA certificates"
    if trust.startswith("the system"):
        return "system CA store (no ssl.ca.location)"
    return f"CA ({trust})"


def _used(report: Report) -> str:
    used = bootstrap_used(report)
    return hostport(used.host, used.port) if used else "<bootstrap>"


RULES = (
    Rule("TLS_EXPECTED", "A plaintext client on a TLS listener", "error", _tls_expected),
    Rule("TLS_UNEXPECTED", "A TLS client on a plaintext listener", "error", _tls_unexpected),
    Rule("TLS_CERT_UNTRUSTED", "The broker's certificate chain does not verify against the client's CA", "error",
         _cert_untrusted),
    Rule("TLS_HOSTNAME_MISMATCH", "The name the client connects to is not in the broker's certificate", "error",
         _hostname_mismatch),
    Rule("TLS_CLIENT_CERT_REQUIRED", "The listener wants a client certificate and the client has none", "error",
         _client_cert_required),
    Rule("TLS_CLIENT_CERT_REJECTED", "The listener does not accept the client's certificate", "error",
         _client_cert_rejected),
)
