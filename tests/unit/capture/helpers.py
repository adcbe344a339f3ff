"""Shared test data for the capture tests."""

import random

from kdiag.capture.synthetic import Broker

BROKERS = (Broker(1, "kafka-1.internal", 19092, "rack-a"), Broker(2, "kafka-2.internal", 19092, None))


def noise(size: int, seed: int = 0) -> bytes:
    """Random-looking bytes, the same on every run."""
    return random.Random(seed).randbytes(size)
