"""`sitehost doctor`: every health test in the terminal, for people and for container health checks."""

from __future__ import annotations

import contextlib
import sys

import click

from host import HealthResult, HealthTest
from host.commands import open_site, registered_health_tests

STATUS_STYLE = {"good": ("ok", "green"), "recommended": ("warn", "yellow"), "critical": ("FAIL", "red")}


class DoctorCommand(click.Command):
    """`doctor --help` ends with the names of the tests `--only` takes (read from the plugins, no database)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        tests = registered_health_tests(ctx)
        if tests:
            with formatter.section("Tests"):
                formatter.write_dl([(test.name, f"{test.label} ({test.group})") for test in tests])
        super().format_epilog(ctx, formatter)


@click.command("doctor", cls=DoctorCommand)
@click.option("--url", default="", help="Address the site is served at (default: [site] url, or "
              "http://127.0.0.1:8080 where `sitehost serve` listens by default).")
@click.option("--only", multiple=True, help="Run only this test (repeatable; the tests are listed below).")
@click.pass_context
def doctor(ctx: click.Context, url: str, only: tuple[str, ...]) -> None:
    """Run the site-health tests and print one line per test.

    Exits 0 when no test is critical and 1 otherwise, so it can serve as a container
    health check. The loopback tests need `sitehost serve` running at --url.

    \b
    Example:
      sitehost doctor --url https://www.school.example
    """
    from sqlalchemy.exc import SQLAlchemyError

    from .routes import run_test

    with contextlib.ExitStack() as stack:
        try:
            app = stack.enter_context(open_site(ctx))
        except SQLAlchemyError as error:
            _print_row("database", HealthResult("critical", "The database cannot be reached",
                                                f"Opening the site failed: {type(error).__name__}: {error}"))
            sys.exit(1)
        site_url = (url or app.settings.site.get("url") or "http://127.0.0.1:8080").rstrip("/")
        tests: list[HealthTest] = [test for test, _owner in app.registry.health_tests.values()
                                   if not only or test.name in only]
        unknown = set(only) - {test.name for test in tests}
        if unknown:
            raise click.ClickException(f"unknown test(s): {', '.join(sorted(unknown))}; known: "
                                       + ", ".join(app.registry.health_tests))
        click.echo(f"sitehost doctor: {len(tests)} tests of the site at {site_url}")
        worst = "good"
        for test in tests:
            result = run_test(app, test, site_url)
            _print_row(test.name, result)
            if result.status == "critical" or (result.status == "recommended" and worst == "good"):
                worst = result.status
    click.echo(f"result: {worst}")
    sys.exit(1 if worst == "critical" else 0)


def _print_row(name: str, result: HealthResult) -> None:
    word, colour = STATUS_STYLE[result.status]
    click.echo(f"{click.style(f'{word:<4}', fg=colour, bold=True)}  {name:<22} {result.label}")
    for line in (result.description, result.actions and f"fix: {result.actions}"):
        if line:
            click.echo(f"      {'':<22} {line}")
