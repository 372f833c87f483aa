"""Calibration reports: statistics with intervals, plots, two reports compared."""

from fastapi import APIRouter

router = APIRouter()
