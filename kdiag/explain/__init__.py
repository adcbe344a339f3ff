"""``kdiag explain``: a Kafka client's error output in, the findings it supports out.

A support engineer pastes what a customer sent, a whole log if need be. kdiag reads it once, line by
line and in bounded memory (``reader``), recognises the client error lines of librdkafka (and so
confluent-kafka and kcat), the Java client and console tools, kafkajs, Sarama and franz-go, and the
broker's own log (``clients/``, one module per family, gathered in order by ``patterns``), gathers
what they say per endpoint with a count (``observations``, ``engine``), and answers with the
report's finding ids, an explanation quoting the client's own words, and the fix the report's own
rule gives for the facts the log implies (``findings``, ``builders``, ``implied``), plus the
``kdiag bootstrap`` command that confirms it.

The command is ``kdiag/commands/explain.py`` and the view ``kdiag/render/explain.py``;
``explain(lines)`` is the API::

    from kdiag.explain import explain_stream, explain_text
    explanation = explain_text(text)            # or explain_stream(open("app.log", "rb"))
    explanation.findings, explanation.unrecognised_lines
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "explain": "kdiag.explain.engine", "explain_text": "kdiag.explain.engine", "explain_stream": "kdiag.explain.engine",
    "Explanation": "kdiag.explain.engine",
    "explanation_to_dict": "kdiag.explain.engine", "SCHEMA": "kdiag.explain.engine",
    "read_blocks": "kdiag.explain.reader", "read_lines": "kdiag.explain.reader", "Block": "kdiag.explain.reader",
    "PATTERNS": "kdiag.explain.patterns",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The API, imported on first use: ``kdiag --help`` imports this package and must stay fast."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kdiag.explain' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
