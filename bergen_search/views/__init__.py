"""What the library found, as the doors print it: the documents (`--json`, the engine's
answers) and the text for people, side by side, one module per thing shown. `search`: a
search's moves (`bergen best`, the engine's `bestmove`); `evaluation`: a position scored for
every side (`bergen eval`); `show`: what the seat to move knows; `report`: an analysis as a
listing, a JSON document and a self-contained HTML page; `arena`, `replay`, `selfplay`,
`bench`: those commands' results. The views import nothing from the command line.
"""
