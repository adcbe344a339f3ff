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
    assert jvm.class_data_sharing() == [f"-XX:SharedArchiveFile={archive}", jvm.QUIET]
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


# `public class Hi { public static void main(String[] a) { } }`, compiled with javac --release 11 -g:none (the
# project needs only a JRE, so the test carries the class file instead of compiling it)
HI_CLASS = ("yv66vgAAADcADAoAAgADBwAEDAAFAAYBABBqYXZhL2xhbmcvT2JqZWN0AQAGPGluaXQ+AQADKClWBwAIAQACSGkBAARDb2RlAQAEbWFp"
            "bgEAFihbTGphdmEvbGFuZy9TdHJpbmc7KVYAIQAHAAIAAAAAAAIAAQAFAAYAAQAJAAAAEQABAAEAAAAFKrcAAbEAAAAAAAkACgALAAEA"
            "CQAAAA0AAAABAAAAAbEAAAAAAAA=")


def test_an_archive_the_jvm_cannot_map_says_nothing_on_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real JVM given an archive of another class path (what the Kafka source's jars make of Spark's): without
    QUIET it prints "[warning][cds,dynamic] Unable to use shared archive" on stdout, among kdiag's own output."""
    import base64
    import shutil
    import subprocess
    import zipfile

    java = shutil.which("java")
    assert java, "the fleet's tests need Java"
    jars = [tmp_path / "first.jar", tmp_path / "second.jar"]
    for jar in jars:
        with zipfile.ZipFile(jar, "w") as archive_file:
            archive_file.writestr("Hi.class", base64.b64decode(HI_CLASS))
    archive = tmp_path / "first.jsa"
    subprocess.run([java, f"-XX:ArchiveClassesAtExit={archive}", "-cp", str(jars[0]), "Hi"], capture_output=True,
                   timeout=120, check=True)
    monkeypatch.setenv(jvm.CDS_ENV, str(archive))

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([java, *options, "-cp", str(jars[1]), "Hi"], capture_output=True, text=True, timeout=120)

    loud, quiet = run(f"-XX:SharedArchiveFile={archive}"), run(*jvm.class_data_sharing())
    assert "shared archive" in loud.stdout  # the JVM does warn without QUIET: the check below is not vacuous
    assert quiet.returncode == 0 and quiet.stdout == "" and "shared archive" not in quiet.stderr
