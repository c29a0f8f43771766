"""Structured JSON errors: ``{"error": {"code", "message", "details"?}}``, never a traceback."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("sciembed.server")

CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 409: "conflict", 421: "wrong_host",
         404: "not_found", 405: "method_not_allowed", 413: "too_large",
         415: "unsupported_media_type", 422: "invalid_request", 503: "timeout"}


class ApiError(Exception):
    """An error with its HTTP status, a stable code and a message for people."""

    def __init__(self, status: int, message: str, code: str | None = None, details: Any = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details, self.headers = status, message, details, headers
        self.code = code or CODES.get(status, "error")


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return {"error": body}


def error_response(status: int, message: str, code: str | None = None, details: Any = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code or CODES.get(status, "error"), message, details), status_code=status,
                        headers=headers)


async def send_error(send, status: int, code: str, message: str, *headers: tuple[bytes, bytes]) -> None:
    """`error_body` answered by an ASGI middleware, before the app sees the request."""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), *headers]})
    await send({"type": "http.response.body", "body": json.dumps(error_body(code, message)).encode()})


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, err: ApiError) -> JSONResponse:
        return error_response(err.status, err.message, err.code, err.details, err.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, err: StarletteHTTPException) -> JSONResponse:
        return error_response(err.status_code, str(err.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, err: RequestValidationError) -> JSONResponse:
        problems = [
            {"where": ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body", "message": e.get("msg", "")}
            for e in err.errors()
        ]
        summary = "; ".join(f"{p['where']}: {p['message']}" for p in problems[:5])
        return error_response(422, f"{len(problems)} problem(s) in the request: {summary}", details=problems)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error_response(500, f"internal error ({type(err).__name__}); the server log has the details", "internal")
