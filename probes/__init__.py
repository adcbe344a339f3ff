"""Staged network probes and the sans-I/O Kafka wire codec they share with the packet capture.

Nothing here imports ``kdiag``: the probes are the bottom layer. The distribution's version lives
here for that reason (the probes announce it to brokers in ApiVersions); ``kdiag.__version__`` is
this same value.
"""

__version__ = "0.1.0"  # keep equal to pyproject.toml's version (tests/unit/architecture checks)
