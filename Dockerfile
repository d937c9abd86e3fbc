# ddkit in a container: every record of one config file, run again every 5 minutes (docs/docker.md).
#   docker build -t ddkit .
#   docker run -d --name ddkit --init --restart unless-stopped \
#     -v /etc/ddkit/ddkit.conf:/config/ddkit.conf:ro -v ddkit-state:/state ddkit
# The config file holds the credentials: it is mounted read-only, owned by uid 10001 and mode 600,
# never copied into the image nor given as -e or an argument, which `docker inspect` and ps show.
ARG PYTHON_VERSION=3.13

# the wheel, built from this tree by pip with a setuptools of its own (it stays in this stage)
FROM python:${PYTHON_VERSION}-alpine AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY bin/ bin/
COPY lib/ lib/
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels .

FROM python:${PYTHON_VERSION}-alpine
# the tools alone (no dependency: the standard library), compiled as root at install, so that the
# runs, as ddkit, write nothing but their state; /state, the user's home, alone may be written to, by
# ddkit alone (the tools refuse a state directory or config file others could change)
COPY --from=build /wheels/ /tmp/wheels/
RUN pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore --no-deps /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && addgroup -S -g 10001 ddkit \
    && adduser -S -D -H -u 10001 -G ddkit -h /state -s /sbin/nologin ddkit \
    && mkdir -p /state /config \
    && chown ddkit:ddkit /state && chmod 700 /state
# a record without state_dir keeps its files in the volume, whichever default applies: the home
# (updater_a, updater_b; also for a run under `--user`, whose uid has no passwd line) or ddkit's
# $XDG_STATE_HOME/ddkit; unbuffered: each run's lines reach `docker logs` as the run writes them
ENV HOME=/state XDG_STATE_HOME=/state PYTHONUNBUFFERED=1
USER 10001:10001
WORKDIR /state
VOLUME ["/state"]

LABEL org.opencontainers.image.title="ddkit" \
      org.opencontainers.image.description="Keep DNS records equal to this host's public IP at 40+ DNS providers" \
      org.opencontainers.image.licenses="MIT"

# unhealthy when a record's last run failed (exit 1); "never" (no run yet) counts as healthy
HEALTHCHECK --interval=60s --timeout=20s --start-period=30s --retries=3 \
    CMD ["ddkit", "--config", "/config/ddkit.conf", "--status", "--all"]

# arguments after the image's name are ddkit's instead of these: `docker run --rm <mounts> ddkit
# --config /config/ddkit.conf --all --check`
ENTRYPOINT ["ddkit"]
CMD ["--config", "/config/ddkit.conf", "--all", "--every", "300"]
