"""bergen_search: a search engine for the domino game Bergen.

The package is built in layers, each a subpackage that imports only those below it
(docs/DESIGN.md has the map; tests/test_layers.py holds the code to it):

- `cli`, `protocol`: the doors: the `bergen` command, the JSON-lines engine and its client;
- `views`: the documents and text of what the library found, shared by the doors;
- `analysis` (post-game review), `play` (engines at a table: matches, arena, self-play, luck);
- `search`: the search API, the registry of engines, one module per engine, the exact endgame;
- `formats`: notation, records, positions and position strings, read and written;
- `information`: what one seat knows: its information set, the world sampler, inference;
- `game`: tiles, rules, the reference rules engine, the seeded RNG, matches of simple engines;
- at the ground: `errors`, `constants`, `stats` and `runs` (parallel tasks, journals).

The compiled core (`_core`, `_sampler`, `_ismcts`, ...) sits beside them; each has a
pure-Python twin that it is tested against.
"""
__version__ = "0.1.0"
