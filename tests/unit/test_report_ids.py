"""Report identity: ``report_id`` is a UUIDv7, time-ordered; labels and agents round-trip through JSON."""

from __future__ import annotations

import json
import uuid

from kdiag.report import Agent, Endpoint, Report, Vantage, new_report_id, report_from_dict, report_to_json


def test_report_id_is_a_uuid_version_7_with_the_rfc_9562_variant():
    value = uuid.UUID(new_report_id())
    assert value.version == 7
    assert value.variant == uuid.RFC_4122


def test_report_ids_made_in_a_burst_are_unique_and_sort_in_the_order_they_were_made():
    ids = [new_report_id() for _ in range(20_000)]  # many share a millisecond: the counter orders them
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)


def test_report_id_leads_with_the_creation_time_in_unix_milliseconds():
    import time

    before = time.time_ns() // 1_000_000
    value = uuid.UUID(new_report_id())
    assert before <= value.int >> 80 <= time.time_ns() // 1_000_000 + 1


def test_vantage_label_and_agent_survive_a_json_round_trip():
    report = Report(bootstrap=(Endpoint("b", 9092),), vantage=Vantage("pod-1", ("192.0.2.7",), "k8s/prod-eu/payments"),
                    agent=Agent("agent-1", 41))
    loaded = report_from_dict(json.loads(report_to_json(report)))
    assert loaded.vantage.label == "k8s/prod-eu/payments" and loaded.vantage.name == "k8s/prod-eu/payments"
    assert loaded.agent == Agent("agent-1", 41)
    assert loaded.report_id == report.report_id


def test_a_report_written_before_ids_loads_without_inventing_one():
    data = json.loads(report_to_json(Report(bootstrap=(Endpoint("b", 9092),))))
    del data["report_id"]
    assert report_from_dict(data).report_id is None


def test_the_vantage_name_is_the_host_name_when_no_label_was_given():
    assert Vantage("laptop").name == "laptop"
