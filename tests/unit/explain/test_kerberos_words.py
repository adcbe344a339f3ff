"""The KDC not knowing the service principal asked for (KRB5KDC_ERR_S_PRINCIPAL_UNKNOWN), in each Kerberos library's
words: MIT krb5's error table text without the principal (as python-gssapi prints it), Java's KrbException, gokrb5's
error name, and Heimdal's trace (``Server (principal) unknown``, error -1765328377)."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained

LINES = [
    "gssapi.raw.misc.GSSError: Major (851968): Unspecified GSS failure.  Minor code may provide more information, "
    "Minor (2529638919): Server not found in Kerberos database",
    "Caused by: KrbException: Server not found in Kerberos database (7) - LOOKING_UP_SERVER",
    "[kafka] KRB Error: (7) KDC_ERR_S_PRINCIPAL_UNKNOWN Server not found in Kerberos database",
    "krb5_get_credentials: Server (kafka/b1.example@EXAMPLE.TEST) unknown",
    "set-error: -1765328377: Server not known",
]


@pytest.mark.parametrize("line", LINES, ids=lambda v: v[:40])
def test_the_kdcs_principal_unknown_in_each_kerberos_librarys_words(line):
    assert [f.id for f in explained(line).findings] == ["KERBEROS_PRINCIPAL_UNKNOWN"]


def test_heimdal_names_the_principal_the_client_asked_for():
    [finding] = explained("krb5_get_credentials: Server (kafka/b1.example@EXAMPLE.TEST) unknown").findings
    assert "kafka/b1.example@EXAMPLE.TEST" in finding.title


def test_without_the_principal_the_title_says_so_plainly():
    [finding] = explained("Minor (2529638919): Server not found in Kerberos database").findings
    assert "no service principal the client asked for" in finding.title
    assert "service.name=the" not in str(finding.fix)
