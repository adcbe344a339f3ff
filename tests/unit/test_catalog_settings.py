"""The catalog's usual fixes name the settings a support engineer searches for (issue 16): an id's fix that says
"advertise a name" without ``advertised.listeners`` sends them to a search engine with the wrong words."""

from __future__ import annotations

import pytest

from kdiag.catalog import catalog

SETTINGS = {
    "ADVERTISED_UNRESOLVABLE": ("advertised.listeners", "KAFKA_ADVERTISED_LISTENERS", "listener.security.protocol.map"),
    "ADVERTISED_LOOPBACK": ("advertised.listeners", "KAFKA_ADVERTISED_LISTENERS"),
    "ADVERTISED_UNREACHABLE": ("advertised.listeners",),
    "ADVERTISED_NONROUTABLE": ("advertised.listeners", "listeners="),
    "ADVERTISED_DUPLICATE": ("advertised.listeners",),
    "COORDINATOR_UNREACHABLE": ("advertised.listeners",),
    "PARTIAL_CLUSTER": ("advertised.listeners",),
    "BOOTSTRAP_UNRESOLVABLE": ("bootstrap.servers",),
    "BOOTSTRAP_REFUSED": ("bootstrap.servers", "listeners="),
    "TLS_EXPECTED": ("security.protocol", "listener.security.protocol.map", "ssl.truststore.location"),
    "TLS_UNEXPECTED": ("security.protocol", "listener.security.protocol.map"),
    "TLS_CERT_UNTRUSTED": ("ssl.ca.location", "ssl.truststore.location"),
    "TLS_HOSTNAME_MISMATCH": ("subjectAltName", "ssl.endpoint.identification.algorithm", "advertised.listeners"),
    "TLS_CLIENT_CERT_REQUIRED": ("ssl.keystore.location", "ssl.certificate.location", "ssl.client.auth"),
    "TLS_CLIENT_CERT_REJECTED": ("ssl.truststore.location",),
    "SASL_REQUIRED": ("security.protocol", "sasl.mechanism", "sasl.jaas.config"),
    "SASL_MECHANISM_MISMATCH": ("sasl.mechanism", "sasl.enabled.mechanisms"),
    "SASL_AUTH_FAILED": ("sasl.jaas.config", "sasl.username"),
    "TOPIC_NOT_FOUND": ("auto.create.topics.enable",),
    "BROKER_CLOSED_CONNECTION": ("max.connections.per.ip",),
    "IDLE_CONNECTION_DROPPED": ("connections.max.idle.ms",),
    "ADVERTISED_ADDRESS_FAMILY_SPLIT": ("broker.address.family", "listeners="),
}


@pytest.mark.parametrize("finding_id", sorted(SETTINGS))
def test_the_usual_fix_names_the_settings_users_search_for(finding_id):
    fix = next(entry.fix for entry in catalog() if entry.id == finding_id)
    assert [s for s in SETTINGS[finding_id] if s not in fix] == [], fix
