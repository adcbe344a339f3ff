"""``explain`` for an SNI-routed ingress (TLS passthrough) whose default backend answered instead of Kafka.

What clients print there was captured in the lab (``sni-ingress``, tests/fixtures/client_logs/sni_ingress.*).
With certificate verification on (the default), the default backend's "Kubernetes Ingress Controller Fake
Certificate" fails exactly as a broker certificate from an untrusted CA does: librdkafka says ``certificate
verify failed: broker certificate could not be verified``, Java ``PKIX path building failed``, and neither names
the certificate's subject or issuer. Those lines stay TLS_CERT_UNTRUSTED, which names the ingress where it fits
(:func:`sni_ingress_note`, below). With verification off, the TLS handshake succeeds and the
default backend's HTTP answer comes back inside it (librdkafka: ``Invalid response size 1213486160``, the bytes
``HTTP``): Kafka over TLS answered in HTTP is what a passthrough ingress does when no route matches, and
:func:`ingress_default_backend` raises the finding ``kdiag bootstrap`` raises on the certificate itself
(:mod:`kdiag.diagnose.rules.ingress`), with that rule's fix.
"""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.diagnose.rules.ingress import default_backend_fix
from kdiag.diagnose.rules.ingress import sni_check
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.observations import Group
from kdiag.explain.subject import Context, Subject
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


# --- where an SNI ingress may stand: the notes the TLS findings add -------------------------------------

def _before_check(fix: str, paragraph: str) -> str:
    """``paragraph`` added to a rule's fix, before its closing ``Check with:`` line when it has one."""
    at = fix.rfind("\nCheck with:")
    if at < 0:
        return f"{fix}\n\n{paragraph}"
    return f"{fix[:at]}\n\n{paragraph}{fix[at:]}"


INGRESS_PORT = 443  # where ingress controllers and OpenShift routes pass TLS through by SNI


def _why_sni_ingress(subject: Subject) -> str:
    """Why an SNI-routing ingress may stand at ``subject`` (an IP address carries no server name; port 443 is
    where ingresses pass TLS through), or "" where it is unlikely."""
    if subject.host is None:
        return ""
    kind = classify_host(subject.host)
    if kind.is_ip and kind.kind != LOOPBACK:
        return "An IP address carries no server name (SNI) in the TLS handshake"
    if subject.port == INGRESS_PORT:
        return (f"Port {INGRESS_PORT} is where ingress controllers and OpenShift routes pass TLS through by server "
                "name (SNI)")
    return ""


def ingress_check(fix: str, subject: Subject, *, routes: bool = False) -> str:
    """``fix`` with the command that shows which certificate the ingress at ``subject`` presents for a name
    (and, with ``routes``, which hosts its routes have), before its closing check."""
    commands = [sni_check(subject.addresses[0] if subject.addresses else subject.host, subject.port)]
    if routes:
        commands.append("kubectl get routes,ingresses -A")
    hosts = ", and which hosts the routes have" if routes else ""
    return _before_check(fix, "If it is an ingress, see which certificate answers for the name the route is for "
                         f"(the broker's, not the controller's default one){hosts}:\n  " + "\n  ".join(commands))


def sni_ingress_note(subject: Subject) -> str:
    """For a certificate that does not verify at port 443 or at an IP address: an SNI-routing ingress's default
    backend fails the same way, and the clients' words cannot tell it from an untrusted CA (neither librdkafka's
    `certificate verify failed` nor Java's `PKIX path building failed` names the certificate; seen in the lab,
    ``sni-ingress``)."""
    why = _why_sni_ingress(subject)
    if not why:
        return ""
    return (f"{why}: if {subject.where} is an ingress routing by SNI (Strimzi's ingress and route listeners), a "
            "connection whose name matches no route reaches the controller's default backend, and its certificate "
            "(ingress-nginx's \"Kubernetes Ingress Controller Fake Certificate\") fails verification with these same "
            "words. The client's lines cannot tell that from an untrusted CA; the openssl command in the fix, or kdiag "
            "bootstrap (which reads the certificate and says INGRESS_DEFAULT_BACKEND), can.")


def sni_ingress_wildcard_note(subject: Subject) -> str:
    """Where an SNI-routing ingress may stand (port 443, or an IP address carrying no server name), a name no
    route has gets the controller's default certificate; when that is a valid wildcard (OpenShift's router
    serves ``*.apps.<cluster>``), it verifies as a certificate and fails only on the name."""
    if not _why_sni_ingress(subject):
        return ""
    return (f"If {subject.where} is an ingress routing by SNI (Strimzi's ingress and route listeners, an OpenShift "
            "route), a name that matches no route reaches the controller's default backend, whose certificate is "
            "often a valid wildcard (*.apps.<cluster> on OpenShift): trusted, but not for this name. Then the "
            "broker's certificate is fine and the route's host is not the name the client used.")


def default_backend_reading(found: list[Finding], subject: Subject, context: Context) -> list[Finding]:
    """A certificate that did not verify at port 443, where ingress controllers pass TLS through by server name: an
    ingress whose route the name misses (or one without TLS passthrough, ingress-nginx without
    --enable-ssl-passthrough) answers with its own certificate, which fails in the same words. That is an "Or:"
    reading beside the untrusted CA, never a certainty: the client's lines do not name the certificate."""
    untrusted = next((f for f in found if f.id == "TLS_CERT_UNTRUSTED"), None)
    if untrusted is None or subject.port != INGRESS_PORT or any(f.id == "INGRESS_DEFAULT_BACKEND" for f in found):
        return []
    built = ingress_default_backend(subject, context)
    words = (f"{subject.where} may be a Kubernetes ingress that terminates TLS itself instead of passing it through to "
             "the brokers (ingress-nginx without --enable-ssl-passthrough, or a server name no passthrough route "
             "has): its default backend answers with the controller's own certificate (\"Kubernetes Ingress "
             "Controller Fake Certificate\"), which the client rejects in the same words as an untrusted CA. "
             f"`{built.evidence.get('confirm')}` on the client's machine reads the certificate and decides.")
    evidence = {k: v for k, v in dict(built.evidence).items() if k != "answered"}
    title = f"Or: {subject.where} is an ingress answering with its own certificate, not the broker's"
    return [replace(built, severity="warning", title=title, explanation=words,
                    evidence={**evidence, "certain": False, "readings": [untrusted.id, built.id]})]
