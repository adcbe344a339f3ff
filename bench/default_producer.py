"""One message through a confluent-kafka Producer left at its defaults: how long until its delivery report.

    python -m bench.default_producer TOPIC < settings.json

The client settings come as a JSON object on stdin: ``bootstrap.servers`` and, only where the vantage
needs them to speak its listener's protocol, its security settings; nothing else, so every timeout is
librdkafka's default (``message.timeout.ms`` 300 s bounds the delivery). It produces one message to
TOPIC, polls until the delivery report arrives, with no deadline of its own, and prints one JSON line:
``outcome`` (succeeded or failed), ``seconds`` from ``produce()`` to the report, and the error's name,
code and text. ``bench.bench_lab`` runs it inside a lab namespace and times the whole process.
"""

from __future__ import annotations

import json
import sys
import time

from confluent_kafka import KafkaError, KafkaException, Producer

MESSAGE = b"kdiag-bench"
TIMEOUT_ERRORS = frozenset({
    KafkaError._MSG_TIMED_OUT, KafkaError._TIMED_OUT, KafkaError.REQUEST_TIMED_OUT,
    # A topic the metadata says does not exist fails the message only once topic.metadata.propagation.max.ms
    # (30 s) has passed since it was first seen missing: the client waited on that timeout.
    KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC,
})  # fmt: skip
"""Error codes that mean the client gave up on a timeout rather than on an answer."""


def outcome(error: KafkaError | None, seconds: float) -> dict:
    if error is None:
        return {"outcome": "succeeded", "seconds": round(seconds, 3)}
    return {"outcome": "failed", "seconds": round(seconds, 3), "error_name": error.name(), "error_code": error.code(),
            "error": error.str(), "timed_out": error.code() in TIMEOUT_ERRORS}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    topic = argv[0]
    settings = json.load(sys.stdin)
    reports: list[KafkaError | None] = []
    started = time.perf_counter()
    try:
        producer = Producer(settings)
        producer.produce(topic, MESSAGE, on_delivery=lambda error, _message: reports.append(error))
    except KafkaException as exc:
        result = outcome(exc.args[0], time.perf_counter() - started)
    else:
        while not reports:
            producer.poll(1.0)
        result = outcome(reports[0], time.perf_counter() - started)
    print(json.dumps(result), flush=True)
    return 0 if result["outcome"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
