"""The ceiling: a bare Bottle app answering {"ok":true}, served exactly like sitehost.

`python -m tests.benchmarks.ceiling --port 0 --threads T --workers W` uses the same
serving code as `sitehost serve` (host.serving), so the only difference measured against
sitehost is the work sitehost does per request.
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
