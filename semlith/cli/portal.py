"""portal: the link to the daemon's web page (semlith/server/portal/)."""

from __future__ import annotations

import click

from semlith.cli.base import env, errors, fail, main


@main.command()
@click.option("--open", "open_browser", is_flag=True,
              help="Open the link in the default web browser as well.")
@click.pass_context
def portal(ctx: click.Context, open_browser: bool) -> None:
    """Print a link to the portal: the running daemon's web page of stores, files,
    search, index runs and agents.

    The link carries a one-time token in its fragment (`#token=...`, never sent to a
    server): it opens one session, within ten minutes. Run the command again for another.
    The token is neither the agent key nor the control key.

    \b
    Examples:
      semlith portal
      semlith portal --open
    """
    from semlith.base.home import portal_key
    from semlith.daemon_client import running
    from semlith.server.portal.session import link_token

    settings = env(ctx).get_settings()
    with errors():
        found = running(settings)
        if found is None:
            fail("no semlith daemon is running; start one with `semlith serve`, then run "
                 "`semlith portal` again")
        url = f"{found.url}/#token={link_token(portal_key(settings.home))}"
    click.echo(url)
    if open_browser:
        import webbrowser

        if not webbrowser.open(url):
            click.echo("semlith: no web browser could be started; open the link above",
                       err=True)
