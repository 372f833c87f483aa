"""The floor `bench/serve_load.py` compares `jurist serve` with: the least a service that
validates a JSON output against a JSON schema over HTTP can do. FastAPI reads the body, the
schema is compiled by jsonschema_rs (cached by its text), the output validated, and a small
JSON answer sent; no keys, limits, storage, audit or logging.

Run: python -m uvicorn floor_app:app --app-dir bench --port 18050 (serve_load.py does).
"""

import functools
import json
from typing import Any

import jsonschema_rs
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

app = FastAPI()


@functools.lru_cache(maxsize=256)
def _validator(schema_text: str) -> Any:
    return jsonschema_rs.validator_for(json.loads(schema_text))


@app.post("/validate")
async def validate(request: Request) -> JSONResponse:
    body = await request.json()
    validator = _validator(json.dumps(body["expected_schema"], sort_keys=True))
    issues = [error.message for error in validator.iter_errors(body["output"])]
    return JSONResponse({"valid": not issues, "issues": issues})
