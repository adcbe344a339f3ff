"""See the metadata on the wire: ``kdiag pcap FILE`` and ``kdiag bootstrap --capture``.

Offline files are read by a raw streaming reader (:mod:`kdiag.capture.pcapio`), reassembled per
TCP connection (:mod:`kdiag.capture.reassembly`), framed as Kafka (:mod:`kdiag.capture.kafka_streams`) by
the analyzer (:mod:`kdiag.capture.flows`), decoded by the same codec as the active probe
(``probes.codec``), and summarised with findings (:mod:`kdiag.capture.timeline`).
Live capture (:mod:`kdiag.capture.live`) is the only place scapy is imported.
"""
