"""librdkafka's words for a connection's first steps that ``librdkafka`` and ``openssl`` do not read: a TLS handshake
the peer hung up on (POLLHUP), the broker's certificate refused after the handshake, a TLS connection closed while it
asked for ApiVersion (confluentinc/librdkafka src/rdkafka_transport.c, rdkafka_ssl.c, rdkafka_broker.c @ 4c3b017c)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.librdkafka_names import RdBroker
from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (CERT_NAME, LIBRDKAFKA, TLS_ON_PLAINTEXT, Item, Pattern, ScanState,
                                     client_certificate_symptom, registrar)
from kdiag.explain.tls_readings import handshake_failure_alert, hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# rd_kafka_transport_io_event: the socket hung up (POLLHUP) while the handshake was still in progress, before OpenSSL
# had an error to tell. A plaintext listener reads the ClientHello as a request's size, far over
# socket.request.max.bytes, and hangs up so: the likely reading (a TLS listener answers, or sends an alert).
@pattern("librdkafka.ssl_handshake_hangup", LIBRDKAFKA, "during SSL connection handshake",
         r"Disconnected: during SSL connection handshake",
         "%3|1796677200.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: "
         "ssl://b1.example:9093/bootstrap: Disconnected: during SSL connection handshake (after 2ms in state "
         "SSL_HANDSHAKE)")
def _rd_ssl_handshake_hangup(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    said = "Disconnected: during SSL connection handshake"
    yield hung_up_in_handshake(RdBroker.find(m.string).sighting(TLS_ON_PLAINTEXT, detail=said), said)


# rd_kafka_transport_ssl_verify: SSL_get_verify_result after a handshake an ssl.certificate.verify_cb let through;
# X509_verify_cert_error_string names the fault. A chain's fault other readers take (openssl, generic); the name here.
@pattern("librdkafka.verify_broker_certificate_name", LIBRDKAFKA, "Failed to verify broker certificate",
         r"Failed to verify broker certificate: (?P<why>(?i:hostname|ip address) mismatch)",
         "%3|1796677200.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: "
         "ssl://b1.example:9093/bootstrap: Failed to verify broker certificate: hostname mismatch (after 9ms in state "
         "SSL_HANDSHAKE)")
def _rd_verify_broker_certificate_name(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(CERT_NAME, detail=m.group("why"))


# rd_kafka_broker_set_error: a TLS connection (ssl://, sasl_ssl://) closed while it asked for ApiVersion came through
# its handshake, so librdkafka's hint names only a broker before 0.10 (1.x-2.10 "Disconnected while requesting
# ApiVersion: ...", 2.11.1+ "Disconnected: <how>: requesting ApiVersion: ..."): a likely reading, the broker closing
# for its own reason the other.
@pattern("librdkafka.apiversion_closed_tls", LIBRDKAFKA, "might be caused by broker version < 0.10",
         r"requesting ApiVersion: might be caused by broker version < 0\.10",
         "%6|1796677200.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: "
         "ssl://b1.example:9093/bootstrap: Disconnected while requesting ApiVersion: might be caused by broker version "
         "< 0.10 (see api.version.request) (after 4ms in state APIVERSION_QUERY)")
def _rd_apiversion_closed_tls(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    yield gap(LIBRDKAFKA, "ApiVersions", "Disconnected while requesting ApiVersion: might be caused by broker version "
              "< 0.10", host=broker.host, port=broker.port, node_id=broker.node_id, role=broker.role,
              protocol=broker.protocol, alternatives=("BROKER_CLOSED_CONNECTION",))


# The listener's handshake_failure alert (40) with no hint of librdkafka's after it: a TLS 1.2 listener with
# ssl.client.auth=required that got no certificate (TLS 1.3 says "certificate required", 116), or no cipher suite or
# version both sides allow, which no finding names. The certificate is the likely reading.
@pattern("librdkafka.handshake_failure_alert", LIBRDKAFKA, "alert handshake failure",
         r"alert handshake failure: SSL alert number 40(?!: client SSL authentication might be required)",
         "%3|1796677200.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: "
         "ssl://b1.example:9093/bootstrap: SSL handshake failed: error:0A000410:SSL routines::sslv3 alert handshake "
         "failure: SSL alert number 40 (after 5ms in state SSL_HANDSHAKE)")
def _rd_handshake_failure_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    sighting = RdBroker.find(m.string).sighting(client_certificate_symptom("handshake_failure", scan))
    yield handshake_failure_alert(sighting, scan, "alert handshake failure: SSL alert number 40")
