"""The lines of each client family kdiag recognises: one module per family, each with its patterns.

``kdiag.explain.patterns`` runs them all, in a fixed order: librdkafka, Java, the broker's log, command
lines, kafkajs, Go, kafka-python.
"""
