"""``explain`` for an SNI-routed ingress (TLS passthrough) whose default backend answered instead of Kafka.

What clients print there was captured in the lab (``sni-ingress``, tests/fixtures/client_logs/sni_ingress.*).
With certificate verification on (the default), the default backend's "Kubernetes Ingress Controller Fake
Certificate" fails exactly as a broker certificate from an untrusted CA does: librdkafka says ``certificate
verify failed: broker certificate could not be verified``, Java ``PKIX path building failed``, and neither names
the certificate's subject or issuer. Those lines stay TLS_CERT_UNTRUSTED, which names the ingress where it fits
(:func:`kdiag.explain.builders.sni_ingress_note`). With verification off, the TLS handshake succeeds and the
default backend's HTTP answer comes back inside it (librdkafka: ``Invalid response size 1213486160``, the bytes
``HTTP``): Kafka over TLS answered in HTTP is what a passthrough ingress does when no route matches, and
:func:`ingress_default_backend` raises the finding ``kdiag bootstrap`` raises on the certificate itself
(:mod:`kdiag.diagnose.rules.ingress`), with that rule's fix.
"""

from __future__ import annotations

from kdiag.diagnose.hosts import classify_host
from kdiag.diagnose.rules.ingress import default_backend_fix
from kdiag.explain.builders import Context, Subject, client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.observations import Group
from kdiag.finding import Finding, make_finding
from probes.results import ForeignBytes, KafkaCheck, TlsResult

TLS_PROTOCOLS = frozenset({"SSL", "SASL_SSL"})


def http_inside_tls(group: Group) -> bool:
    """A TLS connection (``ssl://``) whose first answer read as a Kafka response size is the bytes ``HTTP``."""
    return bool(group.protocols & TLS_PROTOCOLS) and (group.first.detail or "").endswith(": HTTP")


def ingress_default_backend(subject: Subject, context: Context) -> Finding:
    where = subject.where
    by_address = subject.host is not None and classify_host(subject.host).is_ip
    if subject.host is None:
        missed, sent = "no route matches the server name", "the server name it sent"
    elif by_address:
        missed, sent = "the client sent no SNI", f"no server name at all (clients send none for an IP address like {subject.host})"
    else:
        missed, sent = f"no route matches {subject.host}", f"the server name {subject.host}"
    meaning = ("With certificate verification off, the TLS handshake succeeded and what came back inside it was HTTP "
               "(the response size the client read is the bytes `HTTP`), where Kafka was expected. A TLS passthrough "
               "ingress does exactly that when the server name (SNI) in the ClientHello matches none of its routes: "
               "ingress-nginx with --enable-ssl-passthrough, OpenShift passthrough routes and Traefik's HostSNI "
               "routers (Strimzi's ingress and route listeners) hand the connection to their default backend, which "
               "terminates TLS with its own certificate (ingress-nginx's \"Kubernetes Ingress Controller Fake "
               f"Certificate\") and answers 404. The client sent {sent}. With verification on, the same clients say "
               "`certificate verify failed` (Java: `PKIX path building failed`), as for an untrusted CA. Less often "
               f"{where} is an HTTPS load balancer or web server with no Kafka behind it at all: the openssl command "
               "in the fix shows which certificate answers for a name.")
    address = subject.addresses[0] if subject.addresses else subject.host
    implied = context.implied(subject, tls=TlsResult("ok", host=subject.host, port=subject.port, address=address),
                              kafka=KafkaCheck("not_kafka", foreign=ForeignBytes("http", "HTTP", "HTTP")),
                              protocol=subject.protocol or context.protocol or "SSL")
    fix = default_backend_fix(implied.report(), address, subject.port)
    confirm = context.confirm(fallback=subject.endpoint, protocol=subject.protocol or "SSL",
                              settings=("ssl.ca.location=<ca.pem>",))
    title = (f"TLS to {where} reached an HTTP server, not Kafka: most likely an ingress's default backend, "
             f"SNI routing missed ({missed})")
    return make_finding("INGRESS_DEFAULT_BACKEND", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm, sni=None if by_address else subject.host, answered="HTTP"),
                        with_confirm(fix, confirm))
