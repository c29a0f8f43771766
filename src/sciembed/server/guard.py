"""Who may call what, checked before a request's body is read: Host, API key, Origin; security headers.

One ASGI middleware, so the checks hold for every route and an unauthenticated client never reaches body
validation, whose 422 details would describe the schema (issue 23, defect 20): Host only `allowed_hosts`
(421; DNS rebinding), writes (every POST/PUT/PATCH/DELETE but the two search routes) need the API key or
`allow_open_writes` (403), a cross-site write whose Origin is neither this server's origin (scheme, host,
port) nor a CORS origin gets 403, and every response gets nosniff, DENY framing, a CSP and no referrer.
See docs/service.md.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from sciembed.server.errors import send_error
from sciembed.server.settings import ServerSettings

READ_POSTS = frozenset({"/search", "/search/file"})
OPEN_PATHS = frozenset({"/health", "/", "/static/app.js", "/static/style.css"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DOCS_PATHS = ("/docs", "/redoc")
CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; "
            "frame-ancestors 'none'")


def host_name(value: str) -> str:
    """`example.org:8000` -> `example.org`; `[::1]:8000` -> `[::1]` (lower case)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


def origin_of(url: str) -> Origin | None:
    """(scheme, host, port) of an origin or URL, the default port filled in; None when it is not one."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port
    except ValueError:  # a port that is no number or out of range
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port if port is not None else DEFAULT_PORTS[parts.scheme]


class Guard:
    """The checks of the module docstring, in front of the app."""

    def __init__(self, app, settings: ServerSettings) -> None:
        self.app, self.settings = app, settings
        self.hosts = {host_name(h) for h in settings.allowed_hosts}
        self.origins = {origin_of(o) for o in settings.cors_origins} - {None}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        path, method = scope.get("path", ""), scope.get("method", "GET")
        refusal = self.refusal(headers, path, method, scope.get("scheme") or "http")
        csp = DOCS_CSP if path.startswith(DOCS_PATHS) else CSP

        async def with_headers(message):
            if message["type"] == "http.response.start":
                extra = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                         (b"content-security-policy", csp.encode()), (b"referrer-policy", b"no-referrer")]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if refusal is not None:
            await send_error(with_headers, *refusal)
            return
        await self.app(scope, receive, with_headers)

    def refusal(self, headers: dict[str, str], path: str, method: str,
                scheme: str = "http") -> tuple[int, str, str] | None:
        host = host_name(headers.get("host", ""))
        if "*" not in self.hosts and host not in self.hosts:
            return 421, "wrong_host", (f"this server does not answer for host {host!r}; the operator lists the "
                                       "names it is reached by with --allowed-hosts")
        write = method in WRITE_METHODS and path not in READ_POSTS
        if write:
            origin = headers.get("origin")
            if origin is not None and not self.same_origin(origin, f"{scheme}://{headers.get('host', '')}"):
                return 403, "cross_origin", f"a write from origin {origin!r} (not this host, not a CORS origin)"
        key = self.settings.api_key
        needs_key = write or (self.settings.protect_reads and path not in OPEN_PATHS and method != "OPTIONS")
        if needs_key and key is None:
            if write and not self.settings.allow_open_writes:
                return 403, "writes_closed", ("writes need an API key: set one ($SCIEMBED_API_KEY) or start the "
                                              "server with --allow-open-writes")
            return None
        if needs_key and not secrets.compare_digest(headers.get("x-api-key", "").encode(), key.encode()):
            return 401, "unauthorized", "missing or wrong API key (header X-API-Key)"
        return None

    def same_origin(self, origin: str, reached_as: str) -> bool:
        """The page that sent the request came from this server's origin (scheme, host and port as the request
        reached it: `reached_as`), or from an allowed CORS origin."""
        sent = origin_of(origin)
        return sent is not None and (sent in self.origins or sent == origin_of(reached_as))
