"""Runs: the list, one run's items, one item's whole judgment, two runs compared."""

from fastapi import APIRouter

router = APIRouter()
