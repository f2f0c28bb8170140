"""The draw tool's own client (tcab.draw.live.send_frame, what the sprite
images run) against the listener: the protocol both sides implement."""

from __future__ import annotations

import time

from tcab.draw.config import Live
from tcab.draw.live import send_frame
from tcab.draw.png import encode
from tests.watch.wire import Loopback, wait_for


def test_the_draw_tools_frames_are_accepted_and_a_forged_one_is_not() -> None:
    image = encode(5, 3, bytes([200, 10, 10, 255]) * 15)
    with Loopback() as lb:
        host, port = lb.address
        live = Live(f"http://{host}:{port}/frame", lb.token)
        assert send_frame(live, 4, "fill-circle", 9, image)
        assert send_frame(live, None, "set-pixel", 10, image)
        assert send_frame(Live(live.url, "forged"), 4, "line", 11, image)  # delivered, then dropped
        wait_for(lambda: lb.handled() == 3)
        state = lb.board.state()
    assert state["dropped"] == {"wrong token": 1}
    assert [(f["frame"], f["op"], f["count"], f["width"], f["height"]) for f in state["frames"]] == [
        (None, "set-pixel", 10, 5, 3), (4, "fill-circle", 9, 5, 3)]


def test_a_send_to_a_listener_that_is_gone_returns_at_once() -> None:
    lb = Loopback()
    host, port = lb.address
    lb.run.close()  # bound once, now closed: nothing listens on the port
    t0 = time.monotonic()
    assert send_frame(Live(f"http://{host}:{port}/frame", lb.token), 0, "line", 1, b"x") is False
    assert time.monotonic() - t0 < 1


def test_a_burst_of_a_sheets_frames_is_read_whole() -> None:
    """A sheet's render sends one frame per sheet frame back to back, each
    client closing as soon as it has written: the cap on connections read at
    once must not drop them (the listener reads what it accepted first)."""
    image = encode(8, 8, bytes([1, 2, 3, 255]) * 64)
    with Loopback() as lb:
        host, port = lb.address
        live = Live(f"http://{host}:{port}/frame", lb.token)
        assert all(send_frame(live, i, "render", 40, image) for i in range(24))
        wait_for(lambda: lb.handled() == 24)
        assert lb.board.dropped == {} and lb.board.accepted == 24
