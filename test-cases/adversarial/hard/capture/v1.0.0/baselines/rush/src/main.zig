//! Baseline "rush": every agent runs the shortest path to the enemy flag;
//! whoever holds it (and everyone else while it is held) runs the shortest
//! path home. No defence, no avoidance.

const cap = @import("capture.zig");

var to_flag: [cap.MAXC]i32 = undefined;
var to_home: [cap.MAXC]i32 = undefined;
var sources: [cap.MAXC]i32 = undefined;

export fn alloc(len: i32) i32 {
    return cap.alloc(len);
}

export fn tick(ptr: i32, len: i32) i64 {
    const o = cap.parse(ptr, len);
    const me = o.seat;
    const enemy_flag = o.flags[@intCast(1 - me)];
    const flag_src = [1]i32{o.cell(enemy_flag.x, enemy_flag.y)};
    cap.bfs(o, me, &to_flag, &flag_src, null);
    var n: usize = 0;
    var y: i32 = 0;
    while (y < o.height) : (y += 1) {
        var x: i32 = 0;
        while (x < o.width) : (x += 1) {
            if (o.half(x) == me and cap.passable(o, me, x, y)) {
                sources[n] = o.cell(x, y);
                n += 1;
            }
        }
    }
    cap.bfs(o, me, &to_home, sources[0..n], null);
    cap.begin();
    for (o.agents[0..o.n_agents]) |a| {
        if (a.team != me or a.respawn > 0) continue;
        const field = if (enemy_flag.carrier >= 0) &to_home else &to_flag;
        cap.order(a.id, cap.descend(o, me, field, a.x, a.y, @intCast(a.id)));
    }
    return cap.finish();
}
