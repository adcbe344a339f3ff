"""The real clients the lab's capture tests run, as a customer would paste them: ``(argv, what the user typed)``.

A confluent-kafka producer sending one message, and Kafka 3.9.2's console producer (kafka-clients 3.9.2, its
tools' log4j settings, a 64 MB heap) fed one line; each with the client settings a test gives.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from kdiag.lab.kafka import cache_root, install
from tests.integration.test_explain_real_clients import CONSOLE_VERSION, TOOLS_LOG4J

Command = tuple[list[str], str]


def confluent_producer(bootstrap: str, topic: str, settings: Mapping[str, object]) -> Command:
    config = {"bootstrap.servers": bootstrap, **settings}
    code = (f"from confluent_kafka import Producer\np = Producer({config!r})\n"
            f"p.produce({topic!r}, b'hello', on_delivery=lambda err, msg: print('delivery failed:', err) if err "
            "else None)\np.flush(10)")
    return [sys.executable, "-c", code], f"python3 - <<EOF\n{code}\nEOF"


def console_producer(bootstrap: str, topic: str, settings: Sequence[str], state_dir: Path) -> Command:
    lib, tools = install(CONSOLE_VERSION), cache_root() / CONSOLE_VERSION / "tools"
    log4j = state_dir / "tools-log4j.properties"
    log4j.write_text(TOOLS_LOG4J)
    args = ["--bootstrap-server", bootstrap, "--topic", topic]
    for setting in settings:
        args += ["--producer-property", setting]
    java = ["java", "-Xmx64m", f"-Dlog4j.configuration=file:{log4j}", "-cp", f"{lib}/*{os.pathsep}{tools}/*",
            "kafka.tools.ConsoleProducer", *args]
    shown = shlex.join(["kafka-console-producer.sh", *args])
    return ["sh", "-c", f"echo hello | {shlex.join(java)}"], f"echo hello | {shown}"
