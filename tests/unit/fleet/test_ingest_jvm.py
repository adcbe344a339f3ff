"""Which driver JVM ``kdiag fleet ingest`` starts, by the size of what it has new to read (ingest's own
threshold, SMALL_INGEST_BYTES, measured by bench/bench_fleet_ingest_jit.py): the run is followed into
``ingest()`` up to the session it asks for, with report files of the measured sizes (sparse files: their
size is all that is read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdiag.fleet import ingest as ingest_module
from kdiag.fleet import job
from kdiag.fleet.ingest import IngestOptions, ingest


class Asked(Exception):
    """Raised where the run would start Spark, with the JVM it asked for."""


def _jvm_of_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_bytes: int, *sources: str) -> str:
    source = tmp_path / "in"
    source.mkdir(exist_ok=True)
    with open(source / "part-0.jsonl", "wb") as handle:
        handle.truncate(new_bytes)

    def session(options, *, kafka: bool, small: bool = False):  # noqa: ANN001, ANN202
        raise Asked(job.SMALL_JVM_OPTIONS if small else "default")

    monkeypatch.setattr(job, "check_java", lambda: None)
    monkeypatch.setattr(job, "spark_session", session)
    with pytest.raises(Asked) as asked:
        ingest(IngestOptions((str(source), *sources), str(tmp_path / "table"), once=True))
    return str(asked.value)


GB = 1_000_000_000


@pytest.mark.parametrize(("new_bytes", "jvm"), [
    (int(0.13 * GB), job.SMALL_JVM_OPTIONS),  # 20,000 new reports: C1 13.0 CPU-s, C2 22.4
    (int(0.62 * GB), job.SMALL_JVM_OPTIONS),  # 100,000: C1 28.2, C2 34.7
    (int(1.0 * GB), "default"),  # past the crossover (150,000: 0.93 GB, 41.1 against 41.4), under analyze's 1 GiB
    (int(1.26 * GB), "default"),  # 200,000, a day of the 4 M table: C2 50.5, C1 56.7
    (int(6.23 * GB), "default"),  # 1,000,000: C2 133.1, C1 254.1
])
def test_an_ingest_gets_the_start_up_jvm_only_for_a_new_input_under_its_threshold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_bytes: int, jvm: str) -> None:
    assert _jvm_of_a_run(tmp_path, monkeypatch, new_bytes) == jvm


def test_an_ingest_whose_new_input_is_unknown_gets_the_default_jvm(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kdiag.fleet.kafka_input.check_topics", lambda topics: None)
    assert _jvm_of_a_run(tmp_path, monkeypatch, 1000, "kafka://127.0.0.1:9/reports") == "default"


def test_ingest_has_its_own_threshold_apart_from_analyzes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job, "SMALL_INPUT_BYTES", 0)  # analyze's threshold does not decide an ingest's JVM
    assert ingest_module.small_ingest(ingest_module.SMALL_INGEST_BYTES - 1)
    assert not ingest_module.small_ingest(ingest_module.SMALL_INGEST_BYTES)
    assert not ingest_module.small_ingest(None)
