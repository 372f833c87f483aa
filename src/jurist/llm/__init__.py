"""The model layer: one `Model` protocol, providers behind it, and middleware around it.

Judges never talk HTTP or load weights themselves; they build a `Request` and await
`model.complete(request)` on a model from `get_model(spec)`.
"""

from jurist.llm._types import (
    Capabilities,
    Choice,
    ErrorKind,
    Message,
    Model,
    ModelError,
    Request,
    Response,
    TokenLogprob,
    TopLogprob,
)
from jurist.llm._wrapper import ModelWrapper, complete_sync, innermost

__all__ = [
    "Capabilities",
    "Choice",
    "ErrorKind",
    "Message",
    "Model",
    "ModelError",
    "ModelWrapper",
    "Request",
    "Response",
    "TokenLogprob",
    "TopLogprob",
    "complete_sync",
    "innermost",
]
