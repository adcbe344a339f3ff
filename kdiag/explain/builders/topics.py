"""Topics and leaders from a client's lines (TOPIC_NOT_FOUND, TOPIC_AUTHORIZATION_FAILED, NO_LEADER), and the
finding for a log that shows only consequences (ROUNDTRIP_FAILED: the client gave up, no line says why)."""

from __future__ import annotations

from collections.abc import Sequence

from kdiag.diagnose.rule import finding
from kdiag.diagnose.wording import plural
from kdiag.explain.clients.coordinator import COORDINATOR_NOT_AVAILABLE
from kdiag.explain.clients.kafka_errors import GROUP_DENIED
from kdiag.explain.implied import Implied, broker, rule_fix
from kdiag.explain.observations import MAX_EXAMPLES
from kdiag.explain.shared import client_said, consequence_sentence, evidence, quote, with_confirm
from kdiag.explain.sightings import (BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED, EXPIRED_BATCH, FLUSH_TIMEOUT, GO, JAVA,
                                     KAFKA_PYTHON, LIBRDKAFKA, MESSAGE_TIMEOUT, NOT_IN_METADATA, SEND_FAILED,
                                     TOPIC_MISSING)
from kdiag.explain.subject import BOOTSTRAP_LIST, Context, Subject
from kdiag.finding import Finding
from kdiag.report import RoundtripDetail
from probes.results import PartitionInfo, TopicInfo

def _with_topic(context: Context, topic: str, *, error_code: str, topic_error: str = "NONE",
                partitions: Sequence[PartitionInfo] = ()) -> Implied:
    implied = context.implied()
    brokers = implied.brokers or (broker(1, implied.used.host, implied.used.port),)
    return Implied(used=implied.used, bootstrap=implied.bootstrap, brokers=brokers, protocol=implied.protocol,
                   roundtrip=RoundtripDetail(topic=topic, error_code=error_code),
                   topics=(TopicInfo(topic, tuple(partitions), error=topic_error),))


# What a producer of each family does while a topic's metadata does not come, in its own settings and words; a
# family not here is spoken of without naming a setting.
_TOPIC_WAIT = {
    JAVA: ("A Java producer waits max.block.ms (60 s by default) for it and then fails with `Topic {topic} not present "
           "in metadata after 60000 ms.`"),
    KAFKA_PYTHON: ("kafka-python's producer waits max_block_ms (60 s by default) for it and then fails with `Failed to "
                   "update metadata after 60.0 secs.`"),
    LIBRDKAFKA: ("librdkafka waits topic.metadata.propagation.max.ms (30 s by default) for it and then fails the "
                 "messages queued for {topic} with `Local: Unknown topic`."),
    GO: ("A Go client retries and then gives up in its own words: Sarama after Metadata.Retry.Max retries, with "
         "`Request was for a topic or partition that does not exist`; kafka-go's DialLeader at its context's deadline, "
         "with `context deadline exceeded`."),
}
_ANY_WAIT = "How long a producer waits for the topic's metadata before it fails the send is its own client's setting."


def _family_words(table: dict[str, str], clients: Sequence[str], fallback: str) -> str:
    """The first of ``clients`` the table speaks of, or ``fallback``: never another family's setting."""
    return next((table[c] for c in clients if c in table), fallback)


def topic_not_found(subject: Subject, context: Context) -> Finding:
    topic = subject.first("topic") or context.topic or "<topic>"
    # Only an unguessed line of the topic missing shows the cluster's answer; a reading (a guess, a metadata wait that
    # never ended) infers it, and says so.
    answered = (f"The cluster answered UNKNOWN_TOPIC_OR_PARTITION for {topic}: the topic does not exist"
                if TOPIC_MISSING in subject.symptoms and not subject.guessed else
                f"These lines do not show the cluster's answer: that it answered UNKNOWN_TOPIC_OR_PARTITION for {topic} "
                "is inferred from them. If so, the topic does not exist")
    waits = _family_words(_TOPIC_WAIT, subject.clients, _ANY_WAIT).format(topic=topic)
    explanation = (f"{client_said(subject)} {answered}, and the broker does not create it on first use "
                   "(auto.create.topics.enable=false, the default on managed clusters), or the client may not create "
                   f"it. {waits}{consequence_sentence(context)}")
    fix = rule_fix(_with_topic(context, topic, error_code="UNKNOWN_TOPIC_OR_PARTITION",
                               topic_error="UNKNOWN_TOPIC_OR_PARTITION"), "TOPIC_NOT_FOUND")
    confirm = context.confirm(topic=topic)
    return finding("TOPIC_NOT_FOUND", "error", f"Topic {topic} does not exist", explanation,
                   evidence(subject, context, confirm, topic=topic), with_confirm(fix, confirm))


def topic_authorization(subject: Subject, context: Context) -> Finding:
    if str(subject.first("detail") or "").startswith(GROUP_DENIED):
        return _group_authorization(subject, context)
    topic = subject.first("topic") or context.topic or "<topic>"
    fix = rule_fix(_with_topic(context, topic, error_code="TOPIC_AUTHORIZATION_FAILED",
                               topic_error="TOPIC_AUTHORIZATION_FAILED"), "TOPIC_AUTHORIZATION_FAILED")
    explanation = (f"{client_said(subject)} The broker's authorizer denies the client's principal (its SASL user "
                   f"name, or its certificate's distinguished name with mTLS) access to {topic}."
                   f"{consequence_sentence(context)}")
    confirm = context.confirm(topic=topic)
    return finding("TOPIC_AUTHORIZATION_FAILED", "error", f"The client is not authorized to use topic {topic}",
                   explanation, evidence(subject, context, confirm, topic=topic), with_confirm(fix, confirm))


def _group_authorization(subject: Subject, context: Context) -> Finding:
    """GROUP_AUTHORIZATION_FAILED: the ACL denial is on the consumer group (an empty id when the client set none)."""
    _, said, group = str(subject.first("detail")).partition(": ")  # no id said; an empty one; the id
    named = (f"consumer group {group}" if group else "its consumer group (an empty group id: no group.id was set)"
             if said else "its consumer group")
    explanation = (f"{client_said(subject)} The broker's authorizer denies the client's principal (its SASL user name, "
                   f"or its certificate's distinguished name with mTLS) access to {named}: a consumer needs READ on "
                   "its group as well as on its topics, so it cannot join the group, find its coordinator or commit "
                   "offsets, while a producer with the same principal works. A group id the principal was not granted "
                   "(a framework's default group, a missing group.id) is the usual cause."
                   f"{consequence_sentence(context)}")
    used = context.implied(subject).used
    fix = (f"Grant the principal READ on the group it uses (run with an admin client's --command-config), or set the "
           f"client's group.id to a group it was granted:\n  kafka-acls.sh --bootstrap-server {used.host}:{used.port} "
           f"--add --allow-principal User:<principal> --operation Read --group {group or '<group.id>'}")
    return finding("TOPIC_AUTHORIZATION_FAILED", "error", f"The client is not authorized to use {named}",
                   explanation, evidence(subject, context, context.confirm(), group=group or None), fix)


def no_leader(subject: Subject, context: Context) -> Finding:
    topic = subject.first("topic") or context.topic or "<topic>"
    error = subject.first("detail") or "LEADER_NOT_AVAILABLE"
    partition = PartitionInfo(0, 1 if error == "LISTENER_NOT_FOUND" else -1, error=error)
    fix = rule_fix(_with_topic(context, topic, error_code="NONE", partitions=(partition,)), "NO_LEADER")
    confirm = context.confirm(topic=topic)
    if error == "LISTENER_NOT_FOUND":
        explanation = (f"{client_said(subject)} The leader of a partition of {topic} has no listener with the name of "
                       "the listener the client came in on (LISTENER_NOT_FOUND), so clients cannot reach that partition "
                       "through it. Lasting, the brokers define different listener names; for a while, a leader's broker "
                       "is changing (the Java client notes it can be transient, as when listeners are added at runtime; "
                       "it is seen while a broker restarts or is down).")
        severity, title = "error", (f"The leader of {topic} has no listener with the client's listener name"
                                    if topic != "<topic>" else "Partition leaders have no listener with the client's "
                                    "listener name")
    elif error == COORDINATOR_NOT_AVAILABLE:
        explanation = (f"{client_said(subject)} The broker asked for the coordinator answered that none is available "
                       f"(COORDINATOR_NOT_AVAILABLE): the coordinator is the leader of the partition of {topic} that "
                       "the group (or transactional id) belongs to, so that partition has no leader. Either a broker "
                       f"holding its replicas is down (`kafka-topics.sh --describe --topic {topic}` shows a leader of "
                       f"-1, or replicas missing from the ISR), or {topic} was never created: offsets.topic."
                       "replication.factor (transaction.state.log.replication.factor) is higher than the brokers "
                       "alive, the default 3 against a single broker, which the broker's log says. For a moment "
                       "while a cluster starts it is normal.")
        severity = "warning" if subject.count >= 3 else "info"
        title = f"No coordinator: the {topic} partition of the group has no leader ({subject.count} " \
                f"{plural(subject.count, 'line')})"
        confirm = context.confirm()  # never a round trip on an internal topic
        listed = fix.split("\n\n")[0]  # the rule's fix, without its confirm command (a round trip on the topic)
        fix = (f"{listed}\nIf {topic} does not exist and the broker's log says the alive "
               "brokers do not meet its replication factor, set offsets.topic.replication.factor (and "
               "transaction.state.log.replication.factor) to at most the number of brokers, 1 for a single one "
               "(KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1 in the Docker images), and restart the brokers.")
    else:
        explanation = (f"{client_said(subject)} {topic} had a partition without a leader (LEADER_NOT_AVAILABLE). For "
                       "a moment right after a topic is created that is normal; if it lasts, no in-sync replica is "
                       "alive to lead it.")
        severity = "warning" if subject.count >= 3 else "info"
        title = f"A partition of {topic} had no leader ({subject.count} {plural(subject.count, 'line')})"
    return finding("NO_LEADER", severity, title, explanation + consequence_sentence(context),
                   evidence(subject, context, confirm, topic=topic, error=error), with_confirm(fix, confirm))


# --- what nothing explains -------------------------------------------------------------------------------

_CONSEQUENCE_MEANING = {
    EXPIRED_BATCH: ("The producer gave up on the records for {topic} after {expired} without the partition "
                    "leader ever taking them. The line cannot say why. By far the most common cause is that the "
                    "leader's advertised address is unusable from the client's machine: a name that does not resolve "
                    "there (an EC2 internal name, a container name), localhost, or a port that is closed or filtered, "
                    "while the bootstrap address works. Less often the leader is down or overloaded, or acks=all "
                    "waits for replicas that are not in sync."),
    MESSAGE_TIMEOUT: ("librdkafka gave up on a message after message.timeout.ms without delivering it: it could not "
                      "reach the partition leader (most often an advertised address that does not resolve or "
                      "connect from the client's machine), the topic does not exist and is not created "
                      "automatically, or the leader did not answer."),
    NOT_IN_METADATA: ("{waited}: either the topic does not exist (and is not created automatically), or the client "
                      "cannot reach a broker to ask (the bootstrap address, or the advertised addresses it learned "
                      "first)."),
    BOOTSTRAP_DISCONNECTED: ("The Java client lost its bootstrap connection and says no more at its default log "
                             "level. That is what it logs for a listener that wants TLS or SASL the client does not "
                             "send (the broker hangs up at the first request), and for a connect that timed out (a "
                             "filtered port: the timeout itself is logged at INFO); a refused connect would have said "
                             "`could not be established`."),
    FLUSH_TIMEOUT: ("A Kafka Connect source task's producer delivered none of its records within "
                    "offset.flush.timeout.ms. The worker reached the brokers (it started the task), so the task's "
                    "producer is what failed: it takes the worker's producer.-prefixed settings, not the worker's own."),
    CONNECTION_CLOSED: ("The broker closed the connection right after the client's first requests, and the client "
                        "says no more (kafkajs: `Closed connection`; Sarama: `EOF`). A listener does that when it "
                        "expects TLS and receives plaintext (it hangs up after its TLS alert), and when it expects "
                        "SASL authentication and receives a Kafka request first; the client's words are the same for "
                        "both, so check the listener's security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL) "
                        "against the client's TLS and SASL settings."),
}


# How each family waited for a topic's metadata that never came (NOT_IN_METADATA's clients), in its own settings.
_METADATA_WAITED = {
    JAVA: "The producer waited max.block.ms (60 s by default) for the metadata of {topic} and never got it",
    KAFKA_PYTHON: "kafka-python's producer waited max_block_ms (60 s by default) for the metadata of {topic} and never got it",
    GO: ("kafka-go's DialLeader asked for the partitions of {topic} again and again until its context's deadline and never "
         "got them"),
}
_ANY_WAITED = "The client waited for the metadata of {topic} and never got it"

# How long each family keeps records before it expires them (EXPIRED_BATCH's clients), in its own settings.
_EXPIRED_AFTER = {JAVA: "delivery.timeout.ms (2 minutes by default)",
                  KAFKA_PYTHON: "its delivery timeout (delivery_timeout_ms in kafka-python 2.x, request_timeout_ms "
                                "plus linger_ms in 1.4)"}
_ANY_EXPIRED = "its delivery timeout"

GAVE_UP_ON_RECORDS = frozenset({EXPIRED_BATCH, NOT_IN_METADATA, MESSAGE_TIMEOUT, FLUSH_TIMEOUT})


def unexplained(context: Context) -> Finding:
    # a send that failed says least: another consequence beside it is what the client gave up on
    groups = tuple(g for g in context.consequences if g.symptom != SEND_FAILED) or context.consequences
    symptoms = {g.symptom for g in groups}
    first = next((s for s in (EXPIRED_BATCH, BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED, NOT_IN_METADATA,
                              MESSAGE_TIMEOUT, FLUSH_TIMEOUT) if s in symptoms), None)
    topic = context.topic
    meaning = _CONSEQUENCE_MEANING.get(first or "", "The client gave up, and these lines do not say why.")
    waited = _family_words(_METADATA_WAITED, [c for g in groups if g.symptom == NOT_IN_METADATA for c in g.clients],
                           _ANY_WAITED)
    expired = _family_words(_EXPIRED_AFTER, [c for g in groups if g.symptom == EXPIRED_BATCH for c in g.clients],
                            _ANY_EXPIRED)
    said = "; ".join(f"`{quote(g)}`" + (f" ({g.count} lines)" if g.count > 1 else "") for g in groups[:3])
    confirm = context.confirm(topic=topic)
    named = topic or "the topic"
    meaning = meaning.format(topic=named, waited=waited.format(topic=named), expired=expired)
    explanation = (f"The log says {said}. {meaning} No line names the cause (a "
                   "`Failed to resolve`, a refused connect, an authentication error); kdiag bootstrap, run on the "
                   "client's machine with the client's bootstrap.servers, checks each of those causes in seconds.")
    fix = (f"On the machine where the client runs, with the same bootstrap.servers and client settings:\n  {confirm}\n"
           "It resolves and connects to the bootstrap and to every advertised broker, and produces to the topic; if an "
           "advertised address is unusable from there, its report gives the advertised.listeners fix.")
    if not context.bootstrap:
        fix += (f"\n\nReplace {BOOTSTRAP_LIST} with the client's bootstrap.servers (Java: bootstrap.servers or "
                "--bootstrap-server; librdkafka: bootstrap.servers, or kcat -b).")
    lines = [g.examples[0] for g in groups if g.examples][:MAX_EXAMPLES]
    data = {"lines": [line for _, line in lines], "line_numbers": [n for n, _ in lines],
            "count": sum(g.count for g in groups), "topic": topic,
            "bootstrap": context.bootstrap_text() if context.bootstrap else None, "confirm": confirm}
    title = ("The producer's records expired before the partition leader took them" if first == EXPIRED_BATCH else
             "The source task's producer never got its records acknowledged" if first == FLUSH_TIMEOUT else
             "The client gave up, and the log does not say why")
    # ROUNDTRIP_FAILED says the round trip failed "for another reason" than the catalog's: no line here says why, so
    # that is never certain (a warning), whatever the client gave up on; the readings beside it name the likely ids.
    return finding("ROUNDTRIP_FAILED", "warning", title, explanation, data, fix)
