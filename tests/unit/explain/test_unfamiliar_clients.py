"""Clients of no family kdiag knows by name: their runtime's words for a failed lookup or connect (Erlang's inet atoms,
Ruby's Errno and SocketError, Dart's SocketException, .NET's SocketException, Rust's io::Error), with the endpoint
from the line or the line just above, and the roles their libraries' own lines give (brod/kafka_ex tuples and node
ids, ruby-kafka's seed brokers and nodes). Each line is the runtime's or the library's format, from its source, with
documentation hosts only."""

from __future__ import annotations

import pytest

from kdiag.explain.clients.generic import runtime_failure
from tests.unit.explain.helpers import explained, ids, only


@pytest.mark.parametrize("words, reading", [
    ("{error,nxdomain}", ("resolve", "nxdomain")),  # Erlang inet:format_error's atoms
    ("{connection_failure,econnrefused}", ("connect", "refused")),
    ("{:error, :ehostunreach}", ("connect", "unreachable")),
    ('Connection refused - connect(2) for "b1.example" port 9092', ("connect", "refused")),  # Ruby Errno::ECONNREFUSED
    ("getaddrinfo: Name or service not known", ("resolve", "nxdomain")),  # Ruby SocketError (glibc's gai_strerror)
    ("Failed host lookup: 'b1'", ("resolve", "nxdomain")),  # Dart dart:io
    ("No connection could be made because the target machine actively refused it", ("connect", "refused")),  # .NET
    ("No such host is known", ("resolve", "nxdomain")),  # .NET WSAHOST_NOT_FOUND
    ("Connection timed out (os error 110)", ("connect", "timeout")),  # Rust io::Error
    ("a connection attempt failed because the connected party did not properly respond", ("connect", "timeout")),
])
def test_each_runtimes_words_read_as_a_lookup_or_a_connect(words, reading):
    assert runtime_failure(words) == reading


def test_a_word_inside_another_is_not_an_erlang_atom():
    assert runtime_failure("mynxdomainfoo") is None


def test_brod_names_the_endpoint_on_one_line_and_the_reason_on_the_next():
    # brod_client.erl: "client ~p failed to connect to ~s:~p~nreason:~p" (error_logger formats it on two lines).
    # Its connect/2 opens payload connections only (a partition leader's, a group coordinator's: endpoints the
    # metadata gave; the bootstrap goes through kpro:connect_any): an advertised broker (brod 2.5.0 to 4.x).
    found = explained("client client1 failed to connect to 192.0.2.10:9092\nreason:{connection_failure,econnrefused}")
    finding = found.findings[0]
    assert finding.id == "ADVERTISED_UNREACHABLE"
    assert finding.evidence["host"] == "192.0.2.10" and finding.evidence["port"] == 9092
    assert finding.severity == "error"
    assert set(ids(found)) == {"ADVERTISED_UNREACHABLE"}


def test_an_erlang_call_trace_gives_the_endpoint_and_brod_tuples_the_bootstrap():
    trace = ('brod:start_client([{"192.0.2.10", 9092}], client1)\n'
             '(<0.305.0>) call gen_tcp:connect("kafka-1.internal.example",9092,[{active,false},binary],5000)\n'
             "(<0.305.0>) returned from gen_tcp:connect/4 -> {error,nxdomain}")
    finding = only(explained(trace), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "error" and finding.evidence["host"] == "kafka-1.internal.example"


def test_kafka_ex_names_the_broker_the_metadata_gave_it():
    # lib/kafka_ex/server.ex: "Establishing connection to broker #{node_id}: #{inspect host} on port #{port}" and
    # "Could not connect to broker #{inspect host}:#{port} because of error #{inspect error}".
    log = ('[debug] Establishing connection to broker 1001: "kafka-1.internal.example" on port 9092\n'
           '[error] Could not connect to broker "kafka-1.internal.example":9092 because of error {:error, :nxdomain}')
    finding = only(explained(log), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "error" and finding.evidence["node_id"] == 1001


def test_ruby_kafka_seed_brokers_are_the_bootstrap_and_discovered_nodes_are_advertised():
    seed = ("Failed to fetch metadata from kafka://b1.example:9092: Connection refused - connect(2) for "
            '"b1.example" port 9092')
    assert only(explained(seed), "BOOTSTRAP_REFUSED").severity == "error"
    advertised = ("Fetching cluster metadata from kafka://b1.example:9092\n"
                  "Discovered cluster metadata; nodes: kafka-1.internal.example:9092 (node_id=1)\n"
                  "Opening connection to kafka-1.internal.example:9092 with client id app...\n"
                  "SocketError: getaddrinfo: Name or service not known")
    finding = only(explained(advertised), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "error" and finding.evidence["node_id"] == 1


def test_dart_and_dotnet_socket_exceptions_carry_their_endpoint():
    dart = ("SocketException: Connection refused (OS Error: Connection refused, errno = 111), address = 192.0.2.10, "
            "port = 9092")
    assert "BOOTSTRAP_REFUSED" in ids(explained(dart))
    dotnet = ("System.Net.Sockets.SocketException (10061): No connection could be made because the target machine "
              "actively refused it. 192.0.2.10:9092")
    finding = explained(dotnet).findings[0]
    assert finding.evidence["host"] == "192.0.2.10" and finding.evidence["port"] == 9092


def test_a_rust_error_takes_the_endpoint_a_line_just_above_named():
    log = "Connecting to b1.example:9092\nError: IO error: Connection refused (os error 111)"
    finding = explained(log).findings[0]
    assert finding.id in ("BOOTSTRAP_REFUSED", "ADVERTISED_UNREACHABLE") and finding.evidence["host"] == "b1.example"


def test_an_endpoint_named_long_before_is_not_the_one_that_failed():
    log = "Connecting to b1.example:9092\n" + "ok\n" * 30 + "Error: IO error: Connection refused (os error 111)"
    found = explained(log)
    assert all("host" not in f.evidence for f in found.findings) and found.findings
    assert {f.severity for f in found.findings} == {"warning"}  # no address, no role: both readings


def test_brods_failed_to_connect_names_the_bootstrap_endpoints():
    # brod_client.erl: {failed_to_connect, [{Endpoint, Reason}]} for the bootstrap endpoints it tried.
    line = '{failed_to_connect,[{{"kafka-1.example",9092},{{badmatch,{error,nxdomain}},[]}}]}'
    finding = only(explained(line), "BOOTSTRAP_UNRESOLVABLE")
    assert finding.severity == "error" and finding.evidence["port"] == 9092


def test_phps_stream_socket_client_names_its_endpoint():
    # PHP ext/standard streamsfuncs.c: "unable to connect to %s (%s)", the reason from php_network_getaddresses.
    line = ("PHP Warning:  stream_socket_client(): unable to connect to tcp://b1.example:9092 "
            "(php_network_getaddresses: getaddrinfo failed: Name or service not known)")
    finding = explained(line).findings[0]
    assert finding.id in ("BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE") and finding.evidence["host"] == "b1.example"


@pytest.mark.parametrize("line", ["Error: Kafka Error (NoHostReachable)",  # kafka-rust src/error.rs
                                  "** (RuntimeError) Unable to fetch metadata from any brokers.  Timeout is 1000."])
def test_a_client_that_reached_no_broker_and_says_no_more_is_no_certain_cause(line):
    explanation = explained(line)
    assert explanation.findings and {f.severity for f in explanation.findings} == {"warning"}


def test_kafka_sharp_without_partitions_for_a_topic_is_likely_a_missing_topic():
    # criteo/kafka-sharp src/Kafka/Routing/ProduceRouter.cs: "[Producer] No partition available for topic {0}, ..."
    explanation = explained("ERROR [Producer] No partition available for topic orders, postponing messages.")
    assert ids(explanation) == ["TOPIC_NOT_FOUND", "NO_LEADER"]
    assert explanation.findings[0].title.startswith("Likely: ") and explanation.findings[1].title.startswith("Or: ")


def test_ruby_kafka_finding_no_coordinator_is_likely_a_broker_before_consumer_groups():
    # ruby-kafka lib/kafka/cluster.rb get_coordinator: raise Kafka::Error, "Failed to find coordinator".
    finding = only(explained("Kafka::Error: Failed to find coordinator"), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.evidence["api"] == "FindCoordinator"


def test_another_services_endpoint_in_the_same_log_is_not_a_broker():
    log = ("bootstrap.servers = b1.example:9092\n"
           "Failed to connect to db.example:5432: Connection refused (os error 111)")
    assert explained(log).findings == ()


def test_rskafka_names_the_broker_it_could_not_connect_to():
    # rskafka src/connection.rs, Error::Transport: "error connecting to broker \"{broker}\": {error}".
    finding = explained('error connecting to broker "b1.example:9092": IO error: Connection refused (os error 111)'
                        ).findings[0]
    assert finding.evidence["host"] == "b1.example" and finding.evidence["port"] == 9092
