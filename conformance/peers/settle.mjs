// What the peers that are driven one chunk at a time share.

// Resolves after the work a write caused has gone through every pipe: Node
// streams and web streams run on promise jobs, which all run before the
// next macrotask. Awaiting it after each chunk is what a network gives a
// peer: one read per turn of the event loop, nothing queued ahead.
export const settle = () => new Promise((resolve) => setImmediate(resolve));
