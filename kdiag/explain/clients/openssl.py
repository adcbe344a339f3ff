"""OpenSSL's words for a broker certificate it refused, as the clients built on it print them: librdkafka
(``certificate verify failed: reason``), Python's ssl (``[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed:
reason (_ssl.c:N)``) and Ruby's OpenSSL (``certificate verify failed (reason)``). The reason is OpenSSL's
X509_verify_cert_error_string: one that names the chain's fault or the name is certain; none, librdkafka's own hint
alone, or X509_V_ERR_UNSPECIFIED leave the CA and the name as two readings.

And ``openssl s_client``'s report of the chain a broker sent (its "Certificate chain" block): a server certificate
sent alone, issued by another name than its own, leaves a client that trusts only the root unable to build the path
(an intermediate CA the broker's keystore lacks): the likely reading, since a leaf issued by the root itself is whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.explain.clients.librdkafka_names import AFTER_STATE, RdBroker
from kdiag.explain.sightings import (ANY, CERT_NAME, CERT_UNTRUSTED, CLIENT_CERT_MISSING, LIBRDKAFKA, OPENSSL, Fact, Item, Pattern,
                                     ScanState, Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# X509_V_ERR_UNSPECIFIED: OpenSSL found no fault in the chain and a check layered on it refused, such as Ruby's
# verify_hostname callback before it named X509_V_ERR_HOSTNAME_MISMATCH.
_UNSPECIFIED = "unspecified certificate verification error"

# OpenSSL's reasons that are the chain's, certain wherever on the line they stand (the openssl crate's Debug puts
# ``X509VerifyResult { code: 20, error: "unable to get local issuer certificate" }`` after the reason's own field).
_CHAIN_REASON = re.compile(r"unable to get (?:local )?issuer certificate|self[- ]signed certificate|"
                           r"certificate has expired|unable to verify the first certificate")


@pattern("openssl.certificate_verify", LIBRDKAFKA, "certificate verify failed",
         r"certificate verify failed(?::\s*(?P<why>.*)| \((?P<paren>[^)]{1,120})\))?",
         "%3|1795271469.162|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:9093/bootstrap]: "
         "ssl://127.0.0.1:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate verify "
         "failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured or "
         "root CA certificates are installed (install ca-certificates package) (after 66ms in state SSL_HANDSHAKE)")
def _certificate_verify(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = AFTER_STATE.sub("", m.group("why") or "").strip() or (m.group("paren") or "").strip()
    why = "" if why.startswith(("after ", "OpenSSL::")) else why  # librdkafka's state, Ruby's class: no reason
    lowered = m.string.lower()  # Python's ssl words a name the certificate does not hold so (kafka-python, aiokafka)
    symptom = CERT_NAME if "hostname mismatch" in lowered or "ip address mismatch" in lowered else CERT_UNTRUSTED
    said = {} if "rdkafka" in m.string or m.string.startswith("%") else {"client": ANY}  # Python's, Ruby's words
    if symptom == CERT_UNTRUSTED and why == _UNSPECIFIED:  # a check beside the chain's refused: the name likely
        yield replace(RdBroker.find(m.string).sighting(CERT_NAME, detail=why, guess=f"certificate verify failed ({why})",
                                                       alternatives=("TLS_CERT_UNTRUSTED",)), **said)
        return
    # librdkafka's own hint alone (since 2.0, a name too), or no reason at all: the CA likely, or the name
    hint = symptom == CERT_UNTRUSTED and (not why or why.startswith("broker certificate could not be verified"))
    hint = hint and not _CHAIN_REASON.search(m.string)  # OpenSSL's reason elsewhere on the line (Rust's X509VerifyResult)
    yield replace(RdBroker.find(m.string).sighting(symptom, detail=why or None, **({
        "guess": why or "certificate verify failed (no reason given)", "alternatives": ("TLS_HOSTNAME_MISMATCH",)}
        if hint else {})), **said)


# OpenSSL 3's by_dir lookup (crypto/x509/by_dir.c) stats the CA directory only when verifying a peer's chain needs an
# issuer, and queues ERR_raise_data(ERR_LIB_SYS, errno, "calling stat(%s)") when it is missing: the client's CA store is
# not where its OpenSSL looks (a container without ca-certificates, a bundled OpenSSL's own prefix). Likely, not
# certain: the chain may have failed for another reason as well.
@pattern("openssl.ca_directory_missing", LIBRDKAFKA, "calling stat(",
         r"No such file or directory: calling stat\((?P<path>[^)\s]{1,200})\)",
         "%3|1707900000.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: ssl://b1.example:9093/"
         "bootstrap: error:80000002:system library::No such file or directory: calling stat(/usr/local/ssl/certs)")
def _ca_directory_missing(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    said = {} if "rdkafka" in m.string or "ssl://" in m.string else {"client": ANY}
    yield replace(RdBroker.find(m.string).sighting(CERT_UNTRUSTED, detail=f"no CA directory {m.group('path')}",
                                                   guess=f"the CA directory {m.group('path')} does not exist"), **said)


# librdkafka's own hint (rdkafka_ssl.c, rd_kafka_transport_ssl_handshake) whenever OpenSSL's handshake error holds
# "unexpected message": a guess. A listener with ssl.client.auth=required that gets no certificate is the usual cause;
# one that refuses the certificate sent, or something in between breaking the handshake, ends the same. (With an
# alert's number the listener's alert says which: librdkafka.client_certificate_alert.)
@pattern("librdkafka.client_authentication_hint", LIBRDKAFKA, "client SSL authentication might be required",
         r"^(?!.*SSL alert number)(?=.*(?P<why>unexpected message)).*client SSL authentication might be required",
         "%3|1656605146.834|FAIL|rdkafka#producer-1| [thrd:ssl://b-1.example.kafka.eu-west-1.amazo]: "
         "ssl://b-1.example.kafka.eu-west-1.amazonaws.com:9094/bootstrap: SSL handshake failed: error:141A10F4:SSL "
         "routines:ossl_statem_client_read_transition:unexpected message: client SSL authentication might be required "
         "(see ssl.key.location and ssl.certificate.location and consult the broker logs for more information) (after "
         "16ms in state SSL_HANDSHAKE)")
def _client_authentication_hint(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(CLIENT_CERT_MISSING, detail=m.group("why"),
                                           guess="unexpected message: client SSL authentication might be required",
                                           alternatives=("TLS_CLIENT_CERT_REJECTED",))


# s_client (apps/s_client.c print_stuff): "Certificate chain", then per certificate " <depth> s:<subject>" and
# "   i:<issuer>" (OpenSSL 1.0 "/CN=x", 1.1+ "CN = x"), then "Server certificate" and, always, "SSL handshake has
# read N bytes and written M bytes", where the chain is judged.
@pattern("openssl.s_client_chain", OPENSSL, "Certificate chain", r"\bCertificate chain\s*$", "Certificate chain")
def _chain_start(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.chain = [0, "", ""]
    yield Fact("s_client")  # read: the chain's lines follow


@pattern("openssl.s_client_certificate", OPENSSL, " s:", r"(?:^|\s)(?P<depth>\d{1,2}) s:(?P<subject>\S.{0,299})$",
         " 0 s:/O=io.strimzi/CN=my-cluster-kafka")
def _chain_subject(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if scan.chain is not None:
        depth = int(m.group("depth"))
        scan.chain[0] = max(int(scan.chain[0]), depth)
        if depth == 0:
            scan.chain[1] = _name(m.group("subject"))
    yield Fact("s_client")


@pattern("openssl.s_client_issuer", OPENSSL, "i:", r"(?:^|\s)i:(?P<issuer>\S.{0,299})$", "   i:/CN=Kafka Intermediate CA")
def _chain_issuer(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if scan.chain is not None and scan.chain[0] == 0 and not scan.chain[2]:
        scan.chain[2] = _name(m.group("issuer"))
    yield Fact("s_client")


@pattern("openssl.s_client_handshake_read", OPENSSL, "SSL handshake has read", r"SSL handshake has read \d+ bytes",
         "SSL handshake has read 1633 bytes and written 415 bytes")
def _chain_judged(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    chain, scan.chain = scan.chain, None
    if chain is None or chain[0] != 0 or not chain[2] or chain[1] == chain[2]:
        yield Fact("s_client")
        return
    yield Sighting(CERT_UNTRUSTED, OPENSSL, detail=f"the server sent its certificate alone, issued by {chain[2]}",
                   related=(f"Certificate chain: 0 s:{chain[1]} i:{chain[2]} (and no certificate of that issuer)",),
                   guess=f"the chain holds one certificate ({chain[1]}), issued by {chain[2]}, and not that issuer's: "
                         "a client that trusts only the root cannot build the path")


def _name(text: str) -> str:
    """A distinguished name in s_client's 1.0 ("/O=x/CN=y") and 1.1+ ("O = x, CN = y") forms, one way."""
    parts = [p.strip() for p in re.split(r"[/,]", text.strip()) if "=" in p]
    return ", ".join("=".join(side.strip() for side in p.split("=", 1)) for p in parts)
