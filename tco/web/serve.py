"""`python -m tco serve`: the sales desk (``tco.web.app``) on uvicorn, bound to this computer only unless
``--host`` says otherwise (then with a warning: the page has no login).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tco.machine import usable_cores as cores

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
DEFAULT_WORKERS = 2
"""`--workers` when not given: the processes that run scenarios."""


def worker_cap() -> int:
    """The most processes `--workers` starts: the cores (a scenario run is CPU-bound; more processes only queue for
    them, each holding its memory), or the default where there are fewer."""
    return max(DEFAULT_WORKERS, cores())


def hosts_for(host: str, port: int) -> tuple[str, ...]:
    """The Host headers the app accepts: this computer's names when bound locally (a page elsewhere that points a
    name of its own at 127.0.0.1 is refused: DNS rebinding), any when bound to another address."""
    return LOCAL_HOSTS if host in LOCAL_HOSTS else ("*",)


def missing_dependency() -> str | None:
    """A message naming the extra to install when the web stack is missing, else None."""
    import importlib.util

    gone = [m for m in ("starlette", "uvicorn", "multipart") if importlib.util.find_spec(m) is None]
    if gone:
        return (f"error: the sales desk needs {', '.join(gone)}; install it with: pip install -e '.[web]'")
    return None


def main(args, out=print, err=lambda s: print(s, file=sys.stderr)) -> int:
    """Start the desk and serve until Ctrl-C; 2 for a bad argument or a missing dependency."""
    problem = missing_dependency()
    if problem:
        err(problem)
        return 2
    scenarios = Path(args.scenarios) if args.scenarios else (Path("scenarios") if Path("scenarios").is_dir() else None)
    if args.scenarios and not Path(args.scenarios).is_dir():
        err(f"error: --scenarios {args.scenarios}: folder not found")
        return 2
    if args.data:  # a file, a folder it cannot write, or a proposals.sqlite that is not one: said now, not as 500s
        from tco.web import store

        problem = store.unusable(Path(args.data))
        if problem:
            err(f"error: --data {args.data}: {problem}")
            return 2
    if args.host not in LOCAL_HOSTS:
        err(f"warning: serving on {args.host}: anyone who can reach this address can use the desk (it has no login); "
            "the default, 127.0.0.1, keeps it on this computer")
    # --workers had no bound: the pool starts a process for each job in flight up to the number given, on any number
    # of cores (2026-12d W10); bounded by the cores as sweep bounds its own by the cases (S10)
    workers = min(args.workers, worker_cap())
    if workers < args.workers:
        err(f"notice: --workers {args.workers:,} is more than the {cores()} cores this computer gives tco; the desk "
            f"starts at most {workers} (more processes only wait for the cores)")
    import uvicorn

    from tco.web import jobs
    from tco.web.app import Desk, create_app, examples_in

    pool = jobs.pool(workers)
    desk = Desk(examples_in(scenarios), Path(args.data) if args.data else None, pool, hosts_for(args.host, args.port),
                renew=lambda: jobs.pool(workers))
    shown = f"[{args.host}]" if ":" in args.host else args.host
    out(f"tco sales desk: http://{shown}:{args.port}/  ({len(desk.examples)} examples"
        f"{', proposals saved in ' + str(desk.data) if desk.data else ''}; Ctrl-C stops it)")
    try:
        uvicorn.run(create_app(desk), host=args.host, port=args.port, log_level="warning", timeout_keep_alive=5,
                    limit_concurrency=64)
    finally:
        desk.pool.shutdown(cancel_futures=True)  # type: ignore[attr-defined]  # the pool renewed last, if one was
    return 0
