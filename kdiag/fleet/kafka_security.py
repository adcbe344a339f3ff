"""A ``kafka://`` source's login: a named credential set's client settings (``--kafka-credentials
NAME``, read from ``KDIAG_CRED_<NAME>_*`` as ``kdiag watch`` reads them) in the two forms the fleet
hands to Kafka clients: librdkafka's (the pre-check of the topics, ``kafka_input``) and the Java
client's as options of Spark's Kafka source (``kafka.security.protocol``, ``kafka.sasl.mechanism``,
``kafka.sasl.jaas.config``, ``kafka.ssl.truststore.*``, ``kafka.ssl.keystore.*``).

What maps: ``security.protocol`` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); SASL PLAIN, SCRAM-SHA-256
and SCRAM-SHA-512 with ``sasl.username``/``sasl.password`` (a JAAS line, its quotes and backslashes
escaped); the CA as a PEM file (``ssl.ca.location``) or text (``ssl.ca.pem``); a client certificate as
one PEM file holding the key (PKCS#8) and its chain (``ssl.certificate.location`` and
``ssl.key.location`` naming that file), or a PKCS#12 keystore (``ssl.keystore.location`` and
``ssl.keystore.password``); ``ssl.key.password``; ``ssl.endpoint.identification.algorithm``. Anything
else a set holds is refused in one line (``InputError``) rather than dropped: a setting the job silently
ignored would read the topic in a way its owner did not ask for. GSSAPI and OAUTHBEARER are refused:
the Java client would need a Kerberos login or a token endpoint configured for every executor.

The secrets stay in memory: Spark's source options (Spark redacts an option whose value holds
``password``, Kafka's client logs a JAAS line and a key password as ``[hidden]``) and librdkafka's
configuration. Nothing here writes a file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from kdiag.fleet.inputs import InputError, KafkaLogin

SASL_MECHANISMS = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
PASSED_AS_IS = {"client.id": "kafka.client.id"}
"""Settings with the same meaning and name in both clients."""
HANDLED = frozenset({
    "security.protocol", "sasl.mechanisms", "sasl.mechanism", "sasl.username", "sasl.password", "ssl.ca.location",
    "ssl.ca.pem", "ssl.certificate.location", "ssl.key.location", "ssl.key.password", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.endpoint.identification.algorithm", *PASSED_AS_IS,
})


def librdkafka_settings(login: KafkaLogin | None) -> dict[str, str]:
    """The settings for confluent-kafka (the pre-check): the set's own, as given; none without a set."""
    if login is None:
        return {}
    spark_options(login)  # refuse here what Spark could not use, before any connection
    return dict(login.settings)


def spark_options(login: KafkaLogin | None) -> dict[str, str]:
    """The options of Spark's Kafka source (``kafka.*``: the Java client's settings) for ``login``;
    none without a set. InputError for what the Java client cannot be given."""
    if login is None:
        return {}
    settings = {key.lower(): value for key, value in login.settings.items()}
    unknown = sorted(set(settings) - HANDLED)
    if unknown:
        raise InputError(f"{login.variables}: {', '.join(unknown)}: the fleet's Kafka source (Spark's, a Java client) "
                         f"takes only {', '.join(sorted(HANDLED))}")
    protocol = settings.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in PROTOCOLS:
        raise InputError(f"{login.variables}: security.protocol {protocol!r} is none of {', '.join(PROTOCOLS)}")
    options = {"kafka.security.protocol": protocol}
    options.update({PASSED_AS_IS[key]: value for key, value in settings.items() if key in PASSED_AS_IS})
    if protocol.startswith("SASL_"):
        options.update(_sasl(login, settings))
    elif any(key.startswith("sasl.") for key in settings):
        raise InputError(f"{login.variables}: SASL settings with security.protocol {protocol}: give SASL_PLAINTEXT "
                         f"or SASL_SSL")
    if protocol.endswith("SSL"):
        options.update(_tls(login, settings))
    elif any(key.startswith("ssl.") for key in settings):
        raise InputError(f"{login.variables}: TLS settings with security.protocol {protocol}: give SSL or SASL_SSL")
    return options


def jaas_config(mechanism: str, username: str, password: str) -> str:
    """The JAAS line of a PLAIN or SCRAM login. Kafka reads it with Java's StreamTokenizer: inside
    double quotes a backslash escapes the next character, and a line break ends the string (refused)."""
    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return f"{SASL_MECHANISMS[mechanism]} required username={quoted(username)} password={quoted(password)};"


def _sasl(login: KafkaLogin, settings: Mapping[str, str]) -> dict[str, str]:
    mechanism = (settings.get("sasl.mechanisms") or settings.get("sasl.mechanism") or "GSSAPI").strip().upper()
    if mechanism not in SASL_MECHANISMS:
        raise InputError(f"{login.variables}: SASL {mechanism} is not supported by the fleet's Kafka source "
                         f"(PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)")
    username, password = settings.get("sasl.username"), settings.get("sasl.password")
    if not username or password is None:
        raise InputError(f"{login.variables}: SASL {mechanism} needs sasl.username and sasl.password")
    if any(c in value for value in (username, password) for c in "\r\n"):
        raise InputError(f"{login.variables}: sasl.username or sasl.password holds a line break, which a JAAS "
                         f"line cannot carry")
    return {"kafka.sasl.mechanism": mechanism, "kafka.sasl.jaas.config": jaas_config(mechanism, username, password)}


def _tls(login: KafkaLogin, settings: Mapping[str, str]) -> dict[str, str]:
    options: dict[str, str] = {}
    ca, ca_pem = settings.get("ssl.ca.location"), settings.get("ssl.ca.pem")
    if ca is not None:
        if not os.path.isfile(ca):
            raise InputError(f"{login.variables}: ssl.ca.location {ca}: not a file (a PEM file of the CA "
                             f"certificates to trust)")
        options.update({"kafka.ssl.truststore.type": "PEM", "kafka.ssl.truststore.location": ca})
    elif ca_pem is not None:
        options.update({"kafka.ssl.truststore.type": "PEM", "kafka.ssl.truststore.certificates": ca_pem})
    certificate, key = settings.get("ssl.certificate.location"), settings.get("ssl.key.location")
    keystore = settings.get("ssl.keystore.location")
    if certificate is not None or key is not None:
        if certificate != key or not os.path.isfile(certificate or ""):
            raise InputError(f"{login.variables}: a client certificate for the fleet's Kafka source is one PEM file "
                             f"holding the key (PKCS#8) and the certificate chain, named by both "
                             f"ssl.certificate.location and ssl.key.location, or a PKCS#12 ssl.keystore.location")
        options.update({"kafka.ssl.keystore.type": "PEM", "kafka.ssl.keystore.location": certificate or ""})
    elif keystore is not None:
        if not os.path.isfile(keystore):
            raise InputError(f"{login.variables}: ssl.keystore.location {keystore}: not a file")
        options.update({"kafka.ssl.keystore.type": "PKCS12", "kafka.ssl.keystore.location": keystore})
        if settings.get("ssl.keystore.password") is not None:
            options["kafka.ssl.keystore.password"] = settings["ssl.keystore.password"]
    if settings.get("ssl.key.password") is not None:
        options["kafka.ssl.key.password"] = settings["ssl.key.password"]
    algorithm = settings.get("ssl.endpoint.identification.algorithm")
    if algorithm is not None:
        if algorithm.strip().lower() not in ("https", "none", ""):
            raise InputError(f"{login.variables}: ssl.endpoint.identification.algorithm is https or none, "
                             f"not {algorithm!r}")
        options["kafka.ssl.endpoint.identification.algorithm"] = "https" if algorithm.strip().lower() == "https" else ""
    return options
