"""The driver JVM's class-data-sharing archive (kdiag/fleet/jvm.py): used when it is there, per Spark
and Java, never when turned off."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdiag.fleet import jvm


def test_the_archive_is_mapped_only_when_it_exists_and_is_not_turned_off(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "spark.jsa"
    monkeypatch.setenv(jvm.CDS_ENV, str(archive))
    assert jvm.class_data_sharing() == []  # not built yet: the JVM starts as without it
    archive.write_bytes(b"archive")
    assert jvm.class_data_sharing() == [f"-XX:SharedArchiveFile={archive}"]
    monkeypatch.setenv(jvm.CDS_ENV, "off")
    assert jvm.class_data_sharing() == [] and jvm.archive_path() is None


def test_each_spark_and_java_has_its_own_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyspark

    monkeypatch.delenv(jvm.CDS_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("a", "b"):
        (tmp_path / name / "bin").mkdir(parents=True)
        (tmp_path / name / "bin" / "java").write_text("#!/bin/sh\n")
        (tmp_path / name / "bin" / "java").chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "a"))
    first = jvm.archive_path()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "b"))
    second = jvm.archive_path()
    assert first and second and first != second
    assert first.parent == tmp_path / ".cache" / "kdiag" / "spark-cds" / pyspark.__version__
