# evalcore's dashboard for a lab's server (README: Set up, and Host it for your lab): Debian 12 (slim) with its
# Python 3.11, the package with its [app] extra at the versions a clone pins (requirements.txt), Debian's chromium
# for the figures as PDF, SVG and PNG (kaleido), a user without privileges, the store on a volume.
#
#   docker build -t evalcore .
#   docker run -d --name evalcore -p 8501:8501 -v evalcore-store:/data -e EVALCORE_STORE_QUOTA=20GB evalcore
#
# No container engine runs where evalcore is tested: tests/test_install.py replays the steps marked "replayed" on
# the host (into a temporary folder, packages from a local wheelhouse), runs the health check and the command as a
# user without privileges, and opens the dashboard in Chromium.

FROM debian:bookworm-slim AS wheel
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN python3 -m venv /opt/build && /opt/build/bin/python -m pip wheel --no-deps --wheel-dir /wheels /src

FROM debian:bookworm-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
    chromium && rm -rf /var/lib/apt/lists/*
COPY --from=wheel /wheels /wheels
COPY requirements.txt /wheels/requirements.txt
# replayed: the virtual environment of the package
RUN python3 -m venv /opt/evalcore
# replayed: the package and its [app] extra, at the versions a clone pins
RUN /opt/evalcore/bin/python -m pip install --no-cache-dir -c /wheels/requirements.txt "$(ls /wheels/evalcore-*.whl)[app]"
# replayed: numba's compiled kernels kept in the image, so that a container does not compile them when it starts
RUN /opt/evalcore/bin/python -c "from evalcore.warm import warm; warm()"
# replayed: the user the server runs as, and the folder of the volume, which only it writes
RUN useradd --create-home --uid 10001 evalcore && mkdir -p /data && chown evalcore /data
USER evalcore
WORKDIR /home/evalcore
# Data sets and annotations (EVALCORE_STORE) on the volume; every other EVALCORE_* setting (EVALCORE_STORE_QUOTA,
# EVALCORE_WORK_BUDGET, EVALCORE_ALLOWED_USERS, ...) and Streamlit's STREAMLIT_* from `docker run -e`. Sign-in:
# mount a secrets.toml at /home/evalcore/.streamlit/secrets.toml (read-only).
ENV PATH=/opt/evalcore/bin:$PATH
ENV EVALCORE_STORE=/data/store
ENV STREAMLIT_SERVER_ADDRESS=0.0.0.0
ENV STREAMLIT_SERVER_PORT=8501
VOLUME /data
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 CMD python3 -c "import os, urllib.request; base = os.environ.get('STREAMLIT_SERVER_BASE_URL_PATH', '').strip('/'); answer = urllib.request.urlopen('http://127.0.0.1:' + os.environ['STREAMLIT_SERVER_PORT'] + '/' + (base + '/' if base else '') + '_stcore/health', timeout=8).read(); raise SystemExit(answer != b'ok')"
CMD ["evalcore", "app", "--server.headless", "true"]
