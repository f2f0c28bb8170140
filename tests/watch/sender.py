"""The session script of a watched toy run: python3 in the run image reads
.tcab/live.json and sends frames the way the draw tool's client does (one
TCP connection per frame, a JSON header line, then the PNG)."""

CLIENT = r'''
import json, socket, struct, sys, urllib.parse, zlib
live = json.load(open(".tcab/live.json"))
url = urllib.parse.urlsplit(live["url"])

def png(w, h, px):
    def chunk(k, d):
        return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
    rows = b"".join(b"\0" + px * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

def send(token, frame, op, count, body):
    head = json.dumps({"token": token, "frame": frame, "op": op, "count": count, "length": len(body)})
    try:
        with socket.create_connection((url.hostname, url.port), timeout=2) as s:
            s.sendall(head.encode() + b"\n" + body)
            s.shutdown(socket.SHUT_WR)
            s.recv(1)
        return "sent"
    except OSError as exc:
        return type(exc).__name__

for i, frame in enumerate(FRAMES):
    print("frame", frame, send(live["token"], frame, "fill-rect", i + 1, png(4, 3, b"\x10\x20\x30\xff")), flush=True)
print("forged", send("not-the-token", None, "line", 99, png(1, 1, b"\0\0\0\0")), flush=True)
'''


def script(frames: list) -> str:
    code = CLIENT.replace("FRAMES", repr(frames))
    return f"ls -a .tcab; python3 - <<'PYEOF'\n{code}\nPYEOF\necho sent-all"
