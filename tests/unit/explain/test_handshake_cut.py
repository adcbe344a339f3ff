"""A TLS endpoint whose later handshake was cut off is not a plaintext listener.

kcat against an ingress that answers TLS with a certificate the client does not trust, then hangs up on a retry's
handshake (seen in the SNI-ingress lab): the EOF is a consequence of the same endpoint, not TLS_UNEXPECTED."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids

HEAD = "%3|1795611700.250|FAIL|rdkafka#producer-1| [thrd:ssl://kafka.example.test:443/bootstrap]: " \
       "ssl://kafka.example.test:443/bootstrap: SSL handshake failed: "
VERIFY = HEAD + ("error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified, "
                 "verify that ssl.ca.location is correctly configured or root CA certificates are installed (install "
                 "ca-certificates package) (after 1ms in state SSL_HANDSHAKE)")
EOF_LINE = HEAD + "error:0A000126:SSL routines::unexpected eof while reading (after 3ms in state SSL_HANDSHAKE)"


def test_an_eof_after_the_same_endpoint_showed_its_certificate_is_no_plaintext_listener():
    found = explained("\n".join([VERIFY, EOF_LINE])).findings
    assert "TLS_UNEXPECTED" not in [f.id for f in found]
    assert found[0].id == "TLS_CERT_UNTRUSTED"


def test_the_eof_alone_is_still_a_plaintext_listener():
    assert ids(explained(EOF_LINE))[0] == "TLS_UNEXPECTED"


def test_a_certificate_of_another_endpoint_changes_nothing():
    other = VERIFY.replace("kafka.example.test:443", "other.example.test:9093")
    assert "TLS_UNEXPECTED" in ids(explained("\n".join([other, EOF_LINE])))
