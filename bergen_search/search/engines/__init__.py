"""The search algorithms, one module each; every module here registers itself with
`bergen_search.search.registry` when the registry is first read (see its doc)."""
