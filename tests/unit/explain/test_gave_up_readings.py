"""A client that says only that it reached no broker: each way its family ends in those words is a reading (a warning),
steered by the settings the paste shows. The lines are the families' own words, from their sources: kafka-python's
client_async.check_version, aiokafka's client.bootstrap, Sarama's ErrOutOfBrokers, ruby-kafka's cluster.rb, the Java
admin client's and consumer's timeouts."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

REACH = ["BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT"]
SASL = ["SASL_REQUIRED", "SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"]
ADVERTISED = ["ADVERTISED_UNRESOLVABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE"]

KAFKA_PYTHON = "kafka.errors.NoBrokersAvailable: NoBrokersAvailable"
SARAMA = "panic: kafka: client has run out of available brokers to talk to (Is your cluster reachable?)"
RUBY_KAFKA = "Kafka::ConnectionError: Could not connect to any of the seed brokers:"
JAVA_ADMIN = ("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. "
              "Call: describeCluster")
JAVA_CONSUMER = "org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata"


@pytest.mark.parametrize("line, expected", [
    # check_version asks least_loaded_node(): the brokers the bootstrap's metadata named, so advertised ones too
    (KAFKA_PYTHON, REACH + ["TLS_EXPECTED"] + SASL + ADVERTISED),
    # the seed brokers only: each one's open (its SASL login included) or metadata request failed
    # ... and sends its requests at config.Version's versions unasked
    (SARAMA, REACH + ["TLS_EXPECTED"] + SASL + ["BROKER_TOO_OLD"]),
    (RUBY_KAFKA, REACH + ["TLS_EXPECTED"] + SASL),
    # no node became ready, the bootstrap or an advertised one; a refused login is its own exception in Java; a node is
    # ready once its ApiVersions is answered, so a listener that accepts and never answers (a paused broker) too
    (JAVA_ADMIN, REACH + ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_STALLED"] + ADVERTISED),
    (JAVA_CONSUMER, REACH + ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_STALLED"] + ADVERTISED),
], ids=["kafka-python", "sarama", "ruby-kafka", "java-admin", "java-consumer"])
def test_a_family_that_reached_no_broker_gets_each_way_its_words_end_so_as_warnings(line, expected):
    explanation = explained(line)
    assert ids(explanation) == expected
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_the_readings_say_each_stage_and_the_command_that_decides():
    finding = explained(KAFKA_PYTHON).findings[0]
    assert finding.title.startswith("Maybe: ")
    for words in ("the bootstrap address not reached", "its listener's security not the client's",
                  "the brokers its metadata advertises not usable", "kdiag bootstrap"):
        assert words in finding.explanation


def test_aiokafka_bootstrap_list_carries_the_address_and_no_advertised_reading():
    explanation = explained("aiokafka.errors.KafkaConnectionError: KafkaConnectionError: Unable to bootstrap from "
                            "[('kafka.example.com', 9093, <AddressFamily.AF_UNSPEC: 0>)]")
    assert ids(explanation) == REACH + ["TLS_EXPECTED"] + SASL
    assert explanation.findings[1].evidence["port"] == 9093


def test_tls_on_in_the_paste_makes_the_tls_reading_a_tls_client_at_a_plaintext_listener():
    found = ids(explained(f"security_protocol='SSL'\n{KAFKA_PYTHON}"))
    assert "TLS_UNEXPECTED" in found and "TLS_EXPECTED" not in found


def test_sasl_settings_in_the_paste_make_the_login_readings_refused_not_missing():
    found = ids(explained(f"sasl.mechanism=SCRAM-SHA-512\n{RUBY_KAFKA}"))
    assert {"SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"} <= set(found) and "SASL_REQUIRED" not in found


def test_a_mechanism_the_paste_does_not_show_is_not_named():
    finding = next(f for f in explained(RUBY_KAFKA).findings if f.id == "SASL_MECHANISM_MISMATCH")
    assert "GSSAPI" not in finding.title + finding.explanation
    assert "SASL_MECHANISM_MISMATCH" in finding.explanation and "not enabled" in finding.title


def test_a_reading_no_line_observed_states_no_observation():
    """A bare give-up shows no DNS answer, no TCP outcome and no mechanism list: its readings say what each cause means
    (the catalog's words), never the account a builder gives of a line that showed the failure ("the DNS answered
    that <host> does not exist"), and carry none of the facts that account rests on."""
    for paste in (KAFKA_PYTHON, f"bootstrap_servers=kafka:9092\n{KAFKA_PYTHON}", RUBY_KAFKA):
        for finding in explained(paste).findings:
            assert finding.title.startswith("Maybe: ") and finding.evidence["certain"] is False
            assert not {"dns_status", "tcp_status", "sasl_mechanisms"} & set(finding.evidence), finding.id
            assert "the DNS answered" not in finding.explanation and "did not accept the connection" not in \
                finding.explanation, finding.id
            assert finding.explanation.startswith("The client says only that it reached no broker")



def test_saramas_run_out_of_brokers_also_reads_a_broker_older_than_its_configured_version():
    # Sarama sends each request at the version config.Version implies, unasked: a broker older than that hangs up.
    finding = next(f for f in explained(SARAMA).findings if f.id == "BROKER_TOO_OLD")
    assert finding.severity == "warning"
    assert "config.Version" in finding.explanation
    assert "run out of available brokers request" not in finding.title


@pytest.mark.parametrize("line", [
    # Kafka Connect's WorkerSourceTask, since 2.x and before
    "ERROR WorkerSourceTask{id=mirror-0} Failed to flush, timed out while waiting for producer to flush outstanding 1 "
    "messages (org.apache.kafka.connect.runtime.WorkerSourceTask)",
    "ERROR Failed to flush WorkerSourceTask{id=local-file-source-0}, timed out while waiting for producer to flush "
    "outstanding messages, 1 left ({ProducerRecord(topic=t, partition=null, key=null, value=[B@1})",
], ids=["connect-2.x", "connect-1.x"])
def test_a_connect_tasks_producer_that_did_not_flush_is_its_own_settings_or_an_idle_drop(line):
    explanation = explained(line)
    assert ids(explanation) == ["ROUNDTRIP_FAILED", "TLS_EXPECTED", "SASL_REQUIRED", "IDLE_CONNECTION_DROPPED"]
    assert {f.severity for f in explanation.findings} == {"warning"}
    assert "producer.security.protocol" in explanation.findings[1].explanation


def test_a_client_bootstrapping_through_loopback_gets_no_advertised_loopback_reading():
    # it runs on the broker's machine, where an advertised loopback address reaches the broker
    found = ids(explained(f"KafkaProducer(bootstrap_servers=['localhost:9092'])\n{KAFKA_PYTHON}"))
    assert "ADVERTISED_LOOPBACK" not in found and "ADVERTISED_UNRESOLVABLE" in found


# librdkafka: rd_kafka_metadata() returns _TRANSPORT when no broker came up within its timeout (src/rdkafka_metadata.c),
# in kcat's and confluent-kafka-python's words; "All broker connections are down" once every connection failed.
LIBRDKAFKA_GAVE_UP = [
    "% ERROR: Failed to acquire metadata: Local: Broker transport failure (Are the brokers reachable? Also try "
    "increasing the metadata timeout with -m <timeout>?)",
    "% KC_ERROR: Failed to query metadata for topic orders: Local: Broker transport failure",
    'cimpl.KafkaException: KafkaError{code=_TRANSPORT,val=-195,str="Failed to get metadata: Local: Broker transport '
    'failure"}',
    "% ERROR: Local: All broker connections are down: 3/3 brokers are down: terminating",
    "%3|1795271000.250|ERROR|rdkafka#producer-1| [thrd:b:9092/bootstrap]: 1/1 brokers are down",
    'KafkaError{code=_ALL_BROKERS_DOWN,val=-187,str="Local: All broker connections are down"}',
    "Error: KafkaError (Message consumption error: AllBrokersDown)",
]


@pytest.mark.parametrize("line", LIBRDKAFKA_GAVE_UP, ids=["kcat-L", "kcat-topic", "python-list_topics", "kcat-all-down",
                                                         "one-of-one", "python-all-down", "rust"])
def test_librdkafka_with_no_broker_up_gets_the_bootstraps_readings(line):
    explanation = explained(line)
    assert ids(explanation) == REACH + ["TLS_EXPECTED"] + SASL
    assert {f.severity for f in explanation.findings} == {"warning"}


@pytest.mark.parametrize("line", [
    "Error event: -195: Local: Broker transport failure - localhost:9092/bootstrap: Connection closed",
    "PHP Fatal error:  Uncaught RdKafka\\Exception: Local: Broker transport failure in /app/consumer.php:12",
    "%3|1795271000.250|ERROR|rdkafka#producer-1| [thrd:b:9092/bootstrap]: 1/3 brokers are down",
])
def test_one_librdkafka_connection_failing_is_not_the_client_giving_up(line):
    assert not set(ids(explained(line))) & {"BOOTSTRAP_REFUSED", "TLS_EXPECTED", "SASL_REQUIRED"}
