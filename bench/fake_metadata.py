"""A scripted broker that advertises N brokers at one address on N ports (for bench_bootstrap).

    python -m bench.fake_metadata --port 19092 --advertise 192.0.2.1 --ports 9101-9110

It answers ApiVersions and Metadata on every connection, prints ``ready`` once listening, and
runs until killed. Used only to measure kdiag's parallelism; the real broker is used elsewhere.
"""

from __future__ import annotations

import argparse
import time

from probes.codec import MetadataBroker
from tests.fakebroker import API_VERSIONS, METADATA, FakeBroker, answer_api_versions, metadata_response, respond


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--advertise", required=True)
    parser.add_argument("--ports", required=True, help="FIRST-LAST")
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    first, last = (int(p) for p in args.ports.split("-"))
    brokers = [MetadataBroker(node_id, args.advertise, port)
               for node_id, port in enumerate(range(first, last + 1), start=1)]

    def answer_metadata(header, _body):
        return metadata_response(header.api_version, brokers=brokers, cluster_id="benchFilteredCluster0",
                                 controller_id=1)

    script = [respond(API_VERSIONS, answer_api_versions()), respond(METADATA, answer_metadata)]
    with FakeBroker(*([script] * args.connections)) as broker:
        print(f"ready {broker.port}", flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
