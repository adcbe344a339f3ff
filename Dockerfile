# kdiag as a container: for a sidecar next to an application, or a one-off run from inside a
# cluster's network (which is exactly the vantage point that matters: the client's).
#
#   docker build -t kdiag .
#   docker run --rm kdiag bootstrap kafka-0.kafka-headless:9092
#   docker run --rm --cap-add NET_RAW kdiag bootstrap kafka:9092 --capture      # the metadata on the wire
#
# Live capture needs CAP_NET_RAW (Kubernetes: securityContext.capabilities.add: [NET_RAW]); nothing
# else needs privileges. Note: this project's machines have no Docker engine, so this file is not
# built in CI; the same install steps (pip install '.[capture]', libpcap) are what CI exercises.
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends libpcap0.8 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md ./
COPY kdiag ./kdiag
COPY probes ./probes
RUN pip install --no-cache-dir '.[capture]' && rm -rf /src

RUN useradd --system --uid 10001 kdiag
USER kdiag
WORKDIR /home/kdiag
ENTRYPOINT ["kdiag"]
CMD ["--help"]
