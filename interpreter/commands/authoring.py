"""``rulebook validate``, ``schema`` and ``new``: writing and checking specs."""
from __future__ import annotations

import sys

from ..options import parse_options
from . import _escape, console


# -- validate -------------------------------------------------------------------------------
def cmd_schema(args) -> int:
    """``rulebook schema``: the JSON Schema of specs (``--scenario``: of scenario files)."""
    from ..spec.loader import SCHEMA_DIR
    path = SCHEMA_DIR / ("scenario.schema.json" if args.scenario else "game.schema.json")
    sys.stdout.write(f"{path.resolve()}\n" if args.path else path.read_text(encoding="utf-8"))
    return 0


def cmd_validate(args) -> int:
    from ..spec.loader import check_spec
    status = 0
    for spec in args.specs:
        diags = check_spec(spec, parse_options(args.option))
        errors = [d for d in diags if d.severity == "error" or args.strict]
        for d in diags:
            style = "red" if d.severity == "error" or args.strict else "yellow"
            console.print(f"[{style}]{_escape(str(d))}[/{style}]")
        if errors:
            status = 1
            n_err = sum(d.severity == "error" for d in diags)
            n_warn = len(errors) - n_err
            counts = ([f"{n_err} error(s)"] if n_err else []) + \
                ([f"{n_warn} warning(s)" + (" (refused: --strict)" if args.strict else "")] if n_warn else [])
            console.print(f"[red]{_escape(spec)}: {', '.join(counts)}[/red]")
        else:
            warn = [d for d in diags if d.severity == "warning"]
            console.print(f"[green]{_escape(spec)}: valid[/green]" + (f" ({len(warn)} warning(s))" if warn else ""))
    return status


def cmd_new(args) -> int:
    """``rulebook new NAME``: a starter spec and its scenario folder (:mod:`interpreter.starter`)."""
    from ..starter import next_steps, shell_path, write_starter
    spec, scenario = write_starter(args.name)
    # one command a line, never wrapped, paths quoted and valid from here: ready to paste
    console.print(f"wrote {_escape(shell_path(spec))} and {_escape(shell_path(scenario))}\nnext:", soft_wrap=True)
    for line in next_steps(spec, scenario):
        console.print(f"  {_escape(line)}", soft_wrap=True, highlight=False)
    return 0
