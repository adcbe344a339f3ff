# kdiag as a container: `kdiag watch` as a sidecar next to an application (deploy/kubernetes,
# deploy/compose), or a one-off `kdiag bootstrap` from inside a cluster's network, which is exactly
# the vantage point that matters: the client's. README "Container and deployment" has the details.
#
#   docker build -t kdiag .        # BuildKit (Docker >= 23's default), for RUN --mount; or podman build
#   docker run --rm kdiag bootstrap kafka-0.kafka-headless:9092
#   docker run --rm -p 9108:9108 -e KDIAG_BOOTSTRAP=kafka:9092 kdiag      # kdiag watch
#
# Build arguments:
#   BASE     the base image; any Debian-based image with python3 >= 3.11 and its venv module
#            (default python:3.11-slim; scripts/image builds here from a local debootstrap base).
#   EXTRAS   kdiag's optional extras besides watch (always in), comma-separated. EXTRAS=capture
#            for `--capture` (scapy, and libpcap if the base lacks it), which needs root with
#            CAP_NET_RAW at run time (--user 0 --cap-add NET_RAW): not under Kubernetes' restricted
#            pod security, so not for the sidecar.
#
# An HTTPS proxy's CA for the package index, if the build needs one, is passed as a build secret
# and never stored in a layer:  --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt
ARG BASE=python:3.11-slim

# --- 1. wheels: kdiag and every dependency as wheels, with the network ------------------------------
FROM ${BASE} AS wheels
ARG EXTRAS=
WORKDIR /src
# The dependencies first, from pyproject.toml alone, so a change to kdiag's code reuses this layer.
# The CA (if given) reaches pip for this one step through PIP_CERT, set on the command line only.
COPY pyproject.toml ./
RUN --mount=type=secret,id=ca \
    set -eu; \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi; \
    python3 -m venv /opt/build; \
    python3 -c 'import sys, tomllib; project = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
extras = ["watch", *filter(None, sys.argv[1].split(","))]; \
print(*project["dependencies"], *(r for e in extras for r in project["optional-dependencies"][e]), sep="\n")' \
        "$EXTRAS" > requirements.txt; \
    /opt/build/bin/pip install --no-cache-dir --disable-pip-version-check -q "setuptools>=68" wheel; \
    /opt/build/bin/pip wheel --no-cache-dir --disable-pip-version-check -q --wheel-dir /wheels -r requirements.txt; \
    mkdir -p /debs; \
    case ",$EXTRAS," in *,capture,*) \
        if ! dpkg -s libpcap0.8 >/dev/null 2>&1; then \
            apt-get update -qq && apt-get install -y -qq --download-only --no-install-recommends \
                -o Dir::Cache::archives=/debs libpcap0.8 && rm -f /debs/lock && rm -rf /debs/partial; \
        fi;; \
    esac
# Then kdiag itself, with no network: the setuptools just installed builds it.
COPY README.md ./
COPY probes ./probes
COPY kdiag ./kdiag
RUN /opt/build/bin/pip wheel --no-cache-dir --disable-pip-version-check -q --no-index --no-deps \
        --no-build-isolation --wheel-dir /wheels .

# --- 2. the image: the wheels installed with no network, a non-root user ------------------------
FROM ${BASE} AS kdiag
ARG EXTRAS=
# Only what the wheels stage built is used: pip --no-index, dpkg on the downloaded packages. The
# image's venv has no pip: the wheels stage's pip installs into it (pip --python). The dependencies
# first, then kdiag, so that a change to kdiag's code reinstalls kdiag alone. What each step installs
# is copied in (the requirements, kdiag's wheel: a few kB) rather than only mounted, so that a builder
# whose cache key ignores a mounted stage's content (buildah) still reruns the step when it changes.
COPY --from=wheels /src/requirements.txt /tmp/kdiag-build/
RUN --mount=type=bind,from=wheels,source=/wheels,target=/tmp/wheels \
    --mount=type=bind,from=wheels,source=/debs,target=/tmp/debs \
    --mount=type=bind,from=wheels,source=/opt/build,target=/opt/build \
    set -eu; \
    if ls /tmp/debs/*.deb >/dev/null 2>&1; then dpkg -i /tmp/debs/*.deb >/dev/null; fi; \
    python3 -m venv --without-pip /opt/kdiag; \
    /opt/build/bin/python -m pip --python /opt/kdiag/bin/python install --no-index --find-links /tmp/wheels \
        --no-cache-dir --disable-pip-version-check -q -r /tmp/kdiag-build/requirements.txt; \
    groupadd --gid 10001 kdiag; \
    useradd --uid 10001 --gid 10001 --no-create-home --home-dir /var/lib/kdiag --shell /usr/sbin/nologin kdiag; \
    mkdir -p /var/lib/kdiag/spool /var/lib/kdiag/reports; \
    chown -R 10001:10001 /var/lib/kdiag; \
    rm -rf /tmp/kdiag-build /var/lib/apt/lists/* /var/cache/apt/*.bin /root/.cache
COPY --from=wheels /wheels/kdiag-*.whl /tmp/kdiag-build/
RUN --mount=type=bind,from=wheels,source=/opt/build,target=/opt/build \
    set -eu; \
    /opt/build/bin/python -m pip --python /opt/kdiag/bin/python install --no-index --no-deps \
        --no-cache-dir --disable-pip-version-check -q /tmp/kdiag-build/kdiag-*.whl; \
    ln -s /opt/kdiag/bin/kdiag /usr/local/bin/kdiag; \
    rm -rf /tmp/kdiag-build /root/.cache

# Under readOnlyRootFilesystem only /var/lib/kdiag (an emptyDir in Kubernetes) and /tmp are written.
ENV PATH=/opt/kdiag/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/var/lib/kdiag
WORKDIR /var/lib/kdiag
VOLUME ["/var/lib/kdiag"]
EXPOSE 9108
# A numeric user, so Kubernetes' runAsNonRoot can verify it without an /etc/passwd lookup.
USER 10001:10001
ENTRYPOINT ["kdiag"]
CMD ["watch"]
