"""What the library found, as the doors print it: the documents (`--json`, the engine's
answers) and the text for people, side by side per thing shown. `search`: a search's moves
(`bergen best`, the engine's `bestmove`); `show`: what the seat to move knows; `report`: an
analysis as a listing, a JSON document and a self-contained HTML page.
"""
