"""The spark-submit entry points (``kdiag.fleet.ingest.main``, ``kdiag.fleet.job.main``: what
``spark-submit kdiag/fleet/ingest.py`` and ``job.py`` run) take ``--kafka-credentials NAME[=PATTERN,...]``
as ``kdiag fleet`` does: the same binding, read from the driver's environment, the same one-line
refusals (exit 2), and nothing they print shows a set's secret. Against a real broker:
tests/integration/fleet/test_fleet_kafka_secure.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kdiag.fleet.ingest as ingest_module
import kdiag.fleet.job as job_module
from kdiag.fleet.inputs import InputError, KafkaLogin

PASSWORD = "submit-Secret-7"
REPORTS = {"KDIAG_CRED_REPORTS_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CRED_REPORTS_SASL_MECHANISMS": "SCRAM-SHA-256",
           "KDIAG_CRED_REPORTS_SASL_USERNAME": "fleet", "KDIAG_CRED_REPORTS_SASL_PASSWORD": PASSWORD}
SOURCE = "kafka://kafka-0.prod:9093,kafka-1.prod:9093/reports"
OTHER = "kafka://kafka.stage:9092/reports"


def ingest(capsys: pytest.CaptureFixture[str], *args: str, environ: dict[str, str] | None = None,
           table: Path) -> tuple[int, str, str]:
    code = ingest_module.main([*args, "--table", str(table), "--once"], environ=REPORTS if environ is None else environ)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, expected", [
    ((SOURCE, "--kafka-credentials", "absent"),
     "kdiag fleet: error: --kafka-credentials ABSENT: no KDIAG_CRED_ABSENT_<SETTING> variable gives the set's "
     "settings\n"),
    ((SOURCE, "--kafka-credentials", "reports=*.nowhere"),
     "kdiag fleet: error: --kafka-credentials reports=*.nowhere: no kafka:// source's bootstrap matches it\n"),
    ((SOURCE, OTHER, "--kafka-credentials", "reports"),
     "kdiag fleet: error: --kafka-credentials reports: the kafka:// sources name several clusters; bind the set "
     "to its own: --kafka-credentials reports=HOST:PORT[,...]\n"),
    ((SOURCE, "--kafka-credentials", "reports=*.prod", "--kafka-credentials", "reports=*.stage"),
     "kdiag fleet: error: --kafka-credentials names the set REPORTS twice\n"),
    ((SOURCE, "--kafka-credentials", "re-ports"),
     "kdiag fleet: error: --kafka-credentials takes a set NAME of letters and digits (its settings are "
     "KDIAG_CRED_<NAME>_*), not 're-ports'\n"),
])
def test_ingest_main_refuses_a_set_it_cannot_bind_in_one_line_and_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    code, out, err = ingest(capsys, *args, table=tmp_path / "t")
    assert (code, out, err) == (2, "", expected)
    assert not (tmp_path / "t").exists()


def test_job_main_refuses_a_set_bound_to_no_source_and_one_without_a_kafka_source(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    assert job_module.main([SOURCE, "--out", out, "--kafka-credentials", "reports=10.0.0.0/8"], environ=REPORTS) == 2
    assert capsys.readouterr().err == ("kdiag fleet: error: --kafka-credentials reports=10.0.0.0/8: no kafka:// "
                                       "source's bootstrap matches it\n")
    assert job_module.main(["--table", str(tmp_path), "--out", out, "--kafka-credentials", "reports"],
                           environ=REPORTS) == 2
    assert capsys.readouterr().err == ("kdiag fleet: error: --kafka-credentials goes with a kafka://BOOTSTRAP/TOPIC "
                                       "source\n")
    assert not Path(out).exists()


def test_ingest_main_reads_the_set_from_the_drivers_environment_and_binds_it_to_its_source_only(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``environ``: the process's own (the driver's, under spark-submit)."""
    seen: list[ingest_module.IngestOptions] = []

    def fake_ingest(options: ingest_module.IngestOptions, progress: Any = None) -> ingest_module.IngestResult:
        seen.append(options)
        progress(f"logging in as fleet with {PASSWORD}")
        return ingest_module.IngestResult(1, 7, 0, 0)

    for key, value in REPORTS.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(ingest_module, "ingest", fake_ingest)
    code = ingest_module.main([SOURCE, OTHER, "--table", str(tmp_path / "t"), "--once",
                               "--kafka-credentials", "reports=*.prod:9093"])
    out, err = capsys.readouterr()
    assert code == 0 and out == "7 reports and 0 rejected records ingested in 1 batches\n"
    [options] = seen
    [(source, login)] = options.kafka_logins
    assert source == SOURCE and login.name == "REPORTS" and PASSWORD in login.secrets
    assert dict(login.settings) == {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256",
                                    "sasl.username": "fleet", "sasl.password": PASSWORD}
    assert err == "kdiag fleet: logging in as fleet with ***\n"  # progress is scrubbed too


def test_job_main_gives_the_analysis_each_sources_set(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[job_module.AnalyzeOptions] = []

    def fake_analyze(options: job_module.AnalyzeOptions, progress: Any = None) -> job_module.AnalyzeResult:
        seen.append(options)
        return job_module.AnalyzeResult(options.out)

    monkeypatch.setattr(job_module, "analyze", fake_analyze)
    assert job_module.main([SOURCE, "--out", str(tmp_path / "out"), "--kafka-credentials", "reports"],
                           environ=REPORTS) == 0
    [options] = seen
    assert [(source, login.name) for source, login in options.kafka_logins] == [(SOURCE, "REPORTS")]
    assert PASSWORD not in capsys.readouterr().out


def test_an_error_naming_a_secret_is_printed_scrubbed(capsys: pytest.CaptureFixture[str]) -> None:
    def failing(logins: Any, progress: Any) -> str:
        raise InputError(f"{SOURCE}: SASL authentication failed for fleet/{PASSWORD}")

    assert job_module.run_submitted(["reports"], [SOURCE], failing, environ=REPORTS) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"kdiag fleet: error: {SOURCE}: SASL authentication failed for fleet/***\n"


def test_without_kafka_credentials_no_set_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    """A ``KDIAG_CRED_*`` in the environment is not a login until ``--kafka-credentials`` names it."""
    given: list[Any] = []
    assert job_module.run_submitted([], [SOURCE], lambda logins, _: given.append(logins) or "done",
                                    environ=REPORTS) == 0
    assert given == [()] and capsys.readouterr().out == "done\n"


def test_the_set_is_not_shown_by_the_options_the_job_carries() -> None:
    login = KafkaLogin("REPORTS", {"sasl.password": PASSWORD}, (PASSWORD,))
    options = ingest_module.IngestOptions((SOURCE,), "t", kafka_logins=((SOURCE, login),))
    assert PASSWORD not in repr(options) and PASSWORD not in repr(login)


def test_a_ca_given_as_ssl_ca_pem_file_is_read_on_the_driver_and_handed_to_the_executors_as_text(
        tmp_path: Path) -> None:
    """What docs/fleet.md advises on a cluster: no CA file the executors would each have to hold."""
    from kdiag.fleet.inputs import bind_kafka_logins
    from kdiag.fleet.kafka_security import spark_options

    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    environ = {**REPORTS, "KDIAG_CRED_REPORTS_SECURITY_PROTOCOL": "SASL_SSL",
               "KDIAG_CRED_REPORTS_SSL_CA_PEM_FILE": str(ca)}
    [(_, login)] = bind_kafka_logins(["reports"], [SOURCE], environ)
    options = spark_options(login)
    assert options["kafka.ssl.truststore.type"] == "PEM" and "kafka.ssl.truststore.location" not in options
    assert options["kafka.ssl.truststore.certificates"] == ca.read_text().rstrip("\n")
