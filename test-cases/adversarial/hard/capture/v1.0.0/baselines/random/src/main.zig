//! Baseline "random": every agent takes a random open step each tick
//! (xorshift64, seeded by the seat). The floor of the field.

const cap = @import("capture.zig");

var rng: u64 = 0;

fn next() u64 {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

export fn alloc(len: i32) i32 {
    return cap.alloc(len);
}

export fn tick(ptr: i32, len: i32) i64 {
    const o = cap.parse(ptr, len);
    if (rng == 0) rng = 0x9E3779B97F4A7C15 +% @as(u64, @intCast(o.seat + 1));
    cap.begin();
    for (o.agents[0..o.n_agents]) |a| {
        if (a.team != o.seat or a.respawn > 0) continue;
        var options: [5]u8 = undefined;
        var n: usize = 0;
        for (0..5) |d| {
            if (d == 0 or cap.passable(o, a.team, a.x + cap.DX[d], a.y + cap.DY[d])) {
                options[n] = @intCast(d);
                n += 1;
            }
        }
        cap.order(a.id, options[@intCast(next() % n)]);
    }
    return cap.finish();
}
