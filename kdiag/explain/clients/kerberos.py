"""The KDC not knowing the service principal a Kafka client asked a ticket for (KRB5KDC_ERR_S_PRINCIPAL_UNKNOWN,
error 7), in each Kerberos implementation's words, whichever client carries them:

- MIT krb5 (krb5_err.et): ``Server not found in Kerberos database``, with the principal when the library names it
  (``Server kafka/b1@REALM not found in Kerberos database``: read by ``librdkafka`` and ``java``); Java's
  ``KrbException: Server not found in Kerberos database (7) - LOOKING_UP_SERVER`` and Go's gokrb5
  ``KDC_ERR_S_PRINCIPAL_UNKNOWN`` say the same;
- Heimdal (macOS, and libraries built on it), as its trace prints it: ``Server (kafka/b1@REALM) unknown``, and the
  error's number, ``-1765328377``.

The principal is the client's ``sasl.kerberos.service.name`` and the broker's host name as the client
canonicalised it (reverse DNS): the finding names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import ANY, KERBEROS_PRINCIPAL, Fact, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("kerberos.heimdal_server_unknown", ANY, ") unknown", r"Server \((?P<principal>[^()\s]{1,300})\) unknown",
         "krb5_get_credentials: Server (kafka/b1.example@EXAMPLE.TEST) unknown")
def _heimdal_server_unknown(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(KERBEROS_PRINCIPAL, ANY, detail=m.group("principal"))


@pattern("kerberos.principal_unknown_code", ANY, "PRINCIPAL_UNKNOWN",
         r"KDC_ERR_S_PRINCIPAL_UNKNOWN\b", "KRBMessage_Error: KDC_ERR_S_PRINCIPAL_UNKNOWN Server not found in Kerberos "
         "database")
def _principal_unknown_code(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(KERBEROS_PRINCIPAL, ANY, detail=_principal(m.string))


@pattern("kerberos.mit_server_not_found", ANY, "Server not found in Kerberos database",
         r"Server not found in Kerberos database", "gssapi.raw.misc.GSSError: Major (851968): Unspecified GSS failure. "
         "Minor code may provide more information, Minor (2529638919): Server not found in Kerberos database")
def _mit_server_not_found(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if "KDC_ERR_S_PRINCIPAL_UNKNOWN" not in m.string:  # (that pattern reads the line)
        yield Sighting(KERBEROS_PRINCIPAL, ANY, detail=_principal(m.string))


@pattern("kerberos.heimdal_code", ANY, "-1765328377", r"-1765328377\b(?!.*\) unknown)",
         "set-error: -1765328377: Server not known to the KDC")
def _heimdal_code(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(KERBEROS_PRINCIPAL, ANY, detail=_principal(m.string))


def _principal(text: str) -> str | None:
    named = re.search(r"\b(\w[\w.-]{0,60}/[\w.-]{1,255}@[\w.-]{1,255})", text)
    return named.group(1) if named else None


# MIT's words cut in two by a paste wrapped at words: "... (Server kafka/b1@REALM not" / "found in Kerberos database)"
# (where the wrapped lines cannot be joined again: each piece became a record of its own). The first piece's
# principal waits for the second, which must come next (or after the record's own message line: a JSON logger's).
@pattern("kerberos.mit_cut_principal", ANY, "(Server ", r"\(Server (?P<principal>[^()\s]{1,300}) not\s*$",
         "Minor code may provide more information (Server krbtgt/EXAMPLE.COM@REALM not ")
def _mit_cut_principal(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.cut_principal = (scan.line, m.group("principal"))
    yield Fact("kerberos")  # a GSSAPI login's words, whatever follows


@pattern("kerberos.mit_cut_rest", ANY, "found in Kerberos database",
         r"^(?!.*not found in Kerberos database).*?found in Kerberos database",
         "found in Kerberos database) (after 64ms in state AUTH_REQ)")
def _mit_cut_rest(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    cut, scan.cut_principal = scan.cut_principal, None
    yield Fact("kerberos")
    if cut is not None and scan.line - cut[0] <= 2:
        yield Sighting(KERBEROS_PRINCIPAL, ANY, detail=cut[1])
