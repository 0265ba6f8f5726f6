"""Serving the site: one waitress process, or N worker processes sharing one port.

Under the GIL one waitress process uses about one core, so `sitehost serve --workers N`
forks N processes. Each worker binds its OWN listening socket on the same port with
SO_REUSEPORT, and the kernel spreads new connections across those sockets. (One listening
socket inherited by every worker lets whichever process wakes first take most of the
keep-alive connections, which leaves cores idle.)

The parent holds no app and serves nothing: it reserves the port with a bound socket that
never listens (reserve_port: bound exclusively first, so a port another process holds stops
the start, and no other program takes the port while a worker restarts), starts the
workers, prints the banner once they all listen, restarts a worker that dies, and on
SIGINT or SIGTERM stops them all and exits 0. Workers ignore SIGINT (Ctrl+C reaches the
whole process group; the parent decides) and stop on SIGTERM or when the parent is gone.

Reloads: on SIGHUP, or when the plugin set stored for the site changes (the
parent polls it, host.plugin_state), the parent starts a new generation of workers; once
they all listen, the old ones drain (SIGUSR1): they stop accepting, answer what is in
progress with `Connection: close`, close idle connections and exit. Each slot's listening
socket is held by the parent and shared by a worker and its replacement, so connections
queue in the kernel meanwhile and none is refused. One process (`--workers 1`) swaps a
freshly built site in instead (ReloadingSite); its socket never closes.

Every waitress server is built by `make_server` with the site's limits (ServerLimits):
idle connections close after `channel_timeout`, a request whose header is still
incomplete after that long is cut even while it trickles bytes (a slow-header client
holds a connection for nothing), at most `connection_limit` connections are open at
once, and a body larger than `max_body_bytes` is refused with 413 from its
Content-Length, before it is read.

Idle connections give way (SitehostServer): one client address holds at most
`connection_limit_per_address` connections (its longest idle one closes for its next; with
none idle, the next is closed at once), and at `connection_limit` the longest idle connection
of the address holding the most closes as soon as a newcomer waits. Otherwise one client
holding idle sockets (reopening each as soon as it is dropped) made every other wait up to
`channel_timeout`. A request in progress is never cut for this.
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask
from waitress.utilities import BadRequest, RequestEntityTooLarge

# DEFAULT_THREADS and default_workers live in host.serve_options (read by `sitehost --help` without
# waitress); re-exported here.
from .serve_options import DEFAULT_THREADS, default_workers  # noqa: F401
from .config import (DEFAULT_CHANNEL_TIMEOUT, DEFAULT_CONNECTION_LIMIT, DEFAULT_CONNECTION_LIMIT_PER_ADDRESS,
                     DEFAULT_MAX_BODY_BYTES, ConfigError)
from .memory import HeapTrimmer
from .plugin_state import STORED_KEY as STORED_PLUGIN_SET_KEY
from .proxies import is_trusted, trusted_networks

log = logging.getLogger("sitehost.serving")


def quiet_waitress_queue() -> None:
    """Keep waitress from logging "Task queue depth is N" for every request while busy.

    Any burst beyond the thread count queues, and waitress then writes a WARNING per
    queued request: under the benchmark's 16 connections that was about a tenth of the
    serving thread's time (py-spy). Queueing is how the server absorbs load, not an
    error; errors are still logged.
    """
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)

SERVER_IDENT = "sitehost"
STOP_GRACE_SECONDS = 10.0
START_TIMEOUT_SECONDS = 120.0
QUICK_DEATH_SECONDS = 5.0  # a worker dying sooner than this after its start backs off before the next try
MAX_RESTART_DELAY = 10.0
POLL_SECONDS = 0.2
WATCH_SECONDS = 0.5  # how often `sitehost serve` reads the plugin set stored for the site (one row, a kept connection)
DRAIN_IDLE_SECONDS = 1.0
DRAIN_GRACE_SECONDS = 30.0  # a draining worker (or a replaced single-process site) stops after this at most  # a draining worker closes a kept-alive connection idle this long


def _address(host: str, port: int) -> tuple[int, tuple]:
    family, _type, _proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    return family, address


def shared_port_socket(host: str, port: int, listen: bool, backlog: int = 1024) -> socket.socket:
    """A TCP socket bound with SO_REUSEPORT to (host, port); listening when `listen`."""
    return _port_socket(host, port, exclusive_bind=False, listen=listen, backlog=backlog)


def reserve_port(host: str, port: int) -> socket.socket:
    """The worker pool's claim on (host, port): bound, not listening; OSError when anything else holds the port.

    It is bound WITHOUT SO_REUSEPORT, which fails while any other socket is bound to the port,
    SO_REUSEPORT or not: another `sitehost serve` with workers would otherwise join the same
    port group and the kernel would split visitors between two sites. Only once bound does it
    take SO_REUSEPORT, so that this pool's own listeners (shared_port_socket) may join it, while
    a later sitehost's exclusive bind still fails on them. (A program of the same user that sets
    SO_REUSEPORT itself can still join; sitehost never does before this check.)
    """
    return _port_socket(host, port, exclusive_bind=True, listen=False)


def _port_socket(host: str, port: int, exclusive_bind: bool, listen: bool, backlog: int = 1024) -> socket.socket:
    """A TCP socket on (host, port) with SO_REUSEPORT, taken before binding or (exclusive_bind) after it."""
    if not hasattr(socket, "SO_REUSEPORT"):
        raise OSError("--workers above 1 needs SO_REUSEPORT (Linux or BSD); use --workers 1 here")
    family, address = _address(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if not exclusive_bind:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if exclusive_bind:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if listen:
            sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def pin_to_cpu(slot: int) -> int | None:
    """Bind this process (all its threads) to one of the CPUs it may use; the CPU, or None.

    A waitress process runs its socket loop and its request threads under one GIL. When the
    kernel spreads those threads over several CPUs, every GIL hand-off becomes a cross-CPU
    futex wake-up; on the 2-core benchmark VM that made one process answer a bare
    hello-world about 250 times a second instead of about 6,000 (tests/benchmarks). Pinned,
    the threads take turns on one core and the other cores are left to the other workers.
    Worker `slot` takes the slot-th allowed CPU, wrapping around.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[slot % len(allowed)]
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError as error:  # a container may forbid it; serving unpinned still works
        log.warning("could not pin the server to CPU %d: %s", cpu, error)
        return None
    return cpu


@dataclass(frozen=True)
class ServerLimits:
    """What one client may hold of a server process: time, connections, body bytes.

    `channel_timeout` (seconds): a connection with nothing in progress closes after this
    long without a byte, and a request header must be complete this long after its first
    byte. `connection_limit`: open connections per server process; at it the longest idle
    one closes for a newcomer, and with none idle new ones wait in the kernel's backlog.
    `connection_limit_per_address`: open connections of one client address (0: no cap).
    `max_body_bytes`: the largest request body.
    """

    channel_timeout: int = DEFAULT_CHANNEL_TIMEOUT
    connection_limit: int = DEFAULT_CONNECTION_LIMIT
    connection_limit_per_address: int = DEFAULT_CONNECTION_LIMIT_PER_ADDRESS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    # `trusted_proxies` (or `trust_proxy = true`): the X-Forwarded-* headers reach the site, which
    # believes them only from these networks (host.proxies). Otherwise waitress drops them.
    trusted_proxies: tuple = ()

    @property
    def keep_proxy_headers(self) -> bool:
        return bool(self.trusted_proxies)

    @classmethod
    def from_settings(cls, settings) -> "ServerLimits":
        """The limits of `settings`; ConfigError naming the setting when one is not a positive integer."""
        values = {}
        for name, least in (("channel_timeout", 1), ("connection_limit", 1), ("connection_limit_per_address", 0),
                            ("max_body_bytes", 1)):
            value = getattr(settings, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"{name} = {value!r}: must be a whole number of at least {least}")
            values[name] = value
        try:
            trusted = trusted_networks(settings)
        except ValueError as error:
            raise ConfigError(f"trusted_proxies: {error}") from None
        return cls(**values, trusted_proxies=trusted)

    @property
    def per_address_cap(self) -> int:
        """Connections one peer address may hold; 0: none.

        A trusted proxy is not capped (SitehostServer.make_room): every connection through it comes
        from its address, which says nothing about the client (X-Forwarded-For only arrives with a
        request, and idle client sockets never reach us through a proxy anyway), so the proxy caps
        per client instead (README, Running behind a reverse proxy). Any other peer is capped.
        """
        return self.connection_limit_per_address

    def waitress_options(self) -> dict[str, Any]:
        return {
            "channel_timeout": self.channel_timeout,
            "connection_limit": self.connection_limit,
            # waitress refuses a body of max_request_body_size bytes or more; ours may be exactly the limit.
            "max_request_body_size": self.max_body_bytes + 1,
            # How often idle and slow connections are looked for: often enough that none outlives its
            # timeout by more than half of it.
            "cleanup_interval": max(1, min(30, self.channel_timeout // 2)),
            "clear_untrusted_proxy_headers": not self.keep_proxy_headers,
            "ident": SERVER_IDENT,
        }


class AmbiguousFraming(BadRequest):
    """Transfer-Encoding with Content-Length, or Transfer-Encoding in HTTP/1.0 (RFC 9112 6.1).

    A proxy that trusts Content-Length and waitress (which trusts chunked) would see different
    requests, and whatever follows the body on the connection would be answered as a request of
    its own (request smuggling). Refused before the site sees it; the connection closes.
    """

    message = ("A request may not carry Transfer-Encoding together with Content-Length, "
               "nor Transfer-Encoding in HTTP/1.0.")


class _TimedRequestParser(HTTPRequestParser):
    """Remembers when the request's first byte arrived, for the header deadline; refuses ambiguous framing."""

    def __init__(self, adj):
        super().__init__(adj)
        self.started = time.time()

    def parse_header(self, header_plus):
        framing = {line.split(b":", 1)[0].strip().lower() for line in header_plus.split(b"\r\n")[1:]}
        super().parse_header(header_plus)
        if b"transfer-encoding" in framing and (b"content-length" in framing or self.version != "1.1"):
            self.error = AmbiguousFraming(AmbiguousFraming.message)
            self.completed = True
            self.body_rcv, self.content_length = None, 0  # no body is read, and no other error replaces this one


class _BodyTooLargeTask(ErrorTask):
    """waitress's error answers, except that a too-large body (413) and ambiguous framing (400) answer
    in the REST error format."""

    def execute(self):
        error = self.request.error
        if isinstance(error, AmbiguousFraming):
            return self._rest_error("400 Bad Request", "rest_ambiguous_framing", error.message)
        if not isinstance(error, RequestEntityTooLarge):
            return super().execute()
        limit = self.channel.server.adj.max_request_body_size - 1
        return self._rest_error("413 Content Too Large", "rest_request_too_large",
                                f"The request body is larger than the limit of {limit} bytes.")

    def _rest_error(self, status: str, code: str, message: str) -> None:
        body = json.dumps({"code": code, "message": message, "data": {"status": int(status.split()[0])}}).encode()
        self.status = status
        self.request.headers["CONNECTION"] = "close"  # else waitress tells an HTTP/1.0 keep-alive client Keep-Alive
        self.response_headers.extend([("Content-Type", "application/json; charset=UTF-8"),
                                      ("X-Content-Type-Options", "nosniff")])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _DrainingAwareTask(WSGITask):
    """Once its server drains (a reload), every answer says `Connection: close` and closes after it."""

    def build_response_header(self):
        if getattr(self.channel.server, "draining", False) and not self.close_on_finish:
            self.set_close_on_finish()
        return super().build_response_header()


class _Channel(HTTPChannel):
    parser_class = _TimedRequestParser
    error_task_class = _BodyTooLargeTask
    task_class = _DrainingAwareTask


def _is_idle(channel) -> bool:
    """Nothing in progress: no request queued or running, no answer unsent, no body being received.

    A header still arriving counts as idle (a real client sends it in one go; a trickling one is
    what the header deadline is for), as waitress's own idle timeout counts it.
    """
    request = channel.request
    return (not channel.requests and not channel.total_outbufs_len
            and (request is None or not request.headers_finished))


def _is_closing(channel) -> bool:
    return bool(channel.will_close or channel.close_when_flushed or not channel.connected)


class SitehostServer(TcpWSGIServer):
    """waitress's TCP server with a deadline for request headers and idle connections that give way (see ServerLimits)."""

    channel_class = _Channel
    draining = False
    per_address_cap = 0  # make_server sets ServerLimits.per_address_cap
    trusted_proxies: tuple = ()  # and the networks whose connections are never capped

    def readable(self):
        """waitress stops accepting at connection_limit; we go on while an idle connection can make room."""
        accepting = super().readable()
        if accepting or not self.accepting:
            return accepting
        return any(_is_idle(channel) and not _is_closing(channel) for channel in self.active_channels.values())

    def handle_accept(self):
        # waitress's handle_accept, with room made (or refused) before the channel is built.
        try:
            pair = self.accept()
            if pair is None:
                return
            conn, addr = pair
            self.set_socket_options(conn)
        except OSError:
            if self.adj.log_socket_errors:
                self.logger.warning("server accept() threw an exception", exc_info=True)
            return
        addr = self.fix_addr(addr)
        if not self.make_room(addr[0] if isinstance(addr, tuple) else addr):
            conn.close()  # the address holds its share of connections and none of them is idle
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def make_room(self, address) -> bool:
        """Close idle connections so a new one from `address` fits; False if it must be refused.

        Runs on the server's main thread, which alone hands requests to idle channels, so an idle
        channel closed here has no task that could be using it.
        """
        open_channels = [channel for channel in self.active_channels.values() if not _is_closing(channel)]
        held: dict = {}
        for channel in open_channels:
            peer = channel.addr[0] if isinstance(channel.addr, tuple) else channel.addr
            held.setdefault(peer, []).append(channel)
        cap = 0 if is_trusted(address, self.trusted_proxies) else self.per_address_cap
        if cap and len(held.get(address, ())) >= cap:
            own_idle = [channel for channel in held[address] if _is_idle(channel)]
            if not own_idle:
                return False
            victim = min(own_idle, key=lambda channel: channel.last_activity)
            victim.handle_close()
            open_channels.remove(victim)
            held[address].remove(victim)
        # The listening socket and the wake-up pipe count against waitress's limit too.
        if len(open_channels) + (len(self._map) - len(self.active_channels)) >= self.adj.connection_limit:
            idle = [channel for channel in open_channels if _is_idle(channel)]
            if idle:
                def shed_first(channel):
                    peer = channel.addr[0] if isinstance(channel.addr, tuple) else channel.addr
                    return (-len(held.get(peer, ())), channel.last_activity)
                min(idle, key=shed_first).handle_close()
        return True

    def drain(self, grace: float, on_drained: Callable[[], None]) -> None:
        """Stop accepting; finish what is in progress; close idle connections; then `on_drained()`.

        The listening socket stays open in the parent and the next worker (the kernel keeps
        queueing on it), so nothing is refused. A request already in progress, or arriving on a
        kept-alive connection, is answered with `Connection: close`; a connection idle for
        DRAIN_IDLE_SECONDS is closed (a client sending on it right then retries, as browsers do
        on a reused connection). Runs `on_drained` when no connection is left, or after `grace`.
        """
        self.draining = True
        self.accepting = False
        self.pull_trigger()

        def watch() -> None:
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                now = time.time()
                channels = list(self.active_channels.values())
                if not channels:
                    break
                for channel in channels:
                    idle = (not channel.requests and channel.request is None and not channel.total_outbufs_len
                            and now - channel.last_activity >= DRAIN_IDLE_SECONDS)
                    if idle:
                        channel.will_close = True
                self.pull_trigger()
                time.sleep(0.05)
            on_drained()

        threading.Thread(target=watch, name="drain", daemon=True).start()

    def maintenance(self, now):
        super().maintenance(now)
        cutoff = now - self.adj.channel_timeout
        for channel in list(self.active_channels.values()):
            request = channel.request
            if request is not None and not request.headers_finished and request.started < cutoff:
                channel.will_close = True


def bind_socket(host: str, port: int, backlog: int = 1024) -> socket.socket:
    """A TCP socket listening on (host, port); OSError when the port is taken.

    It listens at once, so the port is ours from here on; connections made before the server
    runs wait in the backlog.
    """
    family, address = _address(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def make_server(app, sock: socket.socket, threads: int, limits: ServerLimits | None = None) -> SitehostServer:
    """A waitress server for `app` on the bound socket `sock`, with `limits`."""
    limits = limits or ServerLimits()
    adj = Adjustments(sockets=[sock], threads=threads, **limits.waitress_options())
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(threads)
    sockinfo = (sock.family, sock.type, sock.proto, sock.getsockname())
    server = SitehostServer(app, {}, True, sock, dispatcher=dispatcher, adj=adj, bind_socket=False, sockinfo=sockinfo)
    server.per_address_cap = limits.per_address_cap
    server.trusted_proxies = limits.trusted_proxies
    return server


class ReloadingSite:
    """The single-process server's site: a fresh one is built and swapped in on SIGHUP or a stored-set change.

    The socket never closes, so nothing is refused: requests that started on the old site
    finish on it (it is closed DRAIN_GRACE_SECONDS later), later ones reach the new site.
    `factory()` builds a new WSGI site (with a `close()`); `watch()` returns the value whose
    change means "reload" (the plugin set stored for the site, host.plugin_state).
    """

    def __init__(self, site, factory: Callable[[], Any], watch: Callable[[], Any] | None = None):
        self.site = site
        self.factory = factory
        self.stored_set = StoredSetWatch(watch)
        self.stored_set.start()
        self.requested = threading.Event()
        self.stopped = threading.Event()
        self.reloads = 0

    def __call__(self, environ, start_response):
        return self.site(environ, start_response)

    def start(self) -> None:
        signal.signal(signal.SIGHUP, lambda _number, _frame: self.requested.set())
        threading.Thread(target=self._run, name="reloader", daemon=True).start()

    def _run(self) -> None:
        while not self.stopped.is_set():
            self.requested.wait(WATCH_SECONDS)
            if self.stopped.is_set():
                return
            reason = "SIGHUP" if self.requested.is_set() else self.stored_set.changed()
            self.requested.clear()
            if reason == StoredSetWatch.REASON:
                self._withdraw_disabled(self.stored_set.value)
            if reason:
                self.reload(reason)

    def _withdraw_disabled(self, stored: Any) -> None:
        """Plugins the stored set now disables stop answering here at once; the reload that follows
        takes seconds (a whole site is built) and the old site serves until it is done."""
        app = getattr(self.site, "app", self.site)  # behind the access log
        try:
            disabled = set(json.loads(stored)) if isinstance(stored, str) else set()
        except ValueError:
            return
        leaving = {record.name for record in getattr(app, "enabled_plugins", ()) if record.name in disabled}
        if leaving:
            log.info("withdrawing %s until the reload is done", ", ".join(sorted(leaving)))
            app.registry.withdraw(leaving)
        try:  # answers cached before the change (the root index lists the namespaces) are stale everywhere
            app.hook.site_settings_changed(app=app, keys=[STORED_PLUGIN_SET_KEY])
        except Exception:
            log.exception("a site_settings_changed hook failed")

    def reload(self, reason: str) -> None:
        log.info("%s: reloading the site", reason)
        try:
            fresh = self.factory()
        except Exception:  # a site that cannot start now: keep serving the one that works
            log.exception("the reloaded site did not start; still serving the previous one")
            return
        old, self.site = self.site, fresh
        self.reloads += 1
        log.info("reloaded: new requests reach the new site; the previous one closes in %.0f s", DRAIN_GRACE_SECONDS)
        timer = threading.Timer(DRAIN_GRACE_SECONDS, _close_quietly, args=(old,))
        timer.daemon = True
        timer.start()

    def close(self) -> None:
        self.stopped.set()
        self.requested.set()
        _close_quietly(self.site)


def _close_quietly(site) -> None:
    try:
        site.close()
    except Exception:
        log.exception("closing a replaced site failed")


_UNREAD = object()  # StoredSetWatch: the read failed, which is no change


class StoredSetWatch:
    """The plugin set stored for the site, compared between polls: a change means "reload".

    `read()` answers the stored value (host.plugin_state.stored_plugin_set); None reads nothing.
    Both servers use it: the single process from its reloader thread, the worker pool's parent
    from its supervising loop.
    """

    REASON = "the plugin set stored for the site changed"

    def __init__(self, read: Callable[[], Any] | None):
        self.read = read
        self.value: Any = None

    def start(self) -> None:
        """Remember the value the site starts with (None if it cannot be read now)."""
        value = self._read()
        self.value = None if value is _UNREAD else value

    def changed(self) -> str:
        """REASON if the stored value differs from the last one seen (and remember it), else "".

        A read that fails is no change: answering None for it made a set stored for the site
        differ twice (None, then the set again), and every worker was restarted twice because
        the database was briefly unreachable (or refused one more connection).
        """
        value = self._read()
        if value is _UNREAD or value == self.value:
            return ""
        self.value = value
        return self.REASON

    def _read(self) -> Any:
        if self.read is None:
            return None
        try:
            return self.read()
        except Exception as error:  # the database may be briefly unreachable: no reload for that
            log.warning("could not read the plugin set stored for the site: %s", error)
            return _UNREAD


def serve_single(app, host: str, port: int, threads: int, announce: Callable[[int], None],
                 pin: bool = True, limits: ServerLimits | None = None, sock: socket.socket | None = None) -> None:
    """Serve `app` in this process until Ctrl+C; `announce(port)` runs once the socket listens.

    `sock`: a socket bound earlier with `bind_socket(host, port)` (the caller made sure of the
    port before building the site); without it, one is bound here. A ReloadingSite is started
    here (it handles SIGHUP in this process).
    """
    if pin:
        pin_to_cpu(0)
    quiet_waitress_queue()
    if isinstance(app, ReloadingSite):
        app.start()
    # SIGTERM (`backup restore --stop-server`, a service manager) stops as Ctrl+C does: waitress closes,
    # the site closes, the serving lock is released.
    signal.signal(signal.SIGTERM, _raise_system_exit)
    # SIGINT too, even when this process was started with it ignored (a shell starts a script's
    # background commands so, and Python then keeps it ignored): the worker pool's parent always
    # takes it, and a single worker answers it the same way.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = make_server(app, sock if sock is not None else bind_socket(host, port), threads, limits)
    trimmer = HeapTrimmer().start()
    try:
        announce(server.effective_port)  # inside: a stop that comes as soon as it is read still closes the site
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        trimmer.stop()
        app.close()


@dataclass
class _Worker:
    slot: int
    pid: int = 0
    started: float = 0.0
    quick_deaths: int = 0
    restart_at: float = 0.0


class WorkerPool:
    """The parent's side: start, watch, restart and stop N worker processes."""

    def __init__(self, app_factory: Callable[[], Any], host: str, port: int, threads: int, workers: int,
                 pin: bool = True, limits: ServerLimits | None = None, reservation: socket.socket | None = None,
                 watch: Callable[[], Any] | None = None):
        self.app_factory = app_factory
        self.pin = pin
        self.limits = limits
        self.host = host
        self.threads = threads
        self.reservation = reservation if reservation is not None else reserve_port(host, port)
        self.port = self.reservation.getsockname()[1]
        self.workers = [_Worker(slot) for slot in range(workers)]
        # One listening socket per slot, held by the parent: a worker accepts from its slot's
        # socket, and its replacement (a reload, a restart) from the same one, so connections
        # queue in the kernel meanwhile instead of being refused.
        try:
            self.listeners = [shared_port_socket(host, self.port, listen=True) for _slot in range(workers)]
        except OSError:
            self.reservation.close()
            raise
        self.retiring: list[_Worker] = []  # the previous generation, finishing its requests
        self.stored_set = StoredSetWatch(watch)
        self.next_watch = 0.0  # time.monotonic() of the next look at the stored set
        self.reload_requested = False
        self.reloads = 0
        self.stopping = False
        self._ready_read, self._ready_write = os.pipe()

    # --- running -------------------------------------------------------------------------

    def run(self, announce: Callable[[int], None]) -> int:
        """Start every worker, announce once all listen, supervise until stopped; the exit code."""
        previous = {number: signal.signal(number, self._on_stop_signal) for number in (signal.SIGINT, signal.SIGTERM)}
        previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, self._on_reload_signal)
        self.stored_set.start()
        try:
            for worker in self.workers:
                self._start(worker)
            started = self._wait_until_ready(len(self.workers))
            if started:
                announce(self.port)
            else:
                log.error("the workers did not start; stopping")
                self.stopping = True
            self._supervise()
            return 0 if started else 1
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
            self.reservation.close()
            for listener in self.listeners:
                listener.close()
            os.close(self._ready_read)
            os.close(self._ready_write)

    def _on_stop_signal(self, number, _frame) -> None:
        if not self.stopping:
            log.info("received %s: stopping %d worker(s)", signal.Signals(number).name, len(self.live_pids()))
        self.stopping = True

    def _on_reload_signal(self, _number, _frame) -> None:
        self.reload_requested = True

    def live_pids(self) -> list[int]:
        return [worker.pid for worker in self.workers + self.retiring if worker.pid]

    def _wait_until_ready(self, count: int) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        ready = 0
        while ready < count and not self.stopping and time.monotonic() < deadline:
            readable, _w, _x = select.select([self._ready_read], [], [], POLL_SECONDS)
            if readable:
                ready += len(os.read(self._ready_read, 64))
            self._reap()
            if any(worker.pid == 0 for worker in self.workers):  # a worker died while starting
                return False
        return ready >= count

    def reload(self, reason: str) -> bool:
        """Start a new generation of workers; once all listen, the old ones drain and stop. True if it did.

        The old workers keep serving until the new ones are ready; if a new one fails to start,
        the new generation is stopped and the old one goes on serving.
        """
        log.info("%s: starting %d new worker(s)", reason, len(self.workers))
        old = self.workers
        self._drain_ready()
        self.workers = [_Worker(worker.slot) for worker in old]
        self.retiring.extend(worker for worker in old if worker.pid)
        for worker in self.workers:
            self._start(worker)
        if not self._wait_until_ready(len(self.workers)):
            log.error("the new workers did not start; the previous ones go on serving")
            failed, self.workers = self.workers, old
            self.retiring = [worker for worker in self.retiring if worker not in old]
            for worker in failed:
                if worker.pid:
                    os.kill(worker.pid, signal.SIGTERM)
            return False
        for worker in old:
            if worker.pid:
                try:
                    os.kill(worker.pid, signal.SIGUSR1)  # drain: finish requests, then stop
                except ProcessLookupError:
                    pass
        self.reloads += 1
        log.info("reloaded: %d new worker(s) listening; the previous ones finish their requests and stop",
                 len(self.workers))
        return True

    def _check_reload(self) -> None:
        reason = ""
        if self.reload_requested:
            self.reload_requested = False
            reason = "SIGHUP"
        elif time.monotonic() >= self.next_watch:
            self.next_watch = time.monotonic() + WATCH_SECONDS
            reason = self.stored_set.changed()
        if reason:
            self.reload(reason)

    def _supervise(self) -> None:
        stop_deadline = None
        while True:
            self._reap()
            now = time.monotonic()
            if self.stopping:
                if stop_deadline is None:
                    stop_deadline = now + STOP_GRACE_SECONDS
                    self._signal_all(signal.SIGTERM)
                if not self.live_pids():
                    return
                if now > stop_deadline:
                    log.warning("workers did not stop within %.0f s; killing them", STOP_GRACE_SECONDS)
                    self._signal_all(signal.SIGKILL)
                    stop_deadline = now + STOP_GRACE_SECONDS
            else:
                for worker in self.workers:
                    if worker.pid == 0 and now >= worker.restart_at:
                        self._start(worker)
                        self._drain_ready()
                self._check_reload()
            time.sleep(POLL_SECONDS)

    def _drain_ready(self) -> None:
        while select.select([self._ready_read], [], [], 0)[0]:
            os.read(self._ready_read, 64)

    def _signal_all(self, number: int) -> None:
        for pid in self.live_pids():
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for worker in self.workers:
                if worker.pid == pid:
                    self._worker_exited(worker, status)
            for worker in list(self.retiring):
                if worker.pid == pid:  # a drained worker of a previous generation: done
                    self.retiring.remove(worker)

    def _worker_exited(self, worker: _Worker, status: int) -> None:
        worker.pid = 0
        if self.stopping:
            return
        lived = time.monotonic() - worker.started
        worker.quick_deaths = worker.quick_deaths + 1 if lived < QUICK_DEATH_SECONDS else 0
        delay = 0.0 if worker.quick_deaths <= 1 else min(MAX_RESTART_DELAY, 0.5 * 2 ** (worker.quick_deaths - 1))
        worker.restart_at = time.monotonic() + delay
        log.warning("worker %d exited (%s) after %.1f s; restarting%s", worker.slot, _describe_status(status),
                    lived, f" in {delay:.1f} s" if delay else "")

    # --- the worker process ------------------------------------------------------------

    def _start(self, worker: _Worker) -> None:
        parent = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid:
            worker.pid, worker.started = pid, time.monotonic()
            return
        code = 1
        try:
            code = self._worker_main(parent, worker.slot)
        except SystemExit:  # SIGTERM before the server ran
            code = 0
        except BaseException:  # anything escaping a worker is logged; the parent restarts it
            log.exception("worker %d failed", worker.slot)
        finally:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)

    def _worker_main(self, parent: int, slot: int) -> int:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a reload is the parent's to run
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # until the server exists to drain
        signal.signal(signal.SIGTERM, _raise_system_exit)
        self.reservation.close()
        listener = self.listeners[slot]
        for other in self.listeners:
            if other is not listener:
                other.close()
        os.close(self._ready_read)
        _exit_with_parent(parent)
        if self.pin:
            pin_to_cpu(slot)
        quiet_waitress_queue()
        app = self.app_factory()
        try:
            server = make_server(app, listener, self.threads, self.limits)

            def drain(_number, _frame) -> None:
                server.drain(DRAIN_GRACE_SECONDS, lambda: os.kill(os.getpid(), signal.SIGTERM))

            signal.signal(signal.SIGUSR1, drain)
            os.write(self._ready_write, b"1")
            os.close(self._ready_write)
            log.info("worker %d (pid %d) listening on port %d", slot, os.getpid(), self.port)
            trimmer = HeapTrimmer().start()
            try:
                server.run()  # returns after SIGTERM (waitress catches the SystemExit and closes)
            finally:
                trimmer.stop()
        finally:
            app.close()
        return 0


def _raise_system_exit(_number, _frame) -> None:
    raise SystemExit(0)


def _exit_with_parent(parent: int) -> None:
    """Stop this worker when the parent disappears (killed without a chance to stop us)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.WEXITSTATUS(status)}"


def serve_workers(app_factory: Callable[[], Any], host: str, port: int, threads: int, workers: int,
                  announce: Callable[[int], None], pin: bool = True, limits: ServerLimits | None = None,
                  reservation: socket.socket | None = None, watch: Callable[[], Any] | None = None) -> int:
    """Run `workers` processes on one port until SIGINT/SIGTERM; returns the exit code.

    `reservation`: the port reserved earlier with `reserve_port(host, port)`.
    SIGHUP, or a change of `watch()`'s value (polled every WATCH_SECONDS), reloads the workers.
    """
    pool = WorkerPool(app_factory, host, port, threads, workers, pin, limits, reservation, watch)
    return pool.run(announce)
