"""The arena: host compiled controllers in a wasmtime sandbox, play lockstep
matches, record and verify replays, run tournaments and fit ratings.

Public surface::

    GameSpec, Schemas            tcab.arena.game        a case, ready to play
    Entrant, play_match          tcab.arena.match       one match -> MatchRecord
    encode_replay, read_replay,
    write_replay, verify_replay  tcab.arena.replay      replays
    ModuleCache                  tcab.arena.engine      compiled modules by sha256
    Controller, Forfeit, Limits  tcab.arena.sandbox     one sandboxed module
"""
