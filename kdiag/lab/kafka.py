"""A real Apache Kafka broker (KRaft, combined broker+controller; ZooKeeper mode for 2.x) run from the Maven
Central jars.

``install(version)`` resolves the jars once per version with Maven into a cache outside the repository.
``KafkaBroker.start(spec, ...)`` writes ``server.properties`` and a logging config, formats the storage
with ``kafka.tools.StorageTool`` and runs ``kafka.Kafka`` as a child process in its own process group
(inside a network namespace when asked) until it is ready, or raises ``KafkaStartError``.
``KafkaCluster`` does the same for several combined nodes sharing one static controller quorum.

Kafka 2.x has no KRaft: ``uses_zookeeper(version)``. Its node runs a ZooKeeper server first (from the
ZooKeeper jar that comes with Kafka's, on the spec's ``controller_port``, which ZooKeeper mode has no other
use for) and the broker with ``zookeeper.connect`` pointing at it; no storage is formatted.

Nothing here needs Docker or a Kafka tarball: Java 17, Maven and a reachable Maven Central are enough.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from probes.deadline import Deadline
from probes.hostport import hostport

DEFAULT_VERSIONS: tuple[str, ...] = ("4.4.0", "3.9.2")
"""The Kafka releases kdiag is tested against: the newest 4.x on Maven Central and the last 3.x."""

KAFKA_VERSION: str = os.environ.get("KDIAG_KAFKA_VERSION") or DEFAULT_VERSIONS[0]
"""The version used when none is given (``KDIAG_KAFKA_VERSION``, else the newest supported)."""

POM_PATH = Path(__file__).with_name("kafka-pom.xml")
SCALA212_POM_PATH = Path(__file__).with_name("kafka-pom-scala212.xml")
"""Kafka before 2.4 was built for Scala 2.11 and 2.12 only: its jars come from this pom (kafka_2.12)."""
CONTROLLER_LISTENER = "CONTROLLER"
"""The listener name of the KRaft controller endpoint; reserved, client listeners may not use it."""

POLL_INTERVAL = 0.2
"""Seconds between two readiness checks."""

STOP_GRACE = 5.0
"""Seconds a broker gets between SIGTERM and SIGKILL (a single node shuts down in well under one)."""

CLUSTER_STOP_GRACE = 2.0
"""Seconds a cluster's nodes get between SIGTERM and SIGKILL. Shorter than a single broker's: once its
peers are gone, the last quorum leader spends about 5 s in its raft shutdown waiting for them, and a lab
cluster's state is not worth that wait."""

HEAP_OPTS = ("-Xmx512m", "-Xms256m")
FAST_START_OPTS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Djava.awt.headless=true")
"""Single-threaded GC and C1 only: the broker is up sooner and lighter on a 2-core machine."""

_VERSION_RE = re.compile(r"\d+\.\d+\.\d+")
# A broker's working directory: its configuration, its log (broker and StorageTool output), its data.
_PROPERTIES = "server.properties"
_LOG = "server.log"
_DATA = "data"
_INSTALL_TIMEOUT = 900.0


class KafkaLabError(Exception):
    """A lab Kafka broker could not be installed or run."""


class KafkaInstallError(KafkaLabError):
    """The Kafka jars could not be resolved from Maven Central."""


class KafkaStartError(KafkaLabError):
    """A Kafka broker did not start.

    The message names the version, the working directory, the broker's first error (the record and its
    ``Caused by:`` chain: a broker that fails to start logs its shutdown after the cause, so the cause can
    fall out of the tail) and the last lines of the broker's log; the same facts are kept as attributes.
    """

    def __init__(
        self, reason: str, *, version: str, workdir: Path, log_tail: Sequence[str] = (), first_error: Sequence[str] = ()
    ) -> None:
        self.reason = reason
        self.version = version
        self.workdir = workdir
        self.log_tail = tuple(log_tail)
        self.first_error = tuple(first_error)
        message = f"Kafka {version}: {reason} (workdir {workdir})"
        if self.first_error:
            message += "\n--- the first error in the log ---\n" + "\n".join(self.first_error)
        if self.log_tail:
            message += f"\n--- last {len(self.log_tail)} lines of the log ---\n" + "\n".join(self.log_tail)
        super().__init__(message)


# --- installation -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Logging:
    """The logging backend of one Kafka line: the pom profile that adds it and how the JVM is told."""

    profile: str
    config_name: str
    config_text: str
    jvm_flag: str  # formatted with the absolute config path

    def jvm_option(self, config: Path) -> str:
        return self.jvm_flag.format(path=config)


_LOG4J2 = _Logging(
    profile="log4j2",
    config_name="log4j2.properties",
    config_text=(
        "appender.stdout.type=Console\n"
        "appender.stdout.name=STDOUT\n"
        "appender.stdout.layout.type=PatternLayout\n"
        "appender.stdout.layout.pattern=[%d] %p %m (%c)%n\n"
        "rootLogger.level=INFO\n"
        "rootLogger.appenderRef.stdout.ref=STDOUT\n"
    ),
    jvm_flag="-Dlog4j2.configurationFile={path}",
)
_RELOAD4J = _Logging(
    profile="reload4j",
    config_name="log4j.properties",
    config_text=(
        "log4j.rootLogger=INFO, stdout\n"
        "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
        "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
        "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
    ),
    jvm_flag="-Dlog4j.configuration=file:{path}",
)


def _major(version: str) -> int:
    return int(version.split(".", 1)[0])


def _release(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def _scala(version: str) -> str:
    """The Scala binary version of the ``kafka_<scala>`` artifact kdiag installs for ``version``."""
    return "2.12" if _release(version) < (2, 4) else "2.13"


def _pom(version: str) -> Path:
    return SCALA212_POM_PATH if _scala(version) == "2.12" else POM_PATH


def core_jar(lib: Path, version: str) -> Path:
    """The broker's own jar (``kafka_2.13-4.4.0.jar``) among the installed ones."""
    return lib / f"kafka_{_scala(version)}-{version}.jar"


def uses_zookeeper(version: str) -> bool:
    """Whether ``version`` runs in ZooKeeper mode here: before 3.x (KRaft came in 2.8 as early access, and
    was first declared ready for production in 3.3; the lab runs 3.x and later as KRaft)."""
    return _major(version) < 3


def _logging(version: str) -> _Logging:
    return _LOG4J2 if _major(version) >= 4 else _RELOAD4J


def cache_root() -> Path:
    """Where installed versions live: ``$KDIAG_KAFKA_CACHE``, else ``~/.cache/kdiag/kafka``."""
    return Path(os.environ.get("KDIAG_KAFKA_CACHE") or "~/.cache/kdiag/kafka").expanduser()


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path``: one installer per version, across processes."""
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def install(version: str, *, timeout: float = _INSTALL_TIMEOUT) -> Path:
    """Resolve the broker jars of Kafka ``version`` from Maven Central and return their directory.

    The jars go to ``<cache_root()>/<version>/lib``. A marker holding the pom's digest is written only
    after Maven succeeded, so an interrupted download, or a changed pom, is resolved again from scratch;
    with a valid marker this returns at once. Concurrent installers of one version wait for each other.
    """
    if not _VERSION_RE.fullmatch(version):
        raise KafkaInstallError(f"not a Kafka release version: {version!r} (expected e.g. {DEFAULT_VERSIONS[0]})")
    home = cache_root() / version
    lib = home / "lib"
    marker = home / "installed"
    stamp = f"{version} {hashlib.sha256(_pom(version).read_bytes()).hexdigest()}\n"
    if _read_text(marker) == stamp:
        return lib
    home.mkdir(parents=True, exist_ok=True)
    with _exclusive(home / ".lock"):
        if _read_text(marker) == stamp:
            return lib
        marker.unlink(missing_ok=True)
        shutil.rmtree(lib, ignore_errors=True)
        _resolve_jars(version, lib, timeout=timeout)
        marker.write_text(stamp)
    return lib


def _resolve_jars(version: str, lib: Path, *, timeout: float) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaInstallError("mvn not found on PATH: install Maven 3.8+ (apt-get install maven)")
    command = [
        mvn, "-q", "-B", "-f", str(_pom(version)), f"-Dkafka.version={version}", "-P", _logging(version).profile,
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={lib}",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise KafkaInstallError(f"mvn did not resolve Kafka {version} within {timeout:.0f}s") from None
    if done.returncode != 0:
        raise KafkaInstallError(f"mvn could not resolve Kafka {version}: {_first_error(done.stdout + done.stderr)}")
    if not core_jar(lib, version).is_file():
        raise KafkaInstallError(f"mvn succeeded but {lib} has no {core_jar(lib, version).name}")


def _first_error(output: str) -> str:
    """Maven's first ``[ERROR]`` line (the one naming the cause), without colour codes."""
    output = re.sub(r"\x1b\[[0-9;]*m", "", output)
    for line in output.splitlines():
        if line.startswith("[ERROR]") and line[7:].strip():
            return line[7:].strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except FileNotFoundError:
        return None


def _tail(path: Path, lines: int = 20) -> list[str]:
    return (_read_text(path) or "").splitlines()[-lines:]


# A log4j record as the lab's logging config writes it: "[2026-11-25 15:33:38,314] ERROR message (logger)".
_RECORD = re.compile(r"^\[\d{4}-\d\d-\d\d [\d:,]+\] (?P<level>[A-Z]+) ")
_FRAME = re.compile(r"^\s+(?:at |\.\.\. \d+ more)")


def first_log_error(text: str, *, lines: int = 12, width: int = 300) -> list[str]:
    """The first ERROR or FATAL record of a broker log: its line and its exception chain without stack frames.

    Kafka logs the reason it cannot start (``Socket server failed to bind to …``) once, then a shutdown of
    every component; this keeps the reason however long the shutdown is. At most ``lines`` lines of at most
    ``width`` characters: the log is the broker's, and a message quotes it.
    """
    found: list[str] = []
    for line in text.splitlines():
        record = _RECORD.match(line)
        if record:
            if found:
                break
            if record["level"] in ("ERROR", "FATAL"):
                found.append(line)
        elif found and line.strip() and not _FRAME.match(line):
            found.append(line)
        if len(found) >= lines:
            break
    return [line[:width] for line in found]


# --- what a broker is configured with -----------------------------------------------------------------


@dataclass(frozen=True)
class Listener:
    """One named endpoint, as written in ``listeners`` (bind) or ``advertised.listeners``.

    ``host=""`` leaves the host out (``PLAINTEXT://:9092``): the broker binds every interface and, when
    ``advertised.listeners`` is unset, advertises its canonical hostname. ``protocol`` goes into
    ``listener.security.protocol.map`` and is taken from the bind listener; an advertised one's is unused.
    """

    name: str
    host: str
    port: int
    protocol: str = "PLAINTEXT"

    @property
    def url(self) -> str:
        return f"{self.name}://{hostport(self.host, self.port)}"


@dataclass(frozen=True, kw_only=True)
class BrokerSpec:
    """How one combined (broker+controller) KRaft node is configured.

    ``listeners`` are the client listeners, the first being the one readiness connects to;
    the controller listener (``CONTROLLER`` on ``controller_host:controller_port``) is added to them.
    ``advertised=None`` leaves ``advertised.listeners`` unset. ``inter_broker_listener`` defaults to the
    first listener. ``quorum_voters`` (``1@host:port,2@host:port``) defaults to this node alone and must
    be the same string on every node of a cluster. ``overrides`` are written last and win. ``hostname``,
    when given, is the host name the node's process sees (``gethostname``): it runs in a UTS namespace of
    its own under that name, so a listener whose host is left empty, with ``advertised.listeners`` unset,
    advertises that name's canonical form, as on a real machine of that name. ``None`` keeps this machine's.
    """

    node_id: int
    listeners: tuple[Listener, ...]
    controller_port: int
    controller_host: str = "127.0.0.1"
    advertised: tuple[Listener, ...] | None = None
    inter_broker_listener: str | None = None
    quorum_voters: str | None = None
    overrides: Mapping[str, str] = field(default_factory=dict, hash=False)
    hostname: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "listeners", tuple(self.listeners))
        if self.advertised is not None:
            object.__setattr__(self, "advertised", tuple(self.advertised))
        object.__setattr__(self, "overrides", MappingProxyType(dict(self.overrides)))
        names = [listener.name for listener in self.listeners]
        if not names:
            raise ValueError("a broker needs at least one client listener")
        if len(set(names)) != len(names) or CONTROLLER_LISTENER in names:
            raise ValueError(f"listener names must be unique and not {CONTROLLER_LISTENER}: {names}")
        unknown = {listener.name for listener in self.advertised or ()} - set(names)
        if unknown:
            raise ValueError(f"advertised listeners {sorted(unknown)} are not among the listeners {names}")
        if self.inter_broker_listener is not None and self.inter_broker_listener not in names:
            raise ValueError(f"inter_broker_listener {self.inter_broker_listener!r} is not among {names}")

    @property
    def voters(self) -> str:
        """The ``controller.quorum.voters`` value."""
        return self.quorum_voters or f"{self.node_id}@{self.controller_host}:{self.controller_port}"

    @property
    def zookeeper(self) -> tuple[str, int]:
        """ZooKeeper mode: where the cluster's ZooKeeper listens, the first voter's address (``zookeeper.connect``)."""
        first = self.voters.split(",", 1)[0].split("@", 1)[1]
        host, _, port = first.rpartition(":")
        return host.strip("[]"), int(port)

    @property
    def runs_zookeeper(self) -> bool:
        """ZooKeeper mode: whether this node runs the cluster's ZooKeeper (it is the first voter)."""
        return self.zookeeper == (self.controller_host, self.controller_port)

    def server_properties(self, *, version: str, data_dir: Path) -> dict[str, str]:
        """The ``server.properties`` entries for Kafka ``version`` storing its logs in ``data_dir``."""
        controller = Listener(CONTROLLER_LISTENER, self.controller_host, self.controller_port)
        if uses_zookeeper(version):
            mode = {"broker.id": str(self.node_id), "zookeeper.connect": hostport(*self.zookeeper),
                    "zookeeper.connection.timeout.ms": "30000"}
            own = self.listeners
        else:
            mode = {"process.roles": "broker,controller", "node.id": str(self.node_id),
                    "controller.quorum.voters": self.voters, "controller.listener.names": CONTROLLER_LISTENER}
            own = (*self.listeners, controller)
        properties = {
            **mode,
            "listeners": ",".join(listener.url for listener in own),
            "listener.security.protocol.map": ",".join(f"{listener.name}:{listener.protocol}" for listener in own),
            "inter.broker.listener.name": self.inter_broker_listener or self.listeners[0].name,
            "log.dirs": str(data_dir),
            "num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "true",
        }
        if self.advertised is not None:
            properties["advertised.listeners"] = ",".join(listener.url for listener in self.advertised)
        if _major(version) >= 4:
            properties["share.coordinator.state.topic.replication.factor"] = "1"
            properties["share.coordinator.state.topic.min.isr"] = "1"
        properties.update(self.overrides)
        return properties


def free_ports(count: int, *, host: str = "127.0.0.1") -> list[int]:
    """``count`` distinct free ports on ``host``: every socket stays bound until all are chosen.

    The one way to pick ports (for tests; another process may take one before it is bound). Every port
    something needs is chosen in one call: once a call returns its sockets are closed, and the kernel may
    hand the same port to the next call, so two calls for one broker can give two listeners one port.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(family, socket.SOCK_STREAM))
            sock.bind((host, 0))
            ports.append(sock.getsockname()[1])
        return ports


def loopback_specs(
    count: int = 1, *, host: str = "127.0.0.1", overrides: Mapping[str, str] | None = None,
    ports: Sequence[int] | None = None,
) -> tuple[BrokerSpec, ...]:
    """Specs for ``count`` combined nodes on ``host`` with free ports: node ids 1..count, one PLAINTEXT
    listener each advertised as bound, and one shared controller quorum.

    ``ports``: the ``2 * count`` ports to use (client ports, then controller ports) when the caller needs
    more ports for the same brokers (more listeners, an address nothing listens on): it takes them all
    from one ``free_ports`` call and passes these on. Without it, the specs' ports come from a call of
    their own."""
    if ports is None:
        ports = free_ports(2 * count, host=host)
    if len(ports) != 2 * count or len(set(ports)) != len(ports):
        raise ValueError(f"loopback_specs({count}) needs {2 * count} distinct ports, got {list(ports)}")
    client_ports, controller_ports = ports[:count], ports[count:]
    voters = ",".join(f"{node}@{hostport(host, port)}" for node, port in enumerate(controller_ports, start=1))
    specs = []
    for node_id, client_port, controller_port in zip(range(1, count + 1), client_ports, controller_ports):
        listener = Listener("PLAINTEXT", host, client_port)
        specs.append(
            BrokerSpec(
                node_id=node_id,
                listeners=(listener,),
                advertised=(listener,),
                controller_host=host,
                controller_port=controller_port,
                quorum_voters=voters,
                overrides=overrides or {},
            )
        )
    return tuple(specs)


def two_listener_spec(
    advertised_host: str, advertised_port: int | None = None, *, overrides: Mapping[str, str] | None = None,
    ports: Sequence[int] | None = None,
) -> BrokerSpec:
    """One loopback node whose clients' listener, EXTERNAL, is advertised as ``advertised_host`` at
    ``advertised_port`` (its own port by default), beside an INTERNAL listener for inter-broker traffic,
    advertised as bound.

    ``ports``: (external, controller, internal), when the caller needs more ports for the same broker
    (say an advertised port nothing listens on) and took them all from one ``free_ports`` call."""
    external_port, controller_port, internal_port = ports if ports is not None else free_ports(3)
    spec = loopback_specs(1, overrides=overrides, ports=(external_port, controller_port))[0]
    external = Listener("EXTERNAL", "127.0.0.1", external_port)
    internal = Listener("INTERNAL", "127.0.0.1", internal_port)
    advertised = Listener("EXTERNAL", advertised_host, external_port if advertised_port is None else advertised_port)
    return replace(spec, listeners=(external, internal), advertised=(internal, advertised),
                   inter_broker_listener="INTERNAL")


def new_cluster_id() -> str:
    """A random cluster id in the form ``kafka-storage format -t`` accepts: URL-safe base64, no padding.

    An id starting with ``-`` would be read as an option on the command line, so none is returned
    (Kafka's own ``Uuid.randomUuid()`` avoids them for the same reason).
    """
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cluster_id.startswith("-"):
            return cluster_id


def _properties_text(properties: Mapping[str, str]) -> str:
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace("\n", "\\n")

    return "".join(f"{key}={escape(value)}\n" for key, value in properties.items())


# --- running brokers ----------------------------------------------------------------------------------

ReadyCheck = Callable[["KafkaBroker"], bool]

_RUNNING: set[KafkaBroker] = set()


def default_ready(broker: KafkaBroker) -> bool:
    """The broker logged ``Kafka Server started`` and its first client listener accepts a TCP connection.

    Inside a network namespace only the log line is checked: the listener is not reachable from here.
    """
    if not broker.has_logged_started():
        return False
    if broker.netns is not None:
        return True
    try:
        with socket.create_connection(broker.client_address, timeout=1.0):
            return True
    except OSError:
        return False


class KafkaBroker:
    """One running combined KRaft node. Start it with ``KafkaBroker.start``; ``stop`` it or use ``with``."""

    def __init__(
        self,
        *,
        spec: BrokerSpec,
        version: str,
        workdir: Path,
        netns: str | None,
        cluster_id: str,
        process: subprocess.Popen[bytes],
    ) -> None:
        self.spec = spec
        self.version = version
        self.workdir = workdir
        self.netns = netns
        self.cluster_id = cluster_id
        self.log_path = workdir / _LOG
        self._process = process
        self._started_line = re.compile(
            rf"\[KafkaServer id={spec.node_id}\] started" if uses_zookeeper(version)
            else rf"\[KafkaRaftServer nodeId={spec.node_id}\] Kafka Server started")
        self._started_seen = False
        self.zookeeper: subprocess.Popen[bytes] | None = None  # ZooKeeper mode: the server this node runs

    @classmethod
    def start(
        cls,
        spec: BrokerSpec,
        *,
        version: str = KAFKA_VERSION,
        workdir: Path,
        netns: str | None = None,
        cluster_id: str | None = None,
        timeout: float = 60.0,
        ready: ReadyCheck = default_ready,
    ) -> KafkaBroker:
        """Install ``version`` if needed, then format ``workdir`` and run the broker until ``ready``.

        ``ready`` is polled every ``POLL_INTERVAL`` seconds while the process lives; ``timeout`` bounds the
        formatting and the wait (not the one-time install). A workdir that is already formatted is reused
        with its own cluster id. On failure the process is stopped and ``KafkaStartError`` raised.

        The broker is killed when the thread that started it exits (see ``_parent_death_guard``): start
        brokers from a thread that outlives them, normally the main thread.
        """
        lib = install(version)
        deadline = Deadline.after(timeout)
        node = _prepare_node(
            spec, version=version, lib=lib, workdir=workdir, cluster_id=cluster_id, deadline=deadline
        )
        broker = cls._launch(node, netns=netns)
        try:
            _wait_until_ready([broker], ready, deadline=deadline, timeout=timeout)
        except BaseException:
            broker.stop()
            raise
        return broker

    @classmethod
    def _launch(cls, node: _PreparedNode, *, netns: str | None) -> KafkaBroker:
        """Start the prepared node's process without waiting for it (in the calling thread: see ``start``);
        in ZooKeeper mode, the ZooKeeper server first when this node runs it (the broker waits for it)."""
        prefix = [*_parent_death_guard(), *(("ip", "netns", "exec", netns) if netns else ())]
        zookeeper = None
        if uses_zookeeper(node.version) and node.spec.runs_zookeeper:
            zookeeper = _spawn([*prefix, *node.java, "-Dzookeeper.admin.enableServer=false",
                                "-Dzookeeper.jmx.log4j.disable=true",
                                "org.apache.zookeeper.server.ZooKeeperServerMain", str(node.spec.controller_port),
                                str(node.workdir / "zookeeper")], node.workdir, "zookeeper.log")
        process = _spawn([*prefix, *uts_hostname_prefix(node.spec.hostname), *node.java, "kafka.Kafka",
                          str(node.workdir / _PROPERTIES)], node.workdir, _LOG)
        broker = cls(
            spec=node.spec, version=node.version, workdir=node.workdir, netns=netns, cluster_id=node.cluster_id,
            process=process,
        )  # fmt: skip
        broker.zookeeper = zookeeper
        _RUNNING.add(broker)
        return broker

    def _start_error(self, reason: str) -> KafkaStartError:
        return KafkaStartError(
            reason, version=self.version, workdir=self.workdir, log_tail=self.log_tail(),
            first_error=first_log_error(_read_text(self.log_path) or ""),
        )  # fmt: skip

    @property
    def pid(self) -> int:
        """The broker's process id (also its process group id)."""
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    @property
    def client_address(self) -> tuple[str, int]:
        """Where to connect to the first client listener: its bind address, a wildcard read as loopback."""
        listener = self.spec.listeners[0]
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(listener.host, listener.host)
        return host, listener.port

    @property
    def bootstrap_servers(self) -> str:
        """``client_address`` as ``host:port`` for a client's ``bootstrap.servers``."""
        return hostport(*self.client_address)

    def has_logged_started(self) -> bool:
        """Whether the log holds ``[KafkaRaftServer nodeId=N] Kafka Server started``."""
        if not self._started_seen:
            text = _read_text(self.log_path) or ""
            self._started_seen = self._started_line.search(text) is not None
        return self._started_seen

    def log_tail(self, lines: int = 20) -> list[str]:
        """The last ``lines`` lines of ``server.log``."""
        return _tail(self.log_path, lines)

    def stop(self, *, timeout: float = STOP_GRACE) -> None:
        """SIGTERM the process group, SIGKILL it after ``timeout`` seconds. Safe to call again."""
        _stop([self], timeout=timeout)

    @contextmanager
    def frozen(self) -> Iterator[None]:
        """The broker's process group stopped (SIGSTOP) for the ``with`` block and resumed (SIGCONT) after it,
        whatever happens: a long GC pause or a hung JVM as a client sees it, its kernel still completing TCP
        handshakes and buffering requests that nothing reads."""
        _signal_group(self._process, signal.SIGSTOP)
        try:
            yield
        finally:
            _signal_group(self._process, signal.SIGCONT)

    def __enter__(self) -> KafkaBroker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<KafkaBroker {self.version} node {self.spec.node_id} pid {self.pid} {state} {self.workdir}>"


class KafkaCluster:
    """Combined KRaft nodes sharing one cluster id and one static controller quorum, started together."""

    def __init__(self, brokers: Sequence[KafkaBroker]) -> None:
        self.brokers = tuple(brokers)

    @classmethod
    def start(
        cls,
        specs: Sequence[BrokerSpec],
        *,
        version: str = KAFKA_VERSION,
        workdir: Path,
        netns: Sequence[str | None] | None = None,
        cluster_id: str | None = None,
        timeout: float = 60.0,
        ready: ReadyCheck = default_ready,
    ) -> KafkaCluster:
        """Start one broker per spec in ``workdir/node-<node_id>`` and wait until every one is ``ready``.

        All processes are launched before any is waited for: a node's broker only starts once the
        controller quorum has a leader, which takes a majority of the nodes. ``netns`` gives each spec's
        namespace (or None), in order. ``timeout`` bounds the whole start; on failure every node is
        stopped and ``KafkaStartError`` raised.
        """
        namespaces = list(netns) if netns is not None else [None] * len(specs)
        if not specs or len(namespaces) != len(specs):
            raise ValueError("need at least one spec, and one netns entry per spec when netns is given")
        if len({spec.node_id for spec in specs}) != len(specs) or len({spec.voters for spec in specs}) != 1:
            raise ValueError("cluster nodes need distinct node ids and the same quorum_voters")
        lib = install(version)
        deadline = Deadline.after(timeout)
        cluster_id = cluster_id or new_cluster_id()

        def prepare(spec: BrokerSpec) -> _PreparedNode:
            node_workdir = Path(workdir) / f"node-{spec.node_id}"
            return _prepare_node(
                spec, version=version, lib=lib, workdir=node_workdir, cluster_id=cluster_id, deadline=deadline
            )

        with ThreadPoolExecutor(max_workers=len(specs)) as pool:  # one StorageTool JVM per node, side by side
            nodes = list(pool.map(prepare, specs))
        brokers: list[KafkaBroker] = []
        try:
            for node, namespace in zip(nodes, namespaces):
                brokers.append(KafkaBroker._launch(node, netns=namespace))
            _wait_until_ready(brokers, ready, deadline=deadline, timeout=timeout)
        except BaseException:
            _stop(brokers, timeout=CLUSTER_STOP_GRACE)
            raise
        return cls(brokers)

    @property
    def bootstrap_servers(self) -> str:
        """Every node's ``bootstrap_servers``, comma-separated."""
        return ",".join(broker.bootstrap_servers for broker in self.brokers)

    def stop(self, *, timeout: float = CLUSTER_STOP_GRACE) -> None:
        """SIGTERM every node at once, SIGKILL those still up after ``timeout`` seconds. Safe to call again."""
        _stop(self.brokers, timeout=timeout)

    def __enter__(self) -> KafkaCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _spawn(command: Sequence[str], workdir: Path, log_name: str) -> subprocess.Popen[bytes]:
    """Run ``command`` in ``workdir`` as the leader of its own process group, its output to ``log_name``."""
    with (workdir / log_name).open("ab") as log:
        return subprocess.Popen(
            command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def _wait_until_ready(
    brokers: Sequence[KafkaBroker], ready: ReadyCheck, *, deadline: Deadline, timeout: float
) -> None:
    """Poll every broker until ``ready`` holds for all of them, or raise ``KafkaStartError`` (the caller
    stops them) as soon as one exits or when the deadline passes."""
    waiting = list(brokers)
    while True:
        for broker in brokers:
            status = broker._process.poll()
            if status is not None:
                raise broker._start_error(f"broker {broker.spec.node_id} exited with status {status} during start-up")
        waiting = [broker for broker in waiting if not ready(broker)]
        if not waiting:
            return
        if deadline.expired:
            names = ", ".join(f"broker {broker.spec.node_id}" for broker in waiting)
            verb = "was" if len(waiting) == 1 else "were"
            raise waiting[0]._start_error(f"{names} {verb} not ready within {timeout:g}s")
        time.sleep(deadline.cap(POLL_INTERVAL))


def _java(version: str, workdir: Path) -> str:
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home, "bin", "java") if java_home else None
    java = str(candidate) if candidate and candidate.is_file() else shutil.which("java")
    if java is None:
        raise KafkaStartError("java not found: install Java 17+ or set JAVA_HOME", version=version, workdir=workdir)
    return java


def _parent_death_guard() -> tuple[str, ...]:
    """A command prefix that SIGKILLs the broker when the thread that started it dies.

    atexit does not run when this interpreter is killed (SIGKILL, or SIGTERM without a handler), and a
    leftover 512 MB JVM on a small CI machine is worse than a lost broker. ``setpriv`` (util-linux) sets
    PR_SET_PDEATHSIG and then execs, so the broker keeps its pid; without it, only atexit cleans up.
    """
    setpriv = shutil.which("setpriv")
    return (setpriv, "--pdeathsig", "KILL", "--") if setpriv else ()


def uts_hostname_prefix(hostname: str | None) -> tuple[str, ...]:
    """A command prefix that runs the rest in a new UTS namespace called ``hostname`` (none for None).

    ``unshare`` and ``sh`` both exec, so the command keeps the pid and the parent-death signal it was
    started with. Needs root (CAP_SYS_ADMIN), as network namespaces do.
    """
    if hostname is None:
        return ()
    return ("unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"', hostname)


@dataclass(frozen=True)
class _PreparedNode:
    """A node whose files are written and whose storage is formatted, ready to launch."""

    spec: BrokerSpec
    version: str
    workdir: Path
    cluster_id: str
    java: tuple[str, ...]  # the java executable and its options, up to the main class


def _prepare_node(
    spec: BrokerSpec, *, version: str, lib: Path, workdir: Path, cluster_id: str | None, deadline: Deadline
) -> _PreparedNode:
    """Write ``server.properties`` and the logging config into ``workdir`` and format its storage."""
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    properties = spec.server_properties(version=version, data_dir=workdir / _DATA)
    (workdir / _PROPERTIES).write_text(_properties_text(properties))
    logging = _logging(version)
    (workdir / logging.config_name).write_text(logging.config_text)
    java = (
        _java(version, workdir), *HEAP_OPTS, *FAST_START_OPTS, f"-Dkafka.logs.dir={workdir}",
        logging.jvm_option(workdir / logging.config_name), "-cp", str(lib / "*"),
    )  # fmt: skip
    if uses_zookeeper(version):
        cluster_id = cluster_id or ""  # ZooKeeper mode: the cluster id is ZooKeeper's to assign, at first start
    else:
        cluster_id = _format_storage(java, workdir, cluster_id, version=version, deadline=deadline)
    return _PreparedNode(spec=spec, version=version, workdir=workdir, cluster_id=cluster_id, java=java)


def _format_storage(
    java: Sequence[str], workdir: Path, cluster_id: str | None, *, version: str, deadline: Deadline
) -> str:
    """Format ``workdir``'s storage for ``cluster_id`` (a new one if None) and return the id it now has.

    A directory formatted before keeps its id (``cluster_id`` must then match it or be None). With a
    static ``controller.quorum.voters``, ``format -t ID -c FILE`` needs no ``--standalone`` on 3.9 or 4.x.
    """
    data_dir, log_path = workdir / _DATA, workdir / _LOG
    meta = _read_text(data_dir / "meta.properties")
    if meta is not None:
        found = re.search(r"^cluster\.id=(\S+)$", meta, re.MULTILINE)
        existing = found.group(1) if found else None
        if existing is None or (cluster_id is not None and cluster_id != existing):
            raise KafkaStartError(
                f"{data_dir} is formatted for cluster {existing}, not {cluster_id}", version=version, workdir=workdir
            )
        return existing
    cluster_id = cluster_id or new_cluster_id()
    command = [*java, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(workdir / _PROPERTIES)]
    with log_path.open("ab") as log:
        try:
            done = subprocess.run(
                command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                timeout=deadline.remaining(),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            done = None
    if done is None or done.returncode != 0:
        reason = "formatting the storage timed out" if done is None else f"StorageTool format exited {done.returncode}"
        raise KafkaStartError(
            reason, version=version, workdir=workdir, log_tail=_tail(log_path),
            first_error=first_log_error(_read_text(log_path) or ""),
        )  # fmt: skip
    return cluster_id


def _stop(brokers: Sequence[KafkaBroker], *, timeout: float = STOP_GRACE) -> None:
    """SIGTERM every running broker's process group at once, then SIGKILL those still up at ``timeout``."""
    running = [broker for broker in brokers if broker._process.poll() is None]
    for broker in running:
        _signal_group(broker._process, signal.SIGTERM)
    deadline = Deadline.after(timeout)
    for broker in running:
        try:
            broker._process.wait(deadline.remaining())
        except subprocess.TimeoutExpired:
            _signal_group(broker._process, signal.SIGKILL)
            broker._process.wait(5.0)
    for broker in brokers:
        if broker.zookeeper is not None and broker.zookeeper.poll() is None:
            _signal_group(broker.zookeeper, signal.SIGKILL)  # its brokers are gone: nothing to shut down cleanly
            broker.zookeeper.wait(5.0)
        _RUNNING.discard(broker)


def _signal_group(process: subprocess.Popen[bytes], signum: signal.Signals) -> None:
    try:
        os.killpg(process.pid, signum)  # the broker leads its own process group (start_new_session)
    except ProcessLookupError:
        pass


def stop_all() -> None:
    """Stop every broker this interpreter started that is still running (also run at exit)."""
    _stop(list(_RUNNING))


atexit.register(stop_all)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kdiag.lab.kafka install [VERSION ...]``: resolve the jars (default: every supported
    version) and print each lib directory; a failure is one line on stderr and exit status 1."""
    parser = argparse.ArgumentParser(prog="python -m kdiag.lab.kafka", description=main.__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    install_command = commands.add_parser("install", help="resolve the broker jars from Maven Central")
    install_command.add_argument("versions", nargs="*", default=list(DEFAULT_VERSIONS), metavar="VERSION")
    arguments = parser.parse_args(argv)
    for version in arguments.versions:
        try:
            print(f"Kafka {version}: {install(version)}")
        except KafkaInstallError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
