"""A whole-request deadline for outside HTTP calls (LLM, embeddings, GROBID), headers included.

httpx's timeouts bound each socket operation, not the request: a server sending a byte at a time holds the
caller forever. `bounded_client` puts a network layer under httpx whose every connect, read and write waits
at most what is left of this thread's `ioutil.deadline` budget; inside ``with within(seconds):`` the whole
exchange ends by then (httpx's usual timeout errors). Outside a budget the layer changes nothing.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from sciembed.ioutil import deadline


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """This thread's budget for the block: `seconds`, or what is left of an outer budget if that is less."""
    left = deadline.remaining()
    budget = seconds if left is None else left if seconds is None else min(seconds, left)
    with deadline.deadline(budget):
        yield


def _bounded(timeout: float | None, error: type[Exception], what: str) -> float | None:
    """`timeout` cut to this thread's remaining budget; `error` when nothing is left."""
    left = deadline.remaining()
    if left is None:
        return timeout
    if left <= 0:
        raise error(f"{what}: the request's time limit is spent")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose reads and writes end at the thread's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout, "reading the reply"))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout, "sending the request"))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout, "the TLS handshake")
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend with every stream a `DeadlineStream`."""

    def __init__(self, inner: httpcore.NetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout, f"connecting to {host}:{port}")
        return DeadlineStream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout, f"connecting to {path}")
        return DeadlineStream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bounded_client(**kwargs: Any) -> httpx.Client:
    """An `httpx.Client` (same keywords) whose connections honour the thread's deadline (`within`).

    Every transport the client holds (its own and those mounted for proxies from the environment) gets
    the `DeadlineBackend`; the client must be new, before it opened a connection.
    """
    client = httpx.Client(**kwargs)
    transports = [client._transport, *client._mounts.values()]
    for transport in filter(None, transports):  # a mount of None: a host that bypasses the proxy
        pool = getattr(transport, "_pool", None)
        if pool is None or not hasattr(pool, "_network_backend"):
            raise RuntimeError(f"cannot bound the requests of {type(transport).__name__}: httpx/httpcore changed")
        pool._network_backend = DeadlineBackend(pool._network_backend)
    return client
