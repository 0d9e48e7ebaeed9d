"""What the library found, as the doors print it: documents (`--json`, the engine's answers)
and text for people, one module per thing shown. The views import nothing from the doors.
"""
