"""Which targets /probe may be sent to and with which credentials (``ProbeAccess``), as pure decisions."""

from __future__ import annotations

import pytest

from kdiag.exitstatus import UsageError
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Endpoint
from kdiag.credentials import CredentialSet, parse_credential_binding, parse_pattern, parse_patterns
from kdiag.watch.access import CLUSTER, ProbeAccess, advertised_endpoints
from tests.unit.watch.reports import healthy

BOOTSTRAP = (Endpoint("kafka-0.kafka.svc", 9093), Endpoint("10.1.2.3", 9093))
SETTINGS = {"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "app",
            "sasl.password": "hunter22", "ssl.ca.location": "/ca.pem", "ssl.certificate.location": "/c.pem",
            "ssl.key.location": "/c.key", "ssl.key.password": "keypass"}
BASE = BootstrapOptions(targets=BOOTSTRAP, client_settings=SETTINGS, redacted_settings={"sasl.password": "***"},
                        secrets=("hunter22", "keypass"))


def e(text: str) -> Endpoint:
    host, _, port = text.rpartition(":")
    return Endpoint(host.strip("[]"), int(port))


@pytest.mark.parametrize("pattern, target, matches", [
    ("*.kafka.svc", "kafka-9.kafka.svc:9092", True),
    ("*.kafka.svc", "kafka.svc.evil.example:9092", False),
    ("KAFKA-?.example.com:9093", "kafka-1.example.com:9093", True),
    ("kafka-?.example.com:9093", "kafka-1.example.com:9092", False),
    ("10.0.0.0/8", "10.200.1.1:9092", True),
    ("10.0.0.0/8", "11.0.0.1:9092", False),
    ("10.0.0.0/8", "ten.example:9092", False),  # names are never resolved to match a CIDR
    ("[fd00::/8]:9092", "[fd12::1]:9092", True),
    ("fd00::/8", "[fe80::1]:9092", False),
    ("127.0.0.2", "127.0.0.2:1", True),
    ("*", "anything.example:1", True),
])
def test_patterns_match_hosts_globs_addresses_and_networks(pattern: str, target: str, matches: bool) -> None:
    assert parse_pattern("--probe-allow", pattern).matches(e(target)) is matches


@pytest.mark.parametrize("text", ["kafka:0", "kafka:http", "[fd00::", "a b", "", " , "])
def test_a_bad_pattern_is_one_line(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_patterns("--probe-allow", text)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("--probe-allow")


def test_without_an_allow_list_only_the_watched_clusters_hosts_may_be_probed() -> None:
    access = ProbeAccess(BOOTSTRAP)
    assert access.decide((e("kafka-0.kafka.svc:9093"),)).credentials == CLUSTER
    assert access.decide((e("KAFKA-0.kafka.svc.:9093"),)).credentials == CLUSTER  # the same name
    other_port = access.decide((e("10.1.2.3:22"),))
    assert other_port.allowed and other_port.credentials is None  # the cluster's host, not its endpoint
    refused = access.decide((e("kafka-0.kafka.svc:9093"), e("10.9.9.9:9093")))
    assert not refused.allowed and refused.refused == e("10.9.9.9:9093")


def test_the_brokers_the_cluster_advertised_get_its_credentials() -> None:
    advertised = advertised_endpoints(healthy())
    assert advertised
    access = ProbeAccess(BOOTSTRAP)
    assert access.decide(advertised[:1], advertised=advertised).credentials == CLUSTER
    assert not access.decide(advertised[:1]).allowed  # before the cluster advertised it: a stranger


def test_a_target_outside_the_cluster_is_probed_without_any_credential() -> None:
    access = ProbeAccess(BOOTSTRAP, allow=parse_patterns("--probe-allow", "*.example.com"))
    decision = access.decide((e("kafka.example.com:9093"),))
    assert decision.allowed and decision.credentials is None
    options = access.options_for(decision, BASE, targets=(e("kafka.example.com:9093"),))
    assert options.client_settings == {"security.protocol": "SSL", "ssl.ca.location": "/ca.pem"}
    assert options.secrets == () and "sasl.password" not in options.redacted_settings
    assert options.scan_listeners is False


def test_a_named_set_is_used_for_the_targets_it_is_bound_to_and_only_those() -> None:
    name, patterns = parse_credential_binding("staging=*.staging.example:9092")
    staging = CredentialSet(name, patterns, {"security.protocol": "SASL_PLAINTEXT", "sasl.password": "st4ging"},
                            ("st4ging",))
    access = ProbeAccess(BOOTSTRAP, credential_sets=(staging,))
    bound = access.decide((e("k1.staging.example:9092"),))
    assert bound.allowed and bound.credentials == "STAGING"  # its pattern also admits the target
    options = access.options_for(bound, BASE)
    assert options.client_settings["sasl.password"] == "st4ging" and options.secrets == ("st4ging",)
    assert not access.decide((e("k1.staging.example:9093"),)).allowed
    assert access.options_for(access.decide(BOOTSTRAP), BASE).client_settings == SETTINGS


@pytest.mark.parametrize("text", ["=x", "bad_name=x", "name", "name="])
def test_a_bad_binding_is_one_line(text: str) -> None:
    with pytest.raises(UsageError):
        parse_credential_binding(text)
