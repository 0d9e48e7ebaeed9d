"""Long runs: independent tasks on this process, local workers or a Dask cluster, results in
order (`parallel`), and the journals that let a run cut short go on from where it stopped
(`journal`). They know nothing of the game.
"""
