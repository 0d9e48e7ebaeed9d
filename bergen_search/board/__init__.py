"""The board (`bergen serve`): a local web page on the engine protocol. Needs the optional
extra `board`."""
