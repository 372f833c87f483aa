"""The service's stored validations, with their layers and issues."""

from fastapi import APIRouter

router = APIRouter()
