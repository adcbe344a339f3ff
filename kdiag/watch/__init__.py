"""``kdiag watch``: the sidecar.

It probes the cluster in process every interval (``loop.WatchLoop``, one probe at a time, each
bounded by its own deadline: ``bounded.BoundedRunner``), keeps the last report (``state``), logs
transitions (``log``), serves ``/metrics`` ``/livez`` ``/readyz`` ``/report`` and ``/probe``
(``http``, ``metrics``), and hands each report to the sinks (``kdiag.sinks``).
``kdiag.commands.watch`` parses the options.
"""
