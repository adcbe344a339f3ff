"""Runs the compatibility matrix: starts each target's brokers on loopback, runs ``kdiag bootstrap`` per case
and compares the verdict with the one written in ``tests.compat.matrix``.

Run it inside the test sandbox (loopback only, every name NXDOMAIN, so the EC2 name never resolves), with
the jars installed and kfake built beforehand: ``scripts/compat`` does all three.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from kdiag.lab import certs
from kdiag.lab.kafka import BrokerSpec, KafkaBroker, Listener, free_ports, install
from tests.compat.matrix import EC2_NAME, PASSWORD, USER, Case, Expect, Target, expect, not_applicable

ROOT = Path(__file__).resolve().parents[2]
KFAKE_DIR = ROOT / "tests" / "compat" / "kfake"
KFAKE_BIN = KFAKE_DIR / "bin" / "kfake"
KDIAG_TIMEOUT = 30.0
"""Seconds each kdiag run may take (``--timeout``); a healthy round trip takes one or two."""
STORE_PASSWORD = "compat-store"


@dataclass(frozen=True)
class Endpoints:
    """Where each case of one target bootstraps, by ``Case.listener``; ``ca``: the TLS listener's CA."""

    by_listener: dict[str, str]
    ca: Path | None = None


@dataclass(frozen=True)
class Outcome:
    target: Target
    case: Case
    expected: Expect | None
    exit: int | None = None
    findings: tuple[str, ...] = ()  # ids of the error and warning findings, in the report's order
    seconds: float = 0.0
    skipped: str | None = None  # why the case does not apply to this target

    @property
    def ok(self) -> bool:
        if self.expected is None:
            return True
        if self.exit != self.expected.exit:
            return False
        return self.expected.finding in self.findings if self.expected.finding else not self.findings

    @property
    def verdict(self) -> str:
        if self.skipped:
            return "n/a"
        said = ", ".join(self.findings) or "healthy"
        return f"exit {self.exit}: {said}"


# --- Apache Kafka ---------------------------------------------------------------------------------


def _tls_overrides(listener: str, keystore: Path) -> dict[str, str]:
    """A PKCS#12 keystore for SSL listener ``listener``: every Kafka version reads it (PEM came in 2.7)."""
    prefix = f"listener.name.{listener.lower()}"
    return {f"{prefix}.ssl.keystore.type": "PKCS12", f"{prefix}.ssl.keystore.location": str(keystore),
            f"{prefix}.ssl.keystore.password": STORE_PASSWORD, f"{prefix}.ssl.key.password": STORE_PASSWORD}


def _sasl_overrides(target: Target) -> dict[str, str]:
    """PLAIN and SCRAM-SHA-512 on the SASL listener (kdiag.lab.certs), PLAIN alone where KRaft has no SCRAM."""
    overrides = certs.sasl_listener("SASL")
    if not target.has_scram:
        overrides["listener.name.sasl.sasl.enabled.mechanisms"] = "PLAIN"
        overrides.pop("listener.name.sasl.scram-sha-512.sasl.jaas.config")
    return overrides


def _create_scram_user(target: Target, broker: KafkaBroker, plain: str) -> None:
    """alice's SCRAM-SHA-512 credential: over the Admin API from 2.7 (KIP-554), else through ZooKeeper."""
    if target.release >= (2, 7):
        from confluent_kafka.admin import (AdminClient, ScramCredentialInfo, ScramMechanism,
                                           UserScramCredentialUpsertion)

        admin = AdminClient({"bootstrap.servers": plain, "log_level": 0})
        upsert = UserScramCredentialUpsertion(USER, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                                              PASSWORD.encode())
        for future in admin.alter_user_scram_credentials([upsert]).values():
            future.result(30)
        return
    host, port = broker.spec.zookeeper
    lib = install(target.version)
    subprocess.run(["java", "-cp", str(lib / "*"), "kafka.admin.ConfigCommand", "--zookeeper", f"{host}:{port}",
                    "--alter", "--add-config", f"SCRAM-SHA-512=[iterations=4096,password={PASSWORD}]",
                    "--entity-type", "users", "--entity-name", USER],
                   check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


@contextmanager
def kafka_target(target: Target, workdir: Path) -> Iterator[Endpoints]:
    """Two brokers of ``target.version``: one with a PLAINTEXT, an EC2-advertised, a SASL and a TLS listener
    (auto-create on), one with auto-create off."""
    pki = workdir / "pki"
    certs.make_ca(pki)
    certs.issue(pki, "broker", san="IP:127.0.0.1,DNS:localhost")
    keystore = certs.pkcs12_keystore(pki, "broker", STORE_PASSWORD)
    plain, ec2, sasl, tls, controller, noauto, noauto_controller = free_ports(7)
    listeners = (Listener("PLAINTEXT", "127.0.0.1", plain), Listener("EXTERNAL", "127.0.0.1", ec2),
                 Listener("SASL", "127.0.0.1", sasl, "SASL_PLAINTEXT"), Listener("SSL", "127.0.0.1", tls, "SSL"))
    advertised = (listeners[0], Listener("EXTERNAL", EC2_NAME, ec2), listeners[2], listeners[3])
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, controller_port=controller,
                      inter_broker_listener="PLAINTEXT",
                      overrides={**_sasl_overrides(target), **_tls_overrides("SSL", keystore)})
    off = Listener("PLAINTEXT", "127.0.0.1", noauto)
    spec_off = BrokerSpec(node_id=1, listeners=(off,), advertised=(off,), controller_port=noauto_controller,
                          overrides={"auto.create.topics.enable": "false"})
    with ExitStack() as stack:
        broker = stack.enter_context(KafkaBroker.start(spec, version=target.version, workdir=workdir / "broker",
                                                       timeout=120))
        stack.enter_context(KafkaBroker.start(spec_off, version=target.version, workdir=workdir / "noauto",
                                              timeout=120))
        if target.has_scram:
            _create_scram_user(target, broker, f"127.0.0.1:{plain}")
        yield Endpoints({"plain": f"127.0.0.1:{plain}", "ec2": f"127.0.0.1:{ec2}", "sasl": f"127.0.0.1:{sasl}",
                         "tls": f"127.0.0.1:{tls}", "noauto": f"127.0.0.1:{noauto}"}, ca=pki / "ca.pem")


# --- kfake ----------------------------------------------------------------------------------------


@contextmanager
def _kfake(*flags: str) -> Iterator[str]:
    """One kfake cluster (``tests/compat/kfake``) until the block ends; its bootstrap address."""
    if not KFAKE_BIN.is_file():
        raise RuntimeError(f"{KFAKE_BIN} is not built: run scripts/setup (go build in {KFAKE_DIR})")
    process = subprocess.Popen([str(KFAKE_BIN), *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        if not line.startswith("ready "):
            raise RuntimeError(f"kfake {' '.join(flags)} did not start: {line!r} {process.stderr.read()[-500:]}")
        yield line.split()[1]
    finally:
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextmanager
def kfake_target(target: Target) -> Iterator[Endpoints]:
    """Three kfake clusters at the target's cap: plain with auto-create, SASL with auto-create, plain without."""
    caps = ("-caps", target.version) if target.version else ()
    with _kfake(*caps, "-auto-create") as plain, _kfake(*caps, "-auto-create", "-sasl") as sasl, \
            _kfake(*caps) as noauto:
        yield Endpoints({"plain": plain, "sasl": sasl, "noauto": noauto})


@contextmanager
def started(target: Target, workdir: Path) -> Iterator[Endpoints]:
    if target.kind == "kafka":
        with kafka_target(target, workdir) as endpoints:
            yield endpoints
    else:
        with kfake_target(target) as endpoints:
            yield endpoints


# --- running a case -------------------------------------------------------------------------------


def run_case(target: Target, case: Case, endpoints: Endpoints) -> Outcome:
    expected = expect(target, case)
    if expected is None:
        return Outcome(target, case, None, skipped=not_applicable(target, case))
    args = list(case.args)
    if case.listener == "tls":
        args += ["-X", "security.protocol=SSL", "-X", f"ssl.ca.location={endpoints.ca}"]
    command = [sys.executable, "-m", "kdiag", "bootstrap", endpoints.by_listener[case.listener], "--json",
               "--timeout", f"{KDIAG_TIMEOUT:g}", *args]
    started_at = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=KDIAG_TIMEOUT + 30,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = round(time.monotonic() - started_at, 1)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {}
    findings = tuple(f["id"] for f in report.get("findings", ()) if f.get("severity") in ("error", "warning"))
    return Outcome(target, case, expected, done.returncode, findings, seconds)


def run_target(target: Target, cases, workdir: Path) -> list[Outcome]:
    with started(target, workdir) as endpoints:
        return [run_case(target, case, endpoints) for case in cases]
