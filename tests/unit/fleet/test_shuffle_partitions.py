"""How many shuffle partitions the fleet job asks for in local mode: few for a small input, more as the
input grows (4 for every size put a million reports in each task of a 4-million-report run, and caching
one ran the driver out of heap: BENCHMARKS.md, the fleet section)."""

from __future__ import annotations

from kdiag.fleet.job import LOCAL_SHUFFLE_PARTITIONS, local_shuffle_partitions


def test_a_small_input_keeps_a_few_shuffle_partitions() -> None:
    assert local_shuffle_partitions(1) == LOCAL_SHUFFLE_PARTITIONS
    assert local_shuffle_partitions(8) == LOCAL_SHUFFLE_PARTITIONS


def test_a_large_input_gets_one_shuffle_partition_per_two_input_splits() -> None:
    assert local_shuffle_partitions(48) == 24  # 1 M generated reports: 5.9 GB of JSON lines
    assert local_shuffle_partitions(195) == 97  # 4 M: 23.7 GB
