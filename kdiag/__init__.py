"""kdiag: Kafka client-connectivity diagnostics."""

__version__ = "0.1.0"
