//! Reference controller for Capture: role assignment, danger-aware paths
//! and interception.
//!
//! Roles each tick: the first agent defends; while our flag is carried or
//! lies dropped, every agent on our own half joins the defence. Defenders
//! return a dropped flag, else close in on the worst intruder from several
//! sides: its route is predicted (home if it carries our flag, else towards
//! our flag); the first defender heads for the first cell of that route it
//! reaches no later than the intruder, the second chases, the others hold
//! the route's exit from our half. With nobody to catch, the first agent
//! waits at the spawn next to our flag. Raiders go for the enemy flag and home again on
//! paths that avoid cells a nearby enemy defender could step on; with no
//! such path they step to the safe neighbour closest to the goal rather
//! than into a defender. A raider that makes no progress for a while (a
//! stand-off at a gate) ignores danger for a few ticks to break it.

const cap = @import("capture.zig");

var danger: [cap.MAXC]bool = undefined;
var f_safe: [cap.MAXC]i32 = undefined;
var f_any: [cap.MAXC]i32 = undefined;
var h_safe: [cap.MAXC]i32 = undefined;
var h_any: [cap.MAXC]i32 = undefined;
var e_goal: [cap.MAXC]i32 = undefined;
var from_me: [cap.MAXC]i32 = undefined;
var d_field: [cap.MAXC]i32 = undefined;
var sources: [cap.MAXC]i32 = undefined;
var path: [64]i32 = undefined;

// Per-agent memory across ticks: progress towards the current goal, so a
// raider held up by a stand-off for too long turns bold for a while.
var best_dist: [cap.MAXA]i32 = @splat(1 << 30);
var stall: [cap.MAXA]i32 = @splat(0);
var bold: [cap.MAXA]i32 = @splat(0);
var goal_home: [cap.MAXA]bool = @splat(false);
const STALL_TICKS = 12;
const BOLD_TICKS = 10;

export fn alloc(len: i32) i32 {
    return cap.alloc(len);
}

fn markDanger(o: *const cap.Obs, them: i32) void {
    const cells: usize = @intCast(o.width * o.height);
    for (0..cells) |c| danger[c] = false;
    for (o.agents[0..o.n_agents]) |e| {
        if (e.team != them or e.respawn > 0 or o.half(e.x) != them) continue;
        var near = false;
        for (o.agents[0..o.n_agents]) |a| {
            if (a.team != them and @abs(a.x - e.x) + @abs(a.y - e.y) <= 5) near = true;
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

fn halfSources(o: *const cap.Obs, team: i32) usize {
    var n: usize = 0;
    var y: i32 = 0;
    while (y < o.height) : (y += 1) {
        var x: i32 = 0;
        while (x < o.width) : (x += 1) {
            if (o.half(x) == team and cap.passable(o, team, x, y)) {
                sources[n] = o.cell(x, y);
                n += 1;
            }
        }
    }
    return n;
}

/// A raider's step: the safe field if it reaches us; else the safe neighbour
/// closest to the goal on the unsafe field; else straight on.
fn raid(o: *const cap.Obs, safe: *const [cap.MAXC]i32, any: *const [cap.MAXC]i32, a: cap.Agent, home: bool) u8 {
    const c: usize = @intCast(o.cell(a.x, a.y));
    const k: usize = @intCast(@mod(a.id, cap.MAXA));
    if (goal_home[k] != home or any[c] < best_dist[k]) {
        goal_home[k] = home;
        best_dist[k] = any[c];
        stall[k] = 0;
    } else {
        stall[k] += 1;
    }
    if (stall[k] > STALL_TICKS) {
        bold[k] = BOLD_TICKS;
        stall[k] = 0;
        best_dist[k] = 1 << 30;
    }
    if (bold[k] > 0) {
        bold[k] -= 1;
        return cap.descend(o, a.team, any, a.x, a.y, @intCast(a.id));
    }
    if (safe[c] >= 0) return cap.descend(o, a.team, safe, a.x, a.y, @intCast(a.id));
    var best: u8 = 255;
    var best_d: i32 = 1 << 30;
    for (0..5) |m| {
        const d: u8 = @intCast(m);
        const nx = a.x + cap.DX[d];
        const ny = a.y + cap.DY[d];
        if (!cap.passable(o, a.team, nx, ny)) continue;
        const nc: usize = @intCast(o.cell(nx, ny));
        if (danger[nc] or any[nc] < 0) continue;
        if (any[nc] < best_d) {
            best_d = any[nc];
            best = d;
        }
    }
    if (best != 255) return best;
    return cap.descend(o, a.team, any, a.x, a.y, @intCast(a.id));
}

var path_len: usize = 0;

/// Predict enemy `e`'s route on our half into `path` (home if it carries our
/// flag, else towards our flag), following its shortest path.
fn predict(o: *const cap.Obs, me: i32, e: cap.Agent) void {
    const them = 1 - me;
    if (e.carrying) {
        const n = halfSources(o, them);
        cap.bfs(o, them, &e_goal, sources[0..n], null);
    } else {
        const b = o.bases[@intCast(me)];
        const src = [1]i32{o.cell(b[0], b[1])};
        cap.bfs(o, them, &e_goal, &src, null);
    }
    var px = e.x;
    var py = e.y;
    path_len = 0;
    while (path_len < path.len) {
        const d = cap.descend(o, them, &e_goal, px, py, 0);
        if (d == cap.STAY) break;
        px += cap.DX[d];
        py += cap.DY[d];
        if (o.half(px) != me) break;
        path[path_len] = o.cell(px, py);
        path_len += 1;
    }
}

/// Where the k-th defender at (x, y) heads to catch enemy `e` (after
/// `predict`): the first interceptor takes the first cell of the predicted
/// route it reaches no later than the enemy, the second chases, the others
/// hold the route's last cell on our half (the gate it must use).
fn defendTarget(o: *const cap.Obs, me: i32, x: i32, y: i32, e: cap.Agent, k: usize) i32 {
    if (k == 1 or path_len == 0) return o.cell(e.x, e.y);
    if (k >= 2) return path[path_len - 1];
    const mine = [1]i32{o.cell(x, y)};
    cap.bfs(o, me, &from_me, &mine, null);
    for (path[0..path_len], 0..) |c, i| {
        const mine_d = from_me[@intCast(c)];
        if (mine_d >= 0 and mine_d <= @as(i32, @intCast(i + 1))) return c;
    }
    return o.cell(e.x, e.y);
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
    const n = halfSources(o, me);
    cap.bfs(o, me, &h_safe, sources[0..n], &danger);
    cap.bfs(o, me, &h_any, sources[0..n], null);

    const own = o.flags[@intCast(me)];
    const base = o.bases[@intCast(me)];
    const dropped = own.carrier < 0 and (own.x != base[0] or own.y != base[1]);
    const alarm = own.carrier >= 0 or dropped;

    // The intruder to deal with: our flag's carrier, else the one nearest our flag.
    var threat: ?cap.Agent = null;
    var best: i32 = 1 << 30;
    for (o.agents[0..o.n_agents]) |e| {
        if (e.team != them or e.respawn > 0 or o.half(e.x) != me) continue;
        var score = @as(i32, @intCast(@abs(e.x - base[0]) + @abs(e.y - base[1])));
        if (e.carrying) score -= 1000;
        if (score < best) {
            best = score;
            threat = e;
        }
    }

    // In fog the carrier of our flag may be out of sight, but the flag never is.
    if (own.carrier >= 0 and (threat == null or !threat.?.carrying) and o.half(own.x) == me) {
        threat = .{ .id = own.carrier, .team = them, .x = own.x, .y = own.y, .carrying = true, .respawn = 0 };
    }
    if (threat) |e| predict(o, me, e);

    cap.begin();
    var first = true;
    var k: usize = 0;
    for (o.agents[0..o.n_agents]) |a| {
        if (a.team != me) continue;
        const defender = first or (alarm and o.half(a.x) == me and !a.carrying);
        first = false;
        if (a.respawn > 0) {
            best_dist[@intCast(@mod(a.id, cap.MAXA))] = 1 << 30;
            continue;
        }
        if (!defender) {
            if (a.carrying or ef.carrier >= 0) {
                cap.order(a.id, raid(o, &h_safe, &h_any, a, true));
            } else {
                cap.order(a.id, raid(o, &f_safe, &f_any, a, false));
            }
            continue;
        }
        var target: i32 = undefined;
        if (dropped) {
            target = o.cell(own.x, own.y);
        } else if (threat) |e| {
            target = defendTarget(o, me, a.x, a.y, e, k);
            k += 1;
        } else {
            target = o.cell(o.spawns[@intCast(me)][0], o.spawns[@intCast(me)][1]);
        }
        const src = [1]i32{target};
        cap.bfs(o, me, &d_field, &src, null);
        cap.order(a.id, cap.descend(o, me, &d_field, a.x, a.y, @intCast(a.id)));
    }
    return cap.finish();
}
