"""Request size limit (ASGI middleware); keys, hosts and origins are checked in `guard.py`."""

from __future__ import annotations

from sciembed.server.errors import send_error


class _TooLarge(BaseException):  # not Exception: FastAPI turns those into 400 while reading a body
    pass


class BodyLimit:
    """Answer 413 for bodies over `limit` bytes: at once from Content-Length, else while streaming.

    Runs before FastAPI reads the body, so a 100 MB upload is refused without being buffered.
    """

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(send, int(length))
            return
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send, seen)

    async def _refuse(self, send, size: int) -> None:
        await send_error(send, 413, "too_large", f"request body of {size:,}+ bytes is over the limit of "
                         f"{self.limit:,} bytes", (b"connection", b"close"))
