"""OpenSSL's words for a broker certificate it refused, as the clients built on it print them: librdkafka
(``certificate verify failed: reason``), Python's ssl (``[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed:
reason (_ssl.c:N)``) and Ruby's OpenSSL (``certificate verify failed (reason)``). The reason is OpenSSL's
X509_verify_cert_error_string: one that names the chain's fault or the name is certain; none, librdkafka's own hint
alone, or X509_V_ERR_UNSPECIFIED leave the CA and the name as two readings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.explain.clients.librdkafka import AFTER_STATE, RdBroker
from kdiag.explain.sightings import (ANY, CERT_NAME, CERT_UNTRUSTED, LIBRDKAFKA, Item, Pattern, ScanState,
                                     registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# X509_V_ERR_UNSPECIFIED: OpenSSL found no fault in the chain and a check layered on it refused, such as Ruby's
# verify_hostname callback before it named X509_V_ERR_HOSTNAME_MISMATCH.
_UNSPECIFIED = "unspecified certificate verification error"


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
    yield replace(RdBroker.find(m.string).sighting(symptom, detail=why or None, **({
        "guess": why or "certificate verify failed (no reason given)", "alternatives": ("TLS_HOSTNAME_MISMATCH",)}
        if hint else {})), **said)
