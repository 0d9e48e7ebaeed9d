"""The board (`bergen serve`): a local web page on the engine protocol. Needs the optional
extra `board`."""

#: The names this machine answers to by default (another host is refused: DNS rebinding).
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
