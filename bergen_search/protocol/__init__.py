"""The JSON-lines engine protocol (docs/PROTOCOL.md): its server and a Python client."""
