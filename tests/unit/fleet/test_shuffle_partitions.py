"""How many shuffle partitions the fleet job starts with (before adaptive query execution coalesces
them to about 64 MB each, under every master): one per input split, and at least two per core."""

from __future__ import annotations

from pathlib import Path

from kdiag.fleet.job import ADAPTIVE, shuffle_partitions


def test_a_small_input_starts_with_two_partitions_per_core() -> None:
    assert shuffle_partitions(1, 2) == 4
    assert shuffle_partitions(3, 16) == 32


def test_a_large_input_starts_with_one_partition_per_input_split() -> None:
    assert shuffle_partitions(48, 2) == 48  # 1 M generated reports: 5.9 GB of JSON lines
    assert shuffle_partitions(195, 8) == 195  # 4 M: 23.7 GB


def test_adaptive_coalescing_is_on_and_sized_by_bytes_not_by_cores() -> None:
    assert ADAPTIVE["spark.sql.adaptive.enabled"] == "true"
    assert ADAPTIVE["spark.sql.adaptive.coalescePartitions.enabled"] == "true"
    assert ADAPTIVE["spark.sql.adaptive.coalescePartitions.parallelismFirst"] == "false"


def test_a_small_local_input_gets_the_start_up_jvm_and_a_remote_one_does_not(tmp_path: Path) -> None:
    from kdiag.fleet.inputs import FileInputs
    from kdiag.fleet.job import small_input

    (tmp_path / "a.jsonl").write_text("{}\n")
    assert small_input(FileInputs(lines=(str(tmp_path / "a.jsonl"),)), None)
    assert small_input(FileInputs(), str(tmp_path))
    assert not small_input(FileInputs(lines=("s3a://bucket/a.jsonl",)), None)
    assert not small_input(FileInputs(), "hdfs:///kdiag/table")


def test_a_small_inputs_shuffles_are_planned_once_with_one_partition_per_core() -> None:
    from kdiag.fleet.job import SMALL_SETTINGS

    assert SMALL_SETTINGS["spark.sql.adaptive.enabled"] == "false"
    assert SMALL_SETTINGS["spark.sql.inMemoryColumnarStorage.compressed"] == "false"


def test_a_small_inputs_executors_on_a_cluster_get_the_start_up_jvm_and_local_mode_has_none() -> None:
    from kdiag.fleet.job import SMALL_JVM_OPTIONS, executor_settings

    assert executor_settings("local[*]") == {}
    assert executor_settings("local[2]") == {}
    assert executor_settings("spark://127.0.0.1:7077") == {"spark.executor.extraJavaOptions": SMALL_JVM_OPTIONS}
    assert "-XX:TieredStopAtLevel=1" in SMALL_JVM_OPTIONS
