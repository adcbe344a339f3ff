"""Over-certainty: a line that fits several causes is a reading, and a line that fits none of the catalog's is not
made into one. Each test is written from the library's own words (its source), not from a pasted case."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids, only

# --- a response size: a foreign peer's bytes, or a real broker's answer over the client's limit ---------------


def test_a_response_just_over_receive_message_max_bytes_is_no_foreign_peer():
    # librdkafka's rd_kafka_transport words, with the limit it checks against: a Fetch answer 39 bytes over it
    for size, limit in ((100000039, 100000000), (200000039, 200000000), (150000000, 100000000)):
        line = (f"%3|1514941148.962|FAIL|rdkafka#consumer-1| [thrd:10.0.0.1:9092/bootstrap]: 10.0.0.1:9092/1: "
                f"Receive failed: Invalid response size {size} (0..{limit}): increase receive.message.max.bytes")
        assert ids(explained(line)) == [], size


def test_a_response_size_that_is_text_or_far_over_the_limit_stays_a_foreign_peer():
    for size in (1213486160, 1397966893):  # "HTTP", "SSH-": far over, and text
        line = f"b:9092/bootstrap: Receive failed: Invalid response size {size} (0..100000000)"
        assert only(explained(line), "NOT_KAFKA").severity == "error"
    tls = "b:9092/bootstrap: Receive failed: Invalid response size 352518912 (0..400000000)"  # 0x15 0x03: TLS alert
    assert ids(explained(tls)) == ["TLS_EXPECTED"]


# --- OpenSSL's "certificate verify failed" without a reason that names the CA or the name ---------------------


def test_openssls_unspecified_verification_error_is_likely_the_name_or_the_ca():
    # X509_V_ERR_UNSPECIFIED: OpenSSL found no fault in the chain and a check beside it refused (Ruby's
    # verify_hostname callback); Ruby prints the reason in parentheses
    line = ("OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: certificate verify failed "
            "(unspecified certificate verification error)")
    found = explained(line).findings
    assert [(f.id, f.severity) for f in found] == [("TLS_HOSTNAME_MISMATCH", "warning"),
                                                    ("TLS_CERT_UNTRUSTED", "warning")]
    assert found[0].title.startswith("Likely: ") and found[1].title.startswith("Or: ")


def test_certificate_verify_failed_with_no_reason_is_likely_the_ca_or_the_name():
    for line in ("OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=SSLv3 read server certificate B: "
                 "certificate verify failed (OpenSSL::SSL::SSLError)",
                 "%3|1600000000.000|FAIL|rdkafka#producer-1| [thrd:ssl://b:9093/bootstrap]: ssl://b:9093/bootstrap: "
                 "SSL handshake failed: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify "
                 "failed:  (after 6ms in state CONNECT)"):
        found = explained(line).findings
        assert [(f.id, f.severity) for f in found] == [("TLS_CERT_UNTRUSTED", "warning"),
                                                        ("TLS_HOSTNAME_MISMATCH", "warning")], line


def test_a_reason_that_names_the_failure_stays_certain():
    ruby = ("OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: certificate verify failed "
            "(self signed certificate in certificate chain)")
    assert only(explained(ruby), "TLS_CERT_UNTRUSTED").severity == "error"
    name = ("OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: certificate verify failed "
            "(Hostname mismatch)")
    assert only(explained(name), "TLS_HOSTNAME_MISMATCH").severity == "error"
