"""The board (`bergen serve`): a local web page that speaks the engine protocol over a
WebSocket, one `protocol.server.EngineServer` per connection (`app.create_app`, `app.run`).
Needs the optional extra `board` (starlette, uvicorn, websockets)."""
