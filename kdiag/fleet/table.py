"""The reports table's directories (``kdiag fleet ingest`` writes it, ``kdiag fleet analyze --table``
reads it), through Hadoop's file system in Spark's JVM: local paths, ``hdfs://``, ``s3a://``."""

from __future__ import annotations

import json
from typing import Any

from kdiag.fleet.inputs import InputError

TABLE_FORMAT = "kdiag.fleet-table/1"
META = "_kdiag_table.json"
CHECKPOINT = "_checkpoint"


class Table:
    """The reports table's directories, through Hadoop's file system (local, hdfs://, s3a://)."""

    def __init__(self, spark: Any, root: str) -> None:
        self.spark = spark
        self.root = root.rstrip("/")
        jvm = spark._jvm
        self._Path = jvm.org.apache.hadoop.fs.Path
        self.fs = self._Path(self.root).getFileSystem(spark._jsc.hadoopConfiguration())

    @property
    def reports(self) -> str:
        return f"{self.root}/reports"

    @property
    def rejected(self) -> str:
        return f"{self.root}/rejected"

    @property
    def checkpoint(self) -> str:
        return f"{self.root}/{CHECKPOINT}"

    def path(self, text: str) -> Any:
        return self._Path(text)

    def children(self, directory: str) -> list[str]:
        """Names in ``directory`` (none when it does not exist)."""
        path = self._Path(directory)
        if not self.fs.exists(path):
            return []
        return sorted(status.getPath().getName() for status in self.fs.listStatus(path))

    def size(self, path: str) -> int:
        """Bytes of the files below ``path``."""
        return int(self.fs.getContentSummary(self._Path(path)).getLength())

    def delete(self, directory: str) -> None:
        self.fs.delete(self._Path(directory), True)

    def mkdirs(self, directory: str) -> None:
        self.fs.mkdirs(self._Path(directory))

    def rename(self, source: str, target: str) -> bool:
        return bool(self.fs.rename(self._Path(source), self._Path(target)))

    def read_meta(self) -> dict[str, Any] | None:
        path = self._Path(f"{self.root}/{META}")
        if not self.fs.exists(path):
            return None
        stream = self.fs.open(path)
        try:
            data = bytes(self.spark._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError:
            raise InputError(f"{self.root}/{META}: not a kdiag table's description (not JSON)") from None

    def write_meta(self, meta: dict[str, Any]) -> None:
        stream = self.fs.create(self._Path(f"{self.root}/{META}"), True)
        stream.write(bytearray((json.dumps(meta, indent=1) + "\n").encode("utf-8")))
        stream.close()
