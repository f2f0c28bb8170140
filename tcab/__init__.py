"""tcab: The Test Cabinet, a Make-like benchmark harness for AI coding agents."""

__version__ = "0.1.0"
