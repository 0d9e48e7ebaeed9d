"""`bergen engine`: the JSON-lines engine protocol (docs/PROTOCOL.md), its server (`server`) and
a Python client that keeps one engine process and asks it many questions (`client`).
"""
