//! The fast Torus Life engine: each row is one u64 (bit x is cell x), and a
//! tick adds the eight neighbour rows with bitwise full adders, so 64 cells
//! are counted with a few dozen instructions. A tick that changes nothing is
//! a fixed point: every later snapshot has the same checksum.

const t = @import("torus.zig");

var a: [t.MAXH]u64 = undefined;
var b: [t.MAXH]u64 = undefined;

export fn alloc(len: i32) i32 {
    return t.alloc(len);
}

/// Bit x of the result is cell x - 1 of row r on the torus (`wm1` = width - 1).
inline fn rotl(r: u64, wm1: u6, mask: u64) u64 {
    return ((r << 1) | (r >> wm1)) & mask;
}

/// Bit x of the result is cell x + 1.
inline fn rotr(r: u64, wm1: u6, mask: u64) u64 {
    return ((r >> 1) | (r << wm1)) & mask;
}

/// One tick from `src` into `dst`; returns whether anything changed.
fn step(src: []const u64, dst: []u64, w: u6, mask: u64, bm: [9]u64, sm: [9]u64) bool {
    const h = src.len;
    var changed: u64 = 0;
    var y: usize = 0;
    while (y < h) : (y += 1) {
        const up = src[if (y == 0) h - 1 else y - 1];
        const mid = src[y];
        const dn = src[if (y + 1 == h) 0 else y + 1];
        const n = [8]u64{ rotl(up, w, mask), up, rotr(up, w, mask), rotl(mid, w, mask), rotr(mid, w, mask), rotl(dn, w, mask), dn, rotr(dn, w, mask) };
        // Bit-sliced count c3 c2 c1 c0 of the eight neighbours.
        var c0: u64 = 0;
        var c1: u64 = 0;
        var c2: u64 = 0;
        var c3: u64 = 0;
        for (n) |v| {
            const k0 = c0 & v;
            c0 ^= v;
            const k1 = c1 & k0;
            c1 ^= k0;
            const k2 = c2 & k1;
            c2 ^= k1;
            c3 |= k2;
        }
        var out: u64 = 0;
        inline for (0..9) |k| {
            const e0 = if (k & 1 != 0) c0 else ~c0;
            const e1 = if (k & 2 != 0) c1 else ~c1;
            const e2 = if (k & 4 != 0) c2 else ~c2;
            const e3 = if (k & 8 != 0) c3 else ~c3;
            out |= e0 & e1 & e2 & e3 & ((mid & sm[k]) | (~mid & bm[k]));
        }
        out &= mask;
        dst[y] = out;
        changed |= out ^ mid;
    }
    return changed != 0;
}

export fn simulate(ptr: i32, len: i32) i64 {
    const s = t.parse(ptr, len);
    const h = s.height;
    const wm1: u6 = @intCast(s.width - 1);
    const mask: u64 = if (s.width == 64) ~@as(u64, 0) else (@as(u64, 1) << @intCast(s.width)) - 1;
    var bm: [9]u64 = undefined;
    var sm: [9]u64 = undefined;
    for (0..9) |k| {
        bm[k] = if (s.birth[k]) ~@as(u64, 0) else 0;
        sm[k] = if (s.survive[k]) ~@as(u64, 0) else 0;
    }
    @memcpy(a[0..h], s.rows[0..h]);
    var cur: []u64 = a[0..h];
    var other: []u64 = b[0..h];
    var still = false;
    t.begin();
    var tick: u32 = 0;
    var sum = t.checksum(cur);
    for (s.snapshots[0..s.n_snapshots]) |want| {
        if (still) {
            tick = want;
        } else {
            while (tick < want) : (tick += 1) {
                if (!step(cur, other, wm1, mask, bm, sm)) {
                    still = true;
                    tick = want;
                    break;
                }
                const tmp = cur;
                cur = other;
                other = tmp;
            }
            sum = t.checksum(cur);
        }
        t.snapshot(tick, sum);
    }
    return t.finish();
}
