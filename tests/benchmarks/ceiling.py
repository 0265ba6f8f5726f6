"""The ceiling: a bare Bottle app answering {"ok":true}, served exactly like sitehost.

`python -m tests.benchmarks.ceiling --port 0 --threads T --workers W` uses the same
serving code as `sitehost serve` (host.serving), so the only difference measured against
sitehost is the work sitehost does per request. `/bytes/N` answers N bytes, to measure what
sending an answer of a scenario's size costs the same stack.
"""

from __future__ import annotations

import argparse
import sys

import bottle

from host.serving import serve_single, serve_workers


def hello_app() -> bottle.Bottle:
    app = bottle.Bottle()

    @app.get("/ok")
    def ok():
        return {"ok": True}

    bodies: dict[int, bytes] = {}

    @app.get("/bytes/<size:int>")
    def sized(size: int):
        """A JSON answer of `size` bytes: the ceiling for answers as large as a scenario's (a cached
        10-post list is about 40 KB), which separates sending the bytes from making them."""
        if size > 10_000_000:
            bottle.abort(400, "at most 10,000,000 bytes")
        if size not in bodies:
            bodies[size] = b'"' + b"x" * max(size - 2, 0) + b'"'
        bottle.response.content_type = "application/json"
        return bodies[size]

    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-pin-cpus", dest="pin", action="store_false")
    options = parser.parse_args(argv)

    def announce(port: int) -> None:
        print(f"ceiling serving on http://{options.host}:{port}/ok", flush=True)

    if options.workers == 1:
        serve_single(hello_app(), options.host, options.port, options.threads, announce, pin=options.pin)
        return 0
    return serve_workers(hello_app, options.host, options.port, options.threads, options.workers, announce,
                         pin=options.pin)


if __name__ == "__main__":
    sys.exit(main())
