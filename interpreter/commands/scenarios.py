"""``rulebook test``: rule scenario files, and which rules an edited spec changes (--spec)."""
from __future__ import annotations

from pathlib import Path

from ..errors import RulebookError
from . import _escape, console


# -- test -----------------------------------------------------------------------------------
def cmd_test(args) -> int:
    from ..scenario import run_paths
    if args.spec:
        # an edited spec that does not load is one located error, not every scenario "changed"
        if not Path(args.spec).is_file():
            raise RulebookError(f"--spec {args.spec}: no such spec file")
        from ..spec.loader import load_game
        load_game(args.spec)
    results = run_paths(args.paths, args.spec)
    failed = [r for r in results if not r.passed]
    if args.spec:
        return _report_variant(args, results, failed)
    for r in results:
        if r.passed:
            if args.verbose:
                console.print(f"[green]PASS[/green] {_escape(r.path)}  [dim]{_escape(r.rule)}[/dim]")
        else:
            console.print(f"[red]FAIL[/red] {_escape(r.path)}  [dim]{_escape(r.rule)}[/dim]")
            for f in r.failures or ["no expectation was checked: add expect"]:
                for line in str(f).splitlines():
                    console.print(f"     {_escape(line)}", soft_wrap=True)
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


def _report_variant(args, results, failed) -> int:
    """``test --spec``: which rules an edited spec changes, told apart from scenarios that fail
    with the spec they name too."""
    from ..scenario import run_paths
    before = {r.path: r.passed for r in run_paths([r.path for r in failed])} if failed else {}
    changed = [r for r in failed if before.get(r.path)]
    already = [r for r in failed if not before.get(r.path)]
    console.print(f"Scenarios of {_escape(' '.join(args.paths))} against {_escape(args.spec)}:")
    if changed:
        console.print(f"[red]{len(changed)} rule(s) the edit changes[/red] (they pass with the spec they name):")
        for r in changed:
            console.print(f"  [red]CHANGED[/red] {_escape(r.rule or r.path)}  [dim]{_escape(r.path)}[/dim]")
            # which expectation the edit changes: its first lines always, all of it with -v
            for f in r.failures:
                lines = str(f).splitlines()
                for line in lines if args.verbose else lines[:3]:
                    console.print(f"     {_escape(line)}", soft_wrap=True)
                if len(lines) > 3 and not args.verbose:
                    console.print("     [dim]… (-v shows all)[/dim]")
    for r in already:
        console.print(f"  [yellow]FAILS ALSO WITHOUT THE EDIT[/yellow] {_escape(r.rule or r.path)}  [dim]{_escape(r.path)}[/dim]")
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed"
                  f" ({len(changed)} changed by the edit)")
    return 1 if failed or not results else 0
