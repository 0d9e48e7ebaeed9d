"""An arena's result as `bergen arena` prints it: text and document, whole or after Ctrl-C."""
from __future__ import annotations

from .search import scores_text


def arena_document(result, backend: str) -> dict:
    """`bergen arena --json`, without the version, which the door adds."""
    return {**result.to_json(), "backend": backend}


def interrupted_document(partial, done: int, total: int) -> dict:
    """`bergen arena --json` after Ctrl-C: the finished sets' figures and how far it got."""
    return {**(partial.to_json() if partial else {}), "interrupted": True, "done": done,
            "total": total}


def interrupted_text(partial, done: int, total: int) -> str:
    """`bergen arena`'s text after Ctrl-C."""
    return (arena_text(partial) + "\n" + f"interrupted after {done} of {total} sets: the "
            f"figures above cover those")


def arena_text(r) -> str:
    """`bergen arena`'s text: an `ArenaResult` as a table, then the margins and notes."""
    plural = "" if r.sets == 1 else "s"
    unit = (f"duplicate pair{plural}" if r.seatings == 2
            else f"duplicate set{plural} of {r.seatings}")
    mode = (f"{r.rules.players} players in partnerships" if r.rules.partnerships
            else f"{r.rules.players} players")
    if r.single_round:
        start = scores_text(r.start_scores or (0,) * r.seatings)
        played = f"{r.matches} single rounds from {start}"
    else:
        played = f"{r.matches} matches, {r.rounds} rounds"
    lines = [f"{r.engines[0]} vs {r.engines[1]}: {r.sets} {unit}, {played}, {mode}, "
             f"seed {r.seed}, {r.seconds:.2f} s"]
    external = {e.name: e.engine.command_text for e in r.engines if e.engine is not None}
    lines += [f"  engine {name}: {command}" for name, command in external.items()]
    names = [str(e) for e in r.engines]
    wname = max(6, *(len(n) for n in names))
    seats = [r.seats_text(0), r.seats_text(1)]
    sw = max(5, *(len(s) for s in seats))
    tied = (f"  {'ties':>4}  {'losses':>6}" if r.single_round else "")
    lines.append(f"  {'engine':<{wname}}  {'seats':<{sw}}  {'wins':>6}{tied}  {'win rate':>8}  "
                 f"{'95% interval':<16}  {'points/round':>12}")
    rates = [(r.win_rate, r.ci95), (1.0 - r.win_rate, (1.0 - r.ci95[1], 1.0 - r.ci95[0]))]
    for k, (rate, (lo, hi)) in enumerate(rates):
        tied = (f"  {r.ties:>4}  {r.wins[1 - k]:>6}" if r.single_round else "")
        lines.append(f"  {names[k]:<{wname}}  {seats[k]:<{sw}}  {r.wins[k]:>6}{tied}  "
                     f"{100 * rate:>7.1f}%  {f'[{100 * lo:.1f}%, {100 * hi:.1f}%]':<16}  "
                     f"{r.points_per_round[k]:>12.3f}")

    def pm(value, stderr):
        return f"{value:+.3f}" + ("" if stderr is None else f" ± {stderr:.3f}")
    head = f"margin per round ({names[0]} − {names[1]}): "
    if r.luck_adjusted:
        ratio = "" if r.variance_ratio is None else f", variance ratio {r.variance_ratio:.2f}"
        lines.append(head + pm(r.adjusted_margin_per_round, r.adjusted_margin_stderr)
                     + " (stderr, luck-adjusted)")
        lines.append(f"  raw {pm(r.margin_per_round, r.margin_stderr)}, luck of the draws "
                     f"{pm(r.luck_per_round, r.luck_stderr)}{ratio}")
    else:
        se = "" if r.margin_stderr is None else " (stderr)"
        lines.append(head + pm(r.margin_per_round, r.margin_stderr) + se)
    if r.adjusted_win_rate is not None:
        ratio = ("" if r.win_variance_ratio is None
                 else f", variance ratio {r.win_variance_ratio:.2f}")
        ci = ("" if r.adjusted_ci95 is None else
              f" [{100 * r.adjusted_ci95[0]:.1f}%, {100 * r.adjusted_ci95[1]:.1f}%]")
        lines.append(f"{names[0]}'s matches won less the luck in its chance to win: "
                     f"{100 * r.adjusted_win_rate:.1f}%{ci}{ratio}")
    timed = [f"{names[k]} {1000 * r.seconds_per_search[k]:.1f} ms over {r.searches[k]}"
             for k in (0, 1) if r.searches[k]]
    if timed:
        lines.append("time per searched move: " + ", ".join(timed))
    note = f"interval from the {r.sets} sets ({r.ci_method})"
    if r.single_round:
        note += ("; a round is won by the side gaining most in it; the win rate counts a tie "
                 + ("as half a win" if r.seatings == 2 else "among k sides as 1/k of a win"))
    if r.seatings > 2:
        note += (f"; {names[1]}'s wins count any of its seats; equal engines would give "
                 f"{names[0]} {100 * r.even_rate:.1f}%")
    lines.append(note)
    return "\n".join(lines)
