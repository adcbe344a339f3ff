"""Runs the probe stages against a bootstrap list under one deadline and assembles the report.

dns -> tcp -> [tls] -> [sasl] -> metadata -> advertised -> roundtrip; tls and sasl run when the client
settings ask for them (``security.protocol``), on the bootstrap connections and on every advertised
broker's. Each stage gets what is left of the run's budget; a stage that an earlier failure makes
pointless is recorded as ``skip`` with the reason. The facts become a :class:`Report`; the diagnosis
rules turn it into findings.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from kdiag.exitstatus import UsageError
from kdiag.report import (
    AdvertisedDetail,
    BrokerReport,
    Cluster,
    CoordinatorReport,
    DnsDetail,
    EmptyDetail,
    Endpoint,
    MetadataDetail,
    Report,
    RoundtripDetail,
    SaslDetail,
    Stage,
    TcpDetail,
    TlsDetail,
    Vantage,
)
from probes import advertised, balancer, dns, host, idle, listeners, tcp
from probes.codec.errors import LEADER_NOT_AVAILABLE
from probes.deadline import Deadline, elapsed_ms
from probes.hostport import hostport
from probes.kafka import (KafkaConnection, KafkaProbeError, Security, authenticate, check_kafka, connect_logged_in,
                          connect_secure, start_tls)
from probes.results import DnsResult, IdleCheck, KafkaCheck, Landing, ListenerScan, SaslResult, TcpResult
from probes.sasl import SaslConfigError
from probes.tls import describe
from probes.tls_settings import TlsConfigError

# progress(stage_name, stage) is called with stage=None when a stage starts and with the finished
# Stage when it ends; renderers use it for the live view on a terminal.
Progress = Callable[[str, Stage | None], None]

_COORDINATOR_RETRIABLE = {14, 15}  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE


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


OFFSETS_TOPIC = "__consumer_offsets"


def _every_topic_too_large(kafka: KafkaCheck) -> bool:
    """Whether the answer to Metadata for every topic was refused for its size (kdiag's cap, or its budget)."""
    return kafka.foreign is not None and kafka.foreign.kind == "too_large" and kafka.foreign.request == "Metadata"


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

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def connect_timeout(self) -> float:
        return self.deadline.cap(self.options.connect_timeout)

    def record(self, stage: Stage) -> Stage:
        self.stages.append(stage)
        self.progress(stage.name, stage)
        return stage

    def skip(self, name: str, reason: str, detail=None) -> None:
        self.progress(name, None)
        self.record(Stage(name, "skip", 0.0, reason, detail or _empty_detail(name, reason)))

    def execute(self) -> Report:
        options = self.options
        vantage = Vantage(host.hostname(), tuple(host.interface_addresses()), options.vantage_label)
        report = Report(bootstrap=options.targets, vantage=vantage, client=dict(options.redacted_settings))
        results = self.stage_dns()
        kafka = None
        if not any(r.ok for r in results):
            self.skip("tcp", "blocked by dns: no bootstrap host resolves")
            self.skip_security("blocked by dns")
            self.skip("metadata", "blocked by dns")
        else:
            sockets = self.stage_tcp(results)
            if sockets:
                kafka = self.secure_and_fetch_metadata(sockets)
            else:
                self.skip_security("blocked by tcp: no bootstrap address accepts connections")
                self.skip("metadata", "blocked by tcp: no bootstrap address accepts connections")
        cluster = None
        other_listeners = None
        if kafka is not None and kafka.ok:
            cluster = self.stage_advertised(kafka)
            if self.stage_named("advertised").failed:
                other_listeners = self.scan_other_listeners(cluster)
        else:
            self.skip("advertised", "blocked by metadata: no advertised broker list to check")
            refused = self.refused_everywhere()
            if refused is not None:
                other_listeners = self.scan_other_listeners(None, refused=refused)
        if not options.roundtrip:
            self.skip("roundtrip", "disabled with --no-roundtrip")
        elif self.sasl_not_probed and self.security.sasl.mechanism == "GSSAPI" and not _library_has_gssapi():
            self.skip("roundtrip", "confluent-kafka's librdkafka is built without GSSAPI: no Kerberos login to "
                      "round-trip with (the sasl stage says which service principal a client asks for)")
        elif self.sasl_not_probed:
            self.stage_roundtrip(None)  # the client library authenticates where kdiag could not
        elif cluster is None or self.stage_named("advertised").failed:
            self.skip("roundtrip", "blocked by advertised: a client would wait on unusable brokers "
                      "until its own timeout")
        else:
            self.stage_roundtrip(cluster)
        idle = self.hold_idle() if options.idle_check else self.keep_idle() if self.held is not None else None
        return replace(report, stages=tuple(self.stages), cluster=cluster, other_listeners=other_listeners,
                       idle=idle)

    def hold_idle(self) -> IdleCheck | None:
        """--idle-check: the bootstrap connection held idle, then asked again (what is left of the budget)."""
        if self.conn is None:
            return None
        answer = min(IDLE_ANSWER_TIMEOUT, self.deadline.remaining())
        seconds = min(self.options.idle_check or 0.0, max(0.0, self.deadline.remaining() - answer))
        return idle.hold_idle(self.conn, seconds=seconds, answer_timeout=max(answer, 0.001))

    def keep_idle(self) -> IdleCheck | None:
        """kdiag watch --idle-check: ask the connection held since an earlier run if it has been idle long
        enough, and offer this run's to be held. Only when this run's own bootstrap conversation worked (a
        fresh connection answers, so an idle one that does not shows the path, not a broker that is down)
        and it has the time left to wait for the answer; otherwise a later run asks."""
        assert self.held is not None
        answer = min(IDLE_ANSWER_TIMEOUT, self.deadline.remaining())
        if self.conn is None or answer < IDLE_ANSWER_TIMEOUT:
            return self.held.last
        last, kept = self.held.exchange(self.conn, answer_timeout=answer)
        if kept:
            self.conn = None  # the held connection now, not this run's to close
        return last

    def metadata_of_fewer_topics(self, endpoint: Endpoint, address: str,
                                 refused: KafkaCheck) -> tuple[KafkaConnection | None, KafkaCheck]:
        """The answer for every topic declared more than kdiag reads (a cluster with some hundreds of thousands
        of partitions): ask a fresh connection to ``address``, with the run's TLS and SASL, for
        ``__consumer_offsets`` alone, whose partitions' leaders are spread over the brokers and serve their
        identity checks. The check keeps the refused answer's facts as ``foreign``; when the second request
        fails too, the refused check stands."""
        try:
            conn = connect_logged_in(address, endpoint.port, host=endpoint.host, security=self.security,
                                     connect_timeout=self.options.connect_timeout, timeout=self.deadline.remaining())
        except (KafkaProbeError, OSError):
            return None, refused
        kafka, _response = check_kafka(conn, timeout=self.deadline.remaining(),
                                       metadata_version=self.options.metadata_version, topics=(OFFSETS_TOPIC,))
        if not kafka.ok:
            conn.close()
            return None, refused
        return conn, replace(kafka, topics=tuple(t for t in kafka.topics if t.error == "NONE"),
                             foreign=refused.foreign)

    def stage_named(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    # --- dns ------------------------------------------------------------------------------------

    def stage_dns(self) -> list[DnsResult]:
        self.progress("dns", None)
        started = time.monotonic()
        hosts = list(dict.fromkeys(t.host for t in self.options.targets))
        timeout = self.connect_timeout()
        with ThreadPoolExecutor(max_workers=min(len(hosts), 16)) as pool:
            results = list(pool.map(lambda h: dns.resolve(h, timeout=timeout), hosts))
        failed = [r for r in results if not r.ok]
        if not failed:
            status = "ok"
            summary = "; ".join(f"{r.host} → {', '.join(r.addresses)}" for r in results)
        elif len(failed) < len(results):
            status = "warn"
            summary = "; ".join(f"{r.host}: {r.status}" for r in failed) + " (other bootstrap hosts resolve)"
        else:
            status = "fail"
            summary = "; ".join(f"cannot resolve {r.host} ({r.status})" for r in failed)
        self.record(Stage("dns", status, elapsed_ms(started), summary, DnsDetail(tuple(results))))
        return results

    # --- tcp ------------------------------------------------------------------------------------

    def stage_tcp(self, results: list[DnsResult]) -> list[tuple[Endpoint, object]]:
        self.progress("tcp", None)
        started = time.monotonic()
        by_host = {r.host: r for r in results}
        attempts = [(t, address) for t in self.options.targets if by_host[t.host].ok
                    for address in by_host[t.host].addresses]
        timeout = self.connect_timeout()
        with ThreadPoolExecutor(max_workers=min(len(attempts), 32)) as pool:
            outcomes = list(pool.map(lambda a: tcp.connect(a[1], a[0].port, timeout=timeout), attempts))
        sockets = [(target, sock) for (target, _addr), (_res, sock) in zip(attempts, outcomes) if sock is not None]
        tcp_results = tuple(result for result, _sock in outcomes)
        ok = [r for r in tcp_results if r.ok]
        if ok and len(ok) == len(tcp_results):
            status, summary = "ok", "; ".join(f"connected to {_addr(r)} in {r.duration_ms:g} ms" for r in ok)
        elif ok:
            status = "warn"
            summary = (f"{len(ok)} of {len(tcp_results)} addresses accept connections; "
                       + "; ".join(f"{_addr(r)} {r.status}" for r in tcp_results if not r.ok))
        else:
            status, summary = "fail", "; ".join(f"{_addr(r)} {r.status}: {r.error}" for r in tcp_results)
        self.record(Stage("tcp", status, elapsed_ms(started), summary, TcpDetail(tcp_results)))
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
        tls = self.security.tls
        timeout = self.deadline.remaining()
        with ThreadPoolExecutor(max_workers=min(len(sockets), 32)) as pool:
            outcomes = list(pool.map(lambda es: start_tls(es[1], host=es[0].host, tls=tls, timeout=timeout), sockets))
        results = tuple(result for result, _conn in outcomes)
        conns = [(endpoint, conn) for (endpoint, _sock), (_result, conn) in zip(sockets, outcomes) if conn is not None]
        ok = [r for r in results if r.ok]
        if ok and len(ok) == len(results):
            status, summary = "ok", describe(ok[0])
        elif ok:
            status = "warn"
            summary = "; ".join([describe(ok[0])] + [describe(r) for r in results if not r.ok])
        else:
            status, summary = "fail", "; ".join(dict.fromkeys(describe(r) for r in results))
        self.record(Stage("tls", status, elapsed_ms(started), summary, TlsDetail(results)))
        return conns

    def stage_sasl(self, conns: list[tuple[Endpoint, KafkaConnection]]
                   ) -> tuple[list[tuple[Endpoint, KafkaConnection]], list[tuple[Endpoint, KafkaCheck]]]:
        """SASL on the bootstrap connections in order until one authenticates (one login is enough)."""
        self.progress("sasl", None)
        started = time.monotonic()
        attempts: list[SaslResult] = []
        failures: list[tuple[Endpoint, KafkaCheck]] = []
        chosen: list[tuple[Endpoint, KafkaConnection]] = []
        for endpoint, conn in conns:
            if chosen or self.deadline.expired:
                conn.close()
                continue
            result, failed = authenticate(conn, self.security.sasl, timeout=self.deadline.remaining(),
                                          endpoint=str(endpoint))
            attempts.append(result)
            if result.ok:
                chosen.append((endpoint, conn))
                continue
            conn.close()
            if failed is not None:
                failures.append((endpoint, failed))
            elif result.status in ("not_probed", "unsupported_mechanism", "not_sasl", "auth_failed"):
                for _endpoint, rest in conns[len(attempts):]:
                    rest.close()
                break  # the next bootstrap address of the same cluster would answer the same
        detail = SaslDetail(tuple(attempts))
        if chosen:
            status = "ok" if len(attempts) == 1 else "warn"
            summary = _sasl_summary(attempts[-1])
            if len(attempts) > 1:
                summary += "; " + "; ".join(_sasl_summary(a) for a in attempts[:-1])
        elif attempts and all(a.status == "skip" for a in attempts):
            status, summary = "skip", _sasl_summary(attempts[0])
            detail = SaslDetail(tuple(attempts), reason=summary)
        elif attempts and attempts[-1].status == "not_probed":
            self.sasl_not_probed = True
            status, summary = "warn", _sasl_summary(attempts[-1])
            if self.security.sasl.mechanism == "GSSAPI":
                detail = replace(detail, kerberos=self.check_kerberos(conns))
                summary += "; " + _kerberos_summary(detail.kerberos)
            if self.options.roundtrip:
                summary += "; the round trip logs in with the client library instead"
        else:
            status, summary = "fail", "; ".join(dict.fromkeys(_sasl_summary(a) for a in attempts)) or \
                "the run's deadline passed before SASL"
        self.record(Stage("sasl", status, elapsed_ms(started), summary, detail))
        return chosen, failures

    def check_kerberos(self, conns: list[tuple[Endpoint, KafkaConnection]]):
        """GSSAPI: the service principal a client asks for on each bootstrap host, and whether the KDC knows it."""
        from probes import kerberos

        service = self.options.client_settings.get("sasl.kerberos.service.name") or "kafka"
        hosts = [endpoint.host for endpoint, _conn in conns]
        return kerberos.check_service_principals(hosts, service=service, timeout=self.deadline.cap(3.0))

    # --- metadata -------------------------------------------------------------------------------

    def stage_metadata(self, conns: list[tuple[Endpoint, KafkaConnection]],
                       failures: list[tuple[Endpoint, KafkaCheck]] = ()) -> KafkaCheck:
        self.progress("metadata", None)
        started = time.monotonic()
        first_failure: tuple[Endpoint, KafkaCheck] | None = failures[0] if failures else None
        chosen = None
        tls = self.security.tls
        for endpoint, conn in conns:
            if chosen is not None:
                conn.close()
                continue
            address = conn.sock.getpeername()[0]

            def reconnect(timeout: float, address=address, endpoint=endpoint) -> KafkaConnection:
                return connect_secure(address, endpoint.port, host=endpoint.host, tls=tls,
                                      timeout=min(timeout, self.options.connect_timeout))

            kafka, _response = check_kafka(conn, timeout=self.deadline.remaining(),
                                           metadata_version=self.options.metadata_version, reconnect=reconnect)
            if _every_topic_too_large(kafka):
                conn.close()
                conn, kafka = self.metadata_of_fewer_topics(endpoint, address, kafka)
            if kafka.ok:
                chosen = (endpoint, conn, kafka)
            else:
                if conn is not None:
                    conn.close()
                first_failure = first_failure or (endpoint, kafka)
        if chosen is None:
            endpoint, kafka = first_failure
            stage = Stage("metadata", "fail", elapsed_ms(started), f"{endpoint}: {kafka.status}: {kafka.error}",
                          MetadataDetail(str(endpoint), kafka))
            self.record(stage)
            return kafka
        endpoint, self.conn, kafka = chosen
        self.endpoint = endpoint
        cluster = kafka.cluster_id or "(no cluster id)"
        summary = (f"cluster {cluster}, {len(kafka.brokers) + kafka.brokers_omitted:,} advertised broker(s), "
                   f"controller {kafka.controller_id}, "
                   f"{len(kafka.topics)} topic(s) (Metadata v{kafka.metadata_version} via {endpoint})")
        if kafka.foreign is not None:
            summary += f"; {OFFSETS_TOPIC} alone: the answer for every topic was over kdiag's cap"
        self.record(Stage("metadata", "ok", elapsed_ms(started), summary, MetadataDetail(str(endpoint), kafka)))
        return kafka

    # --- advertised -----------------------------------------------------------------------------

    def stage_advertised(self, kafka: KafkaCheck) -> Cluster:
        self.progress("advertised", None)
        started = time.monotonic()
        led = advertised.led_partitions(kafka.topics)
        brokers = kafka.brokers
        with ThreadPoolExecutor(max_workers=max(1, min(len(brokers), 64))) as pool:
            futures = [
                pool.submit(advertised.check_endpoint, broker, deadline=self.deadline,
                            connect_timeout=self.options.connect_timeout,
                            metadata_version=self.options.metadata_version, led=led.get(broker.node_id),
                            cluster_id=kafka.cluster_id, security=self.security)
                for broker in brokers
            ]
            landings = pool.submit(self.repeat_bootstrap, led)  # a load balancer in front of the brokers?
            coordinator = self.find_coordinator() if self.options.roundtrip else None
            checks = [f.result() for f in futures]
        reports = tuple(
            BrokerReport(b.node_id, b.host, b.port, b.rack, c.dns, c.tcp, c.kafka, c.identity, c.tls, c.sasl,
                         c.tcp_attempts)
            for b, c in zip(brokers, checks)
        )
        if coordinator is not None:
            coordinator = self.check_coordinator(coordinator, reports)
        cluster = Cluster(kafka.cluster_id, kafka.controller_id, reports, kafka.topics, coordinator)
        bad = [b for b in reports if not b.reachable or b.identity.status == "wrong_broker"]
        reachable = len(reports) - len(bad)
        if not reports:
            status, summary = "fail", "the metadata advertises no brokers"
        elif bad:
            status = "fail"
            summary = f"{len(bad)} of {len(reports)} advertised broker(s) unusable from here: " + "; ".join(
                f"broker {b.node_id} at {b.endpoint} {_broker_problem(b)}" for b in bad)
        else:
            status = "ok"
            summary = f"all {len(reports)} advertised broker(s) resolve, connect and answer as themselves"
        if status == "ok" and coordinator is not None and coordinator.reachable is False:
            status = "fail"
            summary += f"; the group coordinator {coordinator.host}:{coordinator.port} is unreachable"
        if kafka.brokers_omitted:
            summary += (f"; and {kafka.brokers_omitted:,} more advertised broker(s) not checked (kdiag checks and "
                        f"lists the first {len(reports):,})")
        detail = AdvertisedDetail(len(reports), reachable, landings=landings.result())
        self.record(Stage("advertised", status, elapsed_ms(started), summary, detail))
        return cluster

    def repeat_bootstrap(self, led: dict[int, tuple[str, int]]) -> tuple[Landing, ...]:
        """Which broker each of a few fresh connections to the bootstrap's address reaches."""
        if self.conn is None or self.endpoint is None:
            return ()
        return balancer.repeat_bootstrap(self.conn.sock.getpeername()[0], self.endpoint.port, host=self.endpoint.host,
                                         led=led, security=self.security, deadline=self.deadline,
                                         connect_timeout=self.options.connect_timeout)

    # --- the bootstrap host's other listeners ----------------------------------------------------

    def scan_other_listeners(self, cluster: Cluster | None, *, refused: TcpResult | None = None
                             ) -> ListenerScan | None:
        """Other ports of the bootstrap address: one may serve a listener that works from here.

        Run after the advertised stage failed (``cluster`` given) or when every bootstrap address
        refused the connection (``refused``: the first of those attempts); not with ``--no-listener-scan``,
        nor when the deadline has passed.
        """
        if not self.options.scan_listeners or self.deadline.expired:
            return None
        if cluster is not None:
            if self.conn is None or self.endpoint is None:
                return None
            host, port, address = self.endpoint.host, self.endpoint.port, self.conn.sock.getpeername()[0]
            known = {(b.host, b.port): (b.dns, b.tcp) for b in cluster.brokers}
            advertised_ports = [b.port for b in cluster.brokers]
            cluster_id = cluster.cluster_id
        else:
            endpoint = next((t for t in self.options.targets if t.port == refused.port), self.options.targets[0])
            host, port, address, known, advertised_ports, cluster_id = (endpoint.host, refused.port, refused.address,
                                                                         {}, [], None)
        ports = self.options.listener_ports
        if ports is None:
            ports = listeners.candidate_ports(port, advertised=advertised_ports)
        return listeners.scan_listeners(host, address, [p for p in ports if p != port], deadline=self.deadline,
                                        connect_timeout=self.options.connect_timeout, cluster_id=cluster_id,
                                        security=self.security, metadata_version=self.options.metadata_version,
                                        known=known)

    def refused_everywhere(self) -> TcpResult | None:
        """The first attempt, when every bootstrap address refused the connection (nothing else failed)."""
        tcp_stage = next((s for s in self.stages if s.name == "tcp"), None)
        attempts = tcp_stage.detail.attempts if tcp_stage is not None and tcp_stage.failed else ()
        return attempts[0] if attempts and all(a.status == "refused" for a in attempts) else None

    def find_coordinator(self) -> CoordinatorReport | None:
        from probes.roundtrip import default_group

        group = self.options.group or default_group()
        if self.conn is None:
            return None
        retry_until = self.deadline.within(3.0)
        while True:
            try:
                response = self.conn.find_coordinator(group, timeout=self.deadline.cap(2.0))
            except KafkaProbeError as exc:
                return CoordinatorReport(group, error=f"FindCoordinator failed: {exc}")
            found = response.coordinators[0] if response.coordinators else None
            if found is None:
                return CoordinatorReport(group, error="FindCoordinator returned no coordinator")
            if found.error.code in _COORDINATOR_RETRIABLE and not retry_until.expired:
                advertised.wait_time(retry_until, 0.1)
                continue
            if found.error.code:
                return CoordinatorReport(group, error=f"FindCoordinator answered {found.error}"
                                         + (f": {found.error_message}" if found.error_message else ""))
            return CoordinatorReport(group, found.node_id, found.host, found.port)

    def check_coordinator(self, coordinator: CoordinatorReport,
                          brokers: tuple[BrokerReport, ...]) -> CoordinatorReport:
        if coordinator.host is None:
            return coordinator
        same = next((b for b in brokers if (b.host, b.port) == (coordinator.host, coordinator.port)), None)
        if same is not None:
            return replace(coordinator, dns=same.dns, tcp=same.tcp)
        resolved, connected = advertised.check_address(coordinator.host, coordinator.port, deadline=self.deadline,
                                                       connect_timeout=self.options.connect_timeout)
        return replace(coordinator, dns=resolved, tcp=connected)

    # --- roundtrip ------------------------------------------------------------------------------

    def stage_roundtrip(self, cluster: Cluster | None) -> None:
        """Produce and consume one message with the client library; without ``cluster`` (kdiag could
        not log in to read the metadata) the library alone finds or creates the topic."""
        from probes import roundtrip

        self.progress("roundtrip", None)
        started = time.monotonic()
        options = self.options
        topic = options.topic or roundtrip.PROBE_TOPIC
        bootstrap = ",".join(str(t) for t in options.targets)
        if cluster is not None:
            problem = self.ensure_topic(topic, cluster, bootstrap)
        elif options.topic is None:
            error = roundtrip.create_topic(bootstrap, topic, settings=options.client_settings, deadline=self.deadline,
                                           secrets=options.secrets)
            problem = False if error is None else RoundtripDetail(
                topic, error=f"kdiag could not create its probe topic {topic}: {error}", error_code=error.split(":")[0])
        else:
            problem = False
        if isinstance(problem, RoundtripDetail):
            self.record(Stage("roundtrip", "fail", elapsed_ms(started), problem.error or "", problem))
            return
        created = problem
        outcome = roundtrip.run_roundtrip(bootstrap, topic=topic, settings=options.client_settings,
                                          deadline=self.deadline, group=options.group, secrets=options.secrets)
        detail = replace(outcome, topic_created=created)
        if outcome.ok:
            summary = (f"produced and consumed 1 message on {topic}-{outcome.partition} at offset {outcome.offset} "
                       f"(produce {outcome.produce_ms:g} ms, consume {outcome.consume_ms:g} ms)")
            self.record(Stage("roundtrip", "ok", elapsed_ms(started), summary, detail))
        else:
            self.record(Stage("roundtrip", "fail", elapsed_ms(started), f"{outcome.error_code}: {outcome.error}",
                              detail))

    def ensure_topic(self, topic: str, cluster: Cluster, bootstrap: str) -> bool | RoundtripDetail:
        """True if kdiag created the topic, False if it was there; a failure detail otherwise."""
        from probes import roundtrip

        def has_leaders() -> str | None:
            """None when every partition has a leader, else the topic's error name."""
            try:
                response = self.conn.metadata(timeout=self.deadline.cap(2.0), topics=(topic,),
                                              allow_auto_topic_creation=self.options.topic is not None)
            except KafkaProbeError as exc:
                return f"metadata: {exc}"
            found = next((t for t in response.topics if t.name == topic), None)
            if found is None:
                return "UNKNOWN_TOPIC_OR_PARTITION"
            if found.error.code and found.error.code != LEADER_NOT_AVAILABLE:
                return found.error.name
            if found.error.code or not found.partitions or any(p.leader_id < 0 for p in found.partitions):
                return "LEADER_NOT_AVAILABLE"
            return None

        existing = next((t for t in cluster.topics if t.name == topic), None)
        if existing is not None and existing.partitions and all(p.leader_id >= 0 for p in existing.partitions):
            return False
        created = False
        if existing is None and self.options.topic is None:
            error = roundtrip.create_topic(bootstrap, topic, settings=self.options.client_settings,
                                           deadline=self.deadline, secrets=self.options.secrets)
            if error is not None:
                code = error.split(":", 1)[0]
                return RoundtripDetail(topic, error=f"kdiag could not create its probe topic {topic}: {error}",
                                       error_code=code)
            created = True
        # A topic just created (by kdiag, or by auto-create) takes a moment to get its leaders.
        settling = {"LEADER_NOT_AVAILABLE"} | ({"UNKNOWN_TOPIC_OR_PARTITION"} if created else set())
        settle_until = self.deadline.within(5.0)
        state = has_leaders()
        while state in settling and not settle_until.expired:
            advertised.wait_time(settle_until, 0.05)
            state = has_leaders()
        if state is None:
            return created
        if state == "UNKNOWN_TOPIC_OR_PARTITION":
            return RoundtripDetail(topic, error=f"topic {topic} does not exist and the broker did not create it "
                                   "(auto.create.topics.enable=false?)", error_code=state)
        return RoundtripDetail(topic, error=f"topic {topic}: {state}", error_code=state)


def _addr(result: TcpResult) -> str:
    return hostport(result.address or "?", result.port)


def _broker_problem(broker: BrokerReport) -> str:
    if not broker.dns.ok:
        return f"does not resolve ({broker.dns.status})"
    if not broker.tcp.ok:
        return f"tcp {broker.tcp.status}"
    if broker.tls is not None and not broker.tls.ok:
        return f"tls {broker.tls.status}: {broker.tls.error}"
    if broker.sasl is not None and not broker.sasl.ok:
        return f"sasl {broker.sasl.status}: {broker.sasl.error}"
    if broker.identity.status == "wrong_broker":
        return "leads to a different broker"
    return f"kafka {broker.kafka.status}"


def _library_has_gssapi() -> bool:
    from probes.kerberos import client_library_has_gssapi

    return client_library_has_gssapi()


def _kerberos_summary(check) -> str:
    """``the KDC knows kafka/host@REALM`` or what it said, for the sasl stage's summary."""
    parts = []
    for principal in check.principals:
        name = principal.kdc_principal or principal.principal
        if principal.kdc_status == "ok":
            parts.append(f"the KDC knows {name}")
        elif principal.kdc_status == "unknown":
            parts.append(f"the KDC does not know {name}")
        else:
            parts.append(f"a client asks for {name} ({principal.kdc_status.replace('_', ' ')})")
    return "; ".join(parts)


def _sasl_summary(result: SaslResult) -> str:
    if result.ok:
        enabled = f"; enabled: {', '.join(result.enabled_mechanisms)}" if result.enabled_mechanisms else ""
        return (f"authenticated as {result.username} with {result.mechanism} at {result.endpoint} (SaslHandshake "
                f"v{result.handshake_version}, SaslAuthenticate v{result.authenticate_version}{enabled})")
    if result.status == "skip":
        return f"blocked at {result.endpoint}: {result.error}"
    return f"{result.endpoint}: {result.status}: {result.error}"


def _empty_detail(name: str, reason: str):
    return {
        "dns": DnsDetail(), "tcp": TcpDetail(), "tls": TlsDetail(reason=reason), "sasl": SaslDetail(reason=reason),
        "metadata": MetadataDetail(reason=reason), "advertised": AdvertisedDetail(reason=reason),
        "roundtrip": RoundtripDetail(reason=reason),
    }.get(name, EmptyDetail(reason))
