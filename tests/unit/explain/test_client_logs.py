"""kdiag explain on output captured from real clients against real brokers (tests/fixtures/client_logs).

The integration test produced these files and checks the same ids against live clients; here they
run without a broker, so a change to a pattern that breaks a real line fails fast.
"""

from __future__ import annotations

import re

import pytest

from tests.client_log_expectations import BROKER_SIDE, MORE_CLIENTS_CASES
from tests.unit.explain.helpers import CLIENT_LOGS, client_log, explained, ids, only, output_only

EC2 = "ip-172-31-18-160.us-west-2.compute.internal"

EXPECTED = {
    "kerberos.rdns.kcat_list": "KERBEROS_PRINCIPAL_UNKNOWN",
    "kerberos.by_address.kcat_list": "KERBEROS_PRINCIPAL_UNKNOWN",
    "kerberos.by_address.console_producer": "KERBEROS_PRINCIPAL_UNKNOWN",
    "idle_nat.kcat_produce": "IDLE_CONNECTION_DROPPED",
    "idle_nat.confluent_producer": "IDLE_CONNECTION_DROPPED",
    "idle_nat.console_producer": "IDLE_CONNECTION_DROPPED",
    "one_load_balancer.kcat_produce": "ADVERTISED_UNRESOLVABLE",
    "one_load_balancer.confluent_producer": "ADVERTISED_UNRESOLVABLE",
    "one_load_balancer.console_producer": "ADVERTISED_UNRESOLVABLE",
    "sni_ingress.by_ip.kcat_list": "TLS_CERT_UNTRUSTED",
    "sni_ingress.by_ip.confluent_producer": "TLS_CERT_UNTRUSTED",
    "sni_ingress.by_ip.console_producer": "TLS_CERT_UNTRUSTED",
    "sni_ingress.by_ip.kcat_list_no_verify": "INGRESS_DEFAULT_BACKEND",
    "sni_ingress.old_name.kcat_list": "TLS_CERT_UNTRUSTED",
    "sni_ingress.old_name.confluent_producer": "TLS_CERT_UNTRUSTED",
    "sni_ingress.old_name.console_producer": "TLS_CERT_UNTRUSTED",
    "sni_ingress.old_name.kcat_list_no_verify": "INGRESS_DEFAULT_BACKEND",
    "msk.plaintext_on_tls_port.kcat_list": "TLS_EXPECTED",
    "msk.scram_on_tls_port.kcat_list": "SASL_MECHANISM_MISMATCH",
    "ec2_internal_advertised.kcat_produce": "ADVERTISED_UNRESOLVABLE",
    "ec2_internal_advertised.kcat_consume": "ADVERTISED_UNRESOLVABLE",
    "ec2_internal_advertised.confluent_producer": "ADVERTISED_UNRESOLVABLE",
    "ec2_internal_advertised.console_producer": "ADVERTISED_UNRESOLVABLE",
    "ec2_internal_advertised.console_producer_idempotent": "ADVERTISED_UNRESOLVABLE",
    "advertised_dead_port.kcat_produce": "ADVERTISED_UNREACHABLE",
    "advertised_dead_port.kcat_consume": "ADVERTISED_UNREACHABLE",
    "advertised_dead_port.confluent_producer": "ADVERTISED_UNREACHABLE",
    "advertised_dead_port.console_producer": "ADVERTISED_UNREACHABLE",
    "advertised_filtered.kcat_produce": "ADVERTISED_UNREACHABLE",
    "advertised_filtered.confluent_producer": "ADVERTISED_UNREACHABLE",
    "advertised_filtered.console_producer": "ROUNDTRIP_FAILED",
    "bootstrap.refused.kcat_list": "BOOTSTRAP_REFUSED",
    "bootstrap.refused.kcat_produce": "BOOTSTRAP_REFUSED",
    "bootstrap.refused.confluent_producer": "BOOTSTRAP_REFUSED",
    "bootstrap.refused.console_producer": "BOOTSTRAP_REFUSED",
    "bootstrap.unresolvable.kcat_list": "BOOTSTRAP_UNRESOLVABLE",
    "bootstrap.unresolvable.confluent_producer": "BOOTSTRAP_UNRESOLVABLE",
    "bootstrap.unresolvable.console_producer": "BOOTSTRAP_UNRESOLVABLE",
    "bootstrap.filtered.kcat_list": "BOOTSTRAP_TIMEOUT",
    "bootstrap.filtered.confluent_producer": "BOOTSTRAP_TIMEOUT",
    "bootstrap.filtered.console_producer": "ROUNDTRIP_FAILED",
    "tls.plaintext_on_tls.kcat_list": "TLS_EXPECTED",
    "tls.plaintext_on_tls.console_producer": "TLS_EXPECTED",
    "tls.untrusted.kcat_list": "TLS_CERT_UNTRUSTED",
    "tls.untrusted.console_producer": "TLS_CERT_UNTRUSTED",
    "tls.name_not_in_certificate.kcat_list": "TLS_CERT_UNTRUSTED",
    "tls.name_not_in_certificate.console_producer": "TLS_HOSTNAME_MISMATCH",
    "tls.tls_on_plaintext.kcat_list": "TLS_UNEXPECTED",
    "tls.tls_on_plaintext.console_producer": "TLS_UNEXPECTED",
    "sasl.required.kcat_list": "SASL_REQUIRED",
    "sasl.required.console_producer": "ROUNDTRIP_FAILED",
    "sasl.wrong_password.kcat_list": "SASL_AUTH_FAILED",
    "sasl.wrong_password.console_producer": "SASL_AUTH_FAILED",
    "sasl.wrong_mechanism.kcat_list": "SASL_MECHANISM_MISMATCH",
    "sasl.wrong_mechanism.console_producer": "SASL_MECHANISM_MISMATCH",
    "sasl.sasl_on_plaintext.kcat_list": "SASL_MECHANISM_MISMATCH",
    "topic_missing.kcat_consume": "TOPIC_NOT_FOUND",
    "topic_missing.console_producer": "TOPIC_NOT_FOUND",
}

# kafkajs 2.2.4, Sarama and franz-go (tests/integration/test_explain_go_js_clients.py): the same situations.
GO_JS = ("kafkajs", "sarama", "franz")
GO_JS_EXPECTED = {
    "ec2_internal_advertised": "ADVERTISED_UNRESOLVABLE",
    "advertised_dead_port": "ADVERTISED_UNREACHABLE",
    "bootstrap.refused": "BOOTSTRAP_REFUSED",
    "bootstrap.unresolvable": "BOOTSTRAP_UNRESOLVABLE",
    "tls.plaintext_on_tls": {"kafkajs": "readings", "sarama": "TLS_EXPECTED", "franz": "TLS_EXPECTED"},
    "tls.tls_on_plaintext": "TLS_UNEXPECTED",
    "sasl.required": {"kafkajs": "readings", "sarama": "SASL_REQUIRED", "franz": "SASL_REQUIRED"},
    "sasl.wrong_password": "SASL_AUTH_FAILED",
    "topic_missing": "TOPIC_NOT_FOUND",
    "tls.untrusted": {"kafkajs": "TLS_CERT_UNTRUSTED", "sarama": "TLS_HOSTNAME_MISMATCH",
                      "franz": "TLS_HOSTNAME_MISMATCH"},  # Go reports the missing IP SAN before the chain
    "bootstrap.filtered": {"kafkajs": "BOOTSTRAP_TIMEOUT", "sarama": None, "franz": "BOOTSTRAP_TIMEOUT"},
}
EXPECTED.update({f"{situation}.{library}": ids if isinstance(ids, str) else ids[library]
                 for situation, ids in GO_JS_EXPECTED.items() for library in GO_JS})
NOTHING_SAID = {name for name, expected in EXPECTED.items() if expected is None}  # the client said nothing yet
for name in NOTHING_SAID:
    del EXPECTED[name]
# kafkajs says only "Closed connection": each listener mismatch that ends so is a reading (a warning), none certain.
CLOSED_READINGS = {name for name, expected in EXPECTED.items() if expected == "readings"}
for name in CLOSED_READINGS:
    del EXPECTED[name]


# Where the client says only its own guess (librdkafka's `might be caused by incorrect security.protocol`, `broker
# might require SASL authentication`, franz-go's `is SASL missing?`): the id it suggests, as a likely reading (a
# warning), not a certainty.
CLIENTS_GUESS = {"msk.plaintext_on_tls_port.kcat_list", "sasl.required.kcat_list", "tls.plaintext_on_tls.kcat_list",
                 "sasl.required.franz",
                 # franz-go's "an immediate EOF, which often means the client is using TLS when the broker is not
                 # expecting it": its own guess
                 "tls.tls_on_plaintext.franz"}


# librdkafka's own hint alone ("certificate verify failed: broker certificate could not be verified, ..."): since 2.0 it
# checks the name too, and tls.name_not_in_certificate.kcat_list shows the very line the untrusted CA gives. The CA is
# the likely reading, the name the other ("Or:"), neither certain.
CERTIFICATE_HINT = {"tls.untrusted.kcat_list", "tls.name_not_in_certificate.kcat_list", "sni_ingress.by_ip.kcat_list",
                    "sni_ingress.by_ip.confluent_producer", "sni_ingress.old_name.kcat_list",
                    "sni_ingress.old_name.confluent_producer"}
# A request that timed out on an open connection: the path's idle drop is the likely reading, never certain (a broker
# that stopped answering in time says the same words)
REQUEST_TIMED_OUT = {"idle_nat.kcat_produce", "idle_nat.confluent_producer", "idle_nat.console_producer"}


# A hang-up in the client's TLS handshake with no alert (OpenSSL's "unexpected eof while reading", Java's "terminated
# during authentication" with TLS on, Sarama's EOF sending ApiVersions with -tls): a plaintext listener likely, a broker or
# proxy turning connections away the other reading (tls_readings.hung_up_in_handshake)
HUNG_UP_IN_HANDSHAKE = {"tls.tls_on_plaintext.console_producer", "tls.tls_on_plaintext.kcat_list",
                        "tls.tls_on_plaintext.sarama", "tls.tls_on_plaintext.kafkajs"}


# Broker lists (kcat -L) whose brokers only the metadata shows: a warning, tested on its own below.
LISTINGS = {"ec2_internal_advertised.kcat_list", "one_load_balancer.kcat_list_three_times",
            "one_load_balancer.kcat_list_debug"}


def test_every_captured_log_has_an_expectation():
    captured = {p.stem for p in CLIENT_LOGS.glob("*.log")}
    more_clients = {f"{situation}.{library}" for situation, library, _ in MORE_CLIENTS_CASES}  # test_more_client_logs
    more_clients |= {f"{situation}.broker" for situation in BROKER_SIDE}
    assert captured - LISTINGS - NOTHING_SAID - CLOSED_READINGS - more_clients == set(EXPECTED)
    assert more_clients <= captured


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_captured_client_output_maps_to_the_reports_finding_id(name):
    explanation = explained(client_log(name))
    assert ids(explanation)[:1] == [EXPECTED[name]], explanation.findings
    first = explanation.findings[0]
    if name in CLIENTS_GUESS:  # the client's own words are a guess ("might be caused by"): a likely reading
        assert first.severity == "warning" and first.title.startswith("Likely: ") and first.evidence["guess"]
    elif name in CERTIFICATE_HINT:
        assert first.severity == "warning" and first.title.startswith("Likely: ")
        assert "TLS_HOSTNAME_MISMATCH" in ids(explanation)
    elif name in HUNG_UP_IN_HANDSHAKE:
        assert first.severity == "warning" and first.title.startswith("Likely: ")
        assert ids(explanation)[1:] == ["BROKER_CLOSED_CONNECTION"]
    elif name in REQUEST_TIMED_OUT:
        assert first.severity == "warning" and first.title.startswith("Likely: ") and "--idle-check" in first.fix
    elif EXPECTED[name] == "ROUNDTRIP_FAILED":  # records lost, and no line says why: never certain
        assert first.severity == "warning"
    else:
        assert first.severity == "error"
    assert first.evidence["lines"], "a finding rests on log lines"
    assert first.evidence["confirm"].startswith("kdiag bootstrap ")
    assert first.fix


def test_a_request_lost_after_the_nat_forgot_the_idle_connection_gives_the_connections_age_and_idle_limit():
    """kcat (librdkafka 2.0.2) behind idle-nat-drop's NAT: `1 request(s) timed out: disconnect (after 8002ms in state
    UP)` logged from the bootstrap's thread is about broker 1, up 8 s: close idle connections within half of that."""
    explanation = explained(client_log("idle_nat.kcat_produce"))
    assert ids(explanation) == ["IDLE_CONNECTION_DROPPED"]
    finding = explanation.findings[0]
    assert (finding.evidence["node_id"], finding.evidence["role"]) == (1, "advertised")
    assert finding.evidence["connection_up_ms"] == 8002 and "up for 8.002 s" in finding.explanation
    assert "connections.max.idle.ms=4000" in finding.fix and "--idle-check 8 " in finding.fix
    assert "1/1 brokers are down" in finding.evidence["consequences"][0]["line"]


def test_librdkafka_216_says_only_reqtmout_and_java_names_only_the_node_both_are_the_idle_drop():
    """confluent-kafka 2.16 logs only `Timed out ProduceRequest in flight`, Java only `Disconnected from node 1 due
    to timeout`: the connection's age is unknown, so the fix assumes Azure's 4 minutes and says how to measure."""
    for name in ("idle_nat.confluent_producer", "idle_nat.console_producer"):
        finding = only(explained(client_log(name)), "IDLE_CONNECTION_DROPPED")
        assert finding.evidence["node_id"] == 1 and "connection_up_ms" not in finding.evidence
        assert "connections.max.idle.ms=180000" in finding.fix and "--idle-check 240" in finding.fix
        assert "203.0.113.10:9092" in finding.fix


@pytest.mark.parametrize("name", ["msk.plaintext_on_tls_port.kcat_list", "msk.scram_on_tls_port.kcat_list"])
def test_kcat_on_msks_tls_port_gets_msks_port_family_and_the_host_name_as_written(name):
    """kcat in msk-wrong-port: without TLS, and with SCRAM, on b-1.<cluster>...amazonaws.com:9094, the TLS-only port."""
    finding = explained(client_log(name)).findings[0]
    assert "b-1.demo.a1b2c3.c2.kafka.us-east-1.amazonaws.com:9094" in finding.title and "B-1." not in finding.title
    assert "Assumed Amazon MSK" in finding.fix and "9096 SASL/SCRAM" in finding.fix
    assert "Port 9094 is TLS, inside the VPC (security.protocol=SSL)" in finding.fix


@pytest.mark.parametrize("name", ["one_load_balancer.confluent_producer", "one_load_balancer.console_producer"])
def test_brokers_behind_one_balancer_each_get_an_address_of_their_own_never_the_bootstrap(name):
    """one-load-balancer from the laptop: brokers 0, 1 and 2 advertise Strimzi pod names, reached through one
    round-robin balancer (kafka.example.test:9092). Each finding's fix covers all three brokers the log shows
    failing, each with its own outside address: advertising the bootstrap address for each broker in turn (a fix
    written for one broker alone) would put all three behind the balancer, failure mode #6."""
    findings = explained(client_log(name)).findings
    assert sorted(f.evidence["node_id"] for f in findings) == [0, 1, 2]
    for finding in findings:
        assert "Assumed Strimzi" in finding.fix and "kafka.example.test:9092" not in finding.fix.split("Confirm")[0]
        assert all(f"<address clients outside use for broker {n}>" in finding.fix for n in (0, 1, 2))
        assert all(f"- broker: {n}" in finding.fix for n in (0, 1, 2))


@pytest.mark.parametrize("name", ["one_load_balancer.kcat_list_three_times", "one_load_balancer.kcat_list_debug"])
def test_nothing_a_client_prints_shows_which_broker_the_balancer_picked(name):
    """Why explain cannot raise LOAD_BALANCED_BOOTSTRAP: kcat -L run three times through the balancer reaches a
    different broker each time, yet prints the same metadata (the `(controller)` mark moves, but KRaft names a
    random broker there anyway), and librdkafka's debug log names the bootstrap connection only as NodeId -1,
    with one ClusterId: the clients never learn which broker answered."""
    paste = client_log(name)
    if "-d broker" in paste:  # librdkafka's debug lines: one cluster, and the bootstrap connection is node -1
        assert "Added new broker with NodeId -1" in paste and len(set(re.findall(r"ClusterId: (\S+),", paste))) == 1
    explanation = explained(paste)
    assert "LOAD_BALANCED_BOOTSTRAP" not in ids(explanation)
    assert only(explanation, "ADVERTISED_UNRESOLVABLE").evidence["node_ids"] == [0, 1, 2]


@pytest.mark.parametrize("name", ["sni_ingress.by_ip.kcat_list", "sni_ingress.old_name.console_producer"])
def test_an_ingress_default_backends_certificate_is_an_untrusted_ca_in_the_clients_words_and_the_finding_says_so(name):
    """sni-ingress with verification on: librdkafka and Java name no certificate, so the finding stays
    TLS_CERT_UNTRUSTED; at port 443 (or an IP address: no SNI) it names the ingress and gives the openssl check."""
    finding = only(explained(client_log(name)), "TLS_CERT_UNTRUSTED")
    assert finding.evidence["sni_ingress"] is True and "default backend" in finding.explanation
    # Java names the address it connected to (kafka.example.test/192.0.2.1:443): the check goes there
    assert "openssl s_client -connect 192.0.2.1:443 -servername <bootstrap host>" in finding.fix
    assert "kdiag bootstrap" in finding.fix.rstrip().splitlines()[-1]  # the check stays last


def test_an_untrusted_ca_on_a_loopback_port_says_nothing_of_an_ingress():
    finding = only(explained(client_log("tls.untrusted.kcat_list")), "TLS_CERT_UNTRUSTED")
    assert "sni_ingress" not in finding.evidence and "ingress" not in finding.explanation + finding.fix


@pytest.mark.parametrize(("name", "missed", "sni"), [
    ("sni_ingress.by_ip.kcat_list_no_verify", "the client sent no SNI", None),
    ("sni_ingress.old_name.kcat_list_no_verify", "no route matches kafka.example.test", "kafka.example.test")])
def test_http_inside_tls_is_an_ingress_default_backend_with_the_rules_fix(name, missed, sni):
    """kcat with verification off gets the default backend's HTTP 404 inside TLS (`Invalid response size
    1213486160`): INGRESS_DEFAULT_BACKEND, with kdiag bootstrap's fix (openssl -servername, Strimzi's ingress)."""
    finding = only(explained(client_log(name)), "INGRESS_DEFAULT_BACKEND")
    assert missed in finding.title and finding.evidence.get("sni") == sni and finding.evidence["answered"] == "HTTP"
    assert "-servername <bootstrap host>" in finding.fix and "type: ingress" in finding.fix
    assert "- broker: 0" in finding.fix and "-X security.protocol=SSL" in finding.evidence["confirm"]


def test_kcat_list_of_the_ec2_broker_from_its_own_machine_is_not_a_problem():
    """kcat -L through 127.0.0.1 lists the EC2 name: from the broker's own machine that is fine."""
    explanation = explained(client_log("ec2_internal_advertised.kcat_list"))
    assert explanation.findings == ()
    assert explanation.recognised_lines >= 2  # the metadata header and the broker line


def test_ec2_finding_names_the_host_and_node_and_keeps_the_internal_listener():
    finding = only(explained(client_log("ec2_internal_advertised.kcat_produce")), "ADVERTISED_UNRESOLVABLE")
    assert (finding.evidence["host"], finding.evidence["node_id"], finding.evidence["role"]) == (EC2, 1, "advertised")
    assert finding.evidence["host_kind"] == "ec2_internal"
    # The client bootstrapped through 127.0.0.1: never advertise loopback to others, so the one-listener
    # option is left out and the two-listener one is numbered 1 (options count from 1 whatever is skipped).
    assert "Option 1: two listeners per broker" in finding.fix and "Option 2" not in finding.fix
    assert f"INTERNAL://{EC2}" in finding.fix and "KAFKA_ADVERTISED_LISTENERS" in finding.fix
    bootstrap = client_log("ec2_internal_advertised.kcat_produce").split("-b ")[1].split()[0]
    assert finding.evidence["confirm"] == f"kdiag bootstrap {bootstrap} --topic t"


def test_java_unknown_host_lines_take_port_and_node_from_the_connection_line_above():
    finding = only(explained(client_log("ec2_internal_advertised.console_producer")), "ADVERTISED_UNRESOLVABLE")
    assert finding.evidence["node_id"] == 1 and finding.evidence["port"] is not None
    assert finding.evidence["client"] == "java"
    assert finding.evidence["count"] > len(finding.evidence["lines"])  # repeated lines collapse


def test_repeated_identical_lines_collapse_into_one_finding_with_a_count():
    explanation = explained(client_log("bootstrap.refused.confluent_producer"))
    assert ids(explanation) == ["BOOTSTRAP_REFUSED"]
    evidence = explanation.findings[0].evidence
    assert len(evidence["lines"]) == 1 and evidence["count"] >= 5


def test_dead_advertised_port_without_the_command_is_the_loopback_case():
    """Without the command line the bootstrap is unknown: a refused 127.0.0.1 advertised to a client
    somewhere is what ADVERTISED_LOOPBACK describes, and the explanation names the other case."""
    explanation = explained(output_only(client_log("advertised_dead_port.kcat_produce")))
    finding = only(explanation, "ADVERTISED_LOOPBACK")
    assert "ADVERTISED_UNREACHABLE" in finding.explanation


def test_filtered_advertised_port_is_a_timeout():
    finding = only(explained(client_log("advertised_filtered.kcat_produce")), "ADVERTISED_UNREACHABLE")
    assert finding.evidence["tcp_status"] == "timeout"
    assert "the same host on another port" in finding.explanation  # bootstrap 127.0.0.1:X, advertised 127.0.0.1:Y
    assert "advertised.listeners" in finding.fix


def test_java_expiring_alone_explains_likely_causes_and_the_exact_command():
    paste = client_log("advertised_filtered.console_producer")
    finding = only(explained(paste), "ROUNDTRIP_FAILED")
    assert "Expiring 1 record(s) for t-0" in finding.evidence["lines"][0]
    assert "advertised address" in finding.explanation
    bootstrap = paste.split("--bootstrap-server ")[1].split()[0]
    assert f"kdiag bootstrap {bootstrap} --topic t" in finding.fix


def test_java_oom_in_network_receive_is_a_tls_listener():
    finding = only(explained(client_log("tls.plaintext_on_tls.console_producer")), "TLS_EXPECTED")
    assert any("OutOfMemoryError" in line for line in finding.evidence["related_lines"])
    assert "security.protocol=SSL" in finding.fix


def test_java_ssl_handshake_failure_is_explained_by_its_caused_by_line():
    explanation = explained(client_log("tls.name_not_in_certificate.console_producer"))
    assert ids(explanation) == ["TLS_HOSTNAME_MISMATCH"]  # the generic "SSL handshake failed" is folded in
    finding = explanation.findings[0]
    assert finding.evidence["host"] == "127.0.0.1"
    assert any("failed authentication" in c["line"] for c in finding.evidence["consequences"])


def test_librdkafka_plaintext_client_on_tls_listener():
    finding = only(explained(client_log("tls.plaintext_on_tls.kcat_list")), "TLS_EXPECTED")
    assert finding.evidence["role"] == "bootstrap"
    assert "librdkafka sent its first plaintext request" in finding.explanation


def test_sasl_mechanism_lists_what_the_listener_enables():
    for name in ("sasl.wrong_mechanism.kcat_list", "sasl.wrong_mechanism.console_producer"):
        finding = only(explained(client_log(name)), "SASL_MECHANISM_MISMATCH")
        assert finding.evidence["client_mechanism"] == "SCRAM-SHA-512"
        assert finding.evidence["sasl_mechanisms"] == ["PLAIN"]


def test_sasl_client_on_a_listener_without_sasl():
    finding = only(explained(client_log("sasl.sasl_on_plaintext.kcat_list")), "SASL_MECHANISM_MISMATCH")
    assert finding.evidence["sasl_mechanisms"] == []
    assert "no SASL" in finding.title


@pytest.mark.parametrize("name", ["sasl.wrong_password.kcat_list", "sasl.wrong_password.console_producer"])
def test_the_pasted_password_is_nowhere_in_the_answer(name):
    from kdiag.explain.engine import explanation_to_dict
    from kdiag.render.explain import render_explanation
    from kdiag.render import Format

    paste = client_log(name)
    assert "wrong-password-7f3a" in paste
    explanation = explained(paste)
    assert ids(explanation)[:1] == ["SASL_AUTH_FAILED"]
    for fmt in Format:
        assert "wrong-password-7f3a" not in render_explanation(explanation, fmt)
    assert "wrong-password-7f3a" not in str(explanation_to_dict(explanation))


# --- kafkajs, Sarama, franz-go ---------------------------------------------------------------------------


@pytest.mark.parametrize("library", GO_JS)
def test_go_and_kafkajs_failures_are_one_finding_each(library):
    """The lines that repeat a failure without its port (franz-go's INFO restatements, kafkajs's BrokerPool
    line, the final log.Fatal) join the finding that names it with its port."""
    for situation in GO_JS_EXPECTED:
        if f"{situation}.{library}" not in NOTHING_SAID | CLOSED_READINGS:
            findings = explained(client_log(f"{situation}.{library}")).findings
            found = [f.id for f in findings if not f.title.startswith("Or: ")]  # a guess's other readings beside it
            assert len(found) == len(set(found)) == 1, (situation, found)


def test_sarama_still_dialling_a_filtered_bootstrap_is_no_finding():
    """Sarama's dial timeout is 30 s; killed at 20 s, it has logged only what it was doing."""
    explanation = explained(client_log("bootstrap.filtered.sarama"))
    assert explanation.findings == ()


def test_kafkajs_self_signed_certificate_is_untrusted_at_the_bootstrap():
    finding = only(explained(client_log("tls.untrusted.kafkajs")), "TLS_CERT_UNTRUSTED")
    assert (finding.evidence["host"], finding.evidence["role"]) == ("127.0.0.1", "bootstrap")


@pytest.mark.parametrize("library", ["sarama", "franz"])
def test_go_names_the_ip_missing_from_the_certificate(library):
    finding = only(explained(client_log(f"tls.untrusted.{library}")), "TLS_HOSTNAME_MISMATCH")
    assert finding.evidence["host"] == "127.0.0.1"


@pytest.mark.parametrize("library", GO_JS)
def test_the_ec2_name_keeps_its_port_and_node(library):
    paste = client_log(f"ec2_internal_advertised.{library}")
    finding = only(explained(paste), "ADVERTISED_UNRESOLVABLE")
    assert finding.evidence["host"] == EC2
    assert f"{EC2}:{finding.evidence['port']}" in paste
    assert finding.evidence["role"] == "advertised"


@pytest.mark.parametrize("library", GO_JS)
def test_go_and_kafkajs_name_the_bootstrap_role_without_the_command(library):
    """Sarama's `broker -1`, franz-go's `seed_0`, kafkajs's `Failed to connect to seed broker`."""
    explanation = explained(output_only(client_log(f"bootstrap.refused.{library}")))
    finding = only(explanation, "BOOTSTRAP_REFUSED")
    assert finding.evidence["role"] == "bootstrap" and finding.evidence.get("role_from") is None


def test_kafkajs_leader_connection_is_an_advertised_broker_without_the_command():
    """kafkajs's `[Producer] Failed to send messages` is about a leader the metadata named."""
    finding = explained(output_only(client_log("advertised_dead_port.kafkajs"))).findings[0]
    assert finding.id in ("ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE")
    assert finding.evidence["role"] == "advertised"


def test_sarama_eof_after_api_versions_is_a_sasl_listener():
    finding = only(explained(client_log("sasl.required.sarama")), "SASL_REQUIRED")
    assert finding.evidence["host"] == "127.0.0.1" and finding.evidence["role"] == "bootstrap"
    assert "while fetching metadata: EOF" in finding.evidence["lines"][0]


def test_sarama_eof_without_api_versions_is_not_taken_for_sasl():
    line = "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: EOF"
    explanation = explained(f"{line}\n2026/11/21 17:27:09 kafka: client has run out of available brokers to talk to: EOF")
    # readings, none certain: a Go client's EOF is a TLS mismatch either way when the paste shows no TLS setting
    assert ids(explanation) == ["TLS_EXPECTED", "SASL_REQUIRED", "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"]
    assert {f.severity for f in explanation.findings} == {"warning"}
    assert all("SASL" in f.explanation and "TLS" in f.explanation for f in explanation.findings)


def test_sarama_short_header_is_a_tls_listener():
    finding = only(explained(client_log("tls.plaintext_on_tls.sarama")), "TLS_EXPECTED")
    assert "security.protocol=SSL" in finding.evidence["confirm"]


@pytest.mark.parametrize("situation", ["tls.plaintext_on_tls", "sasl.required"])
def test_kafkajs_closed_connection_says_tls_or_sasl_and_no_more(situation):
    explanation = explained(client_log(f"{situation}.kafkajs"))
    assert ids(explanation) == ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"]
    for finding in explanation.findings:  # each a reading: a warning that names the other and what decides
        assert finding.severity == "warning" and finding.title.startswith("Maybe: ")
        assert "Closed connection" in finding.evidence["lines"][0]
        assert finding.evidence["readings"] == ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"] and finding.evidence["certain"] is False
        assert "decides" in finding.explanation and finding.evidence["confirm"].startswith("kdiag bootstrap ")


@pytest.mark.parametrize("library", GO_JS)
def test_the_missing_topic_is_named(library):
    assert only(explained(client_log(f"topic_missing.{library}")), "TOPIC_NOT_FOUND").evidence["topic"] == \
        "missing-topic"


def test_a_name_mismatch_at_an_ingress_port_names_the_default_wildcard_certificate():
    # The lab's Java paste, moved to port 443 of an OpenShift-style route host: a name no route has gets the
    # router's default certificate, a trusted wildcard that fails on the name alone.
    paste = (client_log("tls.name_not_in_certificate.console_producer")
             .replace("127.0.0.1:55437", "kafka.apps.example.com:443").replace("/127.0.0.1:", "kafka.apps.example.com/198.51.100.7:")
             .replace("No subject alternative names matching IP address 127.0.0.1 found",
                      "No subject alternative DNS name matching kafka.apps.example.com found."))
    finding = only(explained(paste), "TLS_HOSTNAME_MISMATCH")
    assert "wildcard" in finding.explanation and "default backend" in finding.explanation
    assert "openssl s_client -connect" in finding.fix and "kubectl get routes,ingresses" in finding.fix
    loopback = only(explained(client_log("tls.name_not_in_certificate.console_producer")), "TLS_HOSTNAME_MISMATCH")
    assert "wildcard" not in loopback.explanation  # a loopback address is no ingress
