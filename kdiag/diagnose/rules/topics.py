"""Rules for the topics and the produce/consume round trip.

They need the metadata (so nothing here fires when the bootstrap failed), and ROUNDTRIP_FAILED stays
quiet when an earlier finding already explains why the round trip failed.
"""

from __future__ import annotations

from kdiag.diagnose.facts import bootstrap_used, metadata_obtained, unusable_brokers
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.addressing import splits
from kdiag.diagnose.rules.advertised import coordinator_finding
from kdiag.diagnose.wording import describe_partitions, join_words, plural
from kdiag.finding import Finding
from kdiag.report import Report, RoundtripDetail
from probes.hostport import hostport
from probes.results import TopicInfo

NOT_FOUND_CODES = ("UNKNOWN_TOPIC_OR_PARTITION", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION", "UNKNOWN_TOPIC_ID")
AUTHORIZATION_CODES = ("TOPIC_AUTHORIZATION_FAILED",)
AUTHENTICATION_CODES = ("SASL_AUTHENTICATION_FAILED", "_AUTHENTICATION")
NO_LEADER_ERRORS = ("LEADER_NOT_AVAILABLE",)
LISTENER_NOT_FOUND = "LISTENER_NOT_FOUND"
CLIENT_LOG_LINES = 20

# Hints for the round-trip errors that have no rule of their own: (what it means, what to do).
ROUNDTRIP_HINTS = {
    "_MSG_TIMED_OUT": ("the message was not delivered within message.timeout.ms (librdkafka `Local: Message timed "
                       "out`)", "Re-run with the client's debug log to see which broker it waited for."),
    "NOT_ENOUGH_REPLICAS": ("fewer replicas are in sync than min.insync.replicas requires for acks=all",
                            "kafka-topics.sh --bootstrap-server {bootstrap} --describe --under-min-isr-partitions"),
    "NOT_ENOUGH_REPLICAS_AFTER_APPEND": ("fewer replicas are in sync than min.insync.replicas requires for acks=all",
                                         "kafka-topics.sh --bootstrap-server {bootstrap} --describe "
                                         "--under-min-isr-partitions"),
    "REQUEST_TIMED_OUT": ("the broker did not answer within request.timeout.ms (overloaded, or replication to "
                          "acks=all followers is stuck)",
                          "kafka-topics.sh --bootstrap-server {bootstrap} --describe --under-replicated-partitions"),
    "GROUP_AUTHORIZATION_FAILED": ("the client may not use its consumer group",
                                   "kafka-acls.sh --bootstrap-server {bootstrap} --add --allow-principal "
                                   "User:<principal> --operation Read --group {group}"),
    "CLUSTER_AUTHORIZATION_FAILED": ("the client lacks a cluster permission (an idempotent producer needs "
                                     "IdempotentWrite on brokers before 2.8)",
                                     "kafka-acls.sh --bootstrap-server {bootstrap} --add --allow-principal "
                                     "User:<principal> --operation IdempotentWrite --cluster"),
    "MSG_SIZE_TOO_LARGE": ("the record is larger than the topic's max.message.bytes",
                           "kafka-configs.sh --bootstrap-server {bootstrap} --describe --entity-type topics "
                           "--entity-name {topic}"),
    "RECORD_TOO_LARGE": ("the record is larger than the topic's max.message.bytes",
                         "kafka-configs.sh --bootstrap-server {bootstrap} --describe --entity-type topics "
                         "--entity-name {topic}"),
    "_TRANSPORT": ("a broker connection broke during the round trip", "Re-run and compare; check the broker logs."),
    "COORDINATOR_NOT_AVAILABLE": ("the cluster has no coordinator for the group yet (__consumer_offsets is offline)",
                                  "kafka-topics.sh --bootstrap-server {bootstrap} --describe --topic "
                                  "__consumer_offsets"),
}


def roundtrip(report: Report) -> RoundtripDetail | None:
    detail = report.detail("roundtrip")
    return detail if isinstance(detail, RoundtripDetail) else None


def _code(detail: RoundtripDetail | None) -> str:
    return (detail.error_code or "").upper() if detail else ""


def _topic(report: Report, name: str | None) -> TopicInfo | None:
    if name is None or report.cluster is None:
        return None
    return next((t for t in report.cluster.topics if t.name == name), None)


def _used(report: Report) -> str:
    used = bootstrap_used(report)
    return hostport(used.host, used.port) if used else "<bootstrap>"


def _roundtrip_failed(report: Report) -> bool:
    stage = report.stage("roundtrip")
    return stage is not None and stage.status == "fail"


# --- TOPIC_NOT_FOUND ----------------------------------------------------------------------------


def _topic_not_found(report: Report) -> Finding | None:
    detail = roundtrip(report)
    if not metadata_obtained(report) or detail is None or detail.topic is None or detail.topic_created:
        return None
    topic = _topic(report, detail.topic)
    unknown = topic is not None and topic.error.upper() == "UNKNOWN_TOPIC_OR_PARTITION"
    in_metadata = unknown and _roundtrip_failed(report)
    if _code(detail) not in NOT_FOUND_CODES and not in_metadata:
        return None
    name = detail.topic
    brokers = len(report.cluster.brokers) if report.cluster else 1
    factor = min(3, max(1, brokers))
    explanation = (f"The cluster answered UNKNOWN_TOPIC_OR_PARTITION for {name}: the topic does not exist, and the "
                   "broker does not create it on first use (auto.create.topics.enable=false, the default on managed "
                   f"clusters), or creating it failed. A Java producer waits max.block.ms for it and then fails with "
                   f"`Topic {name} not present in metadata after 60000 ms.`; librdkafka reports `Broker: Unknown "
                   "topic or partition`.")
    fix = (f"Create it:\n  kafka-topics.sh --bootstrap-server {_used(report)} --create --topic {name} "
           f"--partitions 3 --replication-factor {factor}\nor run the round trip on a topic that exists:\n"
           f"  kdiag bootstrap {_used(report)} --topic <existing topic>")
    return finding("TOPIC_NOT_FOUND", "error", f"Topic {name} does not exist, and this client could not create it",
                   explanation, {"topic": name, "error_code": detail.error_code, "error": detail.error}, fix)


# --- TOPIC_AUTHORIZATION_FAILED -----------------------------------------------------------------


def _topic_authorization(report: Report) -> Finding | None:
    if not metadata_obtained(report) or report.cluster is None:
        return None
    detail = roundtrip(report)
    names = [t.name for t in report.cluster.topics if t.error.upper() in AUTHORIZATION_CODES]
    if _code(detail) in AUTHORIZATION_CODES and detail is not None and detail.topic and detail.topic not in names:
        names.insert(0, detail.topic)
    if not names:
        return None
    group = report.cluster.coordinator.group if report.cluster.coordinator else "<consumer group>"
    used = _used(report)
    topics = join_words(names)
    explanation = (f"The broker's authorizer denies this client's principal access to {topics}. Java clients fail "
                   f"with `org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access "
                   f"topics: [{', '.join(names)}]`, librdkafka with `Broker: Topic authorization failed`. The "
                   "principal is the SASL user name, or the certificate's distinguished name with mTLS.")
    acl = "\n".join(f"  kafka-acls.sh --bootstrap-server {used} --add --allow-principal User:<principal> "
                    f"--operation Describe --operation Write --operation Read --topic {name}" for name in names)
    fix = (f"Ask the cluster's administrator to grant the principal access (run with an admin client's "
           f"--command-config):\n{acl}\n  kafka-acls.sh --bootstrap-server {used} --add --allow-principal "
           f"User:<principal> --operation Read --group {group}")
    evidence = {"topics": names, "error_code": detail.error_code if detail else None,
                "error": detail.error if detail else None}
    return finding("TOPIC_AUTHORIZATION_FAILED", "error",
                   f"This client is not authorized to use {plural(len(names), 'topic')} {topics}", explanation,
                   evidence, fix)


# --- NO_LEADER ----------------------------------------------------------------------------------


def _no_leader(report: Report) -> tuple[Finding, ...]:
    if not metadata_obtained(report) or report.cluster is None:
        return ()
    cluster = report.cluster
    detail = roundtrip(report)
    just_created = detail.topic if detail is not None and detail.topic_created else None
    leaderless: dict[str, list[int]] = {}
    no_listener: dict[str, list[int]] = {}
    replicas: set[int] = set()
    leaders: set[int] = set()
    for topic in cluster.topics:
        if topic.name == just_created:
            continue  # a topic created a moment ago has no leader for a moment: not a fault
        if topic.error.upper() in NO_LEADER_ERRORS and not topic.partitions:
            leaderless.setdefault(topic.name, [])
        for p in topic.partitions:
            if p.error.upper() == LISTENER_NOT_FOUND:
                no_listener.setdefault(topic.name, []).append(p.partition)
                if p.leader_id >= 0:
                    leaders.add(p.leader_id)
            elif p.leader_id < 0 or p.error.upper() in NO_LEADER_ERRORS:
                leaderless.setdefault(topic.name, []).append(p.partition)
                replicas.update(p.replica_nodes)
    findings = []
    used = _used(report)
    if leaderless:
        count = sum(len(p) for p in leaderless.values())
        known = {b.node_id for b in cluster.brokers}
        missing = sorted(replicas - known)
        what = describe_partitions({t: sorted(p) for t, p in leaderless.items()})
        explanation = (f"{count} {plural(count, 'partition')} ({what}) {'has' if count == 1 else 'have'} no leader "
                       "(leader -1 or LEADER_NOT_AVAILABLE): no in-sync replica is alive to lead, or an election is "
                       "in progress. Clients can neither produce to nor consume from them; Java clients log `Error "
                       "while fetching metadata with correlation id N : {<topic>=LEADER_NOT_AVAILABLE}` and time out.")
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            explanation += (f" Their replicas live on {plural(len(missing), 'broker')} {join_words(missing)}, which "
                            f"{verb} not in the cluster's broker list (down or fenced).")
        first = next(iter(sorted(leaderless)))
        fix = (("Bring back " + plural(len(missing), "broker") + " " + join_words(missing) + ". " if missing else "")
               + f"List the partitions without a leader:\n  kafka-topics.sh --bootstrap-server {used} --describe "
               f"--unavailable-partitions\nIf their replicas are gone for good and you accept losing data:\n"
               f"  kafka-leader-election.sh --bootstrap-server {used} --election-type unclean --topic {first} "
               f"--partition {leaderless[first][0] if leaderless[first] else 0}")
        findings.append(finding("NO_LEADER", "error", f"{count} {plural(count, 'partition')} "
                                f"{'has' if count == 1 else 'have'} no leader: {what}", explanation,
                                {"partitions": leaderless, "replica_node_ids": sorted(replicas),
                                 "missing_node_ids": missing, "error": "LEADER_NOT_AVAILABLE"}, fix))
    if no_listener:
        count = sum(len(p) for p in no_listener.values())
        what = describe_partitions(no_listener)
        on = f"broker {join_words(sorted(leaders))}" if leaders else "their leader"
        explanation = (f"For {what} the cluster answered LISTENER_NOT_FOUND: `There is no listener on the leader "
                       "broker that matches the listener on which metadata request was processed.` The leader "
                       f"({on}) has no listener with the name of the listener this client came in on: the brokers "
                       "define different listener names. Clients cannot reach those partitions at all.")
        fix = ("Every broker must define the same listener names (for example INTERNAL and EXTERNAL on all of them). "
               "Compare, on each broker:\n  grep -E '^(advertised\\.)?listeners|^listener\\.security' "
               "config/server.properties\n  docker exec <broker container> env | grep -E 'KAFKA_.*LISTENER'\n"
               f"and add the missing listener to {on}.")
        findings.append(finding("NO_LEADER", "error", f"The leader of {what} has no listener with this client's "
                                "listener name (LISTENER_NOT_FOUND)", explanation,
                                {"partitions": no_listener, "leader_node_ids": sorted(leaders),
                                 "error": LISTENER_NOT_FOUND}, fix))
    return tuple(findings)


# --- ROUNDTRIP_FAILED ---------------------------------------------------------------------------


def _explained_elsewhere(report: Report, detail: RoundtripDetail) -> bool:
    code = _code(detail)
    if code in NOT_FOUND_CODES + AUTHORIZATION_CODES + AUTHENTICATION_CODES:
        return True
    if unusable_brokers(report) or coordinator_finding(report) is not None or splits(report):
        return True
    topic = _topic(report, detail.topic)
    return topic is not None and any(p.leader_id < 0 or p.error.upper() in NO_LEADER_ERRORS + (LISTENER_NOT_FOUND,)
                                     for p in topic.partitions)


def _roundtrip(report: Report) -> Finding | None:
    detail = roundtrip(report)
    stage = report.stage("roundtrip")
    if stage is None or stage.status != "fail" or detail is None or not metadata_obtained(report):
        return None
    if _explained_elsewhere(report, detail):
        return None
    code = _code(detail)
    said = detail.error or detail.error_code or stage.summary or "no error text"
    topic = detail.topic or "<topic>"
    group = report.cluster.coordinator.group if report.cluster and report.cluster.coordinator else "<group>"
    meaning, action = ROUNDTRIP_HINTS.get(code, (None, None))
    explanation = (f"Every broker is reachable from here, yet producing to and consuming from {topic} failed. The "
                   f"client said: `{said}`.")
    if meaning:
        explanation += f" {code} means {meaning}."
    used = _used(report)
    debug = (f"Re-run with the client's own log:\n  kdiag bootstrap {used} --topic {topic} "
             "-X debug=broker,topic,msg,protocol,cgrp\nor paste a client log into `kdiag explain`.")
    fix = f"{action.format(bootstrap=used, topic=topic, group=group)}\n\n{debug}" if action else debug
    lines = list(detail.client_log[-CLIENT_LOG_LINES:])
    return finding("ROUNDTRIP_FAILED", "error", f"The produce/consume round trip on {topic} failed: {said[:120]}",
                   explanation, {"topic": detail.topic, "partition": detail.partition, "error": detail.error,
                                 "error_code": detail.error_code, "client_log": lines}, fix)


RULES = (
    Rule("NO_LEADER", "A partition has no leader", "error", _no_leader),
    Rule("TOPIC_NOT_FOUND", "The round-trip topic does not exist and cannot be created", "error", _topic_not_found),
    Rule("TOPIC_AUTHORIZATION_FAILED", "The client may not use the topic", "error", _topic_authorization),
    Rule("ROUNDTRIP_FAILED", "Produce or consume failed for another reason", "error", _roundtrip),
)
