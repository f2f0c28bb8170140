//! Your Capture controller. The host calls `alloc`, writes the observation
//! JSON there, then calls `tick`, which returns the action JSON packed as
//! (pointer << 32) | length. See specs/contract.md and specs/rules.md.
//!
//! This starter parses the observation and orders every agent to stay:
//! it builds and plays legally, and never scores. Make it win.

const cap = @import("capture.zig");

export fn alloc(len: i32) i32 {
    return cap.alloc(len);
}

export fn tick(ptr: i32, len: i32) i64 {
    const o = cap.parse(ptr, len);
    cap.begin();
    for (o.agents[0..o.n_agents]) |a| {
        if (a.team != o.seat) continue;
        cap.order(a.id, cap.STAY);
    }
    return cap.finish();
}
