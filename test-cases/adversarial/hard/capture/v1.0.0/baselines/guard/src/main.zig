//! Baseline "guard": one defender plus raiders, all on breadth-first search.
//! The defender returns a dropped flag, else chases the intruder nearest to
//! its base (the flag carrier first), else waits at the spawn next to its
//! flag. Raiders take the shortest path to the enemy flag and home again,
//! avoiding cells an enemy defender close by could step on next tick, and walk
//! straight in when no safe path exists.

const cap = @import("capture.zig");

var danger: [cap.MAXC]bool = undefined;
var f_safe: [cap.MAXC]i32 = undefined;
var f_any: [cap.MAXC]i32 = undefined;
var h_safe: [cap.MAXC]i32 = undefined;
var h_any: [cap.MAXC]i32 = undefined;
var d_field: [cap.MAXC]i32 = undefined;
var sources: [cap.MAXC]i32 = undefined;

export fn alloc(len: i32) i32 {
    return cap.alloc(len);
}

fn markDanger(o: *const cap.Obs, them: i32) void {
    const cells: usize = @intCast(o.width * o.height);
    for (0..cells) |c| danger[c] = false;
    for (o.agents[0..o.n_agents]) |e| {
        if (e.team != them or e.respawn > 0 or o.half(e.x) != them) continue;
        // Only enemies close to one of our agents matter: a far one moves on.
        var near = false;
        for (o.agents[0..o.n_agents]) |a| {
            if (a.team != them and @abs(a.x - e.x) + @abs(a.y - e.y) <= 4) near = true;
        }
        if (!near) continue;
        for (0..5) |d| {
            const nx = e.x + cap.DX[d];
            const ny = e.y + cap.DY[d];
            if (!cap.passable(o, them, nx, ny) or o.half(nx) != them) continue;
            danger[@intCast(o.cell(nx, ny))] = true;
        }
    }
}

fn move(o: *const cap.Obs, safe: *const [cap.MAXC]i32, any: *const [cap.MAXC]i32, a: cap.Agent) u8 {
    const c: usize = @intCast(o.cell(a.x, a.y));
    const field = if (safe[c] >= 0) safe else any;
    return cap.descend(o, a.team, field, a.x, a.y, @intCast(a.id));
}

export fn tick(ptr: i32, len: i32) i64 {
    const o = cap.parse(ptr, len);
    const me = o.seat;
    const them = 1 - me;
    markDanger(o, them);
    const ef = o.flags[@intCast(them)];
    const flag_src = [1]i32{o.cell(ef.x, ef.y)};
    cap.bfs(o, me, &f_safe, &flag_src, &danger);
    cap.bfs(o, me, &f_any, &flag_src, null);
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
    cap.bfs(o, me, &h_safe, sources[0..n], &danger);
    cap.bfs(o, me, &h_any, sources[0..n], null);

    // Defender's target: a dropped own flag, else the worst intruder, else the spawn.
    const own = o.flags[@intCast(me)];
    const base = o.bases[@intCast(me)];
    var tx = o.spawns[@intCast(me)][0];
    var ty = o.spawns[@intCast(me)][1];
    if (own.carrier < 0 and (own.x != base[0] or own.y != base[1])) {
        tx = own.x;
        ty = own.y;
    } else {
        var best: i32 = 1 << 30;
        for (o.agents[0..o.n_agents]) |e| {
            if (e.team != them or e.respawn > 0 or o.half(e.x) != me) continue;
            var score = @as(i32, @intCast(@abs(e.x - base[0]) + @abs(e.y - base[1])));
            if (e.carrying) score -= 1000;
            if (score < best) {
                best = score;
                tx = e.x;
                ty = e.y;
            }
        }
    }
    const def_src = [1]i32{o.cell(tx, ty)};
    cap.bfs(o, me, &d_field, &def_src, null);

    cap.begin();
    var defender_set = false;
    for (o.agents[0..o.n_agents]) |a| {
        if (a.team != me) continue;
        if (!defender_set) {
            defender_set = true;
            if (a.respawn == 0) cap.order(a.id, cap.descend(o, me, &d_field, a.x, a.y, 0));
            continue;
        }
        if (a.respawn > 0) continue;
        if (a.carrying or ef.carrier >= 0) {
            cap.order(a.id, move(o, &h_safe, &h_any, a));
        } else {
            cap.order(a.id, move(o, &f_safe, &f_any, a));
        }
    }
    return cap.finish();
}
