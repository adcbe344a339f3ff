"""kdiag explain on the libraries' own message forms (each test cites the source that prints it), and on the
client's settings a paste shows steering a closed connection's readings. No user's prose: the lines are the
formats the sources write, with documentation addresses (192.0.2.0/24, 198.51.100.0/24, example hosts)."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

# segmentio/kafka-go returns io.EOF when the broker hangs up (conn.go's reads; writer.go wraps it as the
# caller's "failed to write messages: EOF"); Go's log prints it after the tool's command line.
SEGMENTIO_EOF = "2026/11/26 10:00:00 failed to write messages: EOF"
# kafkajs src/network/connection.js: KafkaJSConnectionError('Closed connection') when the socket ends.
KAFKAJS_CLOSED = ('{"level":"ERROR","timestamp":"2026-11-26T10:00:00.000Z","logger":"kafkajs","message":"[Connection] '
                  'Response Metadata(key: 3, version: 6)","broker":"b1.example:9092","clientId":"app","error":'
                  '"Closed connection"}\nKafkaJSConnectionError: Closed connection')
# Java NetworkClient.processDisconnection: "Bootstrap broker {} (id: -1 rack: null) disconnected" (at WARN).
JAVA_DISCONNECTED = ("[2026-11-26 10:00:00,000] WARN [Producer clientId=p] Bootstrap broker b1.example:9092 (id: -1 "
                     "rack: null) disconnected (org.apache.kafka.clients.NetworkClient)")


def _first(text: str):
    explanation = explained(text)
    assert explanation.findings, text
    return explanation.findings[0], ids(explanation)


@pytest.mark.parametrize("switch", ["$ ./produce -brokers b1.example:9092 -topic t -tls",
                                    "$ kafka-tool --ssl --brokers b1.example:9092",
                                    "config.Net.TLS.Enable = true",
                                    "-X security.protocol=ssl -b b1.example:9092",
                                    "\tsecurity.protocol = SASL_SSL"])
def test_a_tls_switch_in_the_paste_makes_a_closed_connection_a_likely_tls_client_at_a_plaintext_listener(switch):
    first, found = _first(f"{switch}\n{SEGMENTIO_EOF}")
    assert first.id == "TLS_UNEXPECTED" and first.severity == "warning" and first.title.startswith("Likely: ")
    assert first.evidence["certain"] is False and "BROKER_CLOSED_CONNECTION" in first.evidence["readings"]
    assert "TLS_EXPECTED" not in found  # a TLS client is not one that forgot TLS


def test_without_settings_a_go_clients_closed_connection_is_a_tls_mismatch_either_way_among_equal_readings():
    first, found = _first(SEGMENTIO_EOF)
    assert found == ["TLS_EXPECTED", "SASL_REQUIRED", "TLS_UNEXPECTED", "IDLE_CONNECTION_DROPPED", "BROKER_CLOSED_CONNECTION"]
    assert first.title.startswith("Maybe: ")


def test_sasl_settings_make_the_closed_connection_a_refused_login_not_missing_sasl():
    first, found = _first(f"sasl.mechanism=SCRAM-SHA-512\nsasl.username=app\n{KAFKAJS_CLOSED}")
    assert "SASL_AUTH_FAILED" in found and "SASL_REQUIRED" not in found


def test_a_java_config_dumps_default_sasl_mechanism_is_not_sasl_when_the_protocol_is_plaintext():
    # Java AbstractConfig.logAll: every setting, sasl.mechanism = GSSAPI (its default) whatever the protocol.
    dump = ("[2026-11-26 10:00:00,000] INFO ProducerConfig values:\n\tbootstrap.servers = [b1.example:9092]\n"
            "\tsasl.mechanism = GSSAPI\n\tsecurity.protocol = PLAINTEXT\n")
    first, found = _first(dump + JAVA_DISCONNECTED)
    assert first.id == "SASL_REQUIRED" and "SASL_AUTH_FAILED" not in found and "TLS_UNEXPECTED" not in found


def test_aiokafka_unable_connect_without_a_reason_is_no_refusal():
    # aiokafka/client.py bootstrap(): log.error('Unable connect to "%s:%s": %s', host, port, err); an err whose
    # str() is empty (asyncio.TimeoutError, a handshake cut off) leaves nothing after the colon.
    text = ('ERROR:aiokafka:Unable connect to "b1.example:9092": \n'
            "aiokafka.errors.KafkaConnectionError: KafkaConnectionError: Unable to bootstrap from "
            "[('b1.example', 9092, <AddressFamily.AF_UNSPEC: 0>)]")
    _, found = _first(text)
    assert "BOOTSTRAP_REFUSED" not in found and "BOOTSTRAP_TIMEOUT" in found
    first, _ = _first("$ python produce.py --lib aiokafka --ssl\n" + text)
    assert first.id == "TLS_UNEXPECTED" and first.severity == "warning"


def test_kafkajs_tls_socket_disconnected_is_a_likely_reading():
    # node lib/_tls_wrap.js onConnectEnd: ECONNRESET "Client network socket disconnected before secure TLS
    # connection was established", which kafkajs src/network/connection.js passes on as a Connection error.
    first, _ = _first("KafkaJSConnectionError: Connection error: Client network socket disconnected before secure "
                      "TLS connection was established")
    assert first.id == "TLS_UNEXPECTED" and first.severity == "warning" and first.title.startswith("Likely: ")


# ZooKeeper's server (zookeeper-server/src/main/java/org/apache/zookeeper/server): NIOServerCnxn.readLength's
# "Len error", jute BinaryInputArchive.checkLength's "Unreasonable length = ", ZooKeeperServer's
# processConnectRequest "Refusing session request for client ... as it has seen zxid" and "Connection request
# from old client".
ZK_CERTAIN = ["2026-11-26 10:00:00,000 [myid:] - WARN  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:NIOServerCnxn@362] - "
              "Exception causing close of session 0x0 due to java.io.IOException: Len error 369295617",
              "2026-11-26 10:00:00,000 [myid:1] - WARN  [NIOWorkerThread-1:NIOServerCnxn@373] - Close of session 0x0 "
              "java.io.IOException: Unreasonable length = 1701080931"]
ZK_HEDGED = ["2026-11-26 10:00:00,000 [myid:1] - INFO  [NIOWorkerThread-2:ZooKeeperServer@1107] - Refusing session "
             "request for client /192.0.2.7:51234 as it has seen zxid 0x30000000f our last zxid is 0x0 client must try "
             "another server",
             "2026-11-26 10:00:00,000 [myid:] - INFO  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:ZooKeeperServer@1018] "
             "- Connection request from old client /192.0.2.7:51234; will be dropped if server is in r-o mode"]


@pytest.mark.parametrize("line", ZK_CERTAIN + ZK_HEDGED)
def test_zookeepers_own_log_about_a_kafka_client_is_not_kafka_at_the_bootstrap(line):
    first, _ = _first(f"$ kafka-topics --bootstrap-server zk.example:2181 --list\n{line}")
    assert first.id == "NOT_KAFKA" and first.evidence["role"] == "bootstrap"
    assert "192.0.2.7" not in (first.evidence.get("host") or "")  # the address ZooKeeper names is the client's
    assert first.severity == ("warning" if line in ZK_HEDGED else "error")


def test_zookeepers_len_error_of_text_bytes_is_a_text_client_not_kafka():
    line = ZK_CERTAIN[0].replace("369295617", "1195725856")  # "GET ": an HTTP client at ZooKeeper's port
    assert "NOT_KAFKA" not in ids(explained(line))


# Python's resolver error as a traceback ends it (socket.gaierror out of getaddrinfo in kafka/conn.py before
# kafka-python 1.4, or re-raised by a wrapper): it names no host.
GAIERROR = "socket.gaierror: [Errno -2] Name or service not known"


def test_a_bare_gaierror_with_only_ip_bootstrap_addresses_is_an_advertised_name():
    first, found = _first(f"producer = KafkaProducer(bootstrap_servers=['192.0.2.5:9092'])\n{GAIERROR}")
    assert found == ["ADVERTISED_UNRESOLVABLE"] and first.severity == "error"
    assert first.evidence["role"] == "advertised" and "IP address" in first.evidence["role_from"]


@pytest.mark.parametrize("bootstrap", ["", "producer = KafkaProducer(bootstrap_servers=['kafka.example:9092'])\n"])
def test_a_bare_gaierror_with_a_named_or_unseen_bootstrap_gives_both_readings(bootstrap):
    _, found = _first(bootstrap + GAIERROR)
    assert sorted(found) == ["ADVERTISED_UNRESOLVABLE", "BOOTSTRAP_UNRESOLVABLE"]
    assert all(f.severity == "warning" for f in explained(bootstrap + GAIERROR).findings)


# Java's Node.toString() (clients/src/main/java/org/apache/kafka/common/Node.java: "host:port (id: N rack: R)"), as
# kafka-broker-api-versions, the client's DEBUG metadata and its NetworkClient connection lines print it; kafkajs's
# metadata response at debug level (src/protocol/requests/metadata: brokers with nodeId, host, port).
DUPLICATES = {
    "api_versions": "kafka.example:9092 (id: 1 rack: null) -> (\nkafka.example:9092 (id: 2 rack: null) -> (",
    "java_metadata": ("[2026-11-26 10:00:00,000] DEBUG [Producer clientId=p] Updated cluster metadata updateVersion 2 to "
                      "MetadataCache{clusterId='c', nodes={1=kafka.example:9092 (id: 1 rack: null), 2=kafka.example:9092 "
                      "(id: 2 rack: null)}, partitions=[]} (org.apache.kafka.clients.Metadata)"),
    "java_connections": "\n".join(f"[2026-11-26 10:00:00,000] WARN [Producer clientId=p] Connection to node {n} "
                                  "(kafka.example/192.0.2.3:9092) could not be established. Node may not be available. "
                                  "(org.apache.kafka.clients.NetworkClient)" for n in (1, 2)),
    "kafkajs": ('{"level":"DEBUG","logger":"kafkajs","message":"[Connection] Response Metadata(key: 3, version: 6)",'
                '"data":{"brokers":[{"nodeId":1,"host":"kafka.example","port":9092,"rack":null},{"nodeId":2,"host":'
                '"kafka.example","port":9092,"rack":null}]}}'),
}


@pytest.mark.parametrize("name", sorted(DUPLICATES))
def test_several_brokers_listed_at_one_address_is_advertised_duplicate(name):
    assert "ADVERTISED_DUPLICATE" in ids(explained(DUPLICATES[name]))


def test_a_group_coordinator_is_not_a_second_broker_at_its_address():
    text = ("[Consumer clientId=c, groupId=g] Discovered group coordinator kafka.example:9092 (id: 2147483646 rack: "
            "null)\nkafka.example:9092 (id: 1 rack: null) -> (")
    assert "ADVERTISED_DUPLICATE" not in ids(explained(text))


# Sarama broker.go Open(): Logger.Printf("Failed to connect to broker %s: %s\n", b.addr, b.connErr), connErr from
# tls.DialWithDialer when Net.TLS.Enable, else dialer.Dial: a TCP dial never ends in EOF, so TLS was on.
SARAMA_CLOSED = ["[sarama] 2026/11/26 10:00:00 Failed to connect to broker kafka.example:9092: EOF",
                 "[sarama] 2026/11/26 10:00:00 Failed to connect to broker kafka.example:9092: read tcp "
                 "192.0.2.5:53412->192.0.2.9:9092: read: connection reset by peer"]


@pytest.mark.parametrize("line", SARAMA_CLOSED)
@pytest.mark.parametrize("switch", ["$ kafka-tool --kafka.server=kafka.example:9092 --tls.enabled",
                                    "$ kafka-tool --kafka.tls.enabled=true", "tls: true", ""])
def test_sarama_cut_off_in_open_with_a_tls_switch_is_likely_tls_at_a_plaintext_listener(line, switch):
    first, _ = _first(f"{switch}\n{line}")
    assert first.id == "TLS_UNEXPECTED" and first.title.startswith("Likely: ") and first.severity == "warning"
    assert first.evidence["host"] == "kafka.example"


@pytest.mark.parametrize("switch", ["$ tool --no-tls -brokers kafka.example:9092", "$ tool --ssl-cert-file c.pem"])
def test_a_switch_that_is_not_tls_on_does_not_steer(switch):
    _, found = _first(f"{switch}\n{SEGMENTIO_EOF}")
    assert found[0] == "TLS_EXPECTED"


# segmentio/kafka-go: dialer.go's "failed to dial: failed to open connection to %s: %w"; a bare io.EOF as Go's
# log.Fatal(err) prints it; io.ErrClosedPipe ("io: read/write on closed pipe") from its transport's connections.
SEGMENTIO_CLOSED = ["2026/11/26 10:00:00 failed to dial: failed to open connection to kafka.example:9092: EOF",
                    "2026/11/26 10:00:00 EOF", "panic: unexpected EOF",
                    "2026/11/26 10:00:00 error writing messages: io: read/write on closed pipe"]


@pytest.mark.parametrize("line", SEGMENTIO_CLOSED)
def test_segmentio_closed_connections_are_the_closed_connection_readings(line):
    first, found = _first(line)
    assert {"TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"} <= set(found)
    assert first.severity == "warning" and first.evidence["certain"] is False


def test_eof_inside_other_words_is_not_a_closed_connection():
    assert not explained("EOF while reading the config file, using defaults").findings


# kafka-python 2.x kafka/conn.py BrokerConnection.requests_timed_out: "%s timed out after %s ms. Closing connection.";
# 3.x kafka/net/connection.py: "%s: Request timed out after %d ms. Closing connection." A bootstrap connection whose
# first request is never answered is a listener that took the connection and does not speak Kafka back.
KAFKA_PYTHON_2_TIMEOUT = ("WARNING:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=192.0.2.10:9093 <connected> "
                          "[IPv4 ('192.0.2.10', 9093)]> timed out after 30000 ms. Closing connection.")
KAFKA_PYTHON_3_TIMEOUT = ("WARNING:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 broker_version=unknown "
                          "(connected)>: Request timed out after 30000 ms. Closing connection.")


@pytest.mark.parametrize("line", [KAFKA_PYTHON_2_TIMEOUT, KAFKA_PYTHON_3_TIMEOUT], ids=["2.x", "3.x"])
def test_kafka_pythons_unanswered_first_request_is_the_closed_connections_readings_never_a_refusal(line):
    first, found = _first(f"{line}\nkafka.errors.NoBrokersAvailable: NoBrokersAvailable")
    assert found == ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"]
    assert first.severity == "warning" and "BOOTSTRAP_REFUSED" not in found and "BOOTSTRAP_TIMEOUT" not in found


def test_kafka_pythons_request_timeout_on_a_brokers_connection_is_a_request_lost_on_a_live_connection():
    line = KAFKA_PYTHON_2_TIMEOUT.replace("node_id=bootstrap-0", "node_id=1")
    assert "IDLE_CONNECTION_DROPPED" in _first(line)[1]
