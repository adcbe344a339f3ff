"""kdiag: Kafka client-connectivity diagnostics."""

from probes import __version__

__all__ = ["__version__"]
