"""A sweep of the "other" family's own error strings, from each library's source: ruby-kafka (and rdkafka-ruby's
Ruby-side wording), brod and kafka_protocol, kafka_ex, rskafka, kafka-rust, kafka-node, kafka-net. Each row is a paste
made from a string as the source prints it (invented hosts), with what explain must say: ``certain``, exactly the
error-severity findings; ``readings``, ids that must be among the findings at any severity (a Likely/Or reading);
``absent``, ids that must not appear at all. Each row cites the source file and the repository's commit."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained

RUBY_KAFKA = "zendesk/ruby-kafka @ de2ac2aa4d8ab3b4d348fb47544d423a4cb285a0"
RDKAFKA_RUBY = "karafka/rdkafka-ruby @ 81be258fe35443beb7a5e61fc51e9e87085060b4"
BROD = "kafka4beam/brod @ 33075eb5c76093e36f76fa22317101c17793d17e"
KPRO = "kafka4beam/kafka_protocol @ 946a0de45c787435df8a2f41b56938637403e128"
KAFKA_EX = "kafkaex/kafka_ex @ 7f51188c2840cd09887900524e89e67db987851f"
RSKAFKA = "influxdata/rskafka @ 9e0dad678abac7c70a7873812bbcce1ede1563a2"
KAFKA_RUST = "kafka-rust/kafka-rust @ 6c9c1f2cebe41409e83cf8f68e39bd7169b302af"
KAFKA_NODE = "SOHU-Co/kafka-node @ fcc8aefc7798f6e4b79d9b5c31f047c1933329e6"
KAFKA_NET = "Jroland/kafka-net @ c9bbbe61fd519da5a8a7fcb99035bf2cbc5940d3"

RUBY_E = "E, [2026-12-07T10:00:00.000002 #1] ERROR -- : "
RUBY_I = "I, [2026-12-07T10:00:00.000001 #1]  INFO -- : "
SEED = f"{RUBY_I}Fetching cluster metadata from kafka://b1.example:9092\n"
GAVE_UP = ("BOOTSTRAP_REFUSED", "BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_TIMEOUT")
BOTH_REFUSED = ("BOOTSTRAP_REFUSED", "ADVERTISED_UNREACHABLE")


def row(name: str, source: str, paste: str, certain: tuple[str, ...] = (), readings: tuple[str, ...] = (),
        absent: tuple[str, ...] = ()) -> object:
    return pytest.param(paste, certain, readings, absent, id=f"{name} [{source.split(' @ ')[0]}]")


ROWS = [
    # --- ruby-kafka ---------------------------------------------------------------------------------------------
    # lib/kafka/connection.rb open: "Failed to connect to #{self}: #{e}" (SocketError); cluster.rb: the seed line
    row("ruby-kafka seed getaddrinfo", RUBY_KAFKA, f"{SEED}{RUBY_E}Failed to connect to b1.example:9092: getaddrinfo: "
        "Name or service not known\n" f"{RUBY_E}Failed to fetch metadata from kafka://b1.example:9092: getaddrinfo: "
        "Name or service not known", certain=("BOOTSTRAP_UNRESOLVABLE",)),
    # lib/kafka/connection.rb: the same line alone says no role
    row("ruby-kafka getaddrinfo alone", RUBY_KAFKA, f"{RUBY_E}Failed to connect to b1.example:9092: getaddrinfo: Name "
        "or service not known", readings=("BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE")),
    # lib/kafka/connection.rb + socket_with_timeout.rb (connect_nonblock: "connect(2) for <IP>:port")
    row("ruby-kafka seed refused", RUBY_KAFKA, f"{SEED}{RUBY_E}Failed to connect to b1.example:9092: Connection refused"
        " - connect(2) for 192.0.2.10:9092\n" f"{RUBY_E}Failed to fetch metadata from kafka://b1.example:9092: "
        "Connection refused - connect(2) for 192.0.2.10:9092", certain=("BOOTSTRAP_REFUSED",)),
    # lib/kafka/connection.rb + socket_with_timeout.rb: the IP is the same endpoint's, one pair of readings
    row("ruby-kafka refused alone", RUBY_KAFKA, f"{RUBY_E}Failed to connect to b1.example:9092: Connection refused - "
        "connect(2) for 192.0.2.10:9092", readings=BOTH_REFUSED),
    # lib/kafka/connection.rb: rescue Errno::ETIMEDOUT around open
    row("ruby-kafka connect timed out", RUBY_KAFKA, f"{RUBY_E}Timed out while trying to connect to b1.example:9092: "
        "Connection timed out", readings=("BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE")),
    # lib/kafka/connection.rb: Errno::EHOSTUNREACH
    row("ruby-kafka no route", RUBY_KAFKA, f"{RUBY_E}Failed to connect to b1.example:9092: No route to host - "
        "connect(2) for 192.0.2.10:9092", readings=("BOOTSTRAP_UNREACHABLE", "ADVERTISED_UNREACHABLE")),
    # lib/kafka/cluster.rb fetch_cluster_info + connection.rb send_request: "Connection error #{e.class}: #{e}"
    row("ruby-kafka seed EOF", RUBY_KAFKA, "Kafka::ConnectionError: Could not connect to any of the seed brokers:\n"
        "- kafka://b1.example:9092: Connection error EOFError: end of file reached",
        readings=("TLS_EXPECTED", "SASL_REQUIRED")),
    # lib/kafka/connection.rb: read_response's Errno::ETIMEDOUT after the connect, wrapped by send_request
    row("ruby-kafka response timed out", RUBY_KAFKA, f"{RUBY_E}Timed out while waiting for response 1\n"
        f"{RUBY_E}Failed to fetch metadata from kafka://b1.example:9092: Connection error Errno::ETIMEDOUT: Connection "
        "timed out", absent=("BOOTSTRAP_TIMEOUT",)),
    # lib/kafka/sasl_authenticator.rb: raise Kafka::Error, "#{ident} is not supported."
    row("ruby-kafka mechanism not supported", RUBY_KAFKA, "Kafka::Error: PLAIN is not supported.",
        certain=("SASL_MECHANISM_MISMATCH",)),
    row("ruby-kafka scram not supported", RUBY_KAFKA, "/app/vendor/ruby-kafka/lib/kafka/sasl_authenticator.rb:68:in "
        "`authenticate!': SCRAM-SHA-256 is not supported. (Kafka::Error)", certain=("SASL_MECHANISM_MISMATCH",)),
    # lib/kafka/sasl/plain.rb: rescue EOFError => "SASL PLAIN authentication failed: #{e.message}"
    row("ruby-kafka plain failed", RUBY_KAFKA, "Kafka::Error: SASL PLAIN authentication failed: end of file reached",
        certain=("SASL_AUTH_FAILED",)),
    # lib/kafka/sasl/scram.rb: rescue EOFError => raise FailedScramAuthentication, e.message
    row("ruby-kafka scram failed", RUBY_KAFKA, "Kafka::FailedScramAuthentication: end of file reached",
        certain=("SASL_AUTH_FAILED",)),
    row("ruby-kafka scram server signature", RUBY_KAFKA, "Kafka::FailedScramAuthentication: Invalid server signature",
        absent=("SASL_AUTH_FAILED",)),
    # lib/kafka/ssl_socket_with_timeout.rb: OpenSSL's words, raised past ruby-kafka's rescues
    row("ruby openssl untrusted", RUBY_KAFKA, "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 state=error: "
        "certificate verify failed (unable to get local issuer certificate)", certain=("TLS_CERT_UNTRUSTED",)),
    row("ruby openssl hostname", RUBY_KAFKA, "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 "
        "peeraddr=192.0.2.10:9093 state=error: certificate verify failed (hostname mismatch)",
        certain=("TLS_HOSTNAME_MISMATCH",)),
    row("ruby openssl syscall eof", RUBY_KAFKA, "OpenSSL::SSL::SSLError: SSL_connect SYSCALL returned=5 errno=0 "
        "state=SSLv2/v3 read server hello A", readings=("TLS_UNEXPECTED",)),
    row("ruby openssl3 unexpected eof", RUBY_KAFKA, "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 "
        "peeraddr=192.0.2.10:9092 state=error: unexpected eof while reading", readings=("TLS_UNEXPECTED",)),
    # lib/kafka.rb: one class per Kafka error code
    row("ruby-kafka unsupported mechanism class", RUBY_KAFKA, "Kafka::UnsupportedSaslMechanism: "
        "Kafka::UnsupportedSaslMechanism", certain=("SASL_MECHANISM_MISMATCH",)),
    row("ruby-kafka topic authorization class", RUBY_KAFKA, "Kafka::TopicAuthorizationFailed: "
        "Kafka::TopicAuthorizationFailed", certain=("TOPIC_AUTHORIZATION_FAILED",)),
    row("ruby-kafka unknown topic class", RUBY_KAFKA, "Kafka::UnknownTopicOrPartition: unknown topic orders",
        readings=("TOPIC_NOT_FOUND",)),
    # lib/kafka/cluster.rb: the ConnectionError after every seed failed, one line per seed
    row("ruby-kafka seeds unresolvable", RUBY_KAFKA, "Kafka::ConnectionError: Could not connect to any of the seed "
        "brokers:\n- kafka://b1.example:9092: getaddrinfo: Name or service not known",
        certain=("BOOTSTRAP_UNRESOLVABLE",)),
    row("ruby-kafka seeds refused", RUBY_KAFKA, "Kafka::ConnectionError: Could not connect to any of the seed "
        "brokers:\n- kafka://b1.example:9092: Connection refused - connect(2) for 192.0.2.10:9092\n- "
        "kafka://b2.example:9092: Connection refused - connect(2) for 192.0.2.11:9092", certain=("BOOTSTRAP_REFUSED",),
        absent=("ADVERTISED_UNREACHABLE",)),
    # lib/kafka/cluster.rb before 0.5 (v0.4.0): "Could not connect to any of the seed brokers: #{@seed_brokers.join}"
    row("ruby-kafka 0.4 seed list", "zendesk/ruby-kafka @ v0.4.0", f"{RUBY_E}Failed to connect to b1.example:9092: "
        "Connection refused - connect(2) for 192.0.2.10:9092\nKafka::ConnectionError: Could not connect to any of the "
        "seed brokers: kafka://b1.example:9092, kafka://b2.example:9092", certain=("BOOTSTRAP_REFUSED",)),
    # lib/kafka/cluster.rb get_coordinator + broker.rb to_s "#{connection} (node_id=#{@node_id})": a metadata broker
    row("ruby-kafka coordinator lookup timed out", RUBY_KAFKA, f"{RUBY_E}Failed to get coordinator info from "
        "b1.example:9092 (node_id=1): Timed out while trying to connect to b1.example:9092: Connection timed out",
        certain=("ADVERTISED_UNREACHABLE",)),
    # lib/kafka.rb: InvalidSaslState (code 34), the listener has no SASL
    row("ruby-kafka invalid sasl state class", RUBY_KAFKA, "Kafka::InvalidSaslState: Kafka::InvalidSaslState",
        certain=("SASL_MECHANISM_MISMATCH",)),
    # lib/kafka/producer.rb: DeliveryFailed says only that the buffer was not delivered
    row("ruby-kafka delivery failed", RUBY_KAFKA, "Kafka::DeliveryFailed: Failed to send messages to orders/0, "
        "orders/1"),
    # lib/rdkafka/error.rb to_s: "#{message_prefix} - #{rd_kafka_err2str} (#{code})"
    row("rdkafka-ruby topic authorization", RDKAFKA_RUBY, "Rdkafka::RdkafkaError: Error creating topic - Broker: Topic "
        "authorization failed (topic_authorization_failed)", certain=("TOPIC_AUTHORIZATION_FAILED",)),
    row("rdkafka-ruby unknown topic", RDKAFKA_RUBY, "Rdkafka::RdkafkaError: Broker: Unknown topic or partition "
        "(unknown_topic_or_part)", certain=("TOPIC_NOT_FOUND",)),
    row("rdkafka-ruby sasl failed", RDKAFKA_RUBY, "Rdkafka::RdkafkaError: Broker: SASL Authentication failed "
        "(sasl_authentication_failed)", certain=("SASL_AUTH_FAILED",)),

    # --- brod / kafka_protocol ----------------------------------------------------------------------------------
    # src/brod_client.erl connect/2: "client ~p failed to connect to ~s:~p~nreason:~p" (payload connections only)
    row("brod payload refused", BROD, "=ERROR REPORT==== 7-Dec-2026::10:00:00.000000 ===\nclient client1 failed to "
        "connect to b1.example:9092\nreason:econnrefused", certain=("ADVERTISED_UNREACHABLE",)),
    row("brod payload nxdomain", BROD, "client client1 failed to connect to b1.example:9092\nreason:nxdomain",
        certain=("ADVERTISED_UNRESOLVABLE",)),
    # src/brod_client.erl maybe_connect/3: "~p (re)connect to ~s:~p aborted.~nlast failure: ~p"
    row("brod reconnect aborted", BROD, "2026-12-07 10:00:00.000 [error] client1 (re)connect to b1.example:9092 "
        "aborted.\nlast failure: econnrefused", certain=("ADVERTISED_UNREACHABLE",)),
    # src/kpro_brokers.erl connect_any: throw({failed_to_connect, Reasons}); kpro_connection.erl connect/4
    row("kpro bootstrap nxdomain", KPRO, '{error,{failed_to_connect,[{{"b1.example",9092},{{nxdomain,'
        '[{kpro_connection,connect,4,[]}]},[]}}]}}', certain=("BOOTSTRAP_UNRESOLVABLE",)),
    row("kpro bootstrap refused", KPRO, '{failed_to_connect,[{{"b1.example",9092},{econnrefused,[{kpro_connection,'
        'connect,4,[]}]}}]}', certain=("BOOTSTRAP_REFUSED",)),
    row("kpro bootstrap timeout", KPRO, '{failed_to_connect,[{{"b1.example",9092},{timeout,[{kpro_connection,connect,'
        '4,[]}]}}]}', certain=("BOOTSTRAP_TIMEOUT",)),
    # src/kpro_connection.erl maybe_upgrade_to_ssl: erlang:error({failed_to_upgrade_to_ssl, Reason}) and its hint
    row("kpro ssl upgrade closed", KPRO, '{failed_to_connect,[{{"b1.example",9093},{{failed_to_upgrade_to_ssl,closed},'
        '[{kpro_connection,init_connection,3,[]}]}}]}', readings=("TLS_UNEXPECTED",)),
    row("kpro hint ssl listener", KPRO, "=ERROR REPORT==== 7-Dec-2026::10:00:00.000000 ===\nFailed to connect to "
        "b1.example:9093\nMake sure connecting to a 'SSL://' listener", readings=("TLS_UNEXPECTED",)),
    row("kpro hint ssl option", KPRO, "Failed to connect to b1.example:9093\nMake sure 'ssl' option is in client "
        "config, \nor make sure connecting to 'SASL_PLAINTEXT://' listener", readings=("TLS_EXPECTED",)),
    row("kpro hint sasl_ssl", KPRO, "Failed to connect to b1.example:9093\nMake sure connecting to 'SASL_SSL://' "
        "listener", readings=("TLS_UNEXPECTED", "SASL_MECHANISM_MISMATCH")),
    row("kpro hint sasl_plaintext", KPRO, "Failed to connect to b1.example:9092\nMake sure connecting to "
        "'SASL_PLAINTEXT://' listener", certain=("SASL_MECHANISM_MISMATCH",)),
    row("kpro tls unknown ca", KPRO, '{failed_to_connect,[{{"b1.example",9093},{{failed_to_upgrade_to_ssl,{tls_alert,'
        '{unknown_ca,"TLS client: In state certify at ssl_handshake.erl:2138 generated CLIENT ALERT: Fatal - Unknown '
        'CA\\n"}}},[]}}]}', certain=("TLS_CERT_UNTRUSTED",)),
    # src/kpro_sasl.erl do_auth: ?ERROR(bad_credentials) for a close after the PLAIN token (handshake v0)
    row("kpro bad_credentials", KPRO, '{failed_to_connect,[{{"b1.example",9092},{{sasl_auth_error,bad_credentials},'
        '[]}}]}', readings=("SASL_AUTH_FAILED",), absent=("SASL_MECHANISM_MISMATCH",)),
    # src/kpro_sasl.erl handshake: "sasl mechanism ~s is not enabled in kafka, enabled mechanism(s): ~s"
    row("kpro mechanism not enabled", KPRO, '{failed_to_connect,[{{"b1.example",9092},{{sasl_auth_error,<<"sasl '
        'mechanism PLAIN is not enabled in kafka, enabled mechanism(s): SCRAM-SHA-256,SCRAM-SHA-512">>},[]}}]}',
        certain=("SASL_MECHANISM_MISMATCH",), absent=("SASL_AUTH_FAILED",)),
    # src/kpro_sasl.erl handshake: ?ERROR(Other), the error code's atom (old and new spellings)
    row("kpro illegal sasl state", KPRO, '{failed_to_connect,[{{"b1.example",9092},{{sasl_auth_error,'
        "'IllegalSaslState'},[]}}]}", certain=("SASL_MECHANISM_MISMATCH",), absent=("SASL_AUTH_FAILED",)),
    row("kpro illegal_sasl_state atom", KPRO, '{failed_to_connect,[{{"b1.example",9092},{{sasl_auth_error,'
        "illegal_sasl_state},[]}}]}", certain=("SASL_MECHANISM_MISMATCH",), absent=("SASL_AUTH_FAILED",)),
    # src/kpro_connection.erl hint_msg: {sasl_auth_error,{badmatch,{error,enomem}}} -- KAFKA expecting SSL handshake
    row("kpro enomem", KPRO, '{failed_to_connect,[{{"b1.example",9093},{{sasl_auth_error,{badmatch,{error,enomem}}},'
        '[]}}]}', readings=("TLS_EXPECTED",), absent=("SASL_AUTH_FAILED",)),
    # src/brod_client.erl, src/brod_utils.erl: Kafka's codes as atoms
    row("brod unknown topic atom", BROD, "{error,unknown_topic_or_partition}", certain=("TOPIC_NOT_FOUND",)),
    row("brod topic authorization atom", BROD, "{error,topic_authorization_failed}",
        certain=("TOPIC_AUTHORIZATION_FAILED",)),
    row("elixir unknown topic atom", BROD, "** (MatchError) no match of right hand side value: {:error, "
        ":unknown_topic_or_partition}", certain=("TOPIC_NOT_FOUND",)),

    # src/brod_client.erl: the caller's own mistakes, no finding
    row("brod producer not found", BROD, '{error,{producer_not_found,<<"orders">>}}', absent=("TOPIC_NOT_FOUND",)),
    # --- kafka_ex -----------------------------------------------------------------------------------------------
    # lib/kafka_ex/network/network_client.ex: "Could not connect to #{inspect_broker(host, port)} because of error ..."
    row("kafka_ex refused", KAFKA_EX, '[error] Could not connect to broker "b1.example":9092 because of error '
        ":econnrefused", readings=BOTH_REFUSED),
    row("kafka_ex timeout", KAFKA_EX, '[error] Could not connect to broker "b1.example":9092 because of error :timeout',
        readings=("BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE")),
    # lib/kafka_ex/network/socket.ex: only :ssl.connect returns :closed (the handshake hung up on)
    row("kafka_ex ssl closed", KAFKA_EX, '[error] Could not connect to broker "b1.example":9092 because of error '
        ":closed", readings=("TLS_UNEXPECTED",)),
    # lib/kafka_ex/auth/sasl.ex + sasl/codec_binary.ex: {:auth_failed, code}, {:handshake_failed, code},
    # {:unsupported_mechanism_on_broker, mech}
    row("kafka_ex auth failed", KAFKA_EX, "[error] SASL authentication failed: {:auth_failed, "
        ":sasl_authentication_failed}", certain=("SASL_AUTH_FAILED",)),
    row("kafka_ex handshake unsupported", KAFKA_EX, "[error] SASL authentication failed: {:handshake_failed, "
        ":unsupported_sasl_mechanism}", certain=("SASL_MECHANISM_MISMATCH",)),
    row("kafka_ex mechanism not on broker", KAFKA_EX, '[error] SASL authentication failed: '
        '{:unsupported_mechanism_on_broker, "SCRAM-SHA-512"}', certain=("SASL_MECHANISM_MISMATCH",)),
    row("kafka_ex illegal sasl state", KAFKA_EX, "[error] SASL authentication failed: {:handshake_failed, "
        ":illegal_sasl_state}", certain=("SASL_MECHANISM_MISMATCH",)),
    # lib/kafka_ex/server*.ex (0.11.0): the older raise
    row("kafka_ex sockets closed", KAFKA_EX, "** (RuntimeError) Brokers sockets are closed", readings=GAVE_UP),
    # lib/kafka_ex/client/client.ex: the raises when no broker answered
    row("kafka_ex sockets not opened", KAFKA_EX, "** (RuntimeError) Brokers sockets are not opened",
        readings=GAVE_UP),
    row("kafka_ex api versions no broker", KAFKA_EX, "** (RuntimeError) ApiVersions negotiation failed: no broker "
        "available. Check that brokers are reachable at the configured addresses.", readings=GAVE_UP),
    # lib/kafka_ex/api.ex resolve_partition: from the metadata it holds
    row("kafka_ex topic not found", KAFKA_EX, "** (MatchError) no match of right hand side value: {:error, "
        ":topic_not_found}", readings=("TOPIC_NOT_FOUND",)),
    row("kafka_ex no partitions", KAFKA_EX, "{:error, :no_partitions_available}", readings=("NO_LEADER",)),
    # lib/kafka_ex/client/request_builder.ex
    row("kafka_ex api not supported", KAFKA_EX, "[error] Kafka API produce is not supported by the connected broker.",
        readings=("BROKER_TOO_OLD",)),

    # --- rskafka ------------------------------------------------------------------------------------------------
    # src/connection.rs: "error connecting to broker \"{broker}\": {error}"; transport.rs "IO Error: {0}"
    row("rskafka refused", RSKAFKA, ' WARN rskafka::connection: Failed to connect to broker e=error connecting to '
        'broker "b1.example:9092": IO Error: Connection refused (os error 111)', readings=BOTH_REFUSED),
    row("rskafka connect timed out", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:9092": '
        "Connecting to broker timed out", readings=("BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE")),
    # src/messenger.rs SaslError::ApiError / UnsupportedSaslMechanism; src/connection.rs "Sasl handshake failed: {0}"
    row("rskafka sasl auth failed", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:9093": '
        "Sasl handshake failed: API error: SaslAuthenticationFailed", certain=("SASL_AUTH_FAILED",)),
    row("rskafka sasl api unsupported", RSKAFKA, 'Error: Connection error: error connecting to broker '
        '"b1.example:9093": Sasl handshake failed: API error: UnsupportedSaslMechanism',
        certain=("SASL_MECHANISM_MISMATCH",)),
    row("rskafka sasl not in list", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:9093": '
        "Sasl handshake failed: unsupported sasl mechanism", certain=("SASL_MECHANISM_MISMATCH",)),
    # src/protocol/frame.rs: "Message too large, limit is {limit} bytes but got {actual} bytes"
    row("rskafka tls alert as a length", RSKAFKA, 'Error: Connection error: error connecting to broker '
        '"b1.example:9093": cannot sync versions: Request error: Cannot read framed message: Message too large, limit '
        "is 104857600 bytes but got 352518912 bytes", certain=("TLS_EXPECTED",)),
    # the same length read as every client's (sightings.size_sighting): HTTP's "HTTP" as a length, and a real answer
    # just over the limit, which says nothing about the listener
    row("rskafka http as a length", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:8080": '
        "cannot sync versions: Request error: Cannot read framed message: Message too large, limit is 104857600 bytes "
        "but got 1213486160 bytes", certain=("NOT_KAFKA",)),
    row("rskafka answer just over the limit", RSKAFKA, "Cannot read framed message: Message too large, limit is "
        "104857600 bytes but got 104857700 bytes"),
    # rustls through src/connection/transport.rs "IO Error: {0}"
    row("rskafka rustls unknown issuer", RSKAFKA, 'Error: Connection error: error connecting to broker '
        '"b1.example:9093": IO Error: invalid peer certificate: UnknownIssuer', certain=("TLS_CERT_UNTRUSTED",)),
    row("rskafka rustls name", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:9093": IO '
        "Error: invalid peer certificate: NotValidForName", certain=("TLS_HOSTNAME_MISMATCH",)),
    row("rskafka tls handshake eof", RSKAFKA, 'Error: Connection error: error connecting to broker "b1.example:9092": '
        "IO Error: tls handshake eof", readings=("TLS_UNEXPECTED",)),
    # src/client/error.rs ServerError: "Server error {} with message \"{}\", request: {:?}, response: {:?}, virtual: {}"
    row("rskafka server unknown topic", RSKAFKA, 'Error: Server error UnknownTopicOrPartition with message "n/a", '
        "request: Metadata, response: None, virtual: false", certain=("TOPIC_NOT_FOUND",)),
    row("rskafka server no leader", RSKAFKA, 'Error: Server error LeaderNotAvailable with message "n/a", request: '
        "Produce, response: None, virtual: false", readings=("NO_LEADER",)),

    # --- kafka-rust ---------------------------------------------------------------------------------------------
    # src/error.rs: "Kafka Error ({0:?})"; client/mod.rs answers UnknownTopicOrPartition from its own metadata
    row("kafka-rust unknown topic", KAFKA_RUST, "Error: Kafka Error (UnknownTopicOrPartition)",
        readings=("TOPIC_NOT_FOUND",)),
    row("kafka-rust topic partition error", KAFKA_RUST, 'Error: Topic Partition Error ("orders", 0, '
        "LeaderNotAvailable)", readings=("NO_LEADER",)),
    # src/error.rs: "No host reachable"
    row("kafka-rust no host reachable", KAFKA_RUST, "Error: No host reachable", readings=GAVE_UP),
    # src/client/network.rs: warn!("Failed to establish connection to {}: {:?}", host, e)
    row("kafka-rust establish refused", KAFKA_RUST, "[2026-12-07T10:00:00Z WARN  kafka::client::network] Failed to "
        'establish connection to b1.example:9092: Io(Os { code: 111, kind: ConnectionRefused, message: "Connection '
        'refused" })', readings=BOTH_REFUSED),
    row("kafka-rust establish timed out", KAFKA_RUST, "Failed to establish connection to b1.example:9092: Io(Os { "
        'code: 110, kind: TimedOut, message: "Connection timed out" })',
        readings=("BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE")),
    row("rust io error debug", KAFKA_RUST, "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: "
        'Io(Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })\', src/main.rs:9:59',
        readings=("BOOTSTRAP_REFUSED",)),

    # openssl crate (kafka-rust's "security" feature): HandshakeError's Debug with X509VerifyResult
    row("kafka-rust openssl hostname", KAFKA_RUST, 'Error: Ssl(Ssl(ErrorStack([Error { code: 337047686, library: '
        '"SSL routines", function: "tls_process_server_certificate", reason: "certificate verify failed", file: '
        '"../ssl/statem/statem_clnt.c", line: 1915 }])), X509VerifyResult { code: 62, error: "Hostname mismatch" })',
        certain=("TLS_HOSTNAME_MISMATCH",)),
    row("kafka-rust openssl issuer", KAFKA_RUST, 'Error: Ssl(Ssl(ErrorStack([Error { code: 337047686, library: '
        '"SSL routines", function: "tls_process_server_certificate", reason: "certificate verify failed", file: '
        '"../ssl/statem/statem_clnt.c", line: 1915 }])), X509VerifyResult { code: 20, error: "unable to get local '
        'issuer certificate" })', certain=("TLS_CERT_UNTRUSTED",)),
    # --- kafka-node ---------------------------------------------------------------------------------------------
    # lib/errors/TopicsNotExistError.js: 'The topic(s) ' + topics + ' do not exist'
    row("kafka-node topics not exist", KAFKA_NODE, "TopicsNotExistError: The topic(s) orders do not exist\n    at new "
        "TopicsNotExistError (/app/node_modules/kafka-node/lib/errors/TopicsNotExistError.js:13:9)",
        certain=("TOPIC_NOT_FOUND",)),
    # lib/baseClient.js / kafkaClient.js: BrokerNotAvailableError('Could not find the leader')
    row("kafka-node no leader", KAFKA_NODE, "{ BrokerNotAvailableError: Could not find the leader\n    at new "
        "BrokerNotAvailableError (/app/node_modules/kafka-node/lib/errors/BrokerNotAvailableError.js:11:9)\n  message: "
        "'Could not find the leader' }", readings=("NO_LEADER", "TOPIC_NOT_FOUND")),
    # lib/protocol/protocol.js: SaslAuthenticationError(errorCode, 'Handshake failed.')
    row("kafka-node sasl handshake", KAFKA_NODE, "SaslAuthenticationError: Handshake failed.",
        certain=("SASL_MECHANISM_MISMATCH",)),
    # lib/kafkaClient.js saslAuth: 'Broker does not support SASL authentication'
    row("kafka-node no sasl api", KAFKA_NODE, "SaslAuthenticationError: Broker does not support SASL authentication",
        readings=("BROKER_TOO_OLD",)),
    # lib/kafkaClient.js: the close during SASL auth (its own guess)
    row("kafka-node closed during sasl", KAFKA_NODE, "SaslAuthenticationError: Broker closed connection during SASL "
        "auth: bad credentials?", readings=("SASL_AUTH_FAILED",)),
    # lib/kafkaClient.js connectToBroker: TimeoutError(`Connection timeout of ${timeout}ms exceeded`)
    row("kafka-node connect timeout", KAFKA_NODE, "TimeoutError: Connection timeout of 10000ms exceeded\n    at "
        "Timeout._onTimeout (/app/node_modules/kafka-node/lib/kafkaClient.js:253:13)", readings=("BOOTSTRAP_TIMEOUT",)),
    # lib/kafkaClient.js connectToBrokers: new Error('failed to connect to brokers')
    row("kafka-node gave up", KAFKA_NODE, "Error: failed to connect to brokers", readings=GAVE_UP),
    # lib/kafkaClient.js: TimeoutError(`Request timed out after ${timeout}ms`) -- a request, not a connect
    row("kafka-node request timed out", KAFKA_NODE, "{ TimeoutError: Request timed out after 30000ms\n    at new "
        "TimeoutError (/app/node_modules/kafka-node/lib/errors/TimeoutError.js:6:9)\n  message: 'Request timed out "
        "after 30000ms' }", absent=("BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE")),
    # lib/kafkaClient.js: BrokerNotAvailableError('Broker not available (loadMetadataForTopics)') says no cause
    row("kafka-node broker not available", KAFKA_NODE, "BrokerNotAvailableError: Broker not available "
        "(loadMetadataForTopics)"),
    # Node's TLS errors, as kafka-node's tls.connect passes them on
    row("kafka-node self-signed chain", KAFKA_NODE, "{ Error: self signed certificate in certificate chain\n    at "
        "TLSSocket.onConnectSecure (_tls_wrap.js:1321:34)\n  code: 'SELF_SIGNED_CERT_IN_CHAIN' }",
        certain=("TLS_CERT_UNTRUSTED",)),
    row("kafka-node altnames", KAFKA_NODE, "Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match "
        "certificate's altnames: Host: b1.example. is not in the cert's altnames: DNS:kafka.internal",
        certain=("TLS_HOSTNAME_MISMATCH",)),
    # Node's own net error, as kafka-node passes it on
    row("kafka-node econnrefused", KAFKA_NODE, "{ Error: connect ECONNREFUSED 192.0.2.10:9092\n    at "
        "TCPConnectWrap.afterConnect [as oncomplete] (net.js:1107:14)\n  errno: 'ECONNREFUSED',\n  code: "
        "'ECONNREFUSED',\n  syscall: 'connect',\n  address: '192.0.2.10',\n  port: 9092 }", readings=BOTH_REFUSED),

    # --- kafka-net ----------------------------------------------------------------------------------------------
    # src/kafka-net/BrokerRouter.cs
    row("kafka-net none resolvable", KAFKA_NET, "KafkaNet.Protocol.ServerUnreachableException: None of the provided "
        "Kafka servers are resolvable.", certain=("BOOTSTRAP_UNRESOLVABLE",)),
    # src/kafka-net/KafkaMetadataProvider.cs
    row("kafka-net no metadata", KAFKA_NET, "KafkaNet.Protocol.ServerUnreachableException: Unable to query for "
        "metadata from any of the default Kafka servers.  At least one provided server must be available.  Server "
        "list: http://b1.example:9092/", readings=GAVE_UP),
    # src/kafka-net/BrokerRouter.cs: LeaderNotFoundException (sic "parition")
    row("kafka-net no leader", KAFKA_NET, "KafkaNet.Protocol.LeaderNotFoundException: Lead broker cannot be found for "
        "parition: 0, leader: -1", readings=("NO_LEADER",)),
]


@pytest.mark.parametrize(("paste", "certain", "readings", "absent"), ROWS)
def test_each_string_of_the_other_family_reads_as_its_source_says(paste: str, certain: tuple[str, ...],
                                                                   readings: tuple[str, ...],
                                                                   absent: tuple[str, ...]) -> None:
    findings = explained(paste).findings
    found = {f.id for f in findings}
    assert {f.id for f in findings if f.severity == "error"} == set(certain), [(f.id, f.severity) for f in findings]
    assert set(readings) <= found, [(f.id, f.severity) for f in findings]
    assert not set(absent) & found, [(f.id, f.severity) for f in findings]
