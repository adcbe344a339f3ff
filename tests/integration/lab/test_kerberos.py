"""Failure mode #18, Kerberos / reverse DNS, with a real MIT KDC: kdiag from every vantage, and real kcat.

``kerberos-principal-mismatch`` (:mod:`kdiag.lab.scenarios.kerberos`) comes up once: krb5kdc in its own
namespace, a broker with a GSSAPI listener and its keytab, clients holding alice's ticket. Each vantage's
``kdiag bootstrap`` must end as the scenario says (and match its golden report); then kcat, with GSSAPI
through Cyrus SASL and MIT Kerberos, logs in where the principal exists and fails with the KDC's own
words where it does not, and ``kdiag explain`` names the same finding on those real lines.
``KDIAG_CAPTURE_FIXTURES=1`` writes kcat's output to ``tests/fixtures/client_logs/kerberos.*.log``.
Needs root and the Debian krb5 packages (scripts/setup); never skips.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kdiag.explain.engine import explain_text
from kdiag.lab.kafka import cache_root, install
from kdiag.lab.scenarios.kerberos import GSSAPI_PORT, KERBEROS_PRINCIPAL_MISMATCH, MACHINE_NAME, REALM
from kdiag.lab.scenarios.healthy import SERVER_IP, SERVER_NAME
from tests.labrun import assert_run

pytestmark = [pytest.mark.netns, pytest.mark.broker]

SCENARIO = KERBEROS_PRINCIPAL_MISMATCH
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"
KCAT_SECONDS = 30.0


@pytest.mark.parametrize("vantage", SCENARIO.vantages, ids=[v.name for v in SCENARIO.vantages])
def test_kdiag_from_each_vantage_ends_as_the_scenario_says(lab, vantage) -> None:
    run = lab(SCENARIO.name).run(vantage)
    assert_run(SCENARIO.name, run)
    kerberos = next(s for s in run.report["stages"] if s["name"] == "sasl")["detail"]["kerberos"]
    assert kerberos["ccache_principal"] == f"alice@{REALM}"


def test_the_laptops_principal_comes_from_the_reverse_dns_and_the_name_as_written_exists(lab) -> None:
    vantage = next(v for v in SCENARIO.vantages if v.name == "laptop-rdns")
    run = lab(SCENARIO.name).run(vantage)
    evidence = next(f for f in run.report["findings"] if f["id"] == "KERBEROS_PRINCIPAL_UNKNOWN")["evidence"]
    assert evidence["principal"] == f"kafka/{MACHINE_NAME}@{REALM}"
    assert evidence["reverse_dns"] == MACHINE_NAME and evidence["rdns"] is True
    assert evidence["literal_principal"] == f"kafka/{SERVER_NAME}@{REALM}" and evidence["literal_known"] is True


def test_from_the_address_java_asks_for_the_reverse_dns_name_which_the_kdc_lacks_too(lab) -> None:
    """Kafka's Java client names an address by its reverse DNS (seen in this lab: the KDC logs LOOKING_UP_SERVER
    for kafka/server1.example.test while the console producer only says `terminated during authentication`)."""
    vantage = next(v for v in SCENARIO.vantages if v.name == "app-server-by-address")
    run = lab(SCENARIO.name).run(vantage)
    found = next(f for f in run.report["findings"] if f["id"] == "KERBEROS_PRINCIPAL_UNKNOWN")
    assert f"A Java client asks for kafka/{MACHINE_NAME}@{REALM} instead" in found["explanation"]
    assert "does not know it either" in found["explanation"]


def kcat(live, host: str, bootstrap: str) -> tuple[str, int]:
    """kcat -L with GSSAPI from ``host``, as a user configures it (keytab and principal: librdkafka runs kinit);
    returns the paste (``$ command``, then its output) and the exit status."""
    keytab = live.live.state_dir / "kdc" / "alice.keytab"
    argv = ["kcat", "-b", bootstrap, "-L", "-m", "5", "-X", "security.protocol=SASL_PLAINTEXT",
            "-X", "sasl.mechanisms=GSSAPI", "-X", "sasl.kerberos.service.name=kafka",
            "-X", f"sasl.kerberos.keytab={keytab}", "-X", f"sasl.kerberos.principal=alice@{REALM}"]
    done = live.live.run(host, argv, timeout=KCAT_SECONDS)
    return f"$ {shlex.join(argv)}\n{done.stdout}{done.stderr}", done.returncode


CAPTURES = {  # fixture name: (host, bootstrap, the principal the KDC does not know)
    "kerberos.rdns.kcat_list": ("laptop", f"{SERVER_NAME}:{GSSAPI_PORT}", f"kafka/{MACHINE_NAME}@{REALM}"),
    "kerberos.by_address.kcat_list": ("app-server", f"{SERVER_IP}:{GSSAPI_PORT}", f"kafka/{SERVER_IP}@{REALM}"),
}


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_kcat_fails_with_the_kdcs_words_and_explain_names_the_principal(lab, name) -> None:
    host, bootstrap, principal = CAPTURES[name]
    paste, status = kcat(lab(SCENARIO.name), host, bootstrap)
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        (FIXTURES / f"{name}.log").write_text(paste)
    assert status != 0 and f"Server {principal} not found in Kerberos database" in paste, paste
    explanation = explain_text(paste)
    first = explanation.findings[0]
    assert first.id == "KERBEROS_PRINCIPAL_UNKNOWN", explanation.findings
    assert principal in first.title and principal in first.fix


def test_kcat_logs_in_with_gssapi_where_the_kdc_knows_the_principal(lab) -> None:
    paste, status = kcat(lab(SCENARIO.name), "app-server", f"{SERVER_NAME}:{GSSAPI_PORT}")
    assert status == 0 and f"broker 1 at {SERVER_NAME}:{GSSAPI_PORT}" in paste, paste
    assert "not found in Kerberos database" not in paste


# The Kafka tarball's config/tools-log4j.properties: what the console tools print by default.
TOOLS_LOG4J = ("log4j.rootLogger=WARN, stderr\n"
               "log4j.appender.stderr=org.apache.log4j.ConsoleAppender\n"
               "log4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n"
               "log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
               "log4j.appender.stderr.Target=System.err\n")


def test_the_java_console_producer_by_address_says_only_terminated_and_explain_names_kerberos(lab) -> None:
    """Kafka 3.9.2's console producer from the app server by address: it asks for kafka/server1.example.test (its
    reverse DNS), the KDC logs LOOKING_UP_SERVER, and the client only says `terminated during authentication`."""
    live = lab(SCENARIO.name)
    lib = install("3.9.2")
    tools = cache_root() / "3.9.2" / "tools"
    log4j = live.live.state_dir / "tools-log4j.properties"
    log4j.write_text(TOOLS_LOG4J)
    keytab = live.live.state_dir / "kdc" / "alice.keytab"
    jaas = (f'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="{keytab}" '
            f'principal="alice@{REALM}";')
    args = ["--bootstrap-server", f"{SERVER_IP}:{GSSAPI_PORT}", "--topic", "t"]
    for setting in ("max.block.ms=8000", "request.timeout.ms=1500", "delivery.timeout.ms=3000", "linger.ms=0",
                    "enable.idempotence=false", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=GSSAPI",
                    "sasl.kerberos.service.name=kafka", f"sasl.jaas.config={jaas}"):
        args += ["--producer-property", setting]
    argv = ["java", "-Xmx64m", f"-Dlog4j.configuration=file:{log4j}", "-cp", f"{lib}/*{os.pathsep}{tools}/*",
            "kafka.tools.ConsoleProducer", *args]
    done = live.live.run("app-server", argv, timeout=60.0, input="hello\n")
    paste = f"$ {shlex.join(['kafka-console-producer.sh', *args])}\n{done.stdout}{done.stderr}"
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        (FIXTURES / "kerberos.by_address.console_producer.log").write_text(paste)
    assert "terminated during authentication" in paste and "not found in Kerberos database" not in paste, paste
    kdc_log = (live.live.state_dir / "process-kdc.log").read_text()
    assert f"for kafka/{MACHINE_NAME}@{REALM}, Server not found in Kerberos database" in kdc_log
    first = explain_text(paste).findings[0]
    assert first.id == "KERBEROS_PRINCIPAL_UNKNOWN" and f"kafka/{MACHINE_NAME}@<REALM>" in first.title
