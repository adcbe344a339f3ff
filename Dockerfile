# kdiag as a container: for a sidecar next to an application, or a one-off run from inside a
# cluster's network (which is exactly the vantage point that matters: the client's).
#
#   docker build -t kdiag .
#   docker run --rm kdiag bootstrap kafka-0.kafka-headless:9092
#   docker run --rm kdiag bootstrap kafka:9092 --capture     # the metadata on the wire (needs NET_RAW)
#
# Live capture needs CAP_NET_RAW (Docker's default set has it; Kubernetes:
# securityContext.capabilities.add: [NET_RAW]); nothing else needs privileges.
# This project's machines have no Docker engine, so this file is not built in CI; the same install
# steps (pip install '.[capture]', libpcap) are what CI exercises.
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends libpcap0.8 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md ./
COPY kdiag ./kdiag
COPY probes ./probes
RUN pip install --no-cache-dir '.[capture]' && rm -rf /src

# Root inside the container on purpose: a capability such as NET_RAW only reaches a process whose
# user is root (or through file capabilities); Docker grants NET_RAW by default, and restricted pod
# policies that drop it only lose --capture, which then says so in one line.
ENTRYPOINT ["kdiag"]
CMD ["--help"]
