"""A ``kafka://`` source's credential set: what Spark's Kafka source and librdkafka are given, which
source gets which set (``--kafka-credentials NAME[=PATTERN,...]``), and what is refused in one line
before any connection. Against a real broker: tests/integration/fleet/test_fleet_kafka_secure.py."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kdiag.cli import main
from kdiag.commands.fleet import kafka_logins
from kdiag.environment import Environment
from kdiag.exitstatus import UsageError
from kdiag.fleet.inputs import InputError, KafkaLogin, parse_kafka, with_logins
from kdiag.fleet.kafka_security import jaas_config, librdkafka_settings, spark_options

SCRAM = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "fleet",
         "sasl.password": "pw"}


def login(**settings: str) -> KafkaLogin:
    return KafkaLogin("REPORTS", {key.replace("_", "."): value for key, value in settings.items()})


def test_a_scram_set_becomes_the_java_clients_protocol_mechanism_and_jaas_line() -> None:
    assert spark_options(KafkaLogin("REPORTS", SCRAM)) == {
        "kafka.security.protocol": "SASL_PLAINTEXT", "kafka.sasl.mechanism": "SCRAM-SHA-256",
        "kafka.sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                  'username="fleet" password="pw";'}


def test_the_jaas_line_escapes_quotes_and_backslashes_as_kafkas_tokenizer_reads_them() -> None:
    line = jaas_config("PLAIN", 'us"er', 'p"a\\ss\\"')
    assert line == ('org.apache.kafka.common.security.plain.PlainLoginModule required '
                    'username="us\\"er" password="p\\"a\\\\ss\\\\\\"";')


def test_sasl_ssl_with_a_ca_file_trusts_that_pem_file(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    options = spark_options(KafkaLogin("R", {**SCRAM, "security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN",
                                             "ssl.ca.location": str(ca),
                                             "ssl.endpoint.identification.algorithm": "none"}))
    assert options["kafka.ssl.truststore.type"] == "PEM" and options["kafka.ssl.truststore.location"] == str(ca)
    assert options["kafka.ssl.endpoint.identification.algorithm"] == ""
    assert options["kafka.sasl.mechanism"] == "PLAIN"


def test_a_client_certificate_is_one_pem_file_of_key_and_chain_or_a_pkcs12_keystore(tmp_path: Path) -> None:
    pem, p12 = tmp_path / "client.pem", tmp_path / "client.p12"
    pem.write_text("key and chain")
    p12.write_bytes(b"\x30")
    both = spark_options(KafkaLogin("R", {"security.protocol": "SSL", "ssl.certificate.location": str(pem),
                                          "ssl.key.location": str(pem), "ssl.key.password": "kp"}))
    assert both["kafka.ssl.keystore.type"] == "PEM" and both["kafka.ssl.keystore.location"] == str(pem)
    assert both["kafka.ssl.key.password"] == "kp"
    store = spark_options(KafkaLogin("R", {"security.protocol": "SSL", "ssl.keystore.location": str(p12),
                                           "ssl.keystore.password": "sp"}))
    assert store["kafka.ssl.keystore.type"] == "PKCS12" and store["kafka.ssl.keystore.password"] == "sp"
    with pytest.raises(InputError, match="one PEM file"):
        spark_options(KafkaLogin("R", {"security.protocol": "SSL", "ssl.certificate.location": str(pem),
                                       "ssl.key.location": str(tmp_path / "other.key")}))


@pytest.mark.parametrize("mechanism", ["GSSAPI", "OAUTHBEARER", None])
def test_gssapi_and_oauthbearer_are_refused_in_one_line(mechanism: str | None) -> None:
    settings = {key: value for key, value in SCRAM.items() if key != "sasl.mechanisms"}
    if mechanism:
        settings["sasl.mechanisms"] = mechanism
    with pytest.raises(InputError, match=f"SASL {mechanism or 'GSSAPI'} is not supported .*SCRAM-SHA-512 are"):
        spark_options(KafkaLogin("R", settings))


@pytest.mark.parametrize("settings, expected", [
    ({**SCRAM, "socket.keepalive.enable": "true"}, "socket.keepalive.enable: the fleet's Kafka source"),
    ({**SCRAM, "sasl.password": "a\nb"}, "line break"),
    ({**SCRAM, "sasl.username": ""}, "needs sasl.username and sasl.password"),
    ({"security.protocol": "PLAINTEXT", "sasl.username": "u"}, "SASL settings with security.protocol PLAINTEXT"),
    ({**SCRAM, "ssl.ca.location": "/x"}, "TLS settings with security.protocol SASL_PLAINTEXT"),
    ({"security.protocol": "SSL", "ssl.ca.location": "/no/such/ca.pem"}, "not a file"),
    ({"security.protocol": "TLS"}, "none of PLAINTEXT"),
])
def test_what_the_java_client_cannot_be_given_is_refused_not_dropped(settings: dict[str, str], expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        spark_options(KafkaLogin("R", settings))
    with pytest.raises(InputError, match=expected):  # the pre-check refuses it too, before connecting
        librdkafka_settings(KafkaLogin("R", settings))


def test_a_source_without_a_set_gets_no_setting_at_all() -> None:
    assert spark_options(None) == {} and librdkafka_settings(None) == {}
    topics = with_logins((parse_kafka("kafka://a:9092/t"), parse_kafka("kafka://b:9092/t")),
                         {"kafka://a:9092/t": KafkaLogin("R", SCRAM)})
    assert topics[0].login is not None and topics[1].login is None
    assert "pw" not in repr(topics[0]) and str(topics[0]) == "kafka://a:9092/t"


# --- which source gets which set (--kafka-credentials) --------------------------------------------

ENVIRON = {"KDIAG_CRED_PROD_SECURITY_PROTOCOL": "SASL_SSL", "KDIAG_CRED_PROD_SASL_MECHANISMS": "SCRAM-SHA-512",
           "KDIAG_CRED_PROD_SASL_USERNAME": "fleet", "KDIAG_CRED_PROD_SASL_PASSWORD": "prod-password-1",
           "KDIAG_CRED_STAGE_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CRED_STAGE_SASL_MECHANISMS": "PLAIN",
           "KDIAG_CRED_STAGE_SASL_USERNAME": "fleet", "KDIAG_CRED_STAGE_SASL_PASSWORD": "stage-password-2"}
SOURCES = ("kafka://kafka-0.prod:9093,kafka-1.prod:9093/reports", "kafka://kafka.stage:9092/reports",
           "kafka://10.1.2.3:9092/reports", "/var/log/kdiag")


def bound(*bindings: str, sources: tuple[str, ...] = SOURCES) -> dict[str, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    logins = kafka_logins(bindings, sources, env=env, environ=ENVIRON)
    return {source: found.name for source, found in logins}


def test_each_source_gets_only_the_set_bound_to_its_cluster_and_others_none() -> None:
    assert bound("prod=*.prod:9093", "stage=kafka.stage") == {SOURCES[0]: "PROD", SOURCES[1]: "STAGE"}
    assert bound("stage=10.0.0.0/8") == {SOURCES[2]: "STAGE"}


def test_a_bare_name_binds_the_one_cluster_and_is_refused_for_several() -> None:
    one = ("kafka://kafka.stage:9092/a", "kafka://KAFKA.stage:9092/b")
    assert bound("stage", sources=one) == {one[0]: "STAGE", one[1]: "STAGE"}
    with pytest.raises(UsageError, match="several clusters; bind the set to its own"):
        bound("prod")


@pytest.mark.parametrize("bindings, expected", [
    (("prod=*.nowhere",), "no kafka:// source's bootstrap matches it"),
    (("prod=*.prod:9093", "prod=kafka.stage"), "names the set PROD twice"),
    (("prod=*", "stage=kafka.stage"), "both credential sets PROD and STAGE are bound to it"),
    (("other=*",), "no KDIAG_CRED_OTHER_<SETTING> variable"),
    (("pr-od=*",), "--kafka-credentials takes NAME=PATTERN"),
])
def test_bindings_that_cannot_be_right_are_usage_errors(bindings: tuple[str, ...], expected: str) -> None:
    with pytest.raises(UsageError, match=expected):
        bound(*bindings)


def test_kafka_credentials_without_a_kafka_source_is_refused() -> None:
    with pytest.raises(UsageError, match="goes with a kafka://"):
        bound("prod", sources=("/var/log/kdiag",))


def test_the_cli_refuses_an_unsupported_set_in_one_line_without_the_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {"KDIAG_CRED_K_SECURITY_PROTOCOL": "SASL_SSL", "KDIAG_CRED_K_SASL_MECHANISMS": "OAUTHBEARER",
                       "KDIAG_CRED_K_SASL_PASSWORD": "oauth-password-9"}.items():
        monkeypatch.setenv(key, value)
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["fleet", "ingest", "kafka://127.0.0.1:1/reports", "--table", str(tmp_path / "t"), "--once",
                 "--kafka-credentials", "k"], env=env)
    stderr = env.stderr.getvalue()  # type: ignore[attr-defined]
    assert code == 2 and stderr.count("\n") == 1, stderr
    assert "SASL OAUTHBEARER is not supported" in stderr and "oauth-password-9" not in stderr
    assert not (tmp_path / "t").exists()


def test_a_password_in_a_kafka_url_is_refused_without_echoing_it(tmp_path: Path) -> None:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["fleet", "ingest", "kafka://fleet:url-password-5@kafka:9093/reports", "--table", str(tmp_path / "t"),
                 "--once"], env=env)
    stderr = env.stderr.getvalue()  # type: ignore[attr-defined]
    assert code == 2 and stderr.count("\n") == 1, stderr
    assert "kafka://…@kafka:9093/reports: a user or password in a kafka:// URL is not read" in stderr
    assert "url-password-5" not in stderr and "fleet:" not in stderr
