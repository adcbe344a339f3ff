"""``kdiag watch``: the sidecar agent.

It probes the cluster in process every interval (``agent.Agent``, one probe at a time, each bounded
by its own deadline: ``prober``), keeps the last report, logs transitions (``log``), serves
``/metrics`` ``/livez`` ``/readyz`` ``/report`` and ``/probe`` (``http``, ``metrics``), and hands
each report to the sinks (``kdiag.sinks``). ``kdiag.commands.watch`` parses the options.
"""
