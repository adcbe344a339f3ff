"""TLS_* from a client's lines: a TLS listener spoken to in plaintext and the reverse, a certificate the client
does not trust or whose names do not hold the one it connects to, a client certificate the listener wants or
refuses."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.builders.ingress import ingress_check, sni_ingress_note, sni_ingress_wildcard_note
from kdiag.explain.implied import rule_fix
from kdiag.explain.shared import at_start, client_said, consequence_sentence, evidence, secured, tls_where, with_confirm
from kdiag.explain.sightings import JAVA, LIBRDKAFKA, TLS_FAILED, ZOOKEEPER
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from probes.results import CertificateInfo, KafkaCheck, TlsResult

def tls_expected(subject: Subject, context: Context) -> Finding:
    where = subject.where
    parts = [client_said(subject)]
    if any("OutOfMemoryError" in line for g in subject.groups for line in g.related):
        parts.append("A Java client without TLS reads the first bytes of the listener's TLS alert (0x15 0x03 ...) as "
                     "a response size of about 352 MB and runs out of heap allocating it (KAFKA-4090): the listener "
                     "speaks TLS.")
    elif LIBRDKAFKA in subject.clients:
        parts.append("librdkafka sent its first plaintext request (ApiVersion) and the listener hung up: it expects "
                     "a TLS handshake first.")
    elif ZOOKEEPER in subject.clients:
        parts.append("That is the TLS port's side (Netty's SslHandler) reading a peer's first bytes that are not a TLS "
                     "record: a client connected there in plaintext. A ZooKeeper client (a broker, an operator's "
                     "topic operator) needs zookeeper.ssl.client.enable=true and the Netty client socket "
                     "(zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty) for that port.")
    else:
        parts.append("The listener expects TLS, and the client speaks plaintext.")
    parts.append(f"The client connects to {where} without TLS (security.protocol PLAINTEXT or SASL_PLAINTEXT); that "
                 "port is a TLS listener (SSL or SASL_SSL)." + consequence_sentence(context))
    fix = rule_fix(secured(subject, context, kafka=KafkaCheck("tls_expected"), protocol="PLAINTEXT"), "TLS_EXPECTED")
    confirm = context.confirm(fallback=subject.endpoint, protocol="SSL", settings=("ssl.ca.location=<ca.pem>",))
    return finding("TLS_EXPECTED", "error", f"{at_start(subject)} is a TLS listener, but the client "
                   "connects without TLS", " ".join(parts), evidence(subject, context, confirm),
                   with_confirm(fix, confirm))


def tls_unexpected(subject: Subject, context: Context) -> Finding:
    protocol = subject.protocol or context.protocol or "SSL"
    if JAVA in subject.clients:
        meaning = ("The Java client started a TLS handshake and the connection was closed before it finished. A "
                   "plaintext listener does exactly that (it reads the ClientHello as an oversized Kafka request and "
                   "hangs up); a firewall that lets only HTTPS through looks the same.")
    else:
        meaning = ("The client started a TLS handshake, and the other side answered with something that is not TLS "
                   "or hung up: the port is a plaintext listener (PLAINTEXT or SASL_PLAINTEXT), or a middlebox cuts "
                   "TLS.")
    tls = TlsResult("not_tls", received=subject.first("detail"), **tls_where(subject))
    fix = rule_fix(secured(subject, context, tls=tls, protocol=protocol), "TLS_UNEXPECTED")
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol)
    return finding("TLS_UNEXPECTED", "error", f"The client speaks TLS to {subject.where}, which does not answer in TLS",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, client_security_protocol=protocol), with_confirm(fix, confirm))


def tls_cert_untrusted(subject: Subject, context: Context) -> Finding:
    generic = subject.symptoms == {TLS_FAILED}
    if generic:
        meaning = ("The TLS handshake failed, and the lines here do not say why: most often the client does not "
                   "trust the CA that signed the broker's certificate; less often the name it connects to is not in "
                   "the certificate, or the broker wants a client certificate. The `Caused by:` lines of the stack "
                   "trace under it say which.")
    elif LIBRDKAFKA in subject.clients:
        meaning = ("The broker's certificate did not verify against the CAs the client trusts (ssl.ca.location, or "
                   "the system's store when it is unset). librdkafka words a certificate that does not hold the name "
                   f"{subject.host or 'it connects to'} the same way (it checks names since v2.0.0), so it is that "
                   "or an untrusted CA: the openssl command in the fix tells them apart.")
    else:
        meaning = ("The broker's certificate chain does not lead to a CA in the client's truststore "
                   "(ssl.truststore.location, or the JVM's cacerts when it is unset): a private CA the client was "
                   "not given, or a self-signed broker certificate.")
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("untrusted", verify_error=subject.first("detail") or "certificate verify failed", **tls_where(subject))
    fix = rule_fix(secured(subject, context, tls=tls, protocol=protocol), "TLS_CERT_UNTRUSTED")
    ingress = sni_ingress_note(subject)
    if ingress:
        meaning += f" {ingress}"
        fix = ingress_check(fix, subject)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol, settings=("ssl.ca.location=<ca.pem>",))
    title = (f"The TLS handshake with {subject.where} failed" if generic else
             f"The client does not trust the certificate of {subject.where}")
    return finding("TLS_CERT_UNTRUSTED", "error", title, f"{client_said(subject)} {meaning}"
                   f"{consequence_sentence(context)}", evidence(subject, context, confirm, sni_ingress=True if ingress else None),
                   with_confirm(fix, confirm))


def tls_hostname_mismatch(subject: Subject, context: Context) -> Finding:
    name = subject.host or "<broker host>"
    meaning = (f"The client checks that the name it connects to, {name}, is among the broker certificate's subject "
               "alternative names (hostname verification, on by default: Java since 2.0, librdkafka since v2.0.0), "
               "and it is not. Every broker's certificate must hold the exact name it advertises, and the bootstrap "
               "name too.")
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("hostname_mismatch", verify_error="hostname mismatch", name_in_certificate=False,
                    **tls_where(subject))
    fix = rule_fix(secured(subject, context, tls=tls, protocol=protocol), "TLS_HOSTNAME_MISMATCH")
    ingress = sni_ingress_wildcard_note(subject)
    if ingress:
        meaning += f" {ingress}"
        fix = ingress_check(fix, subject, routes=True)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol, settings=("ssl.ca.location=<ca.pem>",))
    return finding("TLS_HOSTNAME_MISMATCH", "error", f"{name} is not a name in the broker's certificate",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))


_JAVA_SENDS_ONLY_MATCHING = (" A Java client sends a certificate only if one in its keystore was issued by a CA "
                             "the listener names in its CertificateRequest; with none it sends nothing, and the "
                             "listener answers bad_certificate either way.")


def _client_certificate_finding(subject: Subject, context: Context, finding_id: str, *, alert: str, title: str,
                                meaning: str, client_certificate: CertificateInfo | None) -> Finding:
    """TLS_CLIENT_CERT_REQUIRED / _REJECTED: the listener's alert about the client's certificate."""
    if JAVA in subject.clients:
        meaning += _JAVA_SENDS_ONLY_MATCHING
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("alert", alert=alert, client_certificate=client_certificate, **tls_where(subject))
    fix = rule_fix(secured(subject, context, tls=tls, protocol=protocol), finding_id)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=("ssl.certificate.location=<client.pem>", "ssl.key.location=<client.key>"))
    return finding(finding_id, "error", f"{at_start(subject)} {title}",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, alert=alert), with_confirm(fix, confirm))


def tls_client_cert_required(subject: Subject, context: Context) -> Finding:
    alert = subject.first("detail") or "bad_certificate"
    meaning = (f"The listener answered the TLS handshake with the alert {alert}: it authenticates clients by "
               "certificate (ssl.client.auth=required) and this client presented none (no ssl.certificate.location "
               "/ ssl.key.location, no ssl.keystore.location). Under TLS 1.3 the refusal comes on the first read "
               "after a handshake that looked complete, so the client may call it a receive failure.")
    return _client_certificate_finding(subject, context, "TLS_CLIENT_CERT_REQUIRED", alert=alert,
                                       title="requires a client certificate, and the client presented none",
                                       meaning=meaning, client_certificate=None)


def tls_client_cert_rejected(subject: Subject, context: Context) -> Finding:
    alert = subject.first("detail") or "certificate_unknown"
    meaning = (f"The client presented a certificate and the listener refused it with the alert {alert}: the CA "
               "that issued it is not in the listener's truststore, its chain is incomplete, or it has expired or "
               "lacks the clientAuth extended key usage.")
    return _client_certificate_finding(
        subject, context, "TLS_CLIENT_CERT_REJECTED", alert=alert, title="does not accept the client's certificate",
        meaning=meaning, client_certificate=CertificateInfo(subject="<the client's certificate>", issuer="<its CA>"))
