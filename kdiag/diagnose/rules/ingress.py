"""Rules for an SNI-routed ingress in front of TLS listeners (Strimzi's ``ingress`` and ``route`` listeners).

TLS passthrough (ingress-nginx ``ssl-passthrough``, OpenShift passthrough routes, Traefik TCP routers
with ``HostSNI``) picks the backend by the server name in the ClientHello. A client that bootstraps by
IP address sends no SNI (librdkafka and Java send none for an IP), and one that uses a name no route
has reaches the controller's default backend: its self-signed "Fake Certificate", an HTTP 404 or `Bad
Gateway`. The certificate gives it away.
"""

from __future__ import annotations

from kdiag.diagnose.fixes import report_deployment
from kdiag.diagnose.hosts import Deployment
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.wording import join_words
from kdiag.finding import Finding
from kdiag.report import Report, TlsDetail
from probes.hostport import hostport
from probes.results import TlsResult

DEFAULT_CERTIFICATES = {
    "Kubernetes Ingress Controller Fake Certificate": "ingress-nginx",
    "TRAEFIK DEFAULT CERT": "Traefik",
}
"""Subjects of the certificates ingress controllers present when no route matches the SNI."""


def _controller(result: TlsResult) -> str | None:
    subject = result.certificate.subject if result.certificate is not None else None
    return next((name for marker, name in DEFAULT_CERTIFICATES.items() if subject and marker in subject), None)


def default_backend_handshakes(report: Report) -> list[tuple[str, TlsResult, str]]:
    """(whose, handshake, controller) for each TLS handshake that reached an ingress default backend."""
    found = []
    detail = report.detail("tls")
    if isinstance(detail, TlsDetail):
        found += [("the bootstrap", h, c) for h in detail.handshakes if (c := _controller(h))]
    if report.cluster is not None:
        found += [(f"broker {b.node_id}", b.tls, c) for b in report.cluster.brokers
                  if b.tls is not None and (c := _controller(b.tls))]
    return found


def _default_backend(report: Report) -> Finding | None:
    found = default_backend_handshakes(report)
    if not found:
        return None
    whose, first, controller = found[0]
    where = hostport(first.host or first.address or "?", first.port or 0)
    sent = f"SNI {first.sni}" if first.sni else "no SNI at all (clients send none for an IP address)"
    title = (f"TLS to {where} reached the {controller} default backend, not Kafka: the ingress routes by SNI and "
             f"{'no route matches ' + first.sni if first.sni else 'the client sent none'}")
    explanation = (f"The connection to {where} ({whose}) carried {sent}, and the certificate that came back is "
                   f"{controller}'s own \"{first.certificate.subject if first.certificate else ''}\": the ingress "
                   "controller passes TLS through to a broker only when the server name matches one of its routes, "
                   "and sends everything else to its default backend. Clients fail with a certificate error "
                   "(librdkafka `certificate verify failed`, Java `PKIX path building failed`), or with "
                   "verification off, an HTTP `404`/`Bad Gateway` where Kafka was expected. Every broker needs its own "
                   "host name routed to it, and clients must use those names, never the ingress IP.")
    fix = default_backend_fix(report, first.address or first.host, first.port)
    evidence = {"handshakes": [{"of": w, "host": h.host, "port": h.port, "sni": h.sni,
                                "subject": h.certificate.subject if h.certificate else None, "controller": c}
                               for w, h, c in found]}
    return finding("INGRESS_DEFAULT_BACKEND", "error", title, explanation, evidence, fix)


def sni_check(address: str | None, port: int | None) -> str:
    """The command that shows which certificate the ingress at ``address`` presents for a server name."""
    return (f"openssl s_client -connect {hostport(address or '<ingress address>', port or 443)} "
            "-servername <bootstrap host> </dev/null | grep subject")


def default_backend_fix(report: Report, address: str | None, port: int | None) -> str:
    """INGRESS_DEFAULT_BACKEND's fix for the ingress at ``address``:``port`` (also ``kdiag explain``'s)."""
    lines = [f"Bootstrap with the ingress's bootstrap host name, and check a name is routed before using it:\n"
             f"  {sni_check(address, port)}\n"
             "It must show the broker's certificate, not the default one. Each name (the bootstrap host and every "
             "broker's host) needs a DNS record pointing to the ingress, and a passthrough route (ingress-nginx "
             "needs --enable-ssl-passthrough)."]
    deployment = report_deployment(report)
    node_ids = sorted(b.node_id for b in report.cluster.brokers) if report.cluster is not None else []
    node_ids = node_ids or [0]  # no metadata came back: one broker, for the shape
    lines.append("With Strimzi, an ingress listener names both (the broker hosts are what the brokers advertise):\n\n"
                 + strimzi_ingress_listener(deployment, node_ids))
    names = join_words(f"broker {n}" for n in node_ids)
    lines.append(f"Generic: advertise each broker's routed name on port 443 ({names}):\n"
                 "  advertised.listeners=EXTERNAL://<broker N's host>:443")
    return "\n\n".join(lines)


def strimzi_ingress_listener(deployment: Deployment | None, node_ids: list[int]) -> str:
    """A Strimzi ``Kafka`` resource's ingress listener: one routed host for the bootstrap and one per broker."""
    brokers = "\n".join(f"            - broker: {node}\n              host: <broker {node}'s host>" for node in node_ids)
    name = deployment.cluster if deployment and deployment.cluster else "<cluster>"
    namespace = deployment.namespace if deployment and deployment.namespace else "<namespace>"
    return (f"apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            "spec:\n  kafka:\n    listeners:\n      - name: external\n        port: 9094\n        type: ingress\n"
            "        tls: true            # passthrough: the brokers terminate TLS\n        configuration:\n"
            "          class: nginx\n          bootstrap:\n            host: <bootstrap host>\n"
            f"          brokers:\n{brokers}")


RULES = (
    Rule("INGRESS_DEFAULT_BACKEND", "TLS reached an ingress controller's default backend: SNI routing missed",
         "error", _default_backend),
)
