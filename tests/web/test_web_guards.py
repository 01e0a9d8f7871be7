"""The desk's request guards (tco.web.guards), called as ASGI applications around a stub app."""

import asyncio

from tco.web.guards import BodyLimit, HostCheck


async def _ok(scope, receive, send):
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _call(app, host: str = "localhost", chunks: int = 1, size: int = 10) -> tuple[int, int]:
    """(status, body messages read) of a GET with Host `host` and a body of `chunks` × `size` bytes."""
    read, sent = [], []

    async def receive():
        read.append(1)
        return {"type": "http.request", "body": b"x" * size, "more_body": len(read) < chunks}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "headers": [(b"host", host.encode("latin-1"))]}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], len(read)


def test_host_check_reads_the_name_without_port_or_ipv6_brackets():
    guard = HostCheck(_ok, ("127.0.0.1", "localhost", "::1"))
    assert _call(guard, "localhost:8000")[0] == 200
    assert _call(guard, "127.0.0.1")[0] == 200
    assert _call(guard, "[::1]:8000")[0] == 200  # Starlette's TrustedHostMiddleware saw '['
    for host in ("evil.example", "localhost.evil.example:80", "[::2]:8000", "[::1", "", "localhost@evil"):
        assert _call(guard, host)[0] == 400, host
    assert _call(HostCheck(_ok, ("*",)), "anything:1")[0] == 200  # bound to another address: any host


def test_body_limit_stops_reading_at_the_cap():
    assert _call(BodyLimit(_ok, 100), chunks=5, size=20) == (200, 5)  # exactly 100 bytes: allowed
    assert _call(BodyLimit(_ok, 100), chunks=50, size=30) == (413, 4)  # 120 bytes after the 4th chunk: stopped
