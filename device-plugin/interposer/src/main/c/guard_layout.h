/* The interference guard's file, one per GPU, shared by every guarded tenant of the GPU and the
 * agent (io.smslice.protocol.GuardLayout says the same; GuardLayoutTest ties the two). The agent
 * makes it and writes the header's settings; each tenant process takes one slot. All offsets are
 * bytes; words are little-endian and naturally aligned, ints 4 bytes, longs 8. */
#ifndef SMSLICE_GUARD_LAYOUT_H
#define SMSLICE_GUARD_LAYOUT_H

#define GUARD_MAGIC 0x534d4744 /* "SMGD" */
#define GUARD_VERSION 3 /* 2: a slot is owned while its bytes are locked; 3: STARTS, holds on the GPU */

/* Header, written by the agent (BUSY_COUNT, RELEASES and STARTS by latency-critical tenants). */
#define GUARD_MAGIC_OFFSET 0
#define GUARD_VERSION_OFFSET 4
#define GUARD_ENABLED_OFFSET 8          /* int: 1 while latency-critical and best-effort share */
#define GUARD_SHARE_PERMILLE_OFFSET 12  /* int: most of a window a best-effort process is held */
#define GUARD_MAX_HOLD_NANOS_OFFSET 16  /* long: longest one launch is held */
#define GUARD_WINDOW_NANOS_OFFSET 24    /* long: the window the share is counted over */
#define GUARD_BE_DEPTH_OFFSET 32        /* int: best-effort launches in flight at most */
#define GUARD_BUSY_COUNT_OFFSET 36      /* int: latency-critical slots with work in flight */
#define GUARD_RELEASES_OFFSET 40        /* int, a futex: bumped when such a slot goes idle */
#define GUARD_STARTS_OFFSET 44          /* int, a futex: bumped when such a slot goes busy */
#define GUARD_BE_INFLIGHT_NANOS_OFFSET 48 /* long: best-effort GPU time in flight at most, 0 none */
#define GUARD_BE_HOLD_OFFSET 56         /* int: GUARD_HOLD_STREAM: best-effort may hold on the GPU */
/* long: how long before a periodic latency-critical tenant's next frame is due best-effort gates
 * close, and the idle gap that begins a frame; 0: never ahead. Zero in files of earlier agents. */
#define GUARD_AHEAD_NANOS_OFFSET 64

/* Slots: one per tenant process, taken by write-locking the slot's bytes (fcntl, for the owner's
 * life: the kernel drops the lock when it dies) and then a compare-and-set of OWNER. A slot with
 * an owner but no lock is a dead one's: anyone may clear its busy mark or take it. */
#define GUARD_SLOTS_OFFSET 128
#define GUARD_SLOTS 64
#define GUARD_SLOT_BYTES 192
#define GUARD_SLOT_OWNER 0        /* long: the process's token, 0 when free */
#define GUARD_SLOT_ROLE 8         /* int: GUARD_ROLE_* */
#define GUARD_SLOT_LAUNCH_NANOS 12 /* int: best-effort GPU time per launch, estimated, ns */
#define GUARD_SLOT_LEASE 16       /* long: CLOCK_MONOTONIC ns of the owner's last write */
#define GUARD_SLOT_BUSY_SINCE 24  /* long: ns since when work is in flight, 0 when idle */
#define GUARD_SLOT_LAUNCHED 32    /* long: launches tracked */
#define GUARD_SLOT_COMPLETED 40   /* long: of those, seen complete */
#define GUARD_SLOT_HELD_NANOS 48  /* long: best-effort wall time any thread was held */
#define GUARD_SLOT_HOLDS 56       /* int: best-effort launches that waited */
#define GUARD_SLOT_CAP_CUTS 60    /* int: holds the cap ended (hold or share limit) */
#define GUARD_SLOT_CLAIM 64       /* char[64]: the claim, NUL-terminated */
#define GUARD_SLOT_CLAIM_BYTES 64
#define GUARD_SLOT_HOLD_MODE 128  /* int: best-effort, GUARD_HOLD_* */
#define GUARD_SLOT_GATE_CLOSED 132 /* int: best-effort, 1 while its streams are held on the GPU */
#define GUARD_SLOT_STREAM_WAITS 136 /* long: best-effort, the waits put on its streams */
#define GUARD_SLOT_FRAME_START 144 /* long: latency-critical, ns its latest frame on schedule began */
#define GUARD_SLOT_PERIOD 152     /* long: latency-critical, ns between its frames; 0 not periodic */
#define GUARD_SLOT_AHEAD 160      /* int: best-effort, gate closings ahead of an expected frame */
#define GUARD_SLOT_AHEAD_MISSED 164 /* int: of those, ended with no latency-critical work begun */

#define GUARD_ROLE_LATENCY_CRITICAL 1
#define GUARD_ROLE_BEST_EFFORT 2

/* How a best-effort process holds: its streams wait on the GPU for a word its gate thread closes
 * (STREAM: where the header's BE_HOLD says so and the driver has stream waits), or its launching
 * threads wait on the host (THREAD). */
#define GUARD_HOLD_STREAM 1
#define GUARD_HOLD_THREAD 2

/* The most best-effort launches a tenant keeps in flight, whatever the depth says. */
#define GUARD_MAX_DEPTH 1024

#define GUARD_FILE_BYTES (GUARD_SLOTS_OFFSET + GUARD_SLOTS * GUARD_SLOT_BYTES)

#endif
