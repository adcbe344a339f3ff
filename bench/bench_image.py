"""The container image: its size, and how soon a sidecar started from it is ready; also its smoke test.

Run by ``scripts/image`` after it built the image, with the image mounted (``podman image mount``):

    python -m bench.bench_image --image localhost/kdiag:latest --rootfs MOUNT --size-bytes N ...

``podman run`` is refused on this machine (setrlimit without CAP_SYS_RESOURCE), so the image's own
ENTRYPOINT and CMD, with its environment and working directory, are run from a chroot into the mounted
image, as a restricted pod runs them: user 10001 with no capability (none in its bounding set either)
and no_new_privs, the root file system read-only, ``/var/lib/kdiag`` (the spool's ``emptyDir``) and
``/tmp`` on tmpfs, in a private mount namespace (``unshare``). The
network is the host's, so the image's kdiag probes a real single-node broker started here on loopback.

The smoke test, every step of which must pass (exit 1 otherwise):

1. ``kdiag bootstrap BROKER --format json`` from the image: exit 0, a ``kdiag.report/1`` report with no
   finding of severity error;
2. ``kdiag watch``, the image's default command: started as the image starts it (CMD,
   configured by ``KDIAG_*`` variables only), ``/readyz`` answers 200 — the time from the process's
   start to that first 200 is the benchmark, against the same ``kdiag watch`` run from this machine's
   own installation in the same run —, ``/livez`` 200, ``/metrics`` has ``kdiag_probe_success 1`` and
   passes ``promtool check metrics``, ``/probe?target=BROKER`` answers that probe's metrics, the report
   directory on the tmpfs "emptyDir" got the report, ``/report`` is the last report, and SIGTERM ends
   it within 2 s;
3. with ``--extras capture``: ``kdiag bootstrap --capture`` refuses in one line as the image's user,
   and captures the run's Kafka connection as root (``--user 0 --cap-add NET_RAW``).

Writes ``bench/results/image.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from bench.common import RESULTS, ensure_bytecode, kdiag_argv, summarise, write_results
from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, free_ports, loopback_specs

SIZE_TARGET_MB = 250
READY_RUNS = 5
READY_TIMEOUT = 60.0
STOP_LIMIT = 2.0

# A restricted pod, from a chroot: a private mount namespace, the image read-only, the writable places
# on tmpfs, then (with the image's own setpriv) the image's user with every capability dropped and
# no_new_privs (capabilities: drop [ALL], allowPrivilegeEscalation: false), its environment and
# working directory.
_RESTRICTED = r"""
set -eu
root=$1 user=$2 workdir=$3; shift 3
mount --make-rprivate /
mount --bind "$root" "$root"
mount -o remount,bind,ro "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=1777,size=64m tmpfs "$root/tmp"
mount -t tmpfs -o uid=${user%%:*},gid=${user##*:},mode=0750,size=64m tmpfs "$root/var/lib/kdiag"
if [ "$user" = 0:0 ]; then  # docker run --user 0: root with the runtime's capabilities
    exec chroot "$root" /usr/bin/env -i -C "$workdir" "$@"
fi
exec chroot "$root" /usr/bin/setpriv --reuid="${user%%:*}" --regid="${user##*:}" --clear-groups \
    --inh-caps=-all --bounding-set=-all --no-new-privs /usr/bin/env -i -C "$workdir" "$@"
"""


class ImageRunner:
    """Runs commands the way the image's configuration says, from its mounted root file system."""

    def __init__(self, image: str, rootfs: Path):
        config = json.loads(subprocess.run(["podman", "image", "inspect", "--format", "{{json .Config}}", image],
                                           check=True, capture_output=True, text=True).stdout)
        self.rootfs = rootfs
        self.user = config.get("User") or "0:0"
        if ":" not in self.user:
            self.user = f"{self.user}:{self.user}"
        self.workdir = config.get("WorkingDir") or "/"
        self.env = list(config.get("Env") or ())
        self.entrypoint = list(config.get("Entrypoint") or ())
        self.cmd = list(config.get("Cmd") or ())

    def argv(self, args: Sequence[str] | None = None, env: dict[str, str] | None = None, *,
             user: str | None = None) -> list[str]:
        """ENTRYPOINT + ``args`` (the image's CMD when None), with the image's environment and ``env``,
        as the image's user (or ``user``, as ``docker run --user`` would)."""
        variables = [*self.env, *(f"{k}={v}" for k, v in (env or {}).items())]
        command = [*self.entrypoint, *(self.cmd if args is None else args)]
        return ["unshare", "--mount", "--", "sh", "-c", _RESTRICTED, "sh", str(self.rootfs), user or self.user,
                self.workdir, *variables, *command]


def http_get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def check(condition: bool, what: str, detail: str = "") -> None:
    if not condition:
        raise SystemExit(f"bench_image: smoke test failed: {what}{f' ({detail})' if detail else ''}")
    print(f"bench_image: ok: {what}")


def smoke_bootstrap(runner: ImageRunner, bootstrap: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(runner.argv(["bootstrap", bootstrap, "--format", "json"]), capture_output=True,
                          text=True, timeout=120)
    seconds = time.perf_counter() - started
    check(done.returncode == 0, f"kdiag bootstrap {bootstrap} from the image exits 0",
          f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(done.stdout)
    check(report.get("schema") == "kdiag.report/1", "its report is kdiag.report/1")
    errors = [f["id"] for f in report.get("findings", ()) if f.get("severity") == "error"]
    check(not errors, "the healthy broker gives no error finding", ", ".join(errors))
    return seconds


def smoke_capture(runner: ImageRunner, bootstrap: str) -> None:
    """The capture variant: as the image's user, ``--capture`` refuses in one line (exit 2); as root
    (which has CAP_NET_RAW here, as with ``--user 0 --cap-add NET_RAW``) it captures the run."""
    argv = ["bootstrap", bootstrap, "--capture", "--format", "json"]
    done = subprocess.run(runner.argv(argv), capture_output=True, text=True, timeout=120)
    check(done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "NET_RAW" in done.stderr,
          "--capture as the image's non-root user: one line naming NET_RAW, exit 2",
          f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    done = subprocess.run(runner.argv(argv, user="0:0"), capture_output=True, text=True, timeout=120)
    check(done.returncode == 0, "--capture as root from the image exits 0", done.stderr.strip()[-300:])
    capture = json.loads(done.stdout).get("capture") or {}
    check(any(flow.get("protocol") == "kafka" for flow in capture.get("flows", ())),
          "its capture holds the run's Kafka connection", str(capture)[:300])


def start_watch(argv: Sequence[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``argv`` with its output (reports, transition lines) into ``log``, never a pipe that could fill."""
    with log.open("w") as out:
        return subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, **env} if env else None)


def wait_for(process: subprocess.Popen, started: float, url: str, log: Path, *, status: int | None) -> float:
    """Seconds from ``started`` to the first answer from ``url`` (of ``status``, or any when None),
    polled every 10 ms."""
    while time.perf_counter() - started < READY_TIMEOUT:
        if process.poll() is not None:
            raise SystemExit(f"bench_image: kdiag watch exited {process.returncode} before {url} answered: "
                             f"{log.read_text()[-500:]}")
        try:
            code = http_get(url, timeout=0.5)[0]
        except OSError:
            code = None
        if code is not None and (status is None or code == status):
            return time.perf_counter() - started
        time.sleep(0.01)
    raise SystemExit(f"bench_image: {url} did not answer {status or ''} within {READY_TIMEOUT:.0f} s")


def timed_start(argv: Sequence[str], port: int, log: Path, env: dict[str, str] | None = None
                ) -> tuple[subprocess.Popen, float, float]:
    """Start ``kdiag watch``; the seconds to its first HTTP answer (/livez, whatever the status: the
    interpreter, the imports and the listener) and to its first /readyz 200 (the first probe too)."""
    started = time.perf_counter()
    process = start_watch(argv, log, env)
    try:
        serving = wait_for(process, started, f"http://127.0.0.1:{port}/livez", log, status=None)
        ready = wait_for(process, started, f"http://127.0.0.1:{port}/readyz", log, status=200)
    except BaseException:
        stop(process)
        raise
    return process, serving, ready


def stop(process: subprocess.Popen) -> float:
    """SIGTERM, then the seconds until the process exited (killed after 10 s)."""
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return time.perf_counter() - started


def watch_env(bootstrap: str, port: int, **more: str) -> dict[str, str]:
    return {"KDIAG_BOOTSTRAP": bootstrap, "KDIAG_LISTEN": f"127.0.0.1:{port}", "KDIAG_INTERVAL": "5s",
            "KDIAG_VANTAGE": "image-smoke", **more}


def smoke_watch(runner: ImageRunner, bootstrap: str, logs: Path) -> dict:
    """The image's default command, configured by the environment only, probed over HTTP; then timed,
    each image run followed by the same command from this machine's installation (the reference).

    The first run also writes its reports to ``/var/lib/kdiag/reports`` (the pod's emptyDir, here a
    tmpfs) and must count them delivered there: the one place a read-only image may write."""
    figures: dict[str, list[float]] = {key: [] for key in ("image_http", "image_ready", "host_http", "host_ready",
                                                             "sigterm_exit")}
    for run in range(READY_RUNS):
        port, host_port = free_ports(2)  # one call: two may hand out one port twice
        log = logs / f"image-watch-{run}.log"
        more = {"KDIAG_REPORT_DIR": "/var/lib/kdiag/reports"} if run == 0 else {}
        process, serving, ready = timed_start(runner.argv(None, watch_env(bootstrap, port, **more)), port, log)
        try:
            if run == 0:
                smoke_endpoints(f"http://127.0.0.1:{port}", bootstrap)
        finally:
            figures["sigterm_exit"].append(stop(process))
        figures["image_http"].append(serving)
        figures["image_ready"].append(ready)
        port, log = host_port, logs / f"host-watch-{run}.log"
        process, serving, ready = timed_start(kdiag_argv("watch"), port, log, watch_env(bootstrap, port))
        stop(process)
        figures["host_http"].append(serving)
        figures["host_ready"].append(ready)
    slowest = max(figures["sigterm_exit"])
    check(slowest <= STOP_LIMIT, f"SIGTERM ends the image's kdiag watch within {STOP_LIMIT:.0f} s, every run",
          f"{slowest:.2f} s")
    results = {key: summarise(samples) for key, samples in figures.items()}
    for what in ("http", "ready"):
        results[f"{what}_ratio"] = round(results[f"image_{what}"]["median_s"] / results[f"host_{what}"]["median_s"], 2)
    return results


def smoke_endpoints(base: str, bootstrap: str) -> None:
    check(http_get(f"{base}/livez")[0] == 200, "the image's kdiag watch: /livez 200")
    status, metrics = http_get(f"{base}/metrics")
    check(status == 200 and re.search(r"^kdiag_probe_success(\{[^}]*\})? 1(\.0)?$", metrics, re.M) is not None,
          "/metrics has kdiag_probe_success 1", metrics[-300:])
    lint = subprocess.run(["promtool", "check", "metrics"], input=metrics, capture_output=True, text=True, timeout=60)
    check(lint.returncode == 0, "promtool check metrics finds nothing in /metrics", (lint.stdout + lint.stderr)[-300:])
    status, answer = http_get(f"{base}/probe?target={bootstrap}", timeout=30)
    check(status == 200 and re.search(r"^kdiag_probe_success(\{[^}]*\})? 1(\.0)?$", answer, re.M) is not None,
          f"/probe?target={bootstrap} answers its probe's metrics", answer[-300:])
    check("kdiag_build_info" in metrics, "/metrics has kdiag_build_info")
    delivered = re.search(r'^kdiag_sink_delivered_reports_total\{sink="directory"\} (\S+)$', metrics, re.M)
    check(delivered is not None and float(delivered.group(1)) >= 1,
          "the report directory on the emptyDir (tmpfs) holds the first report", delivered and delivered.group(0))
    status, body = http_get(f"{base}/report")
    check(status == 200 and json.loads(body).get("schema") == "kdiag.report/1", "/report is the last kdiag.report/1")


def summary_md(results: dict) -> str:
    size_mb = results["size_bytes"] / 1e6
    lines = [
        "The image built by `scripts/image` (`podman build --isolation=chroot`; base: Debian bookworm "
        "minbase + python3, made with debootstrap, since no registry is reachable here), run from a chroot "
        "into `podman image mount` as a restricted pod runs it (user 10001, read-only root, tmpfs spool).",
        "",
        "| what | figure | target |",
        "| --- | --- | --- |",
        f"| image size (EXTRAS={results['extras'] or 'none'}) | {size_mb:.0f} MB | "
        + ("(the target is for the image without extras)" if results["extras"] else
           f"≤ {SIZE_TARGET_MB} MB {'met' if size_mb <= SIZE_TARGET_MB else 'NOT met'}") + " |",
        f"| of which the base (Debian minbase + python3) | {results['base_bytes'] / 1e6:.0f} MB | |",
        f"| of which kdiag's layers (the venv, the user) | {(results['size_bytes'] - results['base_bytes']) / 1e6:.0f} MB | |",
        f"| `podman build`, this run ({'cold: no layer cached' if results['cold'] else 'the base image cached'}) "
        f"| {results['build_seconds']:.0f} s | |",
    ]
    cold = results.get("last_cold_build")
    if cold and not results["cold"]:
        lines.append(f"| `podman build`, cold (no layer cached; {cold['measured_at']}) | {cold['build_seconds']:.0f} s | |")
    if cold and cold["base_seconds"] > 30:
        lines.append(f"| the base: debootstrap, trim, import (once; then cached) | {cold['base_seconds']:.0f} s | |")
    lines.append(f"| `kdiag bootstrap` from the image, healthy broker | {results['bootstrap_s']:.2f} s | |")
    watch = results["watch"]
    lines += [
        f"| start to first HTTP answer (`/livez`), image (median of {watch['image_http']['runs']}) | "
        f"{watch['image_http']['median_s']:.2f} s | |",
        f"| the same from this machine's own install (reference, same run) | "
        f"{watch['host_http']['median_s']:.2f} s | image/host {watch['http_ratio']}× |",
        f"| start to first `/readyz` 200 (the first probe done), image | {watch['image_ready']['median_s']:.2f} s | |",
        f"| the same from this machine's own install | {watch['host_ready']['median_s']:.2f} s | "
        f"image/host {watch['ready_ratio']}× |",
        f"| SIGTERM to exit (median) | {watch['sigterm_exit']['median_s']:.2f} s | ≤ {STOP_LIMIT:.0f} s |",
        "",
        "Start-up is timed from the process's start (for the image, the `unshare` and `chroot` that stand in "
        "for the container runtime) to the first answer, polled every 10 ms; `/readyz` adds the first probe "
        "of a healthy broker on loopback. Image and host runs alternate, configured by `KDIAG_*` variables "
        "only; the host's is this tree's kdiag with its bytecode compiled.",
    ]
    if "capture" in results["extras"].split(","):
        lines += ["", "`kdiag bootstrap --capture` from this image: refused in one line (exit 2) as user 10001; as root "
                  "(`--user 0 --cap-add NET_RAW`) it captures the run's own Kafka connection."]
    return "\n".join(lines)


def results_name(extras: str) -> str:
    return "image" if not extras else "image-" + extras.replace(",", "-")


def last_cold_build(args: argparse.Namespace) -> dict | None:
    """This run's figures when it built every layer, else those the last such run recorded."""
    if args.cold:
        return {"base_seconds": args.base_seconds, "build_seconds": args.build_seconds,
                "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    previous = RESULTS / f"{results_name(args.extras)}.json"
    return json.loads(previous.read_text()).get("last_cold_build") if previous.exists() else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True)
    parser.add_argument("--rootfs", type=Path, required=True, help="where `podman image mount` mounted it")
    parser.add_argument("--size-bytes", type=int, required=True)
    parser.add_argument("--base-bytes", type=int, required=True)
    parser.add_argument("--build-seconds", type=float, required=True)
    parser.add_argument("--base-seconds", type=float, default=0.0)
    parser.add_argument("--extras", default="")
    parser.add_argument("--cold", action="store_true", help="the base was imported in this run: no layer was cached")
    args = parser.parse_args(argv)

    runner = ImageRunner(args.image, args.rootfs)
    ensure_bytecode()  # the reference, this tree's kdiag, compiled as an install is
    check(runner.user.split(":")[0] not in ("0", "root", ""), f"the image runs as non-root ({runner.user})")
    check(runner.entrypoint == ["kdiag"] and runner.cmd == ["watch"],
          f"ENTRYPOINT {runner.entrypoint}, CMD {runner.cmd}")
    title = "The container image" + (f" (EXTRAS={args.extras})" if args.extras else "")
    results: dict = {"title": title, "image": args.image, "extras": args.extras,
                     "size_bytes": args.size_bytes, "base_bytes": args.base_bytes,
                     "build_seconds": args.build_seconds, "base_seconds": args.base_seconds,
                     "cold": args.cold, "last_cold_build": last_cold_build(args)}
    with tempfile.TemporaryDirectory(prefix="kdiag-image-") as workdir, \
            KafkaBroker.start(loopback_specs(1)[0], version=KAFKA_VERSION, workdir=Path(workdir) / "broker") as broker:
        bootstrap = broker.bootstrap_servers
        results["bootstrap_s"] = round(smoke_bootstrap(runner, bootstrap), 3)
        if "capture" in args.extras.split(","):
            smoke_capture(runner, bootstrap)
        results["watch"] = smoke_watch(runner, bootstrap, Path(workdir))
    results["summary_md"] = summary_md(results)
    write_results(results_name(args.extras), results)
    size_mb = args.size_bytes / 1e6
    print(f"bench_image: image {size_mb:.0f} MB (target ≤ {SIZE_TARGET_MB} MB"
          f"{'' if size_mb <= SIZE_TARGET_MB else ', NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
