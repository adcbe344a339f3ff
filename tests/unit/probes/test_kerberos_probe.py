"""probes.kerberos: krb5.conf, the service principal MIT Kerberos builds, and what kvno says (no KDC needed)."""

from __future__ import annotations

import pytest

from probes import kerberos
from probes.kerberos import Krb5Config, check_service_principals, expected_principal, parse_config

CONF = """\
[libdefaults]
    default_realm = EXAMPLE.TEST   # the company realm
    rdns = false
[realms]
    EXAMPLE.TEST = {
        kdc = 203.0.113.88
        default_domain = ignored.example
    }
[domain_realm]
    .corp.example = CORP.EXAMPLE
"""


def lookup(canonical: str | None, address: str | None):
    return lambda host: (canonical, address)


def test_krb5_conf_gives_realm_rdns_and_the_domain_realm_map_and_mits_defaults_otherwise():
    config = parse_config(CONF, path="/etc/krb5.conf")
    assert (config.default_realm, config.rdns, config.dns_canonicalize_hostname) == ("EXAMPLE.TEST", False, "true")
    assert config.realm_for("kafka.corp.example") == "CORP.EXAMPLE"
    assert config.realm_for("kafka.example.test") == "EXAMPLE.TEST"
    assert parse_config("[libdefaults]\n default_realm = R\n").rdns is True


def test_mit_defaults_take_the_reverse_dns_name_of_the_address():
    principal = expected_principal("kafka.example.test", "kafka", Krb5Config(default_realm="EXAMPLE.TEST"),
                                   lookup=lookup("kafka.example.test", "198.51.100.10"),
                                   reverse=lambda address: "server1.example.test")
    assert principal.principal == "kafka/server1.example.test@EXAMPLE.TEST"
    assert principal.literal_principal == "kafka/kafka.example.test@EXAMPLE.TEST"


def test_rdns_false_keeps_the_forward_canonical_name_and_no_canonicalisation_keeps_the_address():
    config = Krb5Config(default_realm="EXAMPLE.TEST", rdns=False)
    alias = expected_principal("kafka.example.test", "kafka", config, lookup=lookup("Node7.Example.Test.", "192.0.2.7"),
                               reverse=lambda address: "ptr.example.test")
    assert alias.principal == "kafka/node7.example.test@EXAMPLE.TEST"
    literal = expected_principal("198.51.100.10", "kafka",
                                 Krb5Config(default_realm="EXAMPLE.TEST", dns_canonicalize_hostname="false"),
                                 lookup=lookup("198.51.100.10", "198.51.100.10"), reverse=lambda a: "server1.example.test")
    assert literal.principal == "kafka/198.51.100.10@EXAMPLE.TEST"


@pytest.mark.parametrize("output, status, expected", [
    ("kafka/kafka.example.test@EXAMPLE.TEST: kvno = 2\n", 0, ("ok", "kafka/kafka.example.test@EXAMPLE.TEST", 2)),
    ("kvno: Server kafka/server1.example.test@EXAMPLE.TEST not found in Kerberos database while getting credentials "
     "for kafka/server1.example.test@EXAMPLE.TEST\n", 1, ("unknown", "kafka/server1.example.test@EXAMPLE.TEST", None)),
    ("kvno: Cannot contact any KDC for realm 'EXAMPLE.TEST' while getting credentials for x\n", 1,
     ("kdc_unreachable", None, None)),
])
def test_kvno_says_known_unknown_or_unreachable(monkeypatch, output, status, expected):
    monkeypatch.setattr(kerberos, "_tool", lambda argv, timeout: (status, output.strip()))
    got = kerberos._kvno_outcome(["kvno", "-S", "kafka", "host"], 1.0)
    assert (got[0], got[1], got[3]) == expected
    assert got[2] is None or not got[2].startswith("kvno:")


def test_without_a_ticket_kdiag_names_the_principal_and_asks_the_kdc_nothing(monkeypatch, tmp_path):
    calls = []

    def tool(argv, timeout):
        calls.append(argv[0])
        return 1, "klist: No credentials cache found (filename: /tmp/krb5cc_0)"

    monkeypatch.setattr(kerberos, "_tool", tool)
    (tmp_path / "krb5.conf").write_text(CONF)
    check = check_service_principals(["kafka.example.test"], environ={"KRB5_CONFIG": str(tmp_path / "krb5.conf")},
                                     lookup=lookup("kafka.example.test", "198.51.100.10"), reverse=lambda a: None)
    assert calls == ["klist"]
    assert check.principals[0].principal == "kafka/kafka.example.test@EXAMPLE.TEST"
    assert check.principals[0].kdc_status == "no_credentials" and not check.unknown


@pytest.mark.parametrize("host, canonical, reverse_name, expected", [
    ("kafka.example.test", "kafka.example.test", "server1.example.test", "kafka.example.test"),  # no rdns in Java
    ("kafka", "kafka.example.test", None, "kafka.example.test"),  # a longer form of the name is kept
    ("kafka.example.test", "lb.example.net", None, "kafka.example.test"),  # another name is not
    ("198.51.100.10", "198.51.100.10", "server1.example.test.", "server1.example.test"),  # an address: its PTR
    ("198.51.100.11", "198.51.100.11", None, "198.51.100.11"),
])
def test_a_java_client_names_the_host_as_given_or_an_address_by_its_reverse_dns(host, canonical, reverse_name,
                                                                                 expected):
    assert kerberos.java_service_host(host, canonical, reverse_name) == expected
