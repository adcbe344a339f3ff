"""Shared test data for the capture tests."""

from kdiag.capture.synthetic import Broker

BROKERS = (Broker(1, "kafka-1.internal", 19092, "rack-a"), Broker(2, "kafka-2.internal", 19092, None))
