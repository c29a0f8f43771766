"""HTTP API and one web page over a served collection (FastAPI on uvicorn)."""

from sciembed.server.app import create_app
from sciembed.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
