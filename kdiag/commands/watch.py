"""``kdiag watch``: the sidecar. Probe the cluster every interval in process, serve /metrics,
/livez, /readyz, /report and /probe, log transitions, and deliver every report to the sinks.

Every option also comes from the environment (``KDIAG_<OPTION>``, see ``ENVIRONMENT``), so a pod
spec needs no arguments; client settings come from ``--command-config``/``KDIAG_COMMAND_CONFIG`` (a
mounted properties file), from ``KDIAG_CLIENT_<NAME>`` variables (the librdkafka name upper-cased,
dots as underscores: ``KDIAG_CLIENT_SASL_PASSWORD``) or ``KDIAG_CLIENT_<NAME>_FILE`` (the value read
from a file, e.g. a mounted Secret), and from ``-X`` last.
"""

from __future__ import annotations

import functools
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated

import typer

from kdiag.credentials import CREDENTIAL_PREFIX, client_options_from_environment, credential_set_settings
from kdiag.environment import ClientSettingOption, DebugOption, Environment, environment, load_settings
from kdiag.exitstatus import ExitStatus, UsageError
from probes.hostport import hostport

if TYPE_CHECKING:
    from kdiag.orchestrate import BootstrapOptions
    from kdiag.watch.access import ProbeAccess
    from kdiag.watch.webconfig import WebConfig
    from kdiag.report import Endpoint
    from kdiag.sinks import Sink
    from kdiag.watch.identity import AgentIdentity
    from kdiag.watch.log import AgentLog

DEFAULT_LISTEN = "0.0.0.0:9108"
MIN_INTERVAL, MAX_SECONDS = 0.1, 86400.0
SHUTDOWN_BUDGET = 1.2  # seconds for the sinks to flush after SIGTERM/SIGINT; the process is gone by 2 s
EXIT_WATCHDOG = 1.8

HELP = """\
Run as a sidecar: probe the cluster from this pod every --interval (in process, one probe at a
time, each within --timeout), log one line per transition (healthy → broken with the finding ids,
broken → healthy, findings changed), and serve /metrics (Prometheus), /livez, /readyz, /report
(the last JSON report) and /probe?target=HOST:PORT (one probe on demand, blackbox_exporter style:
the watched cluster's hosts and --probe-allow only; the client settings only for the watched
cluster). --web-config-file puts TLS and basic auth in front of them, as node_exporter's does.
Reports also go to stdout (--report-stdout), a directory of *.jsonl files (--report-dir) and a
Kafka topic behind an on-disk spool (--report-topic, --spool-dir). Every option can be set from the
environment (KDIAG_BOOTSTRAP, KDIAG_INTERVAL, KDIAG_LISTEN, ...).
"""

EPILOG = """\
\b
Examples:
  kdiag watch kafka-0.kafka:9092 --vantage k8s/prod-eu/payments
  KDIAG_BOOTSTRAP=kafka:9092 KDIAG_INTERVAL=15s kdiag watch
  kdiag watch kafka:9093 --command-config /etc/kdiag/client.properties \\
      --report-topic kdiag.reports --spool-dir /var/spool/kdiag
  KDIAG_CLIENT_SASL_PASSWORD_FILE=/run/secrets/kafka-password kdiag watch kafka:9092 \\
      -X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 -X sasl.username=probe
  kdiag watch kafka:9093 --web-config-file /etc/kdiag/web.yml --probe-allow '*.kafka-staging.svc:9093'

\b
Exit status:
  0    stopped by SIGTERM
  2    bad input or usage (one line on stderr), the --listen port in use
  130  stopped by SIGINT (Ctrl-C)
"""

# The environment variable of each option (one table in docs/commands.md, "kdiag watch").
ENVIRONMENT = {
    "bootstrap": "KDIAG_BOOTSTRAP", "interval": "KDIAG_INTERVAL", "timeout": "KDIAG_TIMEOUT",
    "connect_timeout": "KDIAG_CONNECT_TIMEOUT", "listen": "KDIAG_LISTEN", "ready_when": "KDIAG_READY_WHEN",
    "log_format": "KDIAG_LOG_FORMAT", "vantage": "KDIAG_VANTAGE", "topic": "KDIAG_TOPIC",
    "no_roundtrip": "KDIAG_NO_ROUNDTRIP", "idle_check": "KDIAG_IDLE_CHECK", "command_config": "KDIAG_COMMAND_CONFIG",
    "report_stdout": "KDIAG_REPORT_STDOUT", "report_dir": "KDIAG_REPORT_DIR",
    "report_dir_max_bytes": "KDIAG_REPORT_DIR_MAX_BYTES", "report_dir_max_files": "KDIAG_REPORT_DIR_MAX_FILES",
    "report_dir_max_age": "KDIAG_REPORT_DIR_MAX_AGE", "report_topic": "KDIAG_REPORT_TOPIC",
    "report_bootstrap": "KDIAG_REPORT_BOOTSTRAP", "report_credentials": "KDIAG_REPORT_CREDENTIALS",
    "spool_dir": "KDIAG_SPOOL_DIR",
    "spool_max_bytes": "KDIAG_SPOOL_MAX_BYTES", "spool_when_full": "KDIAG_SPOOL_WHEN_FULL",
    "probe_allow": "KDIAG_PROBE_ALLOW", "probe_credentials": "KDIAG_PROBE_CREDENTIALS",
    "probe_listener_scan": "KDIAG_PROBE_LISTENER_SCAN", "web_config_file": "KDIAG_WEB_CONFIG_FILE",
}


def _opt(name: str, *flags: str, metavar: str | None = None, help: str) -> typer.models.OptionInfo:  # noqa: A002
    return typer.Option(*flags, metavar=metavar, envvar=ENVIRONMENT[name], show_default=False, show_envvar=True,
                        help=help)


ReportBootstrapOption = Annotated[str | None, _opt(
    "report_bootstrap", "--report-bootstrap", metavar="HOST:PORT",
    help="The cluster of --report-topic (default: the one watched). Another cluster is sent no credentials "
    "of the watched one: give it its own with --report-credentials.")]
ReportCredentialsOption = Annotated[str | None, _opt(
    "report_credentials", "--report-credentials", metavar="NAME",
    help="Produce the reports with the client settings KDIAG_CRED_<NAME>_<SETTING> (as KDIAG_CLIENT_*) instead "
    "of the watched cluster's.")]
IdleCheckOption = Annotated[str | None, _opt(
    "idle_check", "--idle-check", metavar="DURATION",
    help="Keep one connection idle across probes and ask on it again after this long (e.g. 5m): shows a NAT or "
    "load balancer that silently drops idle connections. Keep it under the brokers' connections.max.idle.ms "
    "(10m by default), past which they close idle connections themselves.")]
ProbeAllowOption = Annotated[str | None, _opt(
    "probe_allow", "--probe-allow", metavar="PATTERN[,...]",
    help="Targets /probe may be sent to besides the watched cluster's hosts: host patterns "
    "(*.kafka.svc.cluster.local), addresses or CIDRs (10.0.0.0/8), each optionally :PORT. Others get 403.")]
ProbeCredentialsOption = Annotated[list[str] | None, _opt(
    "probe_credentials", "--probe-credentials", metavar="NAME=PATTERN[,...]",
    help="Probe the targets matching PATTERN with the client settings KDIAG_CRED_<NAME>_<SETTING> (as "
    "KDIAG_CLIENT_*, also _FILE; KDIAG_CRED_<NAME>_COMMAND_CONFIG for a properties file). Repeatable. Other "
    "targets outside the watched cluster are probed without credentials.")]
ProbeListenerScanOption = Annotated[bool, _opt(
    "probe_listener_scan", "--probe-listener-scan",
    help="Let /probe try the target host's other ports when its advertised brokers fail (off: /probe "
    "is no port scanner).")]
WebConfigOption = Annotated[str | None, _opt(
    "web_config_file", "--web-config-file", metavar="FILE",
    help="TLS and basic auth for the endpoints, in the Prometheus exporters' web config format "
    "(tls_server_config, basic_auth_users with bcrypt hashes).")]


def watch(
    ctx: typer.Context,
    bootstrap: Annotated[str | None, typer.Argument(
        metavar="HOST[:PORT][,...]", envvar="KDIAG_BOOTSTRAP", show_default=False, show_envvar=True,
        help="Bootstrap servers to watch, as for kdiag bootstrap.")] = None,
    interval: Annotated[str, _opt("interval", "--interval", metavar="DURATION",
                                  help="Time between probes: 30, 30s, 500ms, 2m (default 30s; ±10% jitter).")] = "30s",
    timeout: Annotated[str, _opt("timeout", "--timeout", metavar="DURATION",
                                 help="Each probe's deadline (default 10s).")] = "10s",
    connect_timeout: Annotated[str | None, _opt("connect_timeout", "--connect-timeout", metavar="DURATION",
                                                help="One TCP connect's budget (default 3s, at most --timeout).")] = None,
    listen: Annotated[str, _opt("listen", "--listen", metavar="HOST:PORT",
                                help=f"Where to serve the endpoints (default {DEFAULT_LISTEN}).")] = DEFAULT_LISTEN,
    ready_when: Annotated[str, _opt("ready_when", "--ready-when", metavar="probed|healthy",
                                    help="/readyz: 200 once the first probe is done (probed, default), or only "
                                    "while the last probe found no error (healthy: Kafka's hiccups then take the "
                                    "pod out of its Service).")] = "probed",
    log_format: Annotated[str, _opt("log_format", "--log-format", metavar="text|json",
                                    help="The log on stderr (default text).")] = "text",
    vantage: Annotated[str | None, _opt("vantage", "--vantage", metavar="LABEL",
                                        help="Where the reports are made from, e.g. k8s/prod-eu/payments.")] = None,
    topic: Annotated[str | None, _opt("topic", "--topic", metavar="NAME",
                                      help="Topic for the round trip (default: kdiag's probe topic).")] = None,
    no_roundtrip: Annotated[bool, _opt("no_roundtrip", "--no-roundtrip",
                                       help="Stop each probe after the advertised brokers.")] = False,
    idle_check: IdleCheckOption = None,
    client_settings: ClientSettingOption = None,
    command_config: Annotated[str | None, _opt("command_config", "--command-config", metavar="FILE",
                                               help="A Java client.properties (a mounted Secret); Java names are "
                                               "mapped to librdkafka's.")] = None,
    report_stdout: Annotated[bool, _opt("report_stdout", "--report-stdout",
                                        help="Print every report on stdout as one JSON line.")] = False,
    report_dir: Annotated[str | None, _opt("report_dir", "--report-dir", metavar="DIR",
                                           help="Write every report to DIR as JSON lines in *.jsonl segments.")] = None,
    report_dir_max_bytes: Annotated[str, _opt("report_dir_max_bytes", "--report-dir-max-bytes", metavar="SIZE",
                                              help="Seal a segment at this size (default 10MiB).")] = "10MiB",
    report_dir_max_files: Annotated[str, _opt("report_dir_max_files", "--report-dir-max-files", metavar="N",
                                              help="Keep this many sealed segments (default 10).")] = "10",
    report_dir_max_age: Annotated[str, _opt("report_dir_max_age", "--report-dir-max-age", metavar="DURATION",
                                            help="Seal a segment this old (default 5m).")] = "5m",
    report_topic: Annotated[str | None, _opt("report_topic", "--report-topic", metavar="TOPIC",
                                             help="Produce every report to TOPIC (needs --spool-dir).")] = None,
    report_bootstrap: ReportBootstrapOption = None,
    report_credentials: ReportCredentialsOption = None,
    spool_dir: Annotated[str | None, _opt("spool_dir", "--spool-dir", metavar="DIR",
                                          help="Where reports wait while the topic is unreachable; also keeps the "
                                          "agent id.")] = None,
    spool_max_bytes: Annotated[str, _opt("spool_max_bytes", "--spool-max-bytes", metavar="SIZE",
                                         help="The spool's bound (default 64MiB).")] = "64MiB",
    spool_when_full: Annotated[str, _opt("spool_when_full", "--spool-when-full", metavar="drop-oldest|drop-newest",
                                         help="Which reports a full spool drops (default drop-oldest).")
                               ] = "drop-oldest",
    probe_allow: ProbeAllowOption = None,
    probe_credentials: ProbeCredentialsOption = None,
    probe_listener_scan: ProbeListenerScanOption = False,
    web_config_file: WebConfigOption = None,
    debug: DebugOption = False,
) -> ExitStatus:
    return run_watch_command(WatchArguments(**{k: v for k, v in locals().items() if k not in ("ctx", "debug")}),
                             env=environment(ctx), exit_on_signal=True)


class WatchArguments(SimpleNamespace):
    """The command line as given: every parameter of ``watch`` but ``ctx`` and ``debug``, as strings
    where a value is parsed (``parse_duration``, ``parse_size``, …), so the environment's values are
    checked with the same one-line messages as the options'."""


# --- parsing ----------------------------------------------------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$")
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "ki": 1024, "kib": 1024, "m": 1000**2, "mb": 1000**2,
               "mi": 1024**2, "mib": 1024**2, "g": 1000**3, "gb": 1000**3, "gi": 1024**3, "gib": 1024**3}


def parse_duration(option: str, text: str, *, minimum: float = 0.0) -> float:
    """``30``, ``30s``, ``500ms``, ``2m``, ``1h`` as seconds, more than ``minimum`` and at most a day."""
    match = _DURATION.match(str(text))
    if match is None:
        raise UsageError(f"{option} takes a duration such as 30s, 500ms or 2m, not {text!r}")
    seconds = float(match.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[match.group(2)]
    if not (seconds >= minimum and seconds > 0 and seconds <= MAX_SECONDS) or math.isnan(seconds):
        raise UsageError(f"{option} must be at least {minimum:g} s and at most {MAX_SECONDS:g} s, got {text!r}"
                         if minimum else f"{option} must be more than 0 and at most {MAX_SECONDS:g} s, got {text!r}")
    return seconds


def parse_size(option: str, text: str, *, minimum: int = 1) -> int:
    """``65536``, ``64k``, ``64KiB``, ``10MiB``, ``1G`` as bytes, at least ``minimum``."""
    match = _SIZE.match(str(text))
    if match is None:
        raise UsageError(f"{option} takes a size such as 65536, 64KiB or 10MiB, not {text!r}")
    size = int(match.group(1)) * _SIZE_UNITS[(match.group(2) or "").lower()]
    if size < minimum:
        raise UsageError(f"{option} must be at least {minimum} bytes, got {text!r}")
    return size


def parse_count(option: str, text: str) -> int:
    if not str(text).strip().isdigit() or int(text) < 1:
        raise UsageError(f"{option} takes a whole number of at least 1, not {text!r}")
    return int(text)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or ``:PORT`` (every IPv4 address)."""
    text = text.strip()
    match = re.match(r"^(?:\[([0-9A-Fa-f:.%\w]+)\]|([^:\[\]]*)):(\d+)$", text)
    if match is None:
        raise UsageError(f"--listen takes HOST:PORT, [IPv6]:PORT or :PORT, not {text!r}")
    host = match.group(1) if match.group(1) is not None else (match.group(2) or "0.0.0.0")
    port = int(match.group(3))
    if not 0 < port < 65536:
        raise UsageError(f"--listen {text}: the port must be 1-65535")
    return host, port


def choice(option: str, text: str, choices: Sequence[str]) -> str:
    value = str(text).strip().lower()
    if value not in choices:
        raise UsageError(f"{option} takes {' or '.join(choices)}, not {text!r}")
    return value


# --- configuration: every option checked before anything starts ------------------------------------


@dataclass(frozen=True)
class SinkConfig:
    """Where reports go, checked: ``--report-stdout``, ``--report-dir`` and ``--report-topic``."""

    stdout: bool = False
    directory: str | None = None
    dir_max_bytes: int = 10 * 1024**2
    dir_max_files: int = 10
    dir_max_age: float = 300.0
    topic: str | None = None
    topic_targets: tuple[Endpoint, ...] = ()
    spool_dir: str | None = None
    spool_max_bytes: int = 64 * 1024**2
    when_full: str = "drop-oldest"

    @property
    def state_dir(self) -> Path | None:
        """Where the agent id is kept: the spool's directory, else the report directory, else nowhere."""
        where = self.spool_dir if self.topic is not None else self.directory
        return Path(where) if where is not None else None


@dataclass(frozen=True)
class WatchConfig:
    """The whole command line, checked: what ``start`` needs and nothing it must parse again."""

    probe: BootstrapOptions
    interval: float
    idle_check: float | None
    address: tuple[str, int]
    ready_when: str
    log_format: str
    vantage: str | None
    sinks: SinkConfig
    access: ProbeAccess
    web: WebConfig
    report_settings: dict[str, str] = field(repr=False)  # --report-topic's producer (configure_report_settings)
    report_note: str | None = None  # said once in the start log


def configure(args: WatchArguments, *, env: Environment, environ: Mapping[str, str] | None = None) -> WatchConfig:
    """Every option parsed and checked (UsageError, one line); ``env`` learns the secrets to scrub."""
    from kdiag.orchestrate import BootstrapOptions
    from kdiag.target import check_topic_name, parse_bootstrap
    from kdiag.credentials import parse_set_name
    from kdiag.watch.webconfig import WebConfig, load_web_config

    if not args.bootstrap:
        raise UsageError("no bootstrap address given: kdiag watch HOST:PORT, or set KDIAG_BOOTSTRAP")
    targets = parse_bootstrap(args.bootstrap)
    interval = parse_duration("--interval", args.interval, minimum=MIN_INTERVAL)
    timeout = parse_duration("--timeout", args.timeout)
    connect_timeout = min(timeout, parse_duration("--connect-timeout", args.connect_timeout)
                          if args.connect_timeout is not None else 3.0)
    idle_check = parse_duration("--idle-check", args.idle_check) if args.idle_check is not None else None
    address = parse_listen(args.listen)
    ready_when = choice("--ready-when", args.ready_when, ("probed", "healthy"))
    log_format = choice("--log-format", args.log_format, ("text", "json"))
    if args.topic is not None:
        check_topic_name(args.topic)
    sinks = configure_sinks(args, targets)
    environ = os.environ if environ is None else environ
    settings = load_settings(env, [*client_options_from_environment(environ), *(args.client_settings or ())],
                             args.command_config)
    _check_security(settings.settings)
    report_set = parse_set_name("--report-credentials", args.report_credentials) if args.report_credentials else None
    access = configure_probe_access(args, targets, env=env, environ=environ, report_set=report_set)
    web = load_web_config(args.web_config_file) if args.web_config_file else WebConfig()
    probe = BootstrapOptions(
        targets=targets, timeout=timeout, connect_timeout=connect_timeout, topic=args.topic,
        roundtrip=not args.no_roundtrip, client_settings=dict(settings.settings),
        redacted_settings=settings.redacted(), secrets=settings.secrets, vantage_label=args.vantage or None,
    )
    report_settings, report_note = configure_report_settings(report_set, sinks, targets, dict(settings.settings),
                                                             access, env=env, environ=environ)
    return WatchConfig(probe, interval, idle_check, address, ready_when, log_format, args.vantage, sinks, access,
                       web, report_settings, report_note)


def configure_report_settings(name: str | None, sinks: SinkConfig, targets: tuple[Endpoint, ...],
                              cluster: dict[str, str], access: ProbeAccess, *, env: Environment,
                              environ: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """The client settings ``--report-topic``'s producer uses, and a note for the start log: the set
    ``name`` names (``--report-credentials``); the watched cluster's when the topic is on it; else the
    same transport without a credential of the watched cluster (``--report-bootstrap`` names another)."""
    from kdiag.watch.access import report_cluster_settings

    if name is not None and sinks.topic is None:
        raise UsageError("--report-credentials goes with --report-topic")
    if sinks.topic is None:
        return {}, None
    if name is not None:
        known = next((s for s in access.credential_sets if s.name == name), None)
        if known is not None:
            return dict(known.settings), None
        chosen = credential_set_settings(name, environ, option="--report-credentials")
        _check_security(chosen.settings)
        env.scrub = env.scrub.adding(chosen.secrets)
        return dict(chosen.settings), None
    stripped = report_cluster_settings(sinks.topic_targets, targets, cluster)
    if stripped == cluster:
        return cluster, None
    return stripped, (f"--report-bootstrap {','.join(str(t) for t in sinks.topic_targets)} is not the watched "
                      f"cluster: the reports go there without its credentials (give that cluster's with "
                      f"--report-credentials NAME and KDIAG_CRED_<NAME>_*)")


def configure_probe_access(args: WatchArguments, targets: tuple[Endpoint, ...], *, env: Environment,
                           environ: Mapping[str, str], report_set: str | None = None) -> ProbeAccess:
    """``/probe``'s allow-list, its named credential sets (their secrets scrubbed like the client's)
    and whether it may scan listeners."""
    from kdiag.credentials import CredentialSet, parse_credential_binding, parse_patterns
    from kdiag.watch.access import ProbeAccess

    allow = parse_patterns("--probe-allow", args.probe_allow) if args.probe_allow else ()
    sets: list[CredentialSet] = []
    for binding in args.probe_credentials or ():
        name, patterns = parse_credential_binding(binding)
        if any(s.name == name for s in sets):
            raise UsageError(f"--probe-credentials names the set {name} twice")
        settings = credential_set_settings(name, environ)
        _check_security(settings.settings)
        env.scrub = env.scrub.adding(settings.secrets)
        sets.append(CredentialSet(name, patterns, dict(settings.settings), settings.secrets))
    named = {s.name for s in sets} | ({report_set} if report_set is not None else set())
    orphan = next((v for v in sorted(environ) if v.startswith(CREDENTIAL_PREFIX)
                   and not any(v.startswith(f"{CREDENTIAL_PREFIX}{name}_") for name in named)), None)
    if orphan is not None:
        raise UsageError(f"{orphan}: neither --probe-credentials NAME=PATTERN nor --report-credentials NAME names "
                         f"its set")
    return ProbeAccess(targets, allow, tuple(sets), bool(args.probe_listener_scan))


def configure_sinks(args: WatchArguments, targets: tuple[Endpoint, ...]) -> SinkConfig:
    from kdiag.target import check_topic_name, parse_bootstrap

    config = SinkConfig(
        stdout=bool(args.report_stdout), directory=args.report_dir,
        dir_max_bytes=parse_size("--report-dir-max-bytes", args.report_dir_max_bytes, minimum=1024),
        dir_max_files=parse_count("--report-dir-max-files", args.report_dir_max_files),
        dir_max_age=parse_duration("--report-dir-max-age", args.report_dir_max_age),
        spool_max_bytes=parse_size("--spool-max-bytes", args.spool_max_bytes, minimum=1024),
        when_full=choice("--spool-when-full", args.spool_when_full, ("drop-oldest", "drop-newest")),
    )
    if args.report_topic is None:
        if args.report_bootstrap is not None or args.spool_dir is not None:
            raise UsageError("--report-bootstrap and --spool-dir go with --report-topic")
        return config
    check_topic_name(args.report_topic, option="--report-topic")
    if args.spool_dir is None:
        raise UsageError("--report-topic needs --spool-dir (where reports wait while the topic is unreachable)")
    topic_targets = parse_bootstrap(args.report_bootstrap) if args.report_bootstrap else targets
    return replace(config, topic=args.report_topic, topic_targets=topic_targets, spool_dir=args.spool_dir)


# --- the sinks -------------------------------------------------------------------------------------


def build_sinks(config: WatchConfig, *, env: Environment, log: AgentLog, identity: AgentIdentity) -> list[Sink]:
    """The sinks ``config`` asks for, in the order they are delivered to: stdout, directory, topic."""
    sinks: list[Sink] = []
    wanted = config.sinks
    if wanted.stdout:
        from kdiag.sinks.stdout import StdoutSink

        sinks.append(StdoutSink(env.stdout, log=log.warning))
    if wanted.directory is not None:
        from kdiag.sinks.directory import DirectorySink

        sinks.append(DirectorySink(wanted.directory, max_bytes=wanted.dir_max_bytes, max_files=wanted.dir_max_files,
                                   max_age=wanted.dir_max_age, log=log.warning))
    if wanted.topic is not None:
        from kdiag.sinks import SinkStats
        from kdiag.sinks.spool import Spool
        from kdiag.sinks.topic import TopicSink

        stats = SinkStats()
        spool = Spool(wanted.spool_dir, max_bytes=wanted.spool_max_bytes, when_full=wanted.when_full, stats=stats,
                      log=log.warning)
        sinks.append(TopicSink(wanted.topic, bootstrap=",".join(str(t) for t in wanted.topic_targets),
                               settings=dict(config.report_settings), key=identity.id, spool=spool, stats=stats,
                               log=log.warning, scrub=env.scrub))
    return sinks


# --- the start -------------------------------------------------------------------------------------


def run_watch_command(args: WatchArguments, *, env: Environment, stop: threading.Event | None = None,
                      environ: Mapping[str, str] | None = None, exit_on_signal: bool = False) -> ExitStatus:
    """Validate everything (UsageError, one line), bind the listener, then run until ``stop`` is set
    or SIGTERM/SIGINT arrives; the sinks are flushed before it returns.

    With ``exit_on_signal`` (the command line), a signal ends the process right after the sinks are
    flushed, skipping the interpreter's teardown: librdkafka's destroy can wait on unreachable
    brokers, and a pod must be gone within its grace period (here: 2 s)."""
    config = configure(args, env=env, environ=environ)
    return start(config, env=env, stop=stop or threading.Event(), exit_on_signal=exit_on_signal)


def start(config: WatchConfig, *, env: Environment, stop: threading.Event, exit_on_signal: bool) -> ExitStatus:
    """Bind the endpoints, then probe every interval until ``stop``; flush the sinks on the way out."""
    from kdiag.watch.http import HttpSettings, bind
    from kdiag.watch.identity import AgentIdentity
    from kdiag.watch.log import AgentLog
    from kdiag.watch.loop import LoopSettings, WatchLoop, run_probe
    from kdiag.watch.metrics import AgentMetrics
    from kdiag.watch.state import AgentState

    log = AgentLog(env.stderr, fmt=config.log_format, scrub=env.scrub)
    identity = AgentIdentity(config.sinks.state_dir, log=log.warning)
    sinks = build_sinks(config, env=env, log=log, identity=identity)
    state = AgentState()
    metrics = AgentMetrics(state, sinks)
    try:
        server = bind(config.address, settings=HttpSettings(config.interval, config.probe.timeout, config.ready_when),
                      state=state, registry=metrics.registry, probe_options=replace(config.probe), probe=run_probe,
                      scrub=env.scrub, access=config.access, web=config.web,
                      count_probe_request=metrics.count_probe_request)
    except UsageError:
        _close_sinks(sinks, SHUTDOWN_BUDGET)
        raise
    received: list[int] = []
    _install_signal_handlers(stop, received, env)
    server.serve_in_background()
    _log_started(config, log, identity, sinks)
    held = None
    if config.idle_check is not None:
        from probes.idle import HeldConnection

        held = HeldConnection(config.idle_check)
    loop = WatchLoop(LoopSettings(config.probe, config.interval), identity=identity, state=state, metrics=metrics,
                     sinks=sinks, log=log, scrub=env.scrub, probe=functools.partial(run_probe, held=held))
    try:
        loop.run(stop)
    finally:
        server.shutdown()
        if held is not None:
            held.close()
        _close_sinks(sinks, SHUTDOWN_BUDGET)
        server.server_close()
        log.event("stopped", "stopped" + (f" by {signal.Signals(received[0]).name}" if received else ""))
    status = ExitStatus.INTERRUPTED if received and received[0] == signal.SIGINT else ExitStatus.OK
    if received and exit_on_signal:
        _exit_now(int(status), env)
    return status


def _log_started(config: WatchConfig, log: AgentLog, identity: AgentIdentity, sinks: Sequence[Sink]) -> None:
    shown = hostport(*config.address)
    idle_note = f"; an idle connection asked every {config.idle_check:g} s" if config.idle_check is not None else ""
    log.event("started", f"watching {','.join(str(t) for t in config.probe.targets)} every {config.interval:g} s "
              f"(deadline {config.probe.timeout:g} s){idle_note}; "
              f"serving {'https' if config.web.tls is not None else 'http'}://{shown}/metrics"
              f"{' (basic auth)' if config.web.users else ''}; agent {identity.id} "
              + (f"(kept in {identity.path})" if identity.persistent else "(new per process)")
              + f"; sinks: {', '.join(s.name for s in sinks) or 'none'}",
              agent_id=identity.id, listen=shown, vantage=config.vantage)
    if config.report_note is not None:
        log.warning(config.report_note)


def _check_security(settings: dict[str, str]) -> None:
    """TLS and SASL settings kdiag cannot use: a UsageError now, not a failed probe every interval."""
    from probes.kafka import Security
    from probes.sasl import SaslConfigError
    from probes.tls_settings import TlsConfigError

    try:
        Security.from_librdkafka(settings)
    except (TlsConfigError, SaslConfigError) as exc:
        raise UsageError(str(exc)) from None


def _close_sinks(sinks, budget: float) -> None:
    import time

    deadline = time.monotonic() + budget
    for sink in sinks:
        sink.close(max(0.0, deadline - time.monotonic()))


def _install_signal_handlers(stop: threading.Event, received: list[int], env: Environment) -> None:
    """SIGTERM and SIGINT set ``stop``; a watchdog ends the process 1.8 s later whatever still runs
    (a probe stuck in a client library must not keep the pod terminating)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handle(signum: int, _frame: object) -> None:
        if received:
            return
        received.append(signum)
        stop.set()
        code = int(ExitStatus.INTERRUPTED if signum == signal.SIGINT else ExitStatus.OK)
        timer = threading.Timer(EXIT_WATCHDOG, _exit_now, args=(code, env))
        timer.daemon = True
        timer.start()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def _exit_now(code: int, env: Environment) -> None:
    for stream in (env.stdout, env.stderr, sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def register(app: typer.Typer) -> None:
    app.command("watch", help=HELP, epilog=EPILOG,
                short_help="Run as a sidecar: probe every interval, serve /metrics /livez /readyz /report /probe.")(watch)
