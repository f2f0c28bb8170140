//! The shared part of every Torus Life engine: the ABI buffers, a small
//! parser for the scenario JSON (specs/contract.md), the checksum
//! (specs/rules.md, "Checksum") and the writer of the snapshots JSON.
//! No allocator, no std: fixed static buffers keep the module import-free.

pub const MAXW = 64;
pub const MAXH = 256;
pub const MAXSNAP = 1024;

pub const Scenario = struct {
    width: u32,
    height: u32,
    /// birth[n] / survive[n]: whether a dead / live cell with n live neighbours is live next tick.
    birth: [9]bool,
    survive: [9]bool,
    /// rows[y] bit x: cell (x, y) is live (the canonical encoding of specs/rules.md).
    rows: [MAXH]u64,
    snapshots: [MAXSNAP]u32,
    n_snapshots: usize,
};

pub var scenario: Scenario = undefined;
var in_buf: [1 << 20]u8 = undefined;
var out_buf: [64 * MAXSNAP + 64]u8 = undefined;
var out_len: usize = 0;

/// ABI `alloc`: the host writes the scenario here.
pub fn alloc(len: i32) i32 {
    if (len < 0 or len > in_buf.len) return 0;
    return @intCast(@intFromPtr(&in_buf));
}

fn findKey(buf: []const u8, key: []const u8) usize {
    var i: usize = 0;
    while (i + key.len + 2 <= buf.len) : (i += 1) {
        if (buf[i] != '"') continue;
        var ok = true;
        for (key, 0..) |c, k| {
            if (buf[i + 1 + k] != c) {
                ok = false;
                break;
            }
        }
        if (!ok or buf[i + 1 + key.len] != '"') continue;
        return i + key.len + 2;
    }
    return buf.len;
}

/// The integers of the value after `pos` (a number or an array of numbers).
fn readInts(buf: []const u8, pos: usize, out: []u32) usize {
    var i = pos;
    while (i < buf.len and (buf[i] == ' ' or buf[i] == ':' or buf[i] == '\n' or buf[i] == '\t' or buf[i] == '\r')) i += 1;
    const array = i < buf.len and buf[i] == '[';
    var n: usize = 0;
    while (i < buf.len) {
        const c = buf[i];
        if (c == ']') break;
        if (c >= '0' and c <= '9') {
            var v: u32 = 0;
            while (i < buf.len and buf[i] >= '0' and buf[i] <= '9') : (i += 1) {
                v = v *% 10 +% @as(u32, buf[i] - '0');
            }
            if (n < out.len) out[n] = v;
            n += 1;
            if (!array) break;
        } else {
            i += 1;
        }
    }
    return n;
}

fn readRule(buf: []const u8, key: []const u8, out: *[9]bool) void {
    var ns: [9]u32 = undefined;
    const n = readInts(buf, findKey(buf, key), &ns);
    out.* = @splat(false);
    for (ns[0..@min(n, 9)]) |v| {
        if (v < 9) out[v] = true;
    }
}

/// Parse the scenario the host wrote at `ptr` (`len` bytes) into `scenario`.
pub fn parse(ptr: i32, len: i32) *Scenario {
    const buf = in_buf[0..@min(@as(usize, @intCast(len)), in_buf.len)];
    _ = ptr;
    const s = &scenario;
    var one: [1]u32 = undefined;
    _ = readInts(buf, findKey(buf, "width"), &one);
    s.width = @min(@max(one[0], 3), MAXW);
    _ = readInts(buf, findKey(buf, "height"), &one);
    s.height = @min(@max(one[0], 3), MAXH);
    readRule(buf, "birth", &s.birth);
    readRule(buf, "survive", &s.survive);
    s.n_snapshots = @min(readInts(buf, findKey(buf, "snapshots"), &s.snapshots), MAXSNAP);
    // "rows": one string of '.' and '#' per row.
    var i = findKey(buf, "rows");
    var y: usize = 0;
    while (i < buf.len and buf[i] != '[') i += 1;
    while (i < buf.len and y < s.height) : (i += 1) {
        if (buf[i] != '"') continue;
        i += 1;
        var row: u64 = 0;
        var x: u6 = 0;
        while (i < buf.len and buf[i] != '"') : (i += 1) {
            if (buf[i] == '#') row |= @as(u64, 1) << x;
            x +%= 1;
        }
        s.rows[y] = row;
        y += 1;
    }
    while (y < s.height) : (y += 1) s.rows[y] = 0;
    return s;
}

/// FNV-1a 64 over the canonical encoding: each row as 8 little-endian bytes.
pub fn checksum(rows: []const u64) u64 {
    var h: u64 = 0xcbf29ce484222325;
    for (rows) |row| {
        var r = row;
        var k: usize = 0;
        while (k < 8) : (k += 1) {
            h ^= r & 0xff;
            h *%= 0x100000001b3;
            r >>= 8;
        }
    }
    return h;
}

fn put(s: []const u8) void {
    for (s) |c| {
        if (out_len < out_buf.len) {
            out_buf[out_len] = c;
            out_len += 1;
        }
    }
}

fn putInt(v: u32) void {
    var tmp: [10]u8 = undefined;
    var n: usize = 0;
    var x = v;
    while (true) {
        tmp[n] = @intCast('0' + x % 10);
        n += 1;
        x /= 10;
        if (x == 0) break;
    }
    while (n > 0) {
        n -= 1;
        put(tmp[n .. n + 1]);
    }
}

/// Start the output: `{"snapshots":[`.
pub fn begin() void {
    out_len = 0;
    put("{\"snapshots\":[");
}

/// Append one snapshot.
pub fn snapshot(tick: u32, sum: u64) void {
    if (out_buf[out_len - 1] == '}') put(",");
    put("{\"tick\":");
    putInt(tick);
    put(",\"checksum\":\"");
    const hex = "0123456789abcdef";
    var shift: u7 = 64;
    while (shift > 0) {
        shift -= 4;
        put(hex[@intCast((sum >> @intCast(shift)) & 0xf) ..][0..1]);
    }
    put("\"}");
}

/// Close the output and pack (pointer << 32) | length for the host.
pub fn finish() i64 {
    put("]}");
    const p: i64 = @intCast(@intFromPtr(&out_buf));
    return (p << 32) | @as(i64, @intCast(out_len));
}
