"""The search algorithms, one module each, registering itself (`search.registry`)."""
