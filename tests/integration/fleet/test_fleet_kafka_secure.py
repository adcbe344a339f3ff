"""``kdiag fleet ingest`` and ``analyze`` read report topics on a secured cluster with a named credential
set (``--kafka-credentials NAME``, ``KDIAG_CRED_<NAME>_*``), against a real broker:

=========  ==============  ==========  ===================================================
listener   protocol        advertised  what it checks
=========  ==============  ==========  ===================================================
PLAINTEXT  PLAINTEXT       127.0.0.1   a second source read without credentials; the admin
SASL       SASL_PLAINTEXT  127.0.0.1   SCRAM-SHA-512 and SCRAM-SHA-256 (a password with a
                                       quote and a backslash)
SECURE     SASL_SSL        localhost   PLAIN over TLS, the CA given as a PEM file
MTLS       SSL             localhost   a client certificate (key and chain in one PEM file)
=========  ==============  ==========  ===================================================

Each source gets only its own set: the ingest reads a SCRAM topic with the set and a PLAINTEXT topic
beside it without one (a PLAINTEXT listener refuses a SASL login, a SASL one a client without it), and
every record of both lands once. The password is then looked for in everything the run wrote: its
stdout and stderr (with ``--verbose`` and a log4j2.properties at INFO: Spark's and Kafka's clients' own
log, their settings too), the table, the rejected table, the checkpoint, and Spark's event log (enabled
through spark-defaults.conf). A wrong password
is one line and exit 2 naming SASL authentication, within the pre-check's bound.

The spark-submit entry points (``python -m kdiag.fleet.ingest`` and ``kdiag.fleet.job``: the ``main``
that ``spark-submit kdiag/fleet/ingest.py`` runs) read the set from their own environment, the driver's,
the same way: the ingest reads the SCRAM-SHA-256 topic with it, and nothing it wrote holds the password.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdiag.fleet.generate import GenerateOptions, generate
from kdiag.lab.certs import PLAIN_USERS, client_auth_listener, issue, make_ca, pem_keystore, sasl_listener
from kdiag.lab.kafka import KAFKA_VERSION, BrokerSpec, KafkaBroker, Listener, free_ports
from tests.integration.fleet.conftest import SPARK_TIMEOUT
from tests.integration.fleet.support import expected_records, read_table, source_records, table_contents
from tests.integration.fleet.test_fleet_kafka import produce_records
from tests.integration.test_tls_sasl import create_scram_user
from tests.kdiag_cli import KdiagRun, run_kdiag

pytestmark = [pytest.mark.broker, pytest.mark.timeout(1800)]

MARK = "q7Zx41"
"""In the password, so that every form of it (escaped, quoted, masked at the edges) contains this."""
PASSWORD = f'fleet"{MARK}\\pw-secret'
USER = "fleet"
WRONG_TIME_S = 30.0
SCRAM = ("SCRAM-SHA-512", "SCRAM-SHA-256")
"""The SASL listener's SCRAM mechanisms; the user has a credential for each."""


@dataclass(frozen=True)
class SecureTopics:
    broker: KafkaBroker
    ca: Path
    client: Path  # a client certificate's key and chain, one PEM file
    plaintext: str  # bootstrap of each listener
    sasl: str
    secure: str
    mtls: str
    records: list[str]  # in every topic


@pytest.fixture(scope="module")
def secure_topics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureTopics]:
    pki = tmp_path_factory.mktemp("pki")
    ca = make_ca(pki, "kdiag fleet test CA")
    keystore = issue(pki, "broker", san="DNS:localhost,IP:127.0.0.1")
    client = issue(pki, "fleet-client", usage="clientAuth")
    plaintext, sasl, secure, mtls, controller = free_ports(5)
    listeners = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SASL", "127.0.0.1", sasl, "SASL_PLAINTEXT"),
                 Listener("SECURE", "", secure, "SASL_SSL"), Listener("MTLS", "", mtls, "SSL"))
    advertised = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SASL", "127.0.0.1", sasl),
                  Listener("SECURE", "localhost", secure), Listener("MTLS", "localhost", mtls))
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, controller_port=controller,
                      inter_broker_listener="PLAINTEXT",
                      overrides={**sasl_listener("SASL", scram=SCRAM), **sasl_listener("SECURE"), **pem_keystore("SECURE", keystore),
                                 **pem_keystore("MTLS", keystore), **client_auth_listener("MTLS", ca)})
    fleet = tmp_path_factory.mktemp("fleet") / "generated"
    generate(GenerateOptions(reports=400, clusters=2, vantages=3, out=fleet, seed=11, truth=False))
    records = source_records(fleet)
    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path_factory.mktemp("broker")) as broker:
        admin = f"127.0.0.1:{plaintext}"
        create_scram_user(admin, USER, PASSWORD, mechanisms=SCRAM)
        for topic in ("scram-reports", "plain-reports", "tls-reports"):
            produce_records(admin, topic, records)
        yield SecureTopics(broker, ca, client, admin, f"127.0.0.1:{sasl}", f"localhost:{secure}", f"localhost:{mtls}",
                           records)


def scram_set(password: str = PASSWORD, mechanism: str = "SCRAM-SHA-512") -> dict[str, str]:
    return {"KDIAG_CRED_REPORTS_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
            "KDIAG_CRED_REPORTS_SASL_MECHANISMS": mechanism,
            "KDIAG_CRED_REPORTS_SASL_USERNAME": USER, "KDIAG_CRED_REPORTS_SASL_PASSWORD": password}


LOG_AT_INFO = """\
rootLogger.level = info
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
appender.info.type = Console
appender.info.name = info
appender.info.target = SYSTEM_ERR
appender.info.layout.type = PatternLayout
appender.info.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.spark.name = org.apache.spark
logger.spark.level = info
logger.spark.additivity = false
logger.spark.appenderRef.info.ref = info
logger.kafka.name = org.apache.kafka
logger.kafka.level = info
logger.kafka.additivity = false
logger.kafka.appenderRef.info.ref = info
"""
"""Spark's and Kafka's loggers at INFO on an appender of their own: a shell (PySpark is one to Spark)
filters INFO out of the root logger's console appender whatever its level."""


def spark_logs_everything(where: Path) -> dict[str, str]:
    """Spark's event log on, into ``where/events``, and its log (Kafka's clients' too) at INFO on
    stderr, through a spark-defaults.conf and a log4j2.properties in SPARK_CONF_DIR, as an operator
    sets them."""
    (where / "conf").mkdir()
    (where / "events").mkdir()
    (where / "conf" / "spark-defaults.conf").write_text(
        f"spark.eventLog.enabled true\nspark.eventLog.dir file://{where / 'events'}\n")
    (where / "conf" / "log4j2.properties").write_text(LOG_AT_INFO)
    return {"SPARK_CONF_DIR": str(where / "conf")}


def files_holding(root: Path, needle: str) -> list[str]:
    return [str(path) for path in root.rglob("*") if path.is_file() and needle.encode() in path.read_bytes()]


@pytest.fixture(scope="module")
def scram_ingest(secure_topics: SecureTopics, tmp_path_factory: pytest.TempPathFactory) -> tuple[KdiagRun, Path]:
    """One ``ingest --once --verbose`` of the SCRAM topic (with the set, bound by pattern) and of the
    PLAINTEXT topic (no set), Spark's event log on."""
    where = tmp_path_factory.mktemp("scram-ingest")
    table = where / "table"
    sources = (f"kafka://{secure_topics.sasl}/scram-reports", f"kafka://{secure_topics.plaintext}/plain-reports")
    run = run_kdiag("fleet", "ingest", *sources, "--table", str(table), "--once", "--verbose",
                    "--kafka-credentials", f"reports={secure_topics.sasl}", timeout=SPARK_TIMEOUT,
                    extra_env={**scram_set(), **spark_logs_everything(where)})
    assert run.exit_code == 0, run.stderr[-5000:]
    return run, where


def test_ingest_of_a_scram_topic_beside_a_plaintext_one_lands_every_record_once(
        secure_topics: SecureTopics, scram_ingest: tuple[KdiagRun, Path]) -> None:
    run, where = scram_ingest
    keys, rejected = expected_records(secure_topics.records)
    got, got_rejected, _ = table_contents(where / "table")
    assert got == Counter({key: 2 * count for key, count in keys.items()})  # each topic's copy once
    assert got_rejected == 2 * rejected
    assert f"{sum(got.values())} reports and {got_rejected} rejected records ingested" in run.stdout


def test_the_password_appears_nowhere_the_ingest_wrote(scram_ingest: tuple[KdiagRun, Path]) -> None:
    run, where = scram_ingest
    assert "ConsumerConfig values" in run.stderr and "sasl.jaas.config" in run.stderr  # Kafka's client at INFO
    assert list((where / "events").iterdir()), "Spark wrote no event log"
    assert list((where / "table" / "_checkpoint").rglob("*"))
    assert MARK not in run.stdout and MARK not in run.stderr
    assert files_holding(where, MARK) == []  # the table, the rejected table, the checkpoint, the event log


def test_analyze_reads_a_topic_over_sasl_ssl_with_the_ca_as_a_pem_file(secure_topics: SecureTopics,
                                                                       tmp_path: Path) -> None:
    password = PLAIN_USERS["alice"]
    out = tmp_path / "out"
    run = run_kdiag("fleet", "analyze", f"kafka://{secure_topics.secure}/tls-reports", "--out", str(out),
                    "--kafka-credentials", "tls", timeout=SPARK_TIMEOUT, extra_env={
                        "KDIAG_CRED_TLS_SECURITY_PROTOCOL": "SASL_SSL", "KDIAG_CRED_TLS_SASL_MECHANISMS": "PLAIN",
                        "KDIAG_CRED_TLS_SASL_USERNAME": "alice", "KDIAG_CRED_TLS_SASL_PASSWORD": password,
                        "KDIAG_CRED_TLS_SSL_CA_LOCATION": str(secure_topics.ca)})
    assert run.exit_code == 0, run.stderr[-5000:]
    keys, rejected = expected_records(secure_topics.records)
    findings = read_table(out, "findings")
    assert findings and sum(r["count"] for r in read_table(out, "rejected")) == rejected
    assert password not in run.stdout + run.stderr and files_holding(out, password) == []


def test_ingest_reads_a_topic_over_ssl_with_a_client_certificate(secure_topics: SecureTopics, tmp_path: Path) -> None:
    table = tmp_path / "table"
    run = run_kdiag("fleet", "ingest", f"kafka://{secure_topics.mtls}/tls-reports", "--table", str(table), "--once",
                    "--kafka-credentials", "mtls", timeout=SPARK_TIMEOUT, extra_env={
                        "KDIAG_CRED_MTLS_SECURITY_PROTOCOL": "SSL",
                        "KDIAG_CRED_MTLS_SSL_CA_LOCATION": str(secure_topics.ca),
                        "KDIAG_CRED_MTLS_SSL_CERTIFICATE_LOCATION": str(secure_topics.client),
                        "KDIAG_CRED_MTLS_SSL_KEY_LOCATION": str(secure_topics.client)})
    assert run.exit_code == 0, run.stderr[-5000:]
    keys, rejected = expected_records(secure_topics.records)
    got, got_rejected, _ = table_contents(table)
    assert got == keys and got_rejected == rejected


def test_a_wrong_password_is_one_line_and_exit_2_naming_sasl_authentication(secure_topics: SecureTopics,
                                                                           tmp_path: Path) -> None:
    run = run_kdiag("fleet", "ingest", f"kafka://{secure_topics.sasl}/scram-reports", "--table", str(tmp_path / "t"),
                    "--once", "--kafka-credentials", "reports", timeout=120,
                    extra_env=scram_set(f"not-the-{MARK}-password"))
    assert run.exit_code == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "SASL authentication failed" in run.stderr, run.stderr
    assert "KDIAG_CRED_REPORTS_*" in run.stderr and MARK not in run.stderr
    assert run.seconds < WRONG_TIME_S
    assert not (tmp_path / "t").exists()


def test_a_sasl_listener_read_without_a_set_gets_no_login_and_says_how_to_give_one(secure_topics: SecureTopics,
                                                                                  tmp_path: Path) -> None:
    """The set bound to another cluster is not sent here: the source is read without credentials."""
    run = run_kdiag("fleet", "analyze", f"kafka://{secure_topics.sasl}/scram-reports",
                    f"kafka://{secure_topics.plaintext}/plain-reports", "--out", str(tmp_path / "out"),
                    "--kafka-credentials", f"plain={secure_topics.plaintext}", timeout=120,
                    extra_env={"KDIAG_CRED_PLAIN_CLIENT_ID": "kdiag-fleet"})
    assert run.exit_code == 2, run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert f"kafka://{secure_topics.sasl}/scram-reports: cannot reach the brokers" in run.stderr
    assert "--kafka-credentials NAME" in run.stderr


# --- the spark-submit entry points: the set from the driver's environment ------------------------


def test_spark_submits_ingest_reads_a_scram_sha_256_topic_with_the_set_from_its_environment(
        secure_topics: SecureTopics, tmp_path: Path) -> None:
    """``python -m kdiag.fleet.ingest`` (the main ``spark-submit kdiag/fleet/ingest.py`` runs), Spark's
    event log on and its and Kafka's log at INFO: every record lands, and the password is in nothing it
    printed or wrote, the table's stored source included."""
    source = f"kafka://{secure_topics.sasl}/scram-reports"
    run = run_kdiag(source, "--table", str(tmp_path / "table"), "--once", "--verbose",
                    "--kafka-credentials", f"reports={secure_topics.sasl}", module="kdiag.fleet.ingest",
                    timeout=SPARK_TIMEOUT,
                    extra_env={**scram_set(mechanism="SCRAM-SHA-256"), **spark_logs_everything(tmp_path)})
    assert run.exit_code == 0, run.stderr[-5000:]
    keys, rejected = expected_records(secure_topics.records)
    got, got_rejected, _ = table_contents(tmp_path / "table")
    assert got == keys and got_rejected == rejected
    summary = f"{sum(got.values())} reports and {got_rejected} rejected records ingested in "
    assert run.stdout.startswith(summary) and run.stdout.endswith(" batches\n") and run.stdout.count("\n") == 1
    assert "sasl.mechanism = SCRAM-SHA-256" in run.stderr  # Kafka's consumer, at INFO, on the executor
    assert json.loads((tmp_path / "table" / "_kdiag_table.json").read_text())["sources"] == [source]
    assert MARK not in run.stdout and MARK not in run.stderr
    assert files_holding(tmp_path, MARK) == []  # the table, the rejected table, the checkpoint, the event log


def test_spark_submits_job_refuses_a_wrong_password_in_one_line_and_exit_2(secure_topics: SecureTopics,
                                                                          tmp_path: Path) -> None:
    run = run_kdiag(f"kafka://{secure_topics.sasl}/scram-reports", "--out", str(tmp_path / "out"),
                    "--kafka-credentials", "reports", module="kdiag.fleet.job", timeout=120,
                    extra_env=scram_set(f"not-the-{MARK}-password", mechanism="SCRAM-SHA-256"))
    assert run.exit_code == 2, run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("kdiag fleet: error: "), run.stderr
    assert "SASL authentication failed" in run.stderr and "KDIAG_CRED_REPORTS_*" in run.stderr
    assert MARK not in run.stderr and run.stdout == ""
    assert run.seconds < WRONG_TIME_S and not (tmp_path / "out").exists()
