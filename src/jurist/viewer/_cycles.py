"""Improvement cycles (events in order, approve or reject a pause), tournaments and
reputation histories."""

from fastapi import APIRouter

router = APIRouter()
