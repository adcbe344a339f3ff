"""The advertised-broker identity check (``probes.advertised.prove_identity``) against a fake broker:
a transient NOT_LEADER_OR_FOLLOWER (a leader just elected, a partition still loading) is not proof
of a wrong broker; one that persists while the metadata still names the broker as leader is."""

from __future__ import annotations

from probes import tcp
from probes.advertised import prove_identity
from probes.codec import MetadataBroker, MetadataPartition, MetadataTopic, Writer, kafka_error
from probes.deadline import Deadline
from probes.kafka import KafkaConnection
from probes.results import KafkaBroker, KafkaCheck
from tests.fakebroker import API_VERSIONS, LIST_OFFSETS, METADATA, FakeBroker, answer_api_versions, answer_metadata, respond

API_KEYS = ((LIST_OFFSETS, 1, 5), (METADATA, 0, 12), (API_VERSIONS, 0, 4))
BROKERS = (MetadataBroker(1, "k1.lan", 9092), MetadataBroker(2, "k2.lan", 9092))


def metadata_led_by(leader: int):
    topic = MetadataTopic(kafka_error(0), "orders", (MetadataPartition(kafka_error(0), 0, leader, (leader,), (leader,)),))
    return answer_metadata(brokers=BROKERS, cluster_id="c1", controller_id=1, topics=(topic,))


def list_offsets(error_code: int):
    """A ListOffsets v1-v5 answer for orders-0 (non-flexible, field by field)."""

    def handler(header, _body) -> bytes:
        w = Writer()
        if header.api_version >= 2:
            w.int32(0)  # throttle_time_ms
        w.int32(1)  # topics
        w.string("orders")
        w.int32(1)  # partitions
        w.int32(0)  # partition_index
        w.int16(error_code)
        w.int64(-1)  # timestamp
        w.int64(42 if error_code == 0 else -1)  # offset
        if header.api_version >= 4:
            w.int32(0)  # leader_epoch
        return w.getvalue()

    return handler


def identity(script, brokers=BROKERS) -> str:
    with FakeBroker(script) as broker:
        _result, sock = tcp.connect("127.0.0.1", broker.port, timeout=2)
        with KafkaConnection(sock) as conn:
            conn.negotiate(timeout=2)
            check = prove_identity(conn, KafkaCheck("ok", cluster_id="c1", brokers=tuple(
                KafkaBroker(b.node_id, b.host, b.port) for b in brokers)), led=("orders", 0), cluster_id="c1",
                deadline=Deadline.after(5), node_id=1)
    return check.status


def test_a_not_leader_answer_that_clears_on_retry_is_not_a_wrong_broker():
    script = [respond(API_VERSIONS, answer_api_versions(API_KEYS)), respond(LIST_OFFSETS, list_offsets(6)),
              respond(METADATA, metadata_led_by(1)), respond(LIST_OFFSETS, list_offsets(0))]
    assert identity(script) == "ok"


def test_a_not_leader_answer_that_persists_proves_a_wrong_broker():
    script = [respond(API_VERSIONS, answer_api_versions(API_KEYS)), respond(LIST_OFFSETS, list_offsets(6)),
              respond(METADATA, metadata_led_by(1)), respond(LIST_OFFSETS, list_offsets(6))]
    assert identity(script) == "wrong_broker"


def test_leadership_that_moved_during_the_check_leaves_identity_unverified():
    script = [respond(API_VERSIONS, answer_api_versions(API_KEYS)), respond(LIST_OFFSETS, list_offsets(6)),
              respond(METADATA, metadata_led_by(2))]
    assert identity(script) == "unverified"


def test_the_only_broker_of_its_cluster_still_loading_its_partitions_is_not_a_wrong_broker():
    # kdiag watch across a single broker's restart: metadata names it leader while ListOffsets says
    # NOT_LEADER_OR_FOLLOWER until its logs are loaded; no other broker exists to have answered instead.
    script = [respond(API_VERSIONS, answer_api_versions(API_KEYS)), respond(LIST_OFFSETS, list_offsets(6)),
              respond(METADATA, metadata_led_by(1)), respond(LIST_OFFSETS, list_offsets(6))]
    assert identity(script, brokers=BROKERS[:1]) == "unverified"


def test_each_advertised_broker_is_asked_for_the_brokers_alone_not_every_topic_again():
    # The bootstrap's Metadata lists every topic; asking each broker for all of them again cost a large
    # cluster's metadata once per broker (and put a copy of it into the report per broker).
    from probes.advertised import check_endpoint
    from probes.codec import SPECS, Reader

    asked = []

    def metadata(header, body) -> bytes:
        asked.append(SPECS[METADATA].decode_request(Reader(body), header.api_version).topics)
        return metadata_led_by(1)(header, body)

    script = [respond(API_VERSIONS, answer_api_versions(API_KEYS)), respond(METADATA, metadata),
              respond(LIST_OFFSETS, list_offsets(0))]
    with FakeBroker(script) as broker:
        check = check_endpoint(KafkaBroker(1, "127.0.0.1", broker.port), deadline=Deadline.after(5),
                               connect_timeout=2, metadata_version=None, led=("orders", 0), cluster_id="c1")
    assert asked == [()]
    assert check.kafka.ok and check.identity.status == "ok"
