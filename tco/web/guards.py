"""The sales desk's request guards (ASGI middleware around the Starlette app, ``tco.web.app``):

    HostCheck   refuse a Host header naming another server (DNS rebinding), IPv6 literals read without brackets
    BodyLimit   refuse a body past the cap as it is read, whatever its Content-Length says (a chunked body has none)
"""

from __future__ import annotations


class HostCheck:
    """Refuse (400) a Host header naming another server (DNS rebinding), its port left out and an IPv6 literal read
    without its brackets ('[::1]:8000' is '::1', which Starlette's TrustedHostMiddleware cuts at the first colon)."""

    def __init__(self, app, hosts: tuple[str, ...]):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send):
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        name = host[1:host.find("]")] if host.startswith("[") and "]" in host else host.split(":")[0]
        if scope["type"] in ("http", "websocket") and "*" not in self.hosts and name not in self.hosts:
            from starlette.responses import PlainTextResponse

            await PlainTextResponse("Invalid host header", status_code=400)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse (413) a request whose body grows past `limit` bytes as it is read, whatever its Content-Length says:
    a chunked body has none, and the form parser would spool an upload of any size to disk first."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seen, started = 0, False

        async def capped():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        async def watched(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped, watched)
        except _TooLarge:
            if not started:
                from starlette.responses import PlainTextResponse

                await PlainTextResponse("request too large", status_code=413)(scope, receive, send)
