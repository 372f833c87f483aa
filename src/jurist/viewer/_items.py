"""One item of a run with its whole judgment, and two runs of a dataset compared item by
item."""

from fastapi import APIRouter

router = APIRouter()
