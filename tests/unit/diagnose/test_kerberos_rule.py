"""KERBEROS_PRINCIPAL_UNKNOWN: read from the sasl stage's Kerberos check, with the fix that fits the cause."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import SaslDetail, Stage
from probes.kerberos import KerberosCheck, Krb5Config, ServicePrincipal
from probes.results import SaslResult

from .builders import bootstrap_failure, tcp_ok

NOT_PROBED = SaslResult("not_probed", "GSSAPI", endpoint="kafka.example.test:9094", enabled_mechanisms=("GSSAPI",))


def gssapi_report(principal: ServicePrincipal, *, bootstrap: str = "kafka.example.test:9094"):
    host, _, port = bootstrap.rpartition(":")
    report = bootstrap_failure(bootstrap, attempts=[tcp_ok("198.51.100.10", int(port))])
    check = KerberosCheck(Krb5Config("/etc/krb5.conf", "EXAMPLE.TEST"), "kafka", "alice@EXAMPLE.TEST",
                          principals=(principal,))
    # kdiag cannot log in with GSSAPI: the metadata stage is skipped, as the orchestrator records it
    stages = [replace(s, status="skip") if s.name == "metadata" else s for s in report.stages]
    stages.insert(2, Stage("sasl", "warn", 3.0, "", SaslDetail((NOT_PROBED,), kerberos=check)))
    return replace(report, stages=tuple(stages))


RDNS = ServicePrincipal("kafka.example.test", "kafka", "kafka/server1.example.test@EXAMPLE.TEST",
                        "kafka/kafka.example.test@EXAMPLE.TEST", "198.51.100.10", "kafka.example.test",
                        "server1.example.test", "unknown", "kafka/server1.example.test@EXAMPLE.TEST",
                        "Server kafka/server1.example.test@EXAMPLE.TEST not found in Kerberos database", None, "ok")


def test_a_principal_built_from_the_reverse_dns_names_rdns_false_and_the_principal_to_create():
    (found,) = run_rule(gssapi_report(RDNS), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert found.severity == "error"
    assert "kafka/server1.example.test@EXAMPLE.TEST" in found.title
    assert "reverse DNS (PTR)" in found.explanation and "rdns = true" in found.explanation
    assert "rdns = false" in found.fix and "addprinc -randkey kafka/server1.example.test@EXAMPLE.TEST" in found.fix
    assert found.evidence["literal_known"] is True


def test_an_address_is_told_to_bootstrap_by_name():
    by_address = replace(RDNS, host="198.51.100.10", principal="kafka/198.51.100.10@EXAMPLE.TEST",
                         literal_principal="kafka/198.51.100.10@EXAMPLE.TEST", canonical_host="198.51.100.10",
                         kdc_principal="kafka/198.51.100.10@", literal_status=None)
    (found,) = run_rule(gssapi_report(by_address, bootstrap="198.51.100.10:9094"), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert found.title.startswith("The KDC has no service principal kafka/198.51.100.10@EXAMPLE.TEST")
    assert "not by address" in found.fix and "rdns = false" not in found.fix


def test_a_principal_the_kdc_knows_is_no_finding():
    known = replace(RDNS, kdc_status="ok", kdc_message=None, kvno=2)
    assert [f.id for f in diagnose(gssapi_report(known)) if f.severity != "info"] == []


def test_the_laptops_finding_says_java_clients_ask_for_the_name_as_given_and_log_in():
    (found,) = run_rule(gssapi_report(replace(RDNS, java_principal="kafka/kafka.example.test@EXAMPLE.TEST",
                                              java_status="ok")), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert "A Java client asks for kafka/kafka.example.test@EXAMPLE.TEST instead" in found.explanation
    assert "Java clients log in" in found.explanation


def test_only_the_java_principal_missing_is_a_java_finding():
    java_only = replace(RDNS, host="198.51.100.10", kdc_status="ok", kdc_message=None,
                        kdc_principal="kafka/kafka.example.test@EXAMPLE.TEST",
                        java_principal="kafka/server1.example.test@EXAMPLE.TEST", java_status="unknown")
    (found,) = run_rule(gssapi_report(java_only, bootstrap="198.51.100.10:9094"), "KERBEROS_PRINCIPAL_UNKNOWN")
    assert found.title.startswith("The KDC has no service principal kafka/server1.example.test@EXAMPLE.TEST: Java")
    assert "terminated during authentication" in found.explanation and "not by address" in found.fix
