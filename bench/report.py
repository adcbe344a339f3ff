"""Renders every ``bench/results/*.json`` into BENCHMARKS.md.

Each benchmark writes its own figures and a ``summary_md`` section (a table of kdiag vs its
reference, measured in the same run, with the ratio and the target); this file only gathers them.
"""

from __future__ import annotations

import json

from bench.common import REPO, RESULTS

HEADER = """# Benchmarks

Every figure here was measured by the scripts in `bench/` on this project's machine kind (2 cores,
24 GiB), kdiag side by side with a reference measured **in the same run** (kcat, tshark, the Kafka
console tools, a default confluent-kafka client). Ratios, not absolute times, are the point: the
machine is shared and absolute times move. Targets come from the issues; where a target is out of
reach for a Python process, the table says so rather than shaping the measurement.

Regenerate: `python -m kdiag.lab.sandbox -- python -m bench.bench_bootstrap` (and the other
`bench/bench_*.py`), then `python -m bench.report`.
"""


def main() -> None:
    sections = [HEADER]
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        summary = data.get("summary_md")
        if summary:
            sections.append(f"## {data.get('title', data['benchmark'])}\n\n_Measured {data['measured_at']} "
                            f"(Python {data['machine']['python']}, {data['machine']['cpus']} CPUs); raw figures "
                            f"in `bench/results/{path.name}`._\n\n{summary.strip()}\n")
    (REPO / "BENCHMARKS.md").write_text("\n".join(sections))
    print("wrote BENCHMARKS.md")


if __name__ == "__main__":
    main()
