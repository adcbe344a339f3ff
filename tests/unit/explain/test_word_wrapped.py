"""A paste wrapped at words (a mailer's or an editor's soft wrap, which keeps the space it cut at), and MIT Kerberos's
words cut in two by it; a cross-realm principal (``krbtgt/OTHER@REALM``) the KDC does not know."""

from __future__ import annotations

from kdiag.explain.normalize import normalise_block
from kdiag.explain.reader import Block
from tests.unit.explain.helpers import explained, only

WRAPPED = [
    "%7|1597073649.409|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://kafka.domain.com:9094/bootstrap]: ",
    "sasl_ssl://kafka.domain.com:9094/bootstrap: Failed to initialize SASL authentication: ",
    "SASL handshake failed (start (-1)): SASL(-1): generic failure: GSSAPI Error: Unspecified GSS failure.  ",
    "Minor code may provide more information (Server kafka/ip-10-0-0-5.ec2.internal@EXAMPLE.COM not ",
    "found in Kerberos database) (after 64ms in state AUTH_REQ)",
]


def test_lines_cut_at_words_are_joined_again():
    [line] = normalise_block(Block(1, WRAPPED)).lines
    assert line.startswith("%7|") and "(Server kafka/ip-10-0-0-5.ec2.internal@EXAMPLE.COM not found in" in line


def test_lines_that_end_in_a_space_and_are_followed_by_records_stay_apart():
    lines = [f"2024-05-01 10:00:0{i} WARN [Producer clientId=p] Connection to node -1 could not be established. "
             for i in range(3)]
    assert normalise_block(Block(1, lines)).lines == lines


def test_one_line_ending_in_a_space_is_no_wrap():
    lines = ["sasl_ssl://kafka.domain.com:9094/bootstrap: Failed to initialize SASL authentication: ", "done"]
    assert normalise_block(Block(1, lines)).lines == lines


def test_the_wrapped_kerberos_words_name_the_host_and_the_principal():
    finding = only(explained("\n".join(WRAPPED)), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert finding.evidence["host"] == "kafka.domain.com"
    assert finding.evidence["principal"] == "kafka/ip-10-0-0-5.ec2.internal@EXAMPLE.COM"


def test_kerberos_words_cut_into_two_records_are_read_together():
    # each piece a record of its own (a logger's prefix on each): no joining, the two pieces still read
    paste = "\n".join(f"2024-05-01 10:00:00,000 ERROR app: {line}" for line in WRAPPED)
    finding = only(explained(paste), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert finding.evidence["principal"] == "kafka/ip-10-0-0-5.ec2.internal@EXAMPLE.COM"


def test_the_rest_of_kerberos_words_alone_says_nothing():
    assert explained("found in Kerberos database) (after 64ms in state AUTH_REQ)").findings == ()


def test_a_cross_realm_principal_unknown_is_the_host_mapped_to_another_realm():
    line = ("%3|1597073649.409|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://kafka.domain.com:9094/bootstrap]: "
            "sasl_ssl://kafka.domain.com:9094/bootstrap: Failed to initialize SASL authentication: SASL handshake "
            "failed (start (-1)): SASL(-1): generic failure: GSSAPI Error: Unspecified GSS failure.  Minor code may "
            "provide more information (Server krbtgt/US-WEST-1.COMPUTE.AMAZONAWS.COM@REALM not found in Kerberos "
            "database)")
    finding = only(explained(line), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert finding.evidence["realm"] == "US-WEST-1.COMPUTE.AMAZONAWS.COM" and "[domain_realm]" in finding.fix
    assert ".domain.com = <BROKER'S REALM>" in finding.fix and "rdns = false" in finding.fix
