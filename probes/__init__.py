"""Staged network probes and the sans-I/O Kafka wire codec they share with the packet capture."""
