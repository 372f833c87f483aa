"""The validation service: FastAPI, with API keys, rate limits, a body limit, deadlines,
an audit log, PII redaction, Prometheus metrics and persistence in jurist's store.

    jurist serve                      # 127.0.0.1:8005, the embedded model, SQLite
    curl -s localhost:8005/validate -d @request.json -H 'content-type: application/json'

`create_app()` builds the app from the environment (the JUDGE_* and other variables,
JURIST_DATABASE_URL, JURIST_API_KEYS; see ENVIRONMENT_VARIABLES).
"""

from jurist.server._app import create_app
from jurist.server._config import (
    DEFAULT_PORT,
    ENVIRONMENT_VARIABLES,
    ConfigError,
    ServiceSettings,
    load_config,
)
from jurist.server._keys import ApiKey, KeyRing, hash_key, new_key
from jurist.server._ratelimit import parse_rate
from jurist.server._sealing import Sealer, new_encryption_key
from jurist.server._serve import check_bind, serve

__all__ = [
    "DEFAULT_PORT",
    "ENVIRONMENT_VARIABLES",
    "ApiKey",
    "ConfigError",
    "KeyRing",
    "Sealer",
    "ServiceSettings",
    "check_bind",
    "create_app",
    "hash_key",
    "load_config",
    "new_encryption_key",
    "new_key",
    "parse_rate",
    "serve",
]
