"""Self-play's summary, as `bergen selfplay` prints it on standard error."""
from __future__ import annotations


def selfplay_summary(winners, n_sides: int, seconds: float, backend: str, resumed: int = 0,
                     out_path: str | None = None) -> str:
    """How many matches, how long, on which backend, the wins by side, and where they went."""
    wins = [0] * n_sides
    for winner in winners:
        wins[winner] += 1
    from_journal = f", {resumed} of them from the journal" if resumed else ""
    matches = "1 match" if len(winners) == 1 else f"{len(winners)} matches"
    return (f"{matches} in {seconds:.2f} s ({backend}{from_journal}); wins by "
            f"side: " + ", ".join(f"{s}: {w}" for s, w in enumerate(wins))
            + (f"; saved to {out_path}" if out_path else ""))
