//! Helpers for a Capture controller: the ABI buffers, a small parser for the
//! observation JSON (specs/contract.md), breadth-first search on the maze and
//! the writer of the action JSON. No allocator, no std: fixed static buffers,
//! so the module stays import-free and tiny.

pub const MAXW = 64;
pub const MAXH = 48;
pub const MAXC = MAXW * MAXH;
pub const MAXA = 16;

pub const STAY: u8 = 0;
pub const N: u8 = 1;
pub const E: u8 = 2;
pub const S: u8 = 3;
pub const W: u8 = 4;
pub const DX = [5]i32{ 0, 0, 1, 0, -1 };
pub const DY = [5]i32{ 0, -1, 0, 1, 0 };
const NAMES = [5][]const u8{ "stay", "N", "E", "S", "W" };

pub const Agent = struct { id: i32, team: i32, x: i32, y: i32, carrying: bool, respawn: i32 };
pub const Flag = struct { team: i32, x: i32, y: i32, carrier: i32 };

pub const Obs = struct {
    tick: i32,
    seat: i32,
    width: i32,
    height: i32,
    vision: i32,
    target: i32,
    scores: [2]i32,
    bases: [2][2]i32,
    spawns: [2][2]i32,
    wall: [MAXC]bool,
    agents: [MAXA]Agent,
    n_agents: usize,
    flags: [2]Flag,

    pub fn cell(self: *const Obs, x: i32, y: i32) i32 {
        return y * self.width + x;
    }
    pub fn inside(self: *const Obs, x: i32, y: i32) bool {
        return x >= 0 and y >= 0 and x < self.width and y < self.height;
    }
    pub fn isWall(self: *const Obs, x: i32, y: i32) bool {
        if (!self.inside(x, y)) return true;
        return self.wall[@intCast(self.cell(x, y))];
    }
    /// Team whose half column x lies in: 0 for the left half.
    pub fn half(self: *const Obs, x: i32) i32 {
        return if (x < @divTrunc(self.width, 2)) 0 else 1;
    }
};

pub var obs: Obs = undefined;
var in_buf: [1 << 16]u8 = undefined;
var out_buf: [4096]u8 = undefined;
var out_len: usize = 0;

/// ABI `alloc`: the host writes the observation here (one buffer, reused).
pub fn alloc(len: i32) i32 {
    if (len < 0 or len > in_buf.len) return 0;
    return @intCast(@intFromPtr(&in_buf));
}

fn findKey(buf: []const u8, key: []const u8) ?usize {
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
        var j = i + key.len + 2;
        while (j < buf.len and (buf[j] == ' ' or buf[j] == ':' or buf[j] == '\n' or buf[j] == '\t' or buf[j] == '\r')) j += 1;
        return j;
    }
    return null;
}

/// Every integer of the JSON value at `pos` (a number or nested arrays), in order.
fn readInts(buf: []const u8, pos: usize, out: []i32) usize {
    var i = pos;
    var depth: i32 = 0;
    var n: usize = 0;
    while (i < buf.len) {
        const c = buf[i];
        if (c == '[') {
            depth += 1;
            i += 1;
        } else if (c == ']') {
            depth -= 1;
            i += 1;
            if (depth <= 0) break;
        } else if (c == '-' or (c >= '0' and c <= '9')) {
            var neg = false;
            if (c == '-') {
                neg = true;
                i += 1;
            }
            var v: i32 = 0;
            while (i < buf.len and buf[i] >= '0' and buf[i] <= '9') : (i += 1) {
                v = v *% 10 +% @as(i32, buf[i] - '0');
            }
            if (n < out.len) out[n] = if (neg) -v else v;
            n += 1;
            if (depth == 0) break;
        } else if (c == 'n') { // null counts as 0
            if (n < out.len) out[n] = 0;
            n += 1;
            i += 4;
            if (depth == 0) break;
        } else {
            i += 1;
        }
    }
    return n;
}

fn intKey(buf: []const u8, key: []const u8) i32 {
    var v = [1]i32{0};
    if (findKey(buf, key)) |p| _ = readInts(buf, p, &v);
    return v[0];
}

/// Parse the observation at (ptr, len) into `obs`.
pub fn parse(ptr: i32, len: i32) *Obs {
    const base: [*]const u8 = @ptrFromInt(@as(usize, @intCast(ptr)));
    const buf = base[0..@intCast(len)];
    obs.tick = intKey(buf, "tick");
    obs.seat = intKey(buf, "seat");
    obs.width = intKey(buf, "width");
    obs.height = intKey(buf, "height");
    obs.vision = intKey(buf, "vision");
    obs.target = intKey(buf, "target");
    var tmp: [MAXA * 6]i32 = undefined;
    if (findKey(buf, "scores")) |p| {
        _ = readInts(buf, p, &tmp);
        obs.scores = .{ tmp[0], tmp[1] };
    }
    if (findKey(buf, "bases")) |p| {
        _ = readInts(buf, p, &tmp);
        obs.bases = .{ .{ tmp[0], tmp[1] }, .{ tmp[2], tmp[3] } };
    }
    if (findKey(buf, "spawns")) |p| {
        _ = readInts(buf, p, &tmp);
        obs.spawns = .{ .{ tmp[0], tmp[1] }, .{ tmp[2], tmp[3] } };
    }
    if (findKey(buf, "flags")) |p| {
        _ = readInts(buf, p, &tmp);
        for (0..2) |k| {
            const t: usize = if (tmp[k * 4] == 1) 1 else 0;
            obs.flags[t] = .{ .team = tmp[k * 4], .x = tmp[k * 4 + 1], .y = tmp[k * 4 + 2], .carrier = tmp[k * 4 + 3] };
        }
    }
    obs.n_agents = 0;
    if (findKey(buf, "agents")) |p| {
        const n = readInts(buf, p, &tmp) / 6;
        const count = if (n > MAXA) MAXA else n;
        for (0..count) |k| {
            obs.agents[k] = .{ .id = tmp[k * 6], .team = tmp[k * 6 + 1], .x = tmp[k * 6 + 2], .y = tmp[k * 6 + 3], .carrying = tmp[k * 6 + 4] != 0, .respawn = tmp[k * 6 + 5] };
        }
        obs.n_agents = count;
    }
    if (findKey(buf, "map")) |p| {
        var i = p;
        var y: i32 = -1;
        var x: i32 = 0;
        var in_str = false;
        while (i < buf.len) : (i += 1) {
            const c = buf[i];
            if (c == '"') {
                in_str = !in_str;
                if (in_str) {
                    y += 1;
                    x = 0;
                }
            } else if (in_str) {
                if (y < MAXH and x < MAXW and x < obs.width) obs.wall[@intCast(y * obs.width + x)] = (c == '#');
                x += 1;
            } else if (c == ']') break;
        }
    }
    return &obs;
}

/// Can an agent of `team` enter (x, y)? Walls and its own flag base block it.
pub fn passable(o: *const Obs, team: i32, x: i32, y: i32) bool {
    if (o.isWall(x, y)) return false;
    const b = o.bases[@intCast(team)];
    return !(x == b[0] and y == b[1]);
}

var queue: [MAXC]i32 = undefined;

/// Multi-source BFS for `team`'s movement: dist[c] steps from the nearest
/// source (-1: unreachable). Cells with blocked[c] are never entered.
pub fn bfs(o: *const Obs, team: i32, dist: *[MAXC]i32, sources: []const i32, blocked: ?*const [MAXC]bool) void {
    const cells: usize = @intCast(o.width * o.height);
    for (0..cells) |c| dist[c] = -1;
    var head: usize = 0;
    var tail: usize = 0;
    for (sources) |s| {
        if (s < 0 or dist[@intCast(s)] != -1) continue;
        dist[@intCast(s)] = 0;
        queue[tail] = s;
        tail += 1;
    }
    while (head < tail) {
        const c = queue[head];
        head += 1;
        const x = @mod(c, o.width);
        const y = @divTrunc(c, o.width);
        for (1..5) |d| {
            const nx = x + DX[d];
            const ny = y + DY[d];
            if (!passable(o, team, nx, ny)) continue;
            const nc: usize = @intCast(o.cell(nx, ny));
            if (dist[nc] != -1) continue;
            if (blocked) |b| if (b[nc]) continue;
            dist[nc] = dist[@intCast(c)] + 1;
            queue[tail] = @intCast(nc);
            tail += 1;
        }
    }
}

/// The move from (x, y) that goes down the distance field (STAY if none).
/// `bias` rotates the tie-break so that agents spread over equal paths.
pub fn descend(o: *const Obs, team: i32, dist: *const [MAXC]i32, x: i32, y: i32, bias: usize) u8 {
    const here = dist[@intCast(o.cell(x, y))];
    var best: u8 = STAY;
    var best_d: i32 = if (here < 0) 1 << 30 else here;
    for (0..4) |k| {
        const d: u8 = @intCast(1 + (k + bias) % 4);
        const nx = x + DX[d];
        const ny = y + DY[d];
        if (!passable(o, team, nx, ny)) continue;
        const nd = dist[@intCast(o.cell(nx, ny))];
        if (nd >= 0 and nd < best_d) {
            best_d = nd;
            best = d;
        }
    }
    return best;
}

/// Start the action JSON; add orders with `order`, finish with `finish`.
pub fn begin() void {
    out_len = 0;
    put("{\"orders\":[");
}

fn put(s: []const u8) void {
    for (s) |c| {
        if (out_len < out_buf.len) {
            out_buf[out_len] = c;
            out_len += 1;
        }
    }
}

fn putInt(v: i32) void {
    var digits: [12]u8 = undefined;
    var n: usize = 0;
    var u: u32 = if (v < 0) @intCast(-v) else @intCast(v);
    if (v < 0) put("-");
    while (true) {
        digits[n] = @intCast('0' + u % 10);
        n += 1;
        u /= 10;
        if (u == 0) break;
    }
    while (n > 0) {
        n -= 1;
        put(digits[n .. n + 1]);
    }
}

pub fn order(agent: i32, move: u8) void {
    if (out_len > 11) put(",");
    put("{\"agent\":");
    putInt(agent);
    put(",\"move\":\"");
    put(NAMES[move]);
    put("\"}");
}

/// Close the JSON and pack (pointer << 32) | length for the ABI.
pub fn finish() i64 {
    put("]}");
    const p: u64 = @intFromPtr(&out_buf);
    return @bitCast((p << 32) | @as(u64, out_len));
}
