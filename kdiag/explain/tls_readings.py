"""The readings every client's words share for a TLS handshake that ended without the client's own verdict: the
listener's handshake_failure alert, and a hang-up with no alert. One helper each, so each family's recogniser says
the same thing with the same certainty."""

from __future__ import annotations

from dataclasses import replace

from kdiag.explain.sightings import TLS_ON_PLAINTEXT, ScanState, Sighting, client_certificate_symptom


def handshake_failure_alert(sighting: Sighting, scan: ScanState, said: str) -> Sighting:
    """The listener's handshake_failure alert (40), in any client's words (``said``): a TLS 1.2 listener with
    ssl.client.auth=required that got no certificate (TLS 1.3 says certificate_required), or no cipher suite or
    version both sides allow, which no finding names. The certificate is the likely reading, never a certain one,
    and never an untrusted broker certificate: the alert is the listener's, about what the client sent. (A listener
    that does not trust a certificate it got says certificate_unknown or bad_certificate, not this.)"""
    return replace(sighting, symptom=client_certificate_symptom("handshake_failure", scan), detail="handshake_failure",
                   guess=f"{said} (or no cipher suite or TLS version both sides allow)")


def hung_up_in_handshake(sighting: Sighting, said: str) -> Sighting:
    """The other side closed the connection during the client's TLS handshake with no alert and no byte of its own,
    in any client's words (``said``). A plaintext Kafka listener does that to a ClientHello (its first bytes read as a
    request's size, far over socket.request.max.bytes); a broker at its connection limit, or a proxy or firewall that
    cuts TLS, closes the same way, while a TLS listener refusing a handshake answers with an alert. So TLS_UNEXPECTED
    is the likely reading and a closed connection the other. (Bytes that are not TLS, such as OpenSSL's "wrong version
    number" or an HTTP answer, make it certain: those are not read here.)"""
    return replace(sighting, symptom=TLS_ON_PLAINTEXT, guess=said, alternatives=("BROKER_CLOSED_CONNECTION",))
