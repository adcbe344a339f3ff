"""The fleet pipeline: millions of kdiag reports in, "which clients fail where, since when, and why" out.

``kdiag.fleet.job`` is the Spark job (``spark-submit kdiag/fleet/job.py`` runs it as is); Spark is
imported there and nowhere else, and only when a fleet command runs. ``kdiag.fleet.generate`` builds
realistic reports with the real report model and diagnosis rules, with the incidents it planted;
``kdiag.fleet.reference`` computes the same tables in plain Python (the ground truth the tests and
the benchmark compare against). ``kdiag.fleet.tables`` declares the output tables' columns, the
contract docs/report.md documents.
"""
