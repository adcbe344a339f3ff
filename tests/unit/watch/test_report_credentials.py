"""``--report-topic`` on another cluster (``--report-bootstrap``) is sent none of the watched cluster's
credentials: the watched cluster's SASL login and client certificate belong to it alone.

The reproduction: a sidecar watching a cluster with SASL PLAIN settings produces its reports to a peer
that plays Kafka far enough to be sent a login (``CapturePeer``). That peer receives neither the user
nor the password; given ``--report-credentials REPORTS`` (``KDIAG_CRED_REPORTS_*``), it receives that
set's login and still not the watched cluster's. With the topic on the watched cluster, its own
settings are used, as before.
"""

from __future__ import annotations

import io

import pytest

from kdiag.commands.watch import configure
from kdiag.environment import Environment
from kdiag.exitstatus import UsageError
from tests.unit.watch.capture_peer import CapturePeer
from tests.unit.watch.sidecar import Sidecar, arguments
from tests.waiting import wait_until

USER, PASSWORD = "app-principal", "Pa55-w0rd-of-the-app"
SASL = {"KDIAG_CLIENT_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CLIENT_SASL_MECHANISMS": "PLAIN",
        "KDIAG_CLIENT_SASL_USERNAME": USER, "KDIAG_CLIENT_SASL_PASSWORD": PASSWORD}
REPORTS = {"KDIAG_CRED_REPORTS_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CRED_REPORTS_SASL_MECHANISMS": "PLAIN",
           "KDIAG_CRED_REPORTS_SASL_USERNAME": "reports-writer", "KDIAG_CRED_REPORTS_SASL_PASSWORD": "wr1ter-Secret"}


def configured(argv: list[str], environ: dict[str, str]):  # noqa: ANN201 - WatchConfig
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    return configure(arguments([*argv, "--listen", "127.0.0.1:9108"], environ), env=env, environ=environ), env


def topic(spool: object, *more: str) -> list[str]:
    return ["kafka-0.kafka:9092", "--report-topic", "kdiag.reports", "--spool-dir", str(spool), *more]


def test_another_report_cluster_gets_the_transport_without_the_watched_clusters_login(tmp_path) -> None:
    config, _env = configured(topic(tmp_path, "--report-bootstrap", "reports.example:9092"), SASL)
    assert config.report_settings == {"security.protocol": "PLAINTEXT"}
    assert config.report_note is not None and "--report-credentials" in config.report_note


def test_the_watched_cluster_as_report_cluster_keeps_its_settings(tmp_path) -> None:
    for more in ((), ("--report-bootstrap", "KAFKA-0.kafka.:9092")):
        config, _env = configured(topic(tmp_path, *more), SASL)
        assert config.report_settings["sasl.password"] == PASSWORD and config.report_note is None


def test_a_named_set_produces_the_reports_and_its_secret_is_scrubbed(tmp_path) -> None:
    config, env = configured(topic(tmp_path, "--report-bootstrap", "reports.example:9092",
                                   "--report-credentials", "reports"), {**SASL, **REPORTS})
    assert config.report_settings["sasl.username"] == "reports-writer" and config.report_note is None
    assert "wr1ter-Secret" not in env.scrub("password wr1ter-Secret")


@pytest.mark.parametrize(("argv", "environ", "message"), [
    (["kafka:9092", "--report-credentials", "reports"], REPORTS, "--report-credentials goes with --report-topic"),
    (["--report-credentials", "re-ports"], {}, "takes a set NAME of letters and digits"),
    (["--report-credentials", "absent"], {}, "--report-credentials ABSENT: no KDIAG_CRED_ABSENT_<SETTING>"),
])
def test_report_credentials_are_checked_at_start(argv, environ, message, tmp_path) -> None:
    if argv[0].startswith("--"):
        argv = topic(tmp_path, *argv)
    with pytest.raises(UsageError, match=message):
        configured(argv, environ)


def test_a_set_named_only_by_report_credentials_is_not_an_orphan(tmp_path) -> None:
    configured(topic(tmp_path, "--report-credentials", "REPORTS"), REPORTS)  # no UsageError


@pytest.mark.parametrize("named", [False, True])
def test_the_report_cluster_receives_no_login_of_the_watched_cluster(named: bool, tmp_path) -> None:
    with CapturePeer() as cluster, CapturePeer("127.0.0.2") as reports:
        argv = [cluster.endpoint, "--report-topic", "kdiag.reports", "--spool-dir", str(tmp_path),
                "--report-bootstrap", reports.endpoint, *(["--report-credentials", "reports"] if named else [])]
        with Sidecar(argv, environ={**SASL, **(REPORTS if named else {})}) as sidecar:
            expected = b"wr1ter-Secret" if named else b"kdiag.reports"  # the login, or the produce it allows
            wait_until(lambda: expected in reports.captured(), 30, "the reports' producer reaching its cluster")
            log = sidecar.env.stderr.getvalue()
    captured = reports.captured()
    assert USER.encode() not in captured and PASSWORD.encode() not in captured
    assert PASSWORD not in log and "wr1ter-Secret" not in log
    assert ("--report-credentials" in log) is not named  # the start log says what was not sent, once
