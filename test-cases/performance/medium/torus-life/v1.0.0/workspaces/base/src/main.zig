//! The naive Torus Life engine: one byte per cell, every neighbour of every
//! cell counted with wrapped coordinates, every tick. It is correct (it
//! follows specs/rules.md to the letter) and slow; make it fast.

const t = @import("torus.zig");

var grid: [t.MAXH * t.MAXW]u8 = undefined;
var next: [t.MAXH * t.MAXW]u8 = undefined;
var rows: [t.MAXH]u64 = undefined;

export fn alloc(len: i32) i32 {
    return t.alloc(len);
}

fn sum(w: u32, h: u32) u64 {
    var y: u32 = 0;
    while (y < h) : (y += 1) {
        var row: u64 = 0;
        var x: u32 = 0;
        while (x < w) : (x += 1) {
            if (grid[y * w + x] != 0) row |= @as(u64, 1) << @intCast(x);
        }
        rows[y] = row;
    }
    return t.checksum(rows[0..h]);
}

fn step(s: *const t.Scenario) void {
    const w: i32 = @intCast(s.width);
    const h: i32 = @intCast(s.height);
    var y: i32 = 0;
    while (y < h) : (y += 1) {
        var x: i32 = 0;
        while (x < w) : (x += 1) {
            var n: usize = 0;
            var dy: i32 = -1;
            while (dy <= 1) : (dy += 1) {
                var dx: i32 = -1;
                while (dx <= 1) : (dx += 1) {
                    if (dx == 0 and dy == 0) continue;
                    const nx = @mod(x + dx, w);
                    const ny = @mod(y + dy, h);
                    n += grid[@intCast(ny * w + nx)];
                }
            }
            const i: usize = @intCast(y * w + x);
            const live = if (grid[i] != 0) s.survive[n] else s.birth[n];
            next[i] = @intFromBool(live);
        }
    }
    const cells: usize = @intCast(w * h);
    @memcpy(grid[0..cells], next[0..cells]);
}

export fn simulate(ptr: i32, len: i32) i64 {
    const s = t.parse(ptr, len);
    const w = s.width;
    const h = s.height;
    var y: u32 = 0;
    while (y < h) : (y += 1) {
        var x: u32 = 0;
        while (x < w) : (x += 1) {
            grid[y * w + x] = @intCast((s.rows[y] >> @intCast(x)) & 1);
        }
    }
    t.begin();
    var tick: u32 = 0;
    for (s.snapshots[0..s.n_snapshots]) |want| {
        while (tick < want) : (tick += 1) step(s);
        t.snapshot(tick, sum(w, h));
    }
    return t.finish();
}
