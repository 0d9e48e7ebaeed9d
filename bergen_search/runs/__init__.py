"""Long runs: independent tasks run in order on processes or a cluster (`parallel`), and the
journals that let a run cut short go on (`journal`). They know nothing of the game."""
