"""Client settings as users already write them: -X librdkafka names and a Java client.properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kdiag.clientconfig import (
    LIBRDKAFKA_PROPERTIES, ClientSettings, from_java_properties, load_client_settings,
    parse_java_properties, parse_x_option, parse_x_options, read_command_config,
)
from kdiag.exitstatus import UsageError

PASSWORD = "alice-s3cret!"

CLIENT_PROPERTIES = f"""\
# written for kafka-console-producer --command-config
! a comment in the other style
bootstrap.servers=ignored-here:9092
security.protocol = SASL_SSL
sasl.mechanism: SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\
    username="alice" \\
    password="{PASSWORD}";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/ca.pem
ssl.endpoint.identification.algorithm=
client.id kdiag-test
request.timeout.ms=15000
key.serializer=org.apache.kafka.common.serialization.StringSerializer
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text, encoding="utf-8")
    return path


# --- java.util.Properties syntax ----------------------------------------------------------------


def test_properties_syntax_comments_separators_and_continuations() -> None:
    text = "# c\n! c\n  a=1\nb: 2\nc 3\nd=x\\\n   y\\\n  z\ne=ends with backslash \\\\\nf\n#g=no\n"
    assert parse_java_properties(text) == {
        "a": "1", "b": "2", "c": "3", "d": "xyz", "e": "ends with backslash \\", "f": "",
    }


def test_properties_escapes_and_line_endings() -> None:
    text = "key\\=with\\:seps = v\\tw\\u00e9\r\nother=1\rthird=\\#not-a-comment"
    assert parse_java_properties(text) == {"key=with:seps": "v\twé", "other": "1", "third": "#not-a-comment"}


def test_later_keys_win() -> None:
    assert parse_java_properties("a=1\na=2") == {"a": "2"}


# --- Java names → librdkafka names --------------------------------------------------------------


def test_client_properties_map_to_librdkafka_names(tmp_path: Path) -> None:
    settings = read_command_config(_write(tmp_path, CLIENT_PROPERTIES))
    assert settings.settings == {
        "bootstrap.servers": "ignored-here:9092",
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.username": "alice",
        "sasl.password": PASSWORD,
        "ssl.ca.location": "/etc/kafka/ca.pem",
        "ssl.endpoint.identification.algorithm": "none",
        "client.id": "kdiag-test",
        "request.timeout.ms": "15000",
    }
    assert settings.ignored == ("key.serializer",)
    assert settings.security_protocol == "SASL_SSL"
    assert settings.sasl_mechanism == "SCRAM-SHA-512"


@pytest.mark.parametrize(("jaas", "expected"), [
    ('org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="pw";',
     {"sasl.username": "bob", "sasl.password": "pw"}),
    ("org.apache.kafka.common.security.plain.PlainLoginModule required username=bob password=pw",
     {"sasl.username": "bob", "sasl.password": "pw"}),
    ('org.apache.kafka.common.security.scram.ScramLoginModule required username="b o b" password="p\\"w;x";',
     {"sasl.username": "b o b", "sasl.password": 'p"w;x'}),
    ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true'
     ' keyTab="/etc/security/kafka.keytab" principal="kafka-client@EXAMPLE.COM";',
     {"sasl.kerberos.keytab": "/etc/security/kafka.keytab", "sasl.kerberos.principal": "kafka-client@EXAMPLE.COM"}),
    ('org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required'
     ' unsecuredLoginStringClaim_sub="admin";',
     {"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": "principal=admin"}),
])
def test_jaas_login_modules_map_to_librdkafka_settings(jaas: str, expected: dict[str, str]) -> None:
    assert from_java_properties({"sasl.jaas.config": jaas}).settings == expected


def test_oidc_jaas_with_token_endpoint_selects_the_oidc_method() -> None:
    settings = from_java_properties({
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example.com/token",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required'
                            ' clientId="kdiag" clientSecret="oidc-secret" scope="kafka";',
    }).settings
    assert settings == {
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example.com/token",
        "sasl.oauthbearer.client.id": "kdiag", "sasl.oauthbearer.client.secret": "oidc-secret",
        "sasl.oauthbearer.scope": "kafka", "sasl.oauthbearer.method": "oidc",
    }


def test_unknown_login_module_is_set_aside() -> None:
    settings = from_java_properties({"sasl.jaas.config": 'com.example.CustomLoginModule required a="b";'})
    assert settings.settings == {}
    assert settings.ignored == ("sasl.jaas.config",)


def test_unreadable_jaas_is_an_error_that_does_not_quote_the_password() -> None:
    with pytest.raises(UsageError) as raised:
        from_java_properties({"sasl.jaas.config": f'PlainLoginModule required password="{PASSWORD};'})
    assert "sasl.jaas.config" in str(raised.value)
    assert PASSWORD not in str(raised.value)


def test_pem_keystore_gives_certificate_and_key_from_the_same_file() -> None:
    settings = from_java_properties({
        "ssl.keystore.type": "PEM", "ssl.keystore.location": "/etc/kafka/client.pem",
        "ssl.key.password": "key-pass",
    }).settings
    assert settings == {"ssl.certificate.location": "/etc/kafka/client.pem",
                        "ssl.key.location": "/etc/kafka/client.pem", "ssl.key.password": "key-pass"}


def test_inline_pem_stores_map_to_pem_settings() -> None:
    settings = from_java_properties({
        "ssl.truststore.type": "PEM", "ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----",
        "ssl.keystore.type": "PEM", "ssl.keystore.key": "-----BEGIN PRIVATE KEY-----",
        "ssl.keystore.certificate.chain": "-----BEGIN CERTIFICATE----- chain",
    }).settings
    assert settings == {"ssl.ca.pem": "-----BEGIN CERTIFICATE-----", "ssl.key.pem": "-----BEGIN PRIVATE KEY-----",
                        "ssl.certificate.pem": "-----BEGIN CERTIFICATE----- chain"}


def test_pkcs12_keystore_maps_across() -> None:
    settings = from_java_properties({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12",
                                     "ssl.keystore.password": "store-pass"}).settings
    assert settings == {"ssl.keystore.location": "/k.p12", "ssl.keystore.password": "store-pass"}


def test_jks_and_absent_keystore_types_map_across_for_the_tls_probe_to_open() -> None:
    # Kafka's default type is JKS, and a JVM's JKS keystore reads PKCS#12 files: the file decides
    for given in ({}, {"ssl.keystore.type": "JKS"}):
        settings = from_java_properties({**given, "ssl.keystore.location": "/k.p12",
                                         "ssl.keystore.password": "changeit"})
        assert settings.settings == {"ssl.keystore.location": "/k.p12", "ssl.keystore.password": "changeit"}
        assert settings.ignored == ()


def test_jks_truststore_is_a_usage_error_with_the_keytool_conversion(tmp_path) -> None:
    jks = tmp_path / "truststore.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02" + bytes(64))
    with pytest.raises(UsageError) as raised:
        from_java_properties({"ssl.truststore.location": str(jks), "ssl.truststore.password": "changeit-secret"})
    message = str(raised.value)
    assert message.startswith(f"--command-config ssl.truststore.location {jks} is a JKS truststore")
    assert (f"keytool -importkeystore -srcstoretype JKS -srckeystore {jks} -deststoretype PKCS12 -destkeystore "
            f"{tmp_path / 'truststore.p12'}") in message
    assert "changeit-secret" not in message and "\n" not in message


def test_missing_truststore_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"^--command-config ssl.truststore.location /no/t.p12: no such file$"):
        from_java_properties({"ssl.truststore.type": "PKCS12", "ssl.truststore.location": "/no/t.p12"})


@pytest.mark.parametrize(("java", "librdkafka"), [
    ("send.buffer.bytes", "socket.send.buffer.bytes"),
    ("receive.buffer.bytes", "socket.receive.buffer.bytes"),
    ("fetch.max.wait.ms", "fetch.wait.max.ms"),
    ("max.request.size", "message.max.bytes"),
    ("client.id", "client.id"),
    ("request.timeout.ms", "request.timeout.ms"),
    ("ssl.key.password", "ssl.key.password"),
])
def test_renamed_and_same_named_java_settings(java: str, librdkafka: str) -> None:
    assert from_java_properties({java: "1"}).settings == {librdkafka: "1"}


def test_java_settings_with_different_meaning_are_set_aside_not_passed_through() -> None:
    # Java cipher names and assignor class names mean nothing to librdkafka
    settings = from_java_properties({"ssl.cipher.suites": "TLS_AES_128_GCM_SHA256",
                                     "partition.assignment.strategy": "org.apache.kafka.clients.consumer.RangeAssignor"})
    assert settings.settings == {}
    assert settings.ignored == ("ssl.cipher.suites", "partition.assignment.strategy")


def test_a_bad_security_protocol_in_the_file_is_an_error() -> None:
    with pytest.raises(UsageError, match=r"--command-config security.protocol: 'TLS' is not one of"):
        from_java_properties({"security.protocol": "TLS"})


@pytest.mark.parametrize("make_path", [
    lambda tmp: tmp / "missing.properties",
    lambda tmp: tmp,
])
def test_unreadable_file_is_a_usage_error(tmp_path: Path, make_path) -> None:
    path = make_path(tmp_path)
    with pytest.raises(UsageError) as raised:
        read_command_config(path)
    assert str(raised.value).startswith(f"cannot read --command-config {path}: ")
    assert str(raised.value).split(": ", 1)[1] in ("No such file or directory", "Is a directory")


def test_latin1_file_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "client.properties"
    path.write_bytes("client.id=caf\xe9".encode("latin-1"))
    assert read_command_config(path).settings == {"client.id": "café"}


# --- -X key=value -------------------------------------------------------------------------------


def test_x_option_takes_librdkafka_names() -> None:
    assert parse_x_option("security.protocol=SASL_SSL") == ("security.protocol", "SASL_SSL")
    assert parse_x_option("sasl.password=a=b") == ("sasl.password", "a=b")
    assert parse_x_option("sasl.mechanism=PLAIN") == ("sasl.mechanisms", "PLAIN")  # librdkafka's alias


def test_values_with_a_short_list_of_choices_get_their_canonical_spelling() -> None:
    # librdkafka compares sasl.mechanisms case-sensitively: "plain" would fail only at connect time
    assert parse_x_option("sasl.mechanisms=scram-sha-512") == ("sasl.mechanisms", "SCRAM-SHA-512")
    assert parse_x_option("security.protocol=sasl_ssl") == ("security.protocol", "SASL_SSL")
    assert from_java_properties({"sasl.mechanism": "plain"}).settings == {"sasl.mechanisms": "PLAIN"}


def test_a_bad_sasl_mechanism_is_an_error() -> None:
    with pytest.raises(UsageError, match=r"^-X sasl.mechanisms: 'PLAINTEXT' is not one of GSSAPI, PLAIN, "):
        parse_x_option("sasl.mechanisms=PLAINTEXT")


def test_unknown_x_key_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as raised:
        parse_x_option("foo=1")
    assert str(raised.value) == "unknown client setting 'foo' (librdkafka property names, e.g. security.protocol)"


def test_unknown_x_key_suggests_a_close_name() -> None:
    with pytest.raises(UsageError, match=r"did you mean 'sasl.password'\?"):
        parse_x_option("sasl.pasword=x")


def test_java_name_given_to_x_points_to_the_librdkafka_name() -> None:
    with pytest.raises(UsageError, match=r"'ssl.truststore.location' is the Java client's name: use -X with ssl.ca.location"):
        parse_x_option("ssl.truststore.location=/ca.pem")


@pytest.mark.parametrize("text", ["security.protocol", "=x", ""])
def test_x_option_without_key_and_value_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match=r"^-X expects key=value"):
        parse_x_option(text)


def test_x_overrides_command_config(tmp_path: Path) -> None:
    path = _write(tmp_path, "security.protocol=SSL\nkey.serializer=x\nclient.id=from-file\n")
    settings = load_client_settings(["security.protocol=SASL_SSL", "sasl.mechanisms=PLAIN"], path)
    assert settings.settings == {"security.protocol": "SASL_SSL", "client.id": "from-file", "sasl.mechanisms": "PLAIN"}
    assert settings.ignored == ("key.serializer",)


def test_the_property_list_covers_librdkafka_essentials() -> None:
    assert len(LIBRDKAFKA_PROPERTIES) >= 80
    for name in ("bootstrap.servers", "client.id", "security.protocol", "sasl.mechanisms", "sasl.username",
                 "ssl.ca.location", "socket.timeout.ms", "api.version.request", "broker.address.family",
                 "debug", "message.timeout.ms", "request.timeout.ms"):
        assert name in LIBRDKAFKA_PROPERTIES


def test_secrets_never_appear_in_repr_str_or_redacted(tmp_path: Path) -> None:
    settings = load_client_settings([f"ssl.key.password={PASSWORD}x"], _write(tmp_path, CLIENT_PROPERTIES))
    for shown in (repr(settings), str(settings), repr(settings.redacted()), json.dumps(settings.redacted())):
        assert PASSWORD not in shown
    assert settings.redacted()["sasl.password"] == "***"
    assert settings.redacted()["ssl.key.password"] == "***"
    assert settings.redacted()["sasl.username"] == "alice"
    assert settings.settings["sasl.password"] == PASSWORD  # the client library still gets it


def test_scrub_removes_secret_values_and_their_json_escaped_form() -> None:
    secret = 'pa"ss\\word'
    settings = ClientSettings({"sasl.password": secret, "sasl.username": "alice"})
    text = f"login failed for alice with {secret}; json: {json.dumps(secret)}"
    assert settings.scrub(text) == 'login failed for alice with ***; json: "***"'


# --- PKCS#12 truststores -------------------------------------------------------------------------------

TRUST_PASSWORD = "truststore-secret-31"


@pytest.fixture(scope="module")
def pkcs12_truststore(tmp_path_factory) -> tuple[Path, str]:
    """A PKCS#12 truststore holding one CA certificate (made in-process), and that certificate as PEM."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, Encoding, pkcs12
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kdiag unit CA")])
    now = datetime.datetime.now(datetime.timezone.utc)
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
          .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=2))
          .sign(key, hashes.SHA256()))
    path = tmp_path_factory.mktemp("stores") / "truststore.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(None, None, None, [ca],
                                                           BestAvailableEncryption(TRUST_PASSWORD.encode())))
    return path, ca.public_bytes(Encoding.PEM).decode()


@pytest.mark.parametrize("store_type", [None, "PKCS12", "JKS"])
def test_pkcs12_truststore_becomes_ssl_ca_pem_with_where_it_came_from(pkcs12_truststore, store_type) -> None:
    path, ca_pem = pkcs12_truststore
    properties = {"ssl.truststore.location": str(path), "ssl.truststore.password": TRUST_PASSWORD}
    if store_type:
        properties["ssl.truststore.type"] = store_type
    settings = from_java_properties(properties)
    assert set(settings.settings) == {"ssl.ca.pem"} and settings.ignored == ()
    assert settings.settings["ssl.ca.pem"].endswith(ca_pem)
    origin = f"ssl.truststore.location={path} (PKCS#12, 1 certificate)"
    assert settings.redacted() == {"ssl.ca.pem": f"<the certificates of {origin}>"}
    from probes.tls_settings import TlsSettings

    tls = TlsSettings.from_librdkafka({"security.protocol": "SSL", **settings.settings})
    assert tls.trust == origin


def test_truststore_password_is_scrubbed_though_it_is_not_passed_to_librdkafka(pkcs12_truststore) -> None:
    path, _ = pkcs12_truststore
    settings = from_java_properties({"ssl.truststore.location": str(path), "ssl.truststore.password": TRUST_PASSWORD})
    assert TRUST_PASSWORD not in settings.settings.values()
    assert settings.scrub(f"error near {TRUST_PASSWORD}") == "error near ***"
    assert TRUST_PASSWORD not in repr(settings)
    assert TRUST_PASSWORD in settings.merged(parse_x_options(["client.id=x"])).secrets


def test_wrong_truststore_password_is_a_usage_error_that_never_echoes_it(pkcs12_truststore) -> None:
    path, _ = pkcs12_truststore
    with pytest.raises(UsageError) as raised:
        from_java_properties({"ssl.truststore.location": str(path), "ssl.truststore.password": "wrong-pass-4242"})
    assert str(raised.value) == (f"--command-config ssl.truststore.location {path}: the PKCS#12 truststore does not "
                                 "open (wrong ssl.truststore.password)")
