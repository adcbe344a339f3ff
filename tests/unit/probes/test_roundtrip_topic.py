"""The probe topic's replication factor follows the CreateTopics versions the broker offers (KIP-464)."""

from __future__ import annotations

from probes.codec import ApiVersionRange
from probes.roundtrip import CREATE_TOPICS, probe_replication_factor


def test_createtopics_v4_and_later_take_the_brokers_default() -> None:
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 4), brokers=5) == -1
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 2, 7), brokers=1) == -1


def test_before_v4_an_explicit_factor_of_at_most_three_and_the_brokers_there_are() -> None:
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 3), brokers=5) == 3
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 2), brokers=2) == 2
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 0), brokers=0) == 1


def test_no_createtopics_at_all_leaves_the_topic_to_the_brokers_auto_create() -> None:
    assert probe_replication_factor(None, brokers=3) is None


def _created_with(monkeypatch, versions, *, brokers_listed: int | None = 4) -> list[int]:
    """The replication factors ensure_topic asks create_topic for, without a connection of kdiag's own
    (a GSSAPI or OAUTHBEARER login only the client library can do), given the versions answered before it."""
    from probes import roundtrip
    from probes.codec import ApiVersionsResponse, KafkaError
    from probes.deadline import Deadline

    asked: list[int] = []
    monkeypatch.setattr(roundtrip, "create_topic", lambda *a, replication_factor, **k: asked.append(replication_factor))
    monkeypatch.setattr(roundtrip, "count_brokers", lambda *a, **k: brokers_listed)
    before = None if versions is None else ApiVersionsResponse(0, KafkaError(0, "NONE"), versions)
    assert roundtrip.ensure_topic(None, "__kdiag_probe", known=(), create=True, bootstrap="kafka:9092", settings={},
                                  deadline=Deadline.after(5), versions_before_login=before) is False
    return asked


def test_without_a_login_of_its_own_the_versions_offered_before_it_decide_the_factor(monkeypatch) -> None:
    assert _created_with(monkeypatch, (ApiVersionRange(CREATE_TOPICS, 0, 5),)) == [-1]
    assert _created_with(monkeypatch, (ApiVersionRange(CREATE_TOPICS, 0, 3),)) == [3]  # 4 brokers listed: 3
    assert _created_with(monkeypatch, (ApiVersionRange(CREATE_TOPICS, 0, 2),), brokers_listed=2) == [2]
    assert _created_with(monkeypatch, (ApiVersionRange(CREATE_TOPICS, 0, 2),), brokers_listed=None) == [1]
    assert _created_with(monkeypatch, ()) == []  # no CreateTopics: left to the broker's auto-create
    assert _created_with(monkeypatch, None) == [-1]  # nothing known: the broker's default, as before
