"""Runs the probe stages against a bootstrap list under one deadline and assembles the report.

dns -> tcp -> [tls] -> [sasl] -> metadata -> advertised -> roundtrip; tls and sasl run when the client
settings ask for them (``security.protocol``), on the bootstrap connections and on every advertised
broker's. Each stage gets what is left of the run's budget; a stage that an earlier failure makes
pointless is recorded as ``skip`` with the reason. The facts become a :class:`Report`; the diagnosis
rules turn it into findings.

This module keeps the order: the probes (``probes/``) do the Kafka work, ``kdiag.stages`` turns each
stage's facts into its :class:`Stage`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from kdiag import stages
from kdiag.exitstatus import UsageError
from kdiag.report import BrokerReport, Cluster, CoordinatorReport, Endpoint, Report, RoundtripDetail, Stage, Vantage
from probes import advertised, balancer, dns, host, idle, listeners, tcp
from probes.codec import ApiVersionsResponse
from probes.deadline import Deadline, elapsed_ms
from probes.kafka import (OFFSETS_TOPIC, KafkaConnection, Security, authenticate_in_turn, metadata_from_first,
                          start_tls_all)
from probes.results import DnsResult, IdleCheck, KafkaCheck, Landing, ListenerScan, TcpResult
from probes.sasl import SaslConfigError
from probes.tls_settings import TlsConfigError

__all__ = ["BootstrapOptions", "IDLE_ANSWER_TIMEOUT", "OFFSETS_TOPIC", "Progress", "run_bootstrap"]

# progress(stage_name, stage) is called with stage=None when a stage starts and with the finished
# Stage when it ends; renderers use it for the live view on a terminal.
Progress = Callable[[str, Stage | None], None]


@dataclass(frozen=True)
class BootstrapOptions:
    targets: tuple[Endpoint, ...]
    timeout: float = 10.0
    connect_timeout: float = 3.0
    topic: str | None = None
    roundtrip: bool = True
    metadata_version: int | None = None
    client_settings: dict[str, str] = field(default_factory=dict)  # librdkafka names, secrets included
    redacted_settings: dict[str, str] = field(default_factory=dict)  # what the report may show
    secrets: tuple[str, ...] = ()  # values to scrub from anything the client logs
    group: str | None = None
    scan_listeners: bool = True  # try the bootstrap host's other ports when the advertised brokers fail
    listener_ports: tuple[int, ...] | None = None  # the ports to try; None: listeners.candidate_ports
    vantage_label: str | None = None  # --vantage: where the report was made, in the user's words
    idle_check: float | None = None  # --idle-check: hold the bootstrap connection idle this long at the end


IDLE_ANSWER_TIMEOUT = 3.0
"""Seconds the request after --idle-check's idle time may take (a live flow answers in milliseconds)."""


def run_bootstrap(options: BootstrapOptions, *, progress: Progress | None = None,
                  held: idle.HeldConnection | None = None) -> Report:
    """Probe the cluster behind ``options.targets`` and return the diagnosed report.

    ``held`` (``kdiag watch --idle-check``): a connection kept idle across runs; this run asks on it if it is
    due, may leave its own bootstrap connection there, and reports the latest check as ``idle``."""
    from kdiag.diagnose import diagnose

    run = _Run(options, progress or (lambda name, stage: None), held)
    try:
        report = run.execute()
    finally:
        run.close()
    return report.with_findings(diagnose(report))


class _Run:
    def __init__(self, options: BootstrapOptions, progress: Progress, held: idle.HeldConnection | None = None
                 ) -> None:
        self.options = options
        self.progress = progress
        self.held = held
        try:
            self.security = Security.from_librdkafka(options.client_settings)
        except (TlsConfigError, SaslConfigError) as exc:
            raise UsageError(str(exc)) from None
        self.deadline = Deadline.after(options.timeout)
        self.stages: list[Stage] = []
        self.conn: KafkaConnection | None = None
        self.endpoint: Endpoint | None = None
        self.sasl_not_probed = False  # the listener enables the client's GSSAPI/OAUTHBEARER: kdiag cannot log in
        self.versions_before_login: ApiVersionsResponse | None = None  # then, the ApiVersions answered before it

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def record(self, stage: Stage) -> Stage:
        self.stages.append(stage)
        self.progress(stage.name, stage)
        return stage

    def skip(self, name: str, reason: str) -> None:
        self.progress(name, None)
        self.record(stages.skipped(name, reason))

    def stage_named(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    def execute(self) -> Report:
        options = self.options
        vantage = Vantage(host.hostname(), tuple(host.interface_addresses()), options.vantage_label)
        report = Report(bootstrap=options.targets, vantage=vantage, client=dict(options.redacted_settings))
        kafka = self.reach_metadata()
        cluster = None
        other_listeners = None
        if kafka is not None and kafka.ok:
            cluster = self.stage_advertised(kafka)
            if self.stage_named("advertised").failed and self.conn is not None:
                other_listeners = self.scan_other_listeners(
                    self.endpoint.host, self.endpoint.port, self.conn.sock.getpeername()[0], cluster=cluster)
        else:
            self.skip("advertised", stages.blocked(self.stages, "no advertised broker list to check",
                                                   default="metadata"))
            refused = refused_everywhere(self.stages)
            if refused is not None:
                endpoint = next((t for t in options.targets if t.port == refused.port), options.targets[0])
                other_listeners = self.scan_other_listeners(endpoint.host, refused.port, refused.address)
        self.roundtrip_if_useful(cluster)
        idle_check = None
        if options.idle_check:
            idle_check = hold_idle(self.conn, seconds=options.idle_check, deadline=self.deadline)
        elif self.held is not None:
            idle_check, kept = keep_idle(self.conn, self.held, deadline=self.deadline)
            if kept:
                self.conn = None  # the held connection now, not this run's to close
        return replace(report, stages=tuple(self.stages), cluster=cluster, other_listeners=other_listeners,
                       idle=idle_check)

    def reach_metadata(self) -> KafkaCheck | None:
        """dns, tcp, [tls], [sasl], metadata: the cluster's metadata over a bootstrap connection, or None."""
        results = self.stage_dns()
        if not any(r.ok for r in results):
            self.skip("tcp", "blocked by dns: no bootstrap host resolves")
            self.skip_security("blocked by dns")
            self.skip("metadata", "blocked by dns")
            return None
        sockets = self.stage_tcp(results)
        if not sockets:
            self.skip_security("blocked by tcp: no bootstrap address accepts connections")
            self.skip("metadata", "blocked by tcp: no bootstrap address accepts connections")
            return None
        return self.secure_and_fetch_metadata(sockets)

    def roundtrip_if_useful(self, cluster: Cluster | None) -> None:
        by_library = self.sasl_not_probed  # the client library logs in where kdiag could not
        reason = stages.roundtrip_blocked(
            self.stages, enabled=self.options.roundtrip, login_by_library=by_library,
            library_cannot_login=by_library and self.security.sasl.mechanism == "GSSAPI" and not _library_has_gssapi())
        if reason is not None:
            self.skip("roundtrip", reason)
        else:
            self.stage_roundtrip(None if by_library else cluster)

    # --- dns and tcp ----------------------------------------------------------------------------

    def stage_dns(self) -> list[DnsResult]:
        self.progress("dns", None)
        started = time.monotonic()
        hosts = list(dict.fromkeys(t.host for t in self.options.targets))
        results = dns.resolve_all(hosts, timeout=self.deadline.cap(self.options.connect_timeout))
        self.record(stages.dns_stage(results, elapsed_ms(started)))
        return results

    def stage_tcp(self, results: list[DnsResult]) -> list[tuple[Endpoint, object]]:
        self.progress("tcp", None)
        started = time.monotonic()
        by_host = {r.host: r for r in results}
        attempts = [(t, address) for t in self.options.targets if by_host[t.host].ok
                    for address in by_host[t.host].addresses]
        outcomes = tcp.connect_all([(address, t.port) for t, address in attempts],
                                   timeout=self.deadline.cap(self.options.connect_timeout))
        sockets = [(target, sock) for (target, _addr), (_res, sock) in zip(attempts, outcomes) if sock is not None]
        self.record(stages.tcp_stage(tuple(result for result, _sock in outcomes), elapsed_ms(started)))
        return sockets

    # --- tls and sasl ----------------------------------------------------------------------------

    def skip_security(self, reason: str) -> None:
        """The tls and sasl stages the client settings ask for, skipped for ``reason``."""
        if self.security.tls is not None:
            self.skip("tls", reason)
        if self.security.sasl is not None:
            self.skip("sasl", reason)

    def secure_and_fetch_metadata(self, sockets: list[tuple[Endpoint, object]]) -> KafkaCheck | None:
        """TLS and SASL on the bootstrap connections when asked, then the metadata over the first that works."""
        if self.security.tls is None:
            conns = [(endpoint, KafkaConnection(sock)) for endpoint, sock in sockets]
        else:
            conns = self.stage_tls(sockets)
            if not conns:
                if self.security.sasl is not None:
                    self.skip("sasl", "blocked by tls: no TLS handshake with a bootstrap address succeeded")
                self.skip("metadata", "blocked by tls: no TLS handshake with a bootstrap address succeeded")
                return None
        failures: list[tuple[Endpoint, KafkaCheck]] = []
        if self.security.sasl is not None:
            conns, failures = self.stage_sasl(conns)
            if not conns and not failures:
                sasl = self.stage_named("sasl")
                self.skip("metadata", f"blocked by sasl: {sasl.summary}")
                return None
        return self.stage_metadata(conns, failures)

    def stage_tls(self, sockets: list[tuple[Endpoint, object]]) -> list[tuple[Endpoint, KafkaConnection]]:
        self.progress("tls", None)
        started = time.monotonic()
        outcomes = start_tls_all(sockets, tls=self.security.tls, timeout=self.deadline.remaining())
        conns = [(endpoint, conn) for (endpoint, _sock), (_result, conn) in zip(sockets, outcomes) if conn is not None]
        self.record(stages.tls_stage(tuple(result for result, _conn in outcomes), elapsed_ms(started)))
        return conns

    def stage_sasl(self, conns: list[tuple[Endpoint, KafkaConnection]]
                   ) -> tuple[list[tuple[Endpoint, KafkaConnection]], list[tuple[Endpoint, KafkaCheck]]]:
        """SASL on the bootstrap connections in order until one authenticates (one login is enough)."""
        self.progress("sasl", None)
        started = time.monotonic()
        attempts, chosen, failures = authenticate_in_turn(conns, self.security.sasl, deadline=self.deadline.at)
        self.sasl_not_probed = stages.not_probed(attempts, authenticated=chosen is not None)
        if self.sasl_not_probed:  # what the broker offered before the login: the round trip's topic needs it
            self.versions_before_login = next((c.api_versions for _e, c in conns if c.api_versions), None)
        kerberos = (kerberos_of(conns, self.options.client_settings, deadline=self.deadline)
                    if self.sasl_not_probed and self.security.sasl.mechanism == "GSSAPI" else None)
        self.record(stages.sasl_stage(attempts, elapsed_ms(started), authenticated=chosen is not None,
                                      kerberos=kerberos, roundtrip=self.options.roundtrip))
        return [chosen] if chosen is not None else [], failures

    # --- metadata -------------------------------------------------------------------------------

    def stage_metadata(self, conns: list[tuple[Endpoint, KafkaConnection]],
                       failures: list[tuple[Endpoint, KafkaCheck]] = ()) -> KafkaCheck:
        self.progress("metadata", None)
        started = time.monotonic()
        endpoint, self.conn, kafka = metadata_from_first(
            conns, security=self.security, connect_timeout=self.options.connect_timeout, deadline=self.deadline.at,
            metadata_version=self.options.metadata_version, failed=failures[0] if failures else None)
        self.endpoint = endpoint if self.conn is not None else None
        self.record(stages.metadata_stage(endpoint, kafka, elapsed_ms(started)))
        return kafka

    # --- advertised -----------------------------------------------------------------------------

    def stage_advertised(self, kafka: KafkaCheck) -> Cluster:
        self.progress("advertised", None)
        started = time.monotonic()
        led = advertised.led_partitions(kafka.topics)
        with ThreadPoolExecutor(max_workers=2) as pool:
            checks = pool.submit(advertised.check_endpoints, kafka.brokers, deadline=self.deadline,
                                 connect_timeout=self.options.connect_timeout, led=led, cluster_id=kafka.cluster_id,
                                 metadata_version=self.options.metadata_version, security=self.security)
            landings = pool.submit(self.repeat_bootstrap, led)  # a load balancer in front of the brokers?
            coordinator = None
            if self.options.roundtrip and self.conn is not None:
                coordinator = find_coordinator(self.conn, self.options.group, deadline=self.deadline)
            reports = stages.broker_reports(kafka.brokers, checks.result())
        if coordinator is not None:
            coordinator = check_coordinator(coordinator, reports, deadline=self.deadline,
                                            connect_timeout=self.options.connect_timeout)
        self.record(stages.advertised_stage(reports, coordinator, brokers_omitted=kafka.brokers_omitted,
                                            landings=landings.result(), duration_ms=elapsed_ms(started)))
        return Cluster(kafka.cluster_id, kafka.controller_id, reports, kafka.topics, coordinator)

    def repeat_bootstrap(self, led: dict[int, tuple[str, int]]) -> tuple[Landing, ...]:
        """Which broker each of a few fresh connections to the bootstrap's address reaches."""
        if self.conn is None or self.endpoint is None:
            return ()
        return balancer.repeat_bootstrap(self.conn.sock.getpeername()[0], self.endpoint.port, host=self.endpoint.host,
                                         led=led, security=self.security, deadline=self.deadline,
                                         connect_timeout=self.options.connect_timeout)

    # --- the bootstrap host's other listeners ----------------------------------------------------

    def scan_other_listeners(self, host: str, port: int, address: str, *, cluster: Cluster | None = None
                             ) -> ListenerScan | None:
        """Other ports of the bootstrap address: one may serve a listener that works from here.

        Run after the advertised stage failed (``cluster`` given) or when every bootstrap address refused the
        connection (``port`` and ``address`` the first of those attempts'); not with ``--no-listener-scan``,
        nor when the deadline has passed.
        """
        if not self.options.scan_listeners or self.deadline.expired:
            return None
        brokers = cluster.brokers if cluster is not None else ()
        ports = self.options.listener_ports
        if ports is None:
            ports = listeners.candidate_ports(port, advertised=[b.port for b in brokers])
        return listeners.scan_listeners(host, address, [p for p in ports if p != port], deadline=self.deadline,
                                        connect_timeout=self.options.connect_timeout,
                                        cluster_id=cluster.cluster_id if cluster is not None else None,
                                        security=self.security, metadata_version=self.options.metadata_version,
                                        known={(b.host, b.port): (b.dns, b.tcp) for b in brokers})

    # --- roundtrip ------------------------------------------------------------------------------

    def stage_roundtrip(self, cluster: Cluster | None) -> None:
        """Produce and consume one message with the client library; without ``cluster`` (kdiag could
        not log in to read the metadata) the library alone finds or creates the topic."""
        from probes import roundtrip

        self.progress("roundtrip", None)
        started = time.monotonic()
        options, topic = self.options, self.options.topic or roundtrip.PROBE_TOPIC
        bootstrap = ",".join(str(t) for t in options.targets)
        known, brokers = (cluster.topics, len(cluster.brokers)) if cluster is not None else ((), 1)
        created = roundtrip.ensure_topic(self.conn if cluster is not None else None, topic, known=known,
                                         brokers=brokers, create=options.topic is None, bootstrap=bootstrap,
                                         settings=options.client_settings, deadline=self.deadline,
                                         secrets=options.secrets, versions_before_login=self.versions_before_login)
        if isinstance(created, RoundtripDetail):
            self.record(stages.topic_problem_stage(created, elapsed_ms(started)))
            return
        outcome = roundtrip.run_roundtrip(bootstrap, topic=topic, settings=options.client_settings,
                                          deadline=self.deadline, group=options.group, secrets=options.secrets)
        self.record(stages.roundtrip_stage(replace(outcome, topic_created=created), elapsed_ms(started)))


def _library_has_gssapi() -> bool:
    from probes.kerberos import client_library_has_gssapi

    return client_library_has_gssapi()


def hold_idle(conn: KafkaConnection | None, *, seconds: float, deadline: Deadline) -> IdleCheck | None:
    """--idle-check: the bootstrap connection held idle, then asked again (what is left of the budget)."""
    if conn is None:
        return None
    answer = min(IDLE_ANSWER_TIMEOUT, deadline.remaining())
    seconds = min(seconds, max(0.0, deadline.remaining() - answer))
    return idle.hold_idle(conn, seconds=seconds, answer_timeout=max(answer, 0.001))


def keep_idle(conn: KafkaConnection | None, held: idle.HeldConnection, *, deadline: Deadline
              ) -> tuple[IdleCheck | None, bool]:
    """kdiag watch --idle-check: ask the connection held since an earlier run if it has been idle long
    enough, and offer this run's (``conn``) to be held: the latest check, and whether ``conn`` is held now.
    Only when this run's own bootstrap conversation worked (a fresh connection answers, so an idle one that
    does not shows the path, not a broker that is down) and it has the time left to wait for the answer;
    otherwise a later run asks."""
    answer = min(IDLE_ANSWER_TIMEOUT, deadline.remaining())
    if conn is None or answer < IDLE_ANSWER_TIMEOUT:
        return held.last, False
    return held.exchange(conn, answer_timeout=answer)


def find_coordinator(conn: KafkaConnection, group: str | None, *, deadline: Deadline) -> CoordinatorReport:
    """The round trip's consumer group's coordinator, as FindCoordinator names it (not yet checked)."""
    from probes import coordinator
    from probes.roundtrip import default_group

    answer = coordinator.find_coordinator(conn, group or default_group(), deadline=deadline)
    return CoordinatorReport(answer.group, answer.node_id, answer.host, answer.port, answer.error)


def check_coordinator(coordinator: CoordinatorReport, brokers: tuple[BrokerReport, ...], *, deadline: Deadline,
                      connect_timeout: float) -> CoordinatorReport:
    """Whether the coordinator's advertised endpoint resolves and connects (as its broker's, when it is one)."""
    if coordinator.host is None:
        return coordinator
    same = next((b for b in brokers if (b.host, b.port) == (coordinator.host, coordinator.port)), None)
    if same is not None:
        return replace(coordinator, dns=same.dns, tcp=same.tcp)
    resolved, connected = advertised.check_address(coordinator.host, coordinator.port, deadline=deadline,
                                                   connect_timeout=connect_timeout)
    return replace(coordinator, dns=resolved, tcp=connected)


def kerberos_of(conns: list[tuple[Endpoint, KafkaConnection]], settings: dict[str, str], *, deadline: Deadline):
    """GSSAPI, which kdiag cannot do itself: the service principal a client asks for on each bootstrap
    host (``sasl.kerberos.service.name``), and whether the KDC knows it."""
    from probes import kerberos

    service = settings.get("sasl.kerberos.service.name") or "kafka"
    return kerberos.check_service_principals([endpoint.host for endpoint, _conn in conns], service=service,
                                             timeout=deadline.cap(3.0))


def refused_everywhere(done: list[Stage]) -> TcpResult | None:
    """The first attempt, when every bootstrap address refused the connection (nothing else failed)."""
    tcp_stage = next((s for s in done if s.name == "tcp"), None)
    attempts = tcp_stage.detail.attempts if tcp_stage is not None and tcp_stage.failed else ()
    return attempts[0] if attempts and all(a.status == "refused" for a in attempts) else None
