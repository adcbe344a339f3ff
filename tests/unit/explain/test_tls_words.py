"""A broker certificate that fails verification, in each runtime's words (from their sources: CPython's ssl, Ruby's
openssl, Erlang's ssl, Node's tls, .NET's SslStream, the JDK), and the lines that fit more than one TLS cause, read as a
likely cause with the others beside it. Documentation hosts only."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

NAME = [
    # CPython Lib/ssl.py match_hostname (before 3.7): "hostname %r doesn't match %r" / "doesn't match either of %s".
    "ssl.CertificateError: hostname '192.0.2.10' doesn't match 'b1.example'",
    "ssl.CertificateError: hostname 'b1' doesn't match either of 'b1.example', 'b2.example'",
    # CPython 3.7+: OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH / IP_ADDRESS_MISMATCH.
    "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: IP address mismatch, "
    "certificate is not valid for '192.0.2.10'. (_ssl.c:1129)",
    # Ruby ext/openssl lib/openssl/ssl.rb post_connection_check; and OpenSSL's reason as Ruby prints it.
    'OpenSSL::SSL::SSLError: hostname "192.0.2.10" does not match the server certificate',
    "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: certificate verify failed (hostname mismatch)",
    # Erlang lib/ssl: the client's alert, with public_key's {bad_cert,hostname_check_failed}.
    '{tls_alert,{handshake_failure,"TLS client: In state certify at ssl_handshake.erl:2111 generated CLIENT ALERT: '
    'Fatal - Handshake Failure\\n {bad_cert,hostname_check_failed}"}}',
    # .NET SslPolicyErrors.RemoteCertificateNameMismatch.
    "System.Security.Authentication.AuthenticationException: The remote certificate is invalid according to the "
    "validation procedure: RemoteCertificateNameMismatch",
]

UNTRUSTED = [
    "Error: unable to verify the first certificate",  # Node, UNABLE_TO_VERIFY_LEAF_SIGNATURE
    "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: certificate verify failed (invalid CA "
    "certificate)",
    '{tls_alert,{unknown_ca,"TLS client: In state certify at ssl_handshake.erl:2111 generated CLIENT ALERT: Fatal - '
    'Unknown CA\\n"}}',
    "System.Security.Authentication.AuthenticationException: The remote certificate is invalid because of errors in "
    "the certificate chain: UntrustedRoot",
    "Unable to find valid certification path to requested target",  # the JDK's PKIX cause, re-worded by a framework
]


@pytest.mark.parametrize("line", NAME, ids=lambda v: v[:40])
def test_a_name_not_in_the_certificate_in_each_runtimes_words(line):
    assert ids(explained(line))[:1] == ["TLS_HOSTNAME_MISMATCH"]


@pytest.mark.parametrize("line", UNTRUSTED, ids=lambda v: v[:40])
def test_a_chain_that_does_not_verify_in_each_runtimes_words(line):
    assert ids(explained(line))[:1] == ["TLS_CERT_UNTRUSTED"]


def test_a_server_alert_in_erlang_is_the_listener_refusing_the_clients_certificate():
    line = ('{tls_alert,{certificate_required,"TLS client: In state connection received SERVER ALERT: Fatal - '
            'Certificate required"}}')
    assert ids(explained(line))[:1] == ["TLS_CLIENT_CERT_REQUIRED"]


@pytest.mark.parametrize("line", [
    # librdkafka rdkafka_transport.c appends its hint whatever OpenSSL's reason, and checks the name since 2.0.
    "%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: ssl://b1.example:9093/bootstrap: "
    "SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: broker certificate could not be "
    "verified, verify that ssl.ca.location is correctly configured or root CA certificates are installed (install "
    "ca-certificates package) (after 5ms in state SSL_HANDSHAKE)",
    # .NET before 5: SslStream's words without the policy error.
    "System.Security.Authentication.AuthenticationException: The remote certificate is invalid according to the "
    "validation procedure.",
    # The Java client's NetworkClient line with its endpoint left out of the paste and no cause below it.
    "ERROR [Producer clientId=producer-1] Connection to node -1 (...) failed authentication due to: SSL handshake "
    "failed",
])
def test_words_that_fit_a_ca_and_a_name_give_the_ca_likely_and_the_name_beside_it(line):
    explanation = explained(line)
    untrusted, name = only(explanation, "TLS_CERT_UNTRUSTED"), only(explanation, "TLS_HOSTNAME_MISMATCH")
    assert untrusted.title.startswith("Likely: ") and name.title.startswith("Or: ")
    assert {untrusted.severity, name.severity} == {"warning"}


def test_the_brokers_own_ssl_handshake_failed_reads_each_tls_cause():
    # Kafka's Selector on the broker side: "Failed authentication with /{} ({})" for a failed handshake.
    line = ("[2026-11-26 10:00:00,000] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
            "/192.0.2.7 (channelId=192.0.2.1:9093-192.0.2.7:50000-3) (SSL handshake failed) "
            "(org.apache.kafka.common.network.Selector)")
    found = explained(line)
    assert ids(found) == ["TLS_EXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH"]
    assert {f.severity for f in found.findings} == {"warning"}


def test_nettys_not_an_ssl_record_on_a_tls_server_is_a_plaintext_client_at_a_tls_listener():
    # Netty's SslHandler: NotSslRecordException("not an SSL/TLS record: " + ByteBufUtil.hexDump(in)), on the side that
    # expects TLS (ZooKeeper's secure client port, a Netty-based component): what arrived was not TLS.
    line = ("io.netty.handler.codec.DecoderException: io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS "
            "record: 0000002a00120003000000010007636c69656e74")
    assert [f.id for f in explained(line).findings] == ["TLS_EXPECTED"]


JAVA_ALERT = ("[2026-11-26 10:00:00,000] ERROR [Producer clientId=p] Connection to node -1 (b1.example/192.0.2.10:9093) "
              "failed authentication due to: SSL handshake failed (org.apache.kafka.clients.NetworkClient)\n"
              "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: {alert}")


def test_the_java_clients_handshake_failure_alert_is_a_likely_missing_client_certificate():
    """JSSE's handshake_failure (40) from the listener: a TLS 1.2 listener wanting a client certificate, or no cipher
    suite or version in common (which no finding names): the likely reading, as librdkafka's and Go's same alert."""
    first = explained(JAVA_ALERT.format(alert="handshake_failure")).findings[0]
    assert (first.id, first.severity) == ("TLS_CLIENT_CERT_REQUIRED", "warning") and first.title.startswith("Likely: ")


def test_the_java_clients_certificate_required_alert_stays_certain():
    first = explained(JAVA_ALERT.format(alert="certificate_required")).findings[0]
    assert (first.id, first.severity) == ("TLS_CLIENT_CERT_REQUIRED", "error")
