"""doctor: check the installation, the model, the daemon, keys, clients and stores."""

from __future__ import annotations

import sys

import click

from semlith.cli.base import emit_json, env, json_option, main


@main.command()
@json_option
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check this installation and say how to fix what is wrong.

    \b
    Checks: the installation, the default model (loaded, asked to embed a word), the
    daemon and its version, the key files' permissions, each MCP client config that
    names semlith (does it start this semlith?), and each registered store (opens,
    private, disk space, chunks not yet embedded, its writer). Exits 1 when any check
    finds a fault; each fault comes with one line that fixes it. Nothing is changed.

    \b
    Example:
      semlith doctor --json | jq '.[] | select(.fix != "")'

    \b
    Examples:
      semlith doctor
      semlith doctor --json              # exits 1 when a check fails
    """
    from semlith.setup.doctor import diagnose

    state = env(ctx)
    findings = diagnose(state.get_settings(), state.embedder_factory)
    if as_json:
        emit_json([{"check": f.check, "ok": not f.fault, "detail": f.detail, "fix": f.fix}
                   for f in findings])
    else:
        for f in findings:
            click.echo(f"{'FAULT' if f.fault else 'ok':5}  {f.check:20} {f.detail}")
            if f.fault:
                click.echo(f"{'':5}  {'':20} fix: {f.fix}")
        faults = sum(f.fault for f in findings)
        click.echo(f"{faults} fault{'s' if faults != 1 else ''}" if faults else
                   "no faults", err=True)
    sys.exit(1 if any(f.fault for f in findings) else 0)
