"""The web viewer: runs and their items with every judgment, the service's validations,
calibration reports with their plots, improvement cycles, tournaments and reputations, as
pages drawn on the server (a little JavaScript, every asset in the package, nothing from a
CDN) and as JSON under /view/api.

    jurist view --database sqlite:///runs.db        # http://127.0.0.1:8006/view

Under `jurist serve` the same pages are at /view, behind the service's API keys.
"""

from jurist.viewer._access import OPERATOR_VIEWER, Identify, Viewer
from jurist.viewer._app import create_viewer_app, install_viewer
from jurist.viewer._errors import ErrorBody, FieldError
from jurist.viewer._paths import API, PREFIX

__all__ = [
    "API",
    "OPERATOR_VIEWER",
    "PREFIX",
    "ErrorBody",
    "FieldError",
    "Identify",
    "Viewer",
    "create_viewer_app",
    "install_viewer",
]
