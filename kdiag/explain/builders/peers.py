"""BROKER_CLOSED_CONNECTION from a log's lines: the broker (or a proxy in front of it) closed the connection instead of
answering. Certain where the broker says why (``Rejected connection from /ip, address already has the configured
maximum of N connections``); one reading among others where a client says only that the connection closed. And the
answers of a broker that is not the one asked for: an address that reaches another broker (ADVERTISED_WRONG_BROKER),
several brokers behind one address (LOAD_BALANCED_BOOTSTRAP). And BROKER_STALLED, only ever a reading: a listener that
took the connection and never answered, which a client that only waited says in the same words as the others."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.shared import at_start, client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.sightings import NOT_COORDINATOR
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

REJECTED = "Rejected connection"


def broker_closed_connection(subject: Subject, context: Context) -> Finding:
    detail = subject.first("detail") or ""
    if detail.startswith(REJECTED):
        meaning = ("The broker turned the connection away as it accepted it: the client's IP address already holds "
                   "the broker's maximum number of connections, max.connections.per.ip (or that address's entry in "
                   "max.connections.per.ip.overrides). Every client on the same host, or behind the same NAT or proxy "
                   "address, counts against that one limit, so a client that leaks connections (one producer per "
                   "message) locks out the others.")
        title = "The broker rejects connections from a client address at its max.connections.per.ip limit"
    else:
        meaning = ("The broker, or a proxy in front of it, closed the connection instead of answering. A broker does "
                   "that with a connection from an address already at max.connections.per.ip (its server.log says "
                   "`Rejected connection from /<IP>`), with a request it will not serve, and while it shuts down; a "
                   "proxy or load balancer does it when its backend is down.")
        title = f"{at_start(subject)} closed the connection instead of answering"
    fix = ("Read the broker's server.log (or the proxy's log) at the time for why it closed the connection; if it says "
           "`Rejected connection from /<IP>, address already has the configured maximum of N connections`, find the "
           "client that holds them (one producer per message is the usual leak) or raise the limit for that address:\n"
           "  kafka-configs.sh --bootstrap-server <broker> --alter --entity-type brokers --entity-default "
           "--add-config max.connections.per.ip.overrides=<client-ip>:<limit>")
    return _peer_finding("BROKER_CLOSED_CONNECTION", title, meaning, fix, subject, context)


def advertised_wrong_broker(subject: Subject, context: Context) -> Finding:
    """A broker answers requests meant for another one: what the client asked of a broker's address was answered by
    a broker that leads none of it (NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR), again after fresh metadata."""
    asked = ("the partition's leadership and the group's coordination belong" if NOT_COORDINATOR in subject.symptoms
             else "the partition's leadership belongs")
    meaning = (f"The broker the client sent to answered that {asked} to another broker, and fresh metadata did not "
               "help: the address the metadata gives for one "
               "broker reaches another (a hosts file or DNS record pointing at the wrong machine, port mappings or a "
               "load balancer crossed, two brokers' advertised addresses swapped). While leaders move (a broker "
               "restarting, a reassignment) the same answers come for a few retries, then stop.")
    fix = ("Point each broker's advertised address at that broker: check the client machine's /etc/hosts and DNS "
           "records for each advertised name, the port mappings or load balancer rules in front of each broker, and "
           "each broker's advertised.listeners. kdiag bootstrap connects to every advertised address and says which "
           "broker answers there.")
    return _peer_finding("ADVERTISED_WRONG_BROKER", "A broker's advertised address reaches another broker", meaning, fix,
                         subject, context)


def load_balanced_bootstrap(subject: Subject, context: Context) -> Finding:
    """Several brokers behind one address (a round-robin load balancer, one Kubernetes Service for every broker) that
    the brokers also advertise: a partition's requests land on whichever broker the balancer picks."""
    meaning = ("A load balancer (or one Kubernetes Service, one cloud NLB listener) in front of every broker is fine for "
               "the bootstrap, since any broker answers Metadata; when the brokers also advertise its address, each "
               "produce or fetch for a partition lands on whichever broker it picks, which answers "
               "NOT_LEADER_OR_FOLLOWER, and the client refreshes the metadata, gets the same address and retries until "
               "it gives up. Which partitions fail changes from one connection to the next.")
    fix = ("Give each broker its own advertised address (one load balancer or one port per broker, each in that "
           "broker's advertised.listeners) and keep the shared address for bootstrap.servers only. kdiag bootstrap "
           "connects to the bootstrap address several times and says which brokers answer there.")
    return _peer_finding("LOAD_BALANCED_BOOTSTRAP", "Several brokers answer behind one address the brokers advertise",
                         meaning, fix, subject, context)


def broker_stalled(subject: Subject, context: Context) -> Finding:
    """A listener that accepted the connection and never answered: the kernel took it, the broker's process did not
    read it (frozen or hung), or a proxy in front accepted it and has no backend to forward to."""
    meaning = ("The connection was accepted and no answer ever came: the broker's process is not reading its sockets "
               "(frozen: a paused container or VM, SIGSTOP, a long GC pause; or hung), or a proxy or load balancer "
               "accepted the connection for a backend that does not answer. A client that only waited for the "
               "answer says no more than that it timed out.")
    fix = ("Check the broker at that address is running and answering (`ps -o stat` shows T for a stopped process; "
           "`docker ps` shows (Paused); its GC log and `jstack` show a long pause or a hang), and that a proxy in "
           "front of it has a healthy backend. `kdiag bootstrap` waits on the connection and tells a silent "
           "listener from a slow one by how many bytes came back and when.")
    return _peer_finding("BROKER_STALLED", f"{at_start(subject)} accepted the connection and never answered", meaning,
                         fix, subject, context)


def _peer_finding(finding_id: str, title: str, meaning: str, fix: str, subject: Subject, context: Context) -> Finding:
    """The finding: the client's words, what they mean, the fix and the command that confirms it."""
    confirm = context.confirm(fallback=subject.endpoint)
    return finding(finding_id, "error", title, f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))
