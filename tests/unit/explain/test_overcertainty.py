"""Over-certainty: a line that fits several causes is a reading, and a line that fits none of the catalog's is not
made into one. Each test is written from the library's own words (its source), not from a pasted case."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids, only

# --- a response size: a foreign peer's bytes, or a real broker's answer over the client's limit ---------------


def test_a_response_just_over_receive_message_max_bytes_is_no_foreign_peer():
    # librdkafka's rd_kafka_transport words, with the limit it checks against: a Fetch answer 39 bytes over it is a
    # consumer's fetch over its own size settings (a warning), never a foreign peer
    for size, limit in ((100000039, 100000000), (200000039, 200000000), (150000000, 100000000)):
        line = (f"%3|1514941148.962|FAIL|rdkafka#consumer-1| [thrd:10.0.0.1:9092/bootstrap]: 10.0.0.1:9092/1: "
                f"Receive failed: Invalid response size {size} (0..{limit}): increase receive.message.max.bytes")
        finding = only(explained(line), "ROUNDTRIP_FAILED")
        assert ids(explained(line)) == ["ROUNDTRIP_FAILED"], size
        assert (finding.severity, finding.evidence["limit"]) == ("warning", "fetch")
        assert "fetch.max.bytes" in finding.fix and "receive.message.max.bytes" in finding.fix


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


# --- ILLEGAL_SASL_STATE on a connection that had logged in: its re-authentication, not a listener without SASL ----

_ILLEGAL = "ILLEGAL_SASL_STATE: Request is not valid given the current SASL state"


def test_illegal_sasl_state_with_a_session_lifetime_is_the_re_authentication():
    lifetimes = (  # each client's own words for a session with a lifetime (KIP-368), from its source
        "[DEBUG] sasl has a limited lifetime; broker: 2, session_lifetime: 1s, reauthenticate_in: 0s",  # franz-go
        "[DEBUG] sasl expiry limit reached, reauthenticating; broker: 1",  # franz-go
        "DEBUG [Producer clientId=p] Finished authentication with session expiration in 3600000 ms and session "
        "re-authentication on or after 3240000 ms (org.apache.kafka.common.security.authenticator."
        "SaslClientAuthenticator)",  # the Java client
        "%7|1700000000.000|REAUTH|rdkafka#producer-1| [thrd:sasl_ssl://b-1:9096/1]: Received session lifetime "
        "3600000 ms from broker",  # librdkafka
    )
    for lifetime in lifetimes:
        found = explained(f"{_ILLEGAL}\n{lifetime}").findings
        assert [(f.id, f.severity) for f in found] == [("SASL_MECHANISM_MISMATCH", "info")], lifetime
        assert "re-authenticat" in found[0].title


def test_the_java_clients_words_for_illegal_sasl_state_are_read_the_same():
    # SaslClientAuthenticator words every ILLEGAL_SASL_STATE so, with the (empty) list the answer carried
    java = ("org.apache.kafka.common.errors.IllegalSaslStateException: Unexpected handshake request with client "
            "mechanism PLAIN, enabled mechanisms are []")
    assert only(explained(java), "SASL_MECHANISM_MISMATCH").severity == "error"
    again = f"{java}\nINFO [Producer clientId=p] Failed re-authentication with b-1/10.0.0.1 (channelId=1)"
    assert only(explained(again), "SASL_MECHANISM_MISMATCH").severity == "info"


def test_illegal_sasl_state_alone_or_a_mechanism_the_listener_lacks_stays_a_mismatch():
    assert only(explained(_ILLEGAL), "SASL_MECHANISM_MISMATCH").severity == "error"
    listed = ("org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism 'SCRAM-SHA-512' "
              "not enabled in the server, enabled mechanisms are [PLAIN]\n"
              "[DEBUG] sasl has a limited lifetime; broker: 2, reauthenticate_in: 58m")
    assert only(explained(listed), "SASL_MECHANISM_MISMATCH").severity == "error"
