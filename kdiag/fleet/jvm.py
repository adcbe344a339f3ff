"""The driver JVM's class-data-sharing archive: the ~2,000 classes Spark loads to start a session and
run a job, kept parsed and verified in a file that the JVM maps at start-up instead of reading them
from the jars again. It halves the fixed CPU cost of a run (an ingest run with nothing new: 8.3 CPU-s
without it, 4.4 with it, measured side by side), which is most of what a small run costs.

``scripts/setup`` builds it once (``python3 -m kdiag.fleet.jvm``: a small generated fleet ingested and
analyzed in one JVM that writes the classes it loaded at exit) into
``~/.cache/kdiag/spark-cds/<Spark version>/<the java binary's hash>.jsa``. A run uses it when it is
there; a JVM that cannot use it (another Java build, another class path) ignores it and starts as
without it. ``KDIAG_SPARK_CDS=off`` turns it off; ``KDIAG_SPARK_CDS=PATH`` names another archive.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CDS_ENV = "KDIAG_SPARK_CDS"
BUILD_REPORTS = 300
BUILD_TIMEOUT_S = 900


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    binary = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(binary) if binary and os.access(binary, os.X_OK) else None


def archive_path() -> Path | None:
    """Where this Spark's and this Java's archive is kept (None: no Java, or turned off)."""
    import pyspark

    chosen = os.environ.get(CDS_ENV, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    java = _java()
    if java is None:
        return None
    tag = hashlib.sha256(java.encode("utf-8")).hexdigest()[:16]
    return Path.home() / ".cache" / "kdiag" / "spark-cds" / pyspark.__version__ / f"{tag}.jsa"


QUIET = "-Xlog:cds*=off"
"""An archive that cannot be mapped (another class path: the Kafka source's jars, a SPARK_CONF_DIR) is only a
slower start; without this the JVM says so in a warning on stdout, in the middle of kdiag's own output."""


def class_data_sharing() -> list[str]:
    """The driver JVM's options that map the archive, when there is one, and keep its mapping quiet."""
    path = archive_path()
    return [f"-XX:SharedArchiveFile={path}", QUIET] if path is not None and path.is_file() else []


DIRECTIVES = Path(__file__).with_name("jit-directives.json")
"""The JIT's directives for a large analysis's driver JVM (the default JVM, with C2): the code that only
plans and ships the work — Janino compiling Spark's generated code, the SQL parser (ANTLR), the bytecode
libraries (ASM), Scala's reflection, Java serialization of the tasks — is left to C1 (full optimization,
no profiling) and never compiled again by C2; Spark's runtime and the generated code keep C2. Profiled
(Java Flight Recorder, 1,000,000 reports' table on the default JVM): 28,900 methods compiled, 94 s of
compile time, C2 compiling those planners among the longest; with them excluded a run took 9 % less
CPU at 1 M reports and 7 % less at 4 M, side by side (BENCHMARKS.md, kdiag fleet, fleet-table-cpu)."""


def compiler_directives() -> list[str]:
    """The driver JVM's options that load DIRECTIVES (none when the file is missing: a JVM given a
    directives file it cannot read does not start). The JVM says "1 compiler directives added" as it
    loads them, on its own output stream: sent to standard error (which kdiag keeps out of sight while
    the JVM starts), not into kdiag's output on stdout."""
    if not DIRECTIVES.is_file():
        return []
    return ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DisplayVMOutputToStderr", f"-XX:CompilerDirectivesFile={DIRECTIVES}"]


def build() -> Path:
    """Builds the archive: a small generated fleet ingested and analyzed from its table in one driver
    JVM that writes the classes it loaded (-XX:ArchiveClassesAtExit) into a temporary file, renamed
    into place when the JVM has exited."""
    path = archive_path()
    if path is None:
        raise SystemExit("kdiag.fleet.jvm: no Java runtime, or KDIAG_SPARK_CDS=off")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    quiet = Path(__file__).with_name("log4j2-quiet.properties")
    options = f"-Dlog4j2.configurationFile=file:{quiet} -XX:ArchiveClassesAtExit={partial}"
    with tempfile.TemporaryDirectory(prefix="kdiag-cds-") as work:
        env = {**os.environ, CDS_ENV: "off", "PYSPARK_SUBMIT_ARGS": f'--driver-java-options "{options}" pyspark-shell'}
        warm = subprocess.run([sys.executable, "-c", _WARM_UP, work], env=env, check=True, timeout=BUILD_TIMEOUT_S,
                              stdout=subprocess.PIPE, text=True)
    # the JVM writes the archive as it exits, after the Python process that started it has ended
    pid = next(int(line.split("=", 1)[1]) for line in warm.stdout.splitlines() if line.startswith(_PID))
    deadline = time.monotonic() + BUILD_TIMEOUT_S
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    if not partial.is_file():
        raise SystemExit(f"kdiag.fleet.jvm: the JVM wrote no archive at {partial}")
    partial.replace(path)
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_PID = "kdiag-jvm-pid="
_WARM_UP = f"""
import sys
from pathlib import Path
from kdiag.fleet.generate import GenerateOptions, generate
from kdiag.fleet.ingest import IngestOptions, ingest
from kdiag.fleet.job import AnalyzeOptions, analyze
work = Path(sys.argv[1])
generate(GenerateOptions(reports={BUILD_REPORTS}, clusters=3, vantages=4, out=work / "fleet", seed=1, truth=False))
ingest(IngestOptions((str(work / "fleet"),), str(work / "table"), once=True))
analyze(AnalyzeOptions(inputs=(), table=str(work / "table"), out=str(work / "out"), html=False))
analyze(AnalyzeOptions(inputs=(str(work / "fleet"),), out=str(work / "raw"), html=False))
from pyspark.sql import SparkSession
print("kdiag-jvm-pid=" + str(SparkSession.builder.getOrCreate()._jvm.java.lang.ProcessHandle.current().pid()))
"""


if __name__ == "__main__":
    print(f"kdiag.fleet.jvm: wrote {build()}")
