"""kafka-python's lines (from its source; no lab situation produces them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import ALL_DOWN, KAFKA_PYTHON, Item, Pattern, ScanState, Sighting, registrar
PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# --- kafka-python ----------------------------------------------------------------------------------


@pattern("kafka_python.no_brokers", KAFKA_PYTHON, "NoBrokersAvailable", r"NoBrokersAvailable",
         "kafka.errors.NoBrokersAvailable: NoBrokersAvailable")
def _kafka_python_no_brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, KAFKA_PYTHON, detail="NoBrokersAvailable")
