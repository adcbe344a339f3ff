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


def test_the_jit_directives_leave_sparks_runtime_and_generated_code_to_c2() -> None:
    """The directives take C2 away from the planners only: a pattern matching Spark's runtime, its generated
    code, Parquet or the JDK's collections would slow every task of a large analysis."""
    import json

    directives = json.loads(jvm.DIRECTIVES.read_text())
    patterns = [pattern for directive in directives for pattern in directive["match"]]
    assert patterns and all(directive["c2"] == {"Exclude": True} and "c1" not in directive for directive in directives)
    for hot in ("org/apache/spark/sql/catalyst/expressions/GeneratedClass", "org/apache/spark/unsafe/Platform",
                "org/apache/parquet/column/values/ValuesReader", "java/util/HashMap", "scala/collection/mutable/HashMap"):
        assert not any(hot.startswith(pattern.split("*")[0]) for pattern in patterns), hot


def test_a_jvm_given_the_jit_directives_starts_and_says_nothing_on_stdout() -> None:
    """It says "1 compiler directives added" as it starts: on standard error, not among kdiag's output."""
    import shutil
    import subprocess

    java = shutil.which("java")
    assert java, "the fleet's tests need Java"
    run = subprocess.run([java, *jvm.compiler_directives(), "-version"], capture_output=True, text=True, timeout=120)
    assert jvm.compiler_directives()[-1] == f"-XX:CompilerDirectivesFile={jvm.DIRECTIVES}"
    assert run.returncode == 0 and run.stdout == "" and "1 compiler directives added" in run.stderr


def test_the_jit_directives_go_to_a_large_analysis_only() -> None:
    from kdiag.fleet.job import SMALL_JVM_OPTIONS, driver_java_options

    large = driver_java_options(small=False, directives=True, verbose=True)
    assert f"-XX:CompilerDirectivesFile={jvm.DIRECTIVES}" in large and SMALL_JVM_OPTIONS not in large
    small = driver_java_options(small=True, directives=True, verbose=True)
    assert SMALL_JVM_OPTIONS in small and not any("Directives" in option for option in small)
    assert not any("Directives" in option for option in driver_java_options(small=False, directives=False,
                                                                              verbose=False))
