#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guard_layout.h"
#include "hooks.h"
#include "log.h"
#include "real.h"
#include "tenant_env.h"

typedef CUresult (*cuEventCreate_fn)(CUevent *, unsigned int);
typedef CUresult (*cuEventRecord_fn)(CUevent, CUstream);
typedef CUresult (*cuEventQuery_fn)(CUevent);
typedef CUresult (*cuEventSynchronize_fn)(CUevent);
typedef CUresult (*cuEventElapsedTime_fn)(float *, CUevent, CUevent);
typedef CUresult (*cuEventDestroy_fn)(CUevent);
typedef CUresult (*cuStreamIsCapturing_fn)(CUstream, int *);
typedef CUresult (*cuThreadExchangeStreamCaptureMode_fn)(int *);
typedef CUresult (*cuCtxSetCurrent_real_fn)(CUcontext);
typedef CUresult (*cuMemHostAlloc_fn)(void **, size_t, unsigned int);
typedef CUresult (*cuMemHostGetDevicePointer_fn)(CUdeviceptr *, void *, unsigned int);
typedef CUresult (*cuStreamWaitValue32_fn)(CUstream, CUdeviceptr, uint32_t, unsigned int);

enum { EVENT_BLOCKING_SYNC = 1, EVENT_DISABLE_TIMING = 2, CAPTURE_MODE_RELAXED = 2 };
/* CUDA's values; CU_STREAM_WAIT_VALUE_GEQ is 0, and a gate waited for with it never holds. */
enum { HOST_ALLOC_PORTABLE = 1, HOST_ALLOC_DEVICEMAP = 2, WAIT_VALUE_EQ = 1 };
#define STREAM_PER_THREAD ((CUstream)0x2)
enum { RING = GUARD_MAX_DEPTH, POLL_NANOS = 200000, ROLE_NONE = 0, MARKS = 16 };
/* Frames: intervals that must agree before a tenant counts as periodic, and frames a best-effort
 * gate still expects after the latest one came (so a tenant that stops costs at most that many). */
enum { FRAME_INTERVALS = 4, FRAMES_EXPECTED = 2 };
/* How long a gate thread sleeps before it looks again without being woken. */
#define GATE_IDLE_NANOS 50000000LL
#define CHECK_NANOS 100000000LL

typedef struct {
  CUevent event;
  CUcontext ctx;
  int behind;     /* queued while the event before it was pending: the two time what is between */
  uint32_t count; /* the launches it ends: since the event before it */
  uint32_t waits; /* best-effort: the gate waits queued before it was recorded */
  uint32_t flips; /* best-effort: gate_flips when it was recorded */
} tracked;

/* Per process; reset in a forked child, which takes its own slot. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int opened;              /* 0 not yet, 1 done (role says whether the guard applies) */
static int role;                /* GUARD_ROLE_* or ROLE_NONE */
static int fd = -1;             /* the guard file, open for life: its slot lock lives on it */
static unsigned char *file;     /* the mapped guard file */
static unsigned char *slot;     /* this process's slot */
static int64_t token;
static tracked ring[RING];      /* events of launches in flight, oldest at head */
static uint64_t head, tail;
static uint64_t covered;        /* the launches the ring's events end */
static uint64_t pending;        /* best-effort: launches since its last event, none recorded yet */
static int64_t launches, completions; /* launches tracked, and of those seen complete */
static tracked spare[64];       /* completed events, kept for reuse in their context */
static int spare_count;
static int tracker_started;
/* Best-effort: the process's time held, counted once however many of its threads wait. */
static int64_t window_start, held_in_window;
static int holders;             /* its threads held now */
static int64_t accrued_at;      /* when the time held was last brought up to date */
static tracked last_done;       /* best-effort: the latest completed launch, the next one's start */
static int64_t launch_nanos;    /* best-effort: GPU time per launch, a moving mean; 0 unknown */
static int64_t checked_at;      /* best-effort: when it last asked whether busy owners live */
/* Best-effort, holding on the GPU: its streams wait for a word of mapped host memory to be 0,
 * which its gate thread sets to 1 while latency-critical work is in flight (within the caps). */
static int hold_mode;           /* GUARD_HOLD_*, 0 until its first launch decides */
static uint32_t *gate;          /* the word, and the address its streams wait on */
static CUdeviceptr gate_address;
static uint32_t waits_queued;   /* the gate waits its streams were given */
static uint32_t gate_flips;     /* the gate thread's closings and openings: odd while closed */
/* The launches each recent stream may still queue before it gets its next wait. */
static struct {
  CUstream stream;
  uint64_t left;
} marks[MARKS];
static int next_mark;
/* Latency-critical: when its work in flight last ran out, when its latest frame began, the
 * intervals between its latest frames, and while it is periodic its period, its phase (when its
 * latest frame on schedule began) and when a frame came off schedule since (0 none). */
static int64_t idle_since, frame_start;
static int64_t intervals[FRAME_INTERVALS];
static int intervals_seen;
static int64_t frame_period, frame_phase, off_schedule;

static int64_t now_nanos(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define AT(base, off, type) ((type *)((base) + (off)))
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
/* The driver's function, looked up once per call site: a best-effort process calls several per
 * launch, and a lookup each time cost it as much CPU time as its launches themselves. */
#define CALL(fn_type, name, ...)                                        \
  ({                                                                    \
    static void *slot_;                                                 \
    fn_type fn_ = (fn_type)real_slot(&slot_, name);                     \
    fn_ == NULL ? CUDA_ERROR_NOT_SUPPORTED : fn_(__VA_ARGS__);          \
  })

static int role_of(const char *priority) {
  if (priority == NULL) return ROLE_NONE;
  if (strcmp(priority, "LatencyCritical") == 0) return GUARD_ROLE_LATENCY_CRITICAL;
  if (strcmp(priority, "BestEffort") == 0) return GUARD_ROLE_BEST_EFFORT;
  return ROLE_NONE;
}

static void futex_wake_all(int32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(int32_t *word, int32_t seen, int64_t nanos) {
  struct timespec t = {nanos / 1000000000LL, nanos % 1000000000LL};
  syscall(SYS_futex, word, FUTEX_WAIT, seen, &t, NULL, 0);
}

static unsigned char *slot_at(int i) {
  return file + GUARD_SLOTS_OFFSET + (size_t)i * GUARD_SLOT_BYTES;
}

/* A slot is owned only while its owner holds a write lock on the slot's bytes: the kernel drops
 * it when the owner dies, however it dies, and another process sees that whatever PID namespace
 * each is in. POSIX record locks: a forked child does not inherit them, the agent's JVM takes the
 * same kind, and every kernel and sandbox with record locks has them (OFD locks need Linux 3.15).
 * They go with any descriptor of the file the process closes; only this code opens it. */
static int slot_lock(unsigned char *s, short type, int cmd) {
  struct flock range = {.l_type = type, .l_whence = SEEK_SET,
                        .l_start = (off_t)(s - file), .l_len = GUARD_SLOT_BYTES};
  return fcntl(fd, cmd, &range) == 0 ? range.l_type : -1;
}

/* Whether a slot's owner is alive: someone holds its lock (or the kernel cannot say). */
static int owner_alive(unsigned char *s) {
  return slot_lock(s, F_WRLCK, F_GETLK) != F_UNLCK;
}

/* Takes a slot's busy mark off the count, once whoever races for it (the mark is exchanged). */
static void clear_busy(unsigned char *s, int64_t seen) {
  if (seen == 0 ||
      !__atomic_compare_exchange_n(AT(s, GUARD_SLOT_BUSY_SINCE, int64_t), &seen, 0, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  ADD(AT(file, GUARD_BUSY_COUNT_OFFSET, int32_t), -1);
  ADD(AT(file, GUARD_RELEASES_OFFSET, int32_t), 1);
  futex_wake_all(AT(file, GUARD_RELEASES_OFFSET, int32_t));
}

/* Takes a free slot, else one whose owner died (keeping the dead one's counts readable while free
 * slots last), by locking it. Caller holds lock. */
static int take_slot(void) {
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < GUARD_SLOTS; i++) {
      unsigned char *s = slot_at(i);
      int64_t seen = LOAD(AT(s, GUARD_SLOT_OWNER, int64_t));
      if ((seen != 0) != pass || slot_lock(s, F_WRLCK, F_SETLK) < 0) continue;
      if (!__atomic_compare_exchange_n(AT(s, GUARD_SLOT_OWNER, int64_t), &seen, token, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        slot_lock(s, F_UNLCK, F_SETLK);
        continue;
      }
      /* The dead owner's work in flight goes with it. */
      clear_busy(s, LOAD(AT(s, GUARD_SLOT_BUSY_SINCE, int64_t)));
      memset(s + GUARD_SLOT_ROLE, 0, GUARD_SLOT_BYTES - GUARD_SLOT_ROLE);
      STORE(AT(s, GUARD_SLOT_ROLE, int32_t), role);
      STORE(AT(s, GUARD_SLOT_LEASE, int64_t), now_nanos());
      const char *claim = tenant_setting("SMSLICE_CLAIM");
      if (claim != NULL) strncpy((char *)s + GUARD_SLOT_CLAIM, claim, GUARD_SLOT_CLAIM_BYTES - 1);
      if (slot != NULL && slot != s) slot_lock(slot, F_UNLCK, F_SETLK);
      slot = s;
      return 0;
    }
  }
  return -1;
}

/* Maps the GPU's guard file and takes a slot, once; the guard stays off when anything fails. */
static void open_guard(void) {
  opened = 1;
  int wanted = role_of(tenant_setting("SMSLICE_PRIORITY"));
  const char *path = tenant_setting("SMSLICE_GUARD");
  if (wanted == ROLE_NONE || path == NULL || path[0] == '\0') return;
  fd = open(path, O_RDWR | O_CLOEXEC);
  /* Its size by lseek: libc has fstat as a symbol only since glibc 2.33 (glibc_symbols.h). */
  if (fd < 0 || lseek(fd, 0, SEEK_END) < (off_t)GUARD_FILE_BYTES) {
    smslice_error("interference guard off: cannot use %s (%s)", path,
                  fd < 0 ? strerror(errno) : "too small");
    if (fd >= 0) close(fd);
    fd = -1;
    return;
  }
  void *map = mmap(NULL, GUARD_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    smslice_error("interference guard off: cannot map %s (%s)", path, strerror(errno));
    return;
  }
  file = map;
  if (LOAD(AT(file, GUARD_MAGIC_OFFSET, int32_t)) != GUARD_MAGIC ||
      LOAD(AT(file, GUARD_VERSION_OFFSET, int32_t)) != GUARD_VERSION) {
    smslice_error("interference guard off: %s is not a version %d guard file", path,
                  GUARD_VERSION);
    return;
  }
  token = ((int64_t)getpid() << 32) ^ now_nanos() ^ (int64_t)(intptr_t)&token;
  if (token == 0) token = 1;
  role = wanted;
  if (take_slot() != 0) {
    role = ROLE_NONE;
    smslice_error("interference guard off: no slot of %s could be taken and locked", path);
    return;
  }
  smslice_debug("interference guard: %s in %s", wanted == GUARD_ROLE_BEST_EFFORT ?
                "best-effort" : "latency-critical", path);
}

static int active_role(void) {
  if (!LOAD(&opened)) {
    pthread_mutex_lock(&lock);
    if (!opened) open_guard();
    pthread_mutex_unlock(&lock);
  }
  if (role == ROLE_NONE || LOAD(AT(file, GUARD_ENABLED_OFFSET, int32_t)) != 1) return ROLE_NONE;
  return role;
}

/* Whether the slot is still ours (a silent owner's slot can be taken); caller holds lock. */
static int own_slot(void) {
  if (LOAD(AT(slot, GUARD_SLOT_OWNER, int64_t)) == token) return 1;
  return take_slot() == 0;
}

/* Latency-critical, periodic: follows the schedule through frame `now`. A frame within the ahead
 * time of a multiple of the period after the phase is on schedule: the phase moves to it and the
 * period to the mean since the phase, an eighth of the way. One frame off schedule (late, as a host
 * loop's frame can be) leaves the phase where it was, so that the next frame of a loop on a fixed
 * schedule is still expected on time; a next frame one period after that one means the schedule
 * moved with it (a loop that sleeps a period after each frame); any other ends the period. */
static void follow_schedule(int64_t now, int64_t ahead) {
  int64_t k = (now - frame_phase + frame_period / 2) / frame_period;
  if (k < 1) k = 1;
  int64_t late = now - (frame_phase + k * frame_period);
  int64_t moved = now - (off_schedule + frame_period);
  if (late >= -ahead && late <= ahead) {
    frame_period += ((now - frame_phase) / k - frame_period) / 8;
    frame_phase = now, off_schedule = 0;
  } else if (off_schedule != 0 && moved >= -ahead && moved <= ahead) {
    frame_phase = now, off_schedule = 0;
  } else if (off_schedule != 0) {
    frame_period = off_schedule = 0;
  } else {
    off_schedule = now;
  }
}

/* Latency-critical: work in flight after an idle gap of at least the file's ahead time begins a
 * frame. A tenant whose last FRAME_INTERVALS intervals between frames agree within that time is
 * periodic with the shortest of them, and stays so while its frames keep to the schedule
 * (follow_schedule). Its slot then says its period and phase, so that best-effort gates can
 * close before its next frame is due rather than after it began. Caller holds lock and owns the
 * slot. */
static void learn_frames(int64_t now) {
  int64_t ahead = LOAD(AT(file, GUARD_AHEAD_NANOS_OFFSET, int64_t));
  if (ahead <= 0 || (idle_since != 0 && now - idle_since < ahead)) return;
  if (frame_start != 0) intervals[intervals_seen++ % FRAME_INTERVALS] = now - frame_start;
  frame_start = now;
  if (frame_period > 0) follow_schedule(now, ahead);
  if (frame_period <= 0) {
    int64_t lo = INT64_MAX, hi = 0;
    for (int i = 0; i < FRAME_INTERVALS && i < intervals_seen; i++) {
      if (intervals[i] < lo) lo = intervals[i];
      if (intervals[i] > hi) hi = intervals[i];
    }
    frame_period = intervals_seen >= FRAME_INTERVALS && hi - lo <= ahead ? lo : 0;
    frame_phase = now;
  }
  STORE(AT(slot, GUARD_SLOT_PERIOD, int64_t), frame_period);
  STORE(AT(slot, GUARD_SLOT_FRAME_START, int64_t), frame_phase);
}

/* The latency-critical process's work in flight went from none to some, or back. Holds lock. */
static void publish_busy(int busy) {
  if (!own_slot()) return;
  int64_t now = now_nanos();
  if (busy)
    learn_frames(now);
  else
    idle_since = now;
  STORE(AT(slot, GUARD_SLOT_LEASE, int64_t), now);
  STORE(AT(slot, GUARD_SLOT_BUSY_SINCE, int64_t), busy ? now : 0);
  ADD(AT(file, GUARD_BUSY_COUNT_OFFSET, int32_t), busy ? 1 : -1);
  int32_t *word = AT(file, busy ? GUARD_STARTS_OFFSET : GUARD_RELEASES_OFFSET, int32_t);
  ADD(word, 1);
  futex_wake_all(word);
}

/* Waiting on an event must never break a capture another thread of the program runs. */
static CUresult wait_event(CUevent event) {
  int mode = CAPTURE_MODE_RELAXED;
  CALL(cuThreadExchangeStreamCaptureMode_fn, "cuThreadExchangeStreamCaptureMode", &mode);
  CUresult r = CALL(cuEventSynchronize_fn, "cuEventSynchronize", event);
  CALL(cuThreadExchangeStreamCaptureMode_fn, "cuThreadExchangeStreamCaptureMode", &mode);
  return r;
}

/* Keeps a completed launch's event for reuse in its context, or destroys it. Caller holds lock. */
static void keep_spare(tracked done) {
  if (spare_count < (int)(sizeof spare / sizeof spare[0]))
    spare[spare_count++] = done;
  else
    CALL(cuEventDestroy_fn, "cuEventDestroy_v2", done.event);
}

/* Best-effort: whether the gate may have held the work between two events: a wait was queued
 * between them and the gate was closed at some time from the first's record until now. Time held
 * is no launch's duration; were it counted, the bound would loosen exactly while holds happen
 * (on the H200 GPU machine a trainer's 12.5 us per launch read 22-49 us while a victim ran). */
static int gate_held_between(tracked first, tracked then) {
  return then.waits != first.waits && (first.flips % 2 == 1 || LOAD(&gate_flips) != first.flips);
}

/* Best-effort: a launch queued behind the one completed before it ran from that one's event to
 * its own, so their distance on the GPU's clock is its duration; the mean of such samples is what
 * the time bound divides by. A launch queued on an idle stream tells nothing and is skipped, as is
 * one the gate may have held. Caller holds lock. */
static void learn_duration(tracked done) {
  float ms = 0;
  if (!done.behind || last_done.event == NULL || last_done.ctx != done.ctx ||
      gate_held_between(last_done, done) ||
      CALL(cuEventElapsedTime_fn, "cuEventElapsedTime", &ms, last_done.event, done.event) !=
          CUDA_SUCCESS ||
      !(ms >= 0))
    return;
  int64_t sample = (int64_t)(ms * 1e6f) / (done.count > 0 ? done.count : 1);
  /* A sample far over the mean is more likely a gap the check above missed than one launch. */
  if (launch_nanos != 0 && sample > 16 * launch_nanos) sample = 16 * launch_nanos;
  launch_nanos = launch_nanos == 0 ? (sample > 0 ? sample : 1)
                                   : launch_nanos + (sample - launch_nanos) / 32;
  if (launch_nanos < 1) launch_nanos = 1;
  STORE(AT(slot, GUARD_SLOT_LAUNCH_NANOS, int32_t),
        (int32_t)(launch_nanos < INT32_MAX ? launch_nanos : INT32_MAX));
}

/* Ends the oldest launch in flight, if it is still the one given. Caller holds lock. */
static void complete_head(uint64_t seq) {
  if (head != seq || head == tail) return;
  tracked done = ring[head % RING];
  head++;
  covered -= done.count;
  completions += done.count;
  STORE(AT(slot, GUARD_SLOT_COMPLETED, int64_t), completions);
  if (role == GUARD_ROLE_BEST_EFFORT) {
    learn_duration(done);
    if (last_done.event != NULL) keep_spare(last_done);
    last_done = done;
  } else {
    keep_spare(done);
  }
  if (head == tail && role == GUARD_ROLE_LATENCY_CRITICAL) publish_busy(0);
  pthread_cond_broadcast(&changed);
}

/* Latency-critical: one thread waits for each launch in flight in turn and publishes when none is
 * left, so the program's own threads never wait for the guard. */
static void *track_completions(void *unused) {
  (void)unused;
  CUcontext current = NULL;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (head == tail) pthread_cond_wait(&changed, &lock);
    uint64_t seq = head;
    tracked next = ring[seq % RING];
    pthread_mutex_unlock(&lock);
    /* The driver's own call, not the wrapper: the event's context is the slice's already. */
    if (next.ctx != current &&
        CALL(cuCtxSetCurrent_real_fn, "cuCtxSetCurrent", next.ctx) == CUDA_SUCCESS)
      current = next.ctx;
    wait_event(next.event); /* an error (a fault) also ends the launch */
    pthread_mutex_lock(&lock);
    complete_head(seq);
  }
  return NULL;
}

/* Waits, on the caller's thread, for the oldest launch in flight to end. Caller holds lock. */
static void drain_oldest(void) {
  uint64_t seq = head;
  CUevent event = ring[seq % RING].event;
  pthread_mutex_unlock(&lock);
  wait_event(event);
  pthread_mutex_lock(&lock);
  complete_head(seq);
}

/* Ends the launches in flight that have completed, oldest first. Caller holds lock. */
static void complete_finished(void) {
  while (head != tail &&
         CALL(cuEventQuery_fn, "cuEventQuery", ring[head % RING].event) != 600 /* not ready */)
    complete_head(head);
}

/* Best-effort: the launches it may keep in flight. With a time bound, as many as fit in it at the
 * estimated time per launch (two until there is an estimate), within the file's depth. */
static uint64_t allowed_in_flight(void) {
  int64_t depth = LOAD(AT(file, GUARD_BE_DEPTH_OFFSET, int32_t));
  if (depth < 1) depth = 1;
  if (depth > RING) depth = RING;
  int64_t budget = LOAD(AT(file, GUARD_BE_INFLIGHT_NANOS_OFFSET, int64_t));
  if (budget <= 0) return (uint64_t)depth;
  int64_t fit = launch_nanos == 0 ? 2 : budget / launch_nanos;
  if (fit < 1) fit = 1;
  return (uint64_t)(fit < depth ? fit : depth);
}

/* Best-effort: waits until fewer than the allowed number of its own launches are in flight. Only
 * at the bound does it look at its events. */
static void bound_depth(void) {
  pthread_mutex_lock(&lock);
  uint64_t allowed = allowed_in_flight();
  if (covered + pending >= allowed) {
    complete_finished();
    while (covered + pending >= allowed && head != tail) drain_oldest();
  }
  pthread_mutex_unlock(&lock);
}

/* Best-effort: launches an event ends. One per a quarter of the bound, not one per launch: most
 * launches then cost a counter, and the bound is still kept within a quarter of itself. Caller
 * holds lock. */
static uint64_t launches_per_event(void) {
  uint64_t every = allowed_in_flight() / 4;
  return every < 1 ? 1 : every;
}

/* Best-effort: whether to ask the kernel now if busy owners live; at most every CHECK_NANOS per
 * process, and only about work in flight past the hold limit, so a launch costs no system call. */
static int liveness_due(int64_t now) {
  int64_t last = LOAD(&checked_at);
  return now - last >= CHECK_NANOS &&
         __atomic_compare_exchange_n(&checked_at, &last, now, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

/* 1 when a latency-critical slot has work in flight that has not outlasted the hold limit, -1
 * when every busy slot has (the cap cuts in), 0 when none is busy. A busy slot past the limit
 * whose owner died is cleared here, so it cuts no later hold. */
static int critical_busy(int64_t now, int64_t max_hold) {
  if (LOAD(AT(file, GUARD_BUSY_COUNT_OFFSET, int32_t)) <= 0) return 0;
  int stale = 0, check = -1;
  for (int i = 0; i < GUARD_SLOTS; i++) {
    unsigned char *s = slot_at(i);
    if (LOAD(AT(s, GUARD_SLOT_ROLE, int32_t)) != GUARD_ROLE_LATENCY_CRITICAL ||
        LOAD(AT(s, GUARD_SLOT_OWNER, int64_t)) == 0)
      continue;
    int64_t since = LOAD(AT(s, GUARD_SLOT_BUSY_SINCE, int64_t));
    if (since == 0) continue;
    if (now - since < max_hold) return 1;
    if (check < 0) check = liveness_due(now);
    if (check && !owner_alive(s))
      clear_busy(s, since);
    else
      stale = 1;
  }
  return stale ? -1 : 0;
}

/* Best-effort: brings the process's time held up to now: while any of its threads is held, the
 * wall clock's time counts once. Read under the lock, so that the clock only moves forward here.
 * Caller holds lock. */
static void accrue(void) {
  int64_t now = now_nanos();
  if (holders > 0) {
    held_in_window += now - accrued_at;
    if (own_slot()) ADD(AT(slot, GUARD_SLOT_HELD_NANOS, int64_t), now - accrued_at);
  }
  accrued_at = now;
}

/* Best-effort: when a hold that begins now must end at the latest: after max hold, or when the
 * process's share of the window runs out (no later than now when it has). Caller holds lock. */
static int64_t hold_deadline(int64_t now) {
  int64_t max_hold = LOAD(AT(file, GUARD_MAX_HOLD_NANOS_OFFSET, int64_t));
  int64_t window = LOAD(AT(file, GUARD_WINDOW_NANOS_OFFSET, int64_t));
  int32_t share = LOAD(AT(file, GUARD_SHARE_PERMILLE_OFFSET, int32_t));
  accrue();
  if (window <= 0 || now - window_start >= window) window_start = now, held_in_window = 0;
  int64_t end = now + max_hold;
  if (window > 0 && now + window * share / 1000 - held_in_window < end)
    end = now + window * share / 1000 - held_in_window;
  return end;
}

/* Best-effort: waits until no latency-critical work is in flight or the deadline; 1 when the cap
 * ended it (the deadline, or only work in flight past the hold limit left). */
static int await_release(int64_t end) {
  int64_t max_hold = LOAD(AT(file, GUARD_MAX_HOLD_NANOS_OFFSET, int64_t));
  int32_t *releases = AT(file, GUARD_RELEASES_OFFSET, int32_t);
  for (;;) {
    int32_t seen = LOAD(releases);
    int64_t now = now_nanos();
    int busy = critical_busy(now, max_hold);
    if (busy != 1) return busy < 0;
    if (now >= end) return 1;
    futex_wait(releases, seen, end - now < POLL_NANOS ? end - now : POLL_NANOS);
  }
}

/* Best-effort: when the next frame of a periodic latency-critical tenant is due, the earliest whose
 * ahead time has not passed, at most FRAMES_EXPECTED periods after the tenant's latest frame; 0
 * when none is. */
static int64_t expected_frame(int64_t now, int64_t ahead) {
  int64_t earliest = 0;
  for (int i = 0; i < GUARD_SLOTS; i++) {
    unsigned char *s = slot_at(i);
    if (LOAD(AT(s, GUARD_SLOT_ROLE, int32_t)) != GUARD_ROLE_LATENCY_CRITICAL ||
        LOAD(AT(s, GUARD_SLOT_OWNER, int64_t)) == 0)
      continue;
    int64_t period = LOAD(AT(s, GUARD_SLOT_PERIOD, int64_t));
    int64_t latest = LOAD(AT(s, GUARD_SLOT_FRAME_START, int64_t));
    if (period <= 0 || latest <= 0) continue;
    int64_t due = latest + period;
    for (int k = 1; k < FRAMES_EXPECTED && due + ahead <= now; k++) due += period;
    if (due + ahead > now && (earliest == 0 || due < earliest))
      earliest = due;
  }
  return earliest;
}

/* Best-effort, its gate closed ahead of a frame due: waits until latency-critical work begins and
 * then as await_release, or until `until` passes with none begun (the frame did not come; not a
 * cut), or the deadline (a cut). */
static int await_frame(int64_t until, int64_t end) {
  int64_t max_hold = LOAD(AT(file, GUARD_MAX_HOLD_NANOS_OFFSET, int64_t));
  int32_t *starts = AT(file, GUARD_STARTS_OFFSET, int32_t);
  for (;;) {
    int32_t seen = LOAD(starts);
    int64_t now = now_nanos();
    if (critical_busy(now, max_hold) == 1) return await_release(end);
    if (now >= end) return 1;
    if (now >= until) {
      if (own_slot()) ADD(AT(slot, GUARD_SLOT_AHEAD_MISSED, int32_t), 1);
      return 0;
    }
    int64_t left = (until < end ? until : end) - now;
    futex_wait(starts, seen, left < POLL_NANOS ? left : POLL_NANOS);
  }
}

/* Best-effort: the end of a hold, counted in the slot. */
static void count_hold(int cut) {
  pthread_mutex_lock(&lock);
  accrue();
  holders--;
  if (own_slot()) {
    STORE(AT(slot, GUARD_SLOT_LEASE, int64_t), now_nanos());
    ADD(AT(slot, GUARD_SLOT_HOLDS, int32_t), 1);
    if (cut) ADD(AT(slot, GUARD_SLOT_CAP_CUTS, int32_t), 1);
  }
  pthread_mutex_unlock(&lock);
}

/* Best-effort, holding on the thread: holds the launch (and says so) while latency-critical work
 * is in flight, at most max hold per launch and, for the process as a whole, the share of each
 * window. Work in flight longer than max hold no longer holds anyone, so a latency-critical
 * process that died busy holds others once, up to max hold, and never again. */
static int hold(void) {
  int64_t start = now_nanos();
  if (critical_busy(start, LOAD(AT(file, GUARD_MAX_HOLD_NANOS_OFFSET, int64_t))) != 1) return 0;
  pthread_mutex_lock(&lock);
  /* While this thread waits the process's time held grows with the clock: its share of the
   * window runs out at a fixed time, whatever the other threads do. */
  int64_t end = hold_deadline(start);
  holders++;
  pthread_mutex_unlock(&lock);
  count_hold(await_release(end));
  return 1;
}

/* Best-effort, holding on the GPU: one thread per process closes its gate while latency-critical
 * work is in flight and, with an ahead time, from that long before a periodic latency-critical
 * tenant's next frame is due until it begins (twice that time at most when it does not come), so
 * that the stream work queued past the last wait has run by then; within the same caps as a hold
 * on the thread. Otherwise it sleeps until a latency-critical slot goes busy or the next closing.
 * The time its gate is closed counts as held, whether or not its streams had work queued. */
static void *keep_gate(void *unused) {
  (void)unused;
  int32_t *starts = AT(file, GUARD_STARTS_OFFSET, int32_t);
  /* Closing ahead of a frame is timed by this thread's sleeps: no 50 us of default slack. */
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  for (;;) {
    int32_t seen = LOAD(starts);
    int64_t now = now_nanos(), sleep = GATE_IDLE_NANOS;
    int64_t ahead = LOAD(AT(file, GUARD_AHEAD_NANOS_OFFSET, int64_t));
    int busy = 0;
    int64_t due = 0;
    if (LOAD(AT(file, GUARD_ENABLED_OFFSET, int32_t)) == 1) {
      busy = critical_busy(now, LOAD(AT(file, GUARD_MAX_HOLD_NANOS_OFFSET, int64_t))) == 1;
      if (!busy && ahead > 0) due = expected_frame(now, ahead);
    }
    if (busy || (due != 0 && now >= due - ahead)) {
      pthread_mutex_lock(&lock);
      int64_t end = hold_deadline(now);
      if (end > now) holders++;
      pthread_mutex_unlock(&lock);
      if (end > now) {
        ADD(&gate_flips, 1u);
        STORE(gate, 1u);
        if (own_slot()) STORE(AT(slot, GUARD_SLOT_GATE_CLOSED, int32_t), 1);
        if (!busy && own_slot()) ADD(AT(slot, GUARD_SLOT_AHEAD, int32_t), 1);
        int cut = busy ? await_release(end) : await_frame(due + ahead, end);
        STORE(gate, 0u);
        ADD(&gate_flips, 1u);
        if (own_slot()) STORE(AT(slot, GUARD_SLOT_GATE_CLOSED, int32_t), 0);
        count_hold(cut);
        continue;
      }
      /* The share is spent: nothing holds until the window ends. */
      sleep = window_start + LOAD(AT(file, GUARD_WINDOW_NANOS_OFFSET, int64_t)) - now;
      if (sleep < POLL_NANOS) sleep = POLL_NANOS;
    } else if (due != 0 && due - ahead - now < sleep) {
      sleep = due - ahead - now;
    }
    STORE(gate, 0u); /* closed from the start until this thread first looked */
    futex_wait(starts, seen, sleep);
  }
  return NULL;
}

static int start_thread(void *(*body)(void *)) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int started = pthread_create(&thread, &attr, body, NULL) == 0;
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return started;
}

/* Best-effort: queues a wait for the gate ahead of the next launch on the stream. */
static CUresult queue_gate_wait(CUstream s) {
  CUresult r = CALL(cuStreamWaitValue32_fn, "cuStreamWaitValue32_v2", s, gate_address, 0,
                    WAIT_VALUE_EQ);
  if (r != CUDA_SUCCESS) return r;
  ADD(&waits_queued, 1u);
  if (own_slot()) ADD(AT(slot, GUARD_SLOT_STREAM_WAITS, int64_t), 1);
  return r;
}

/* The stream a wait goes on: NULL at a _ptsz entry point is the thread's own. */
static CUstream wait_stream(CUstream stream, int per_thread) {
  return stream == NULL && per_thread ? STREAM_PER_THREAD : stream;
}

/* Best-effort: its stream's entry in marks, taken over from the oldest when new (with no launch
 * left before a wait). Caller holds lock. */
static int mark_of(CUstream s) {
  for (int m = 0; m < MARKS; m++)
    if (marks[m].stream == s) return m;
  int m = next_mark;
  next_mark = (next_mark + 1) % MARKS;
  marks[m].stream = s;
  marks[m].left = 0;
  return m;
}

/* Best-effort: sets up holding on the GPU, 1 when it can: a word of mapped host memory (in the
 * launch's context, usable from all), a first wait on the launch's stream s to show that the
 * driver queues them, and a gate thread. Caller holds lock. */
static int start_gate(CUstream s) {
  void *word = NULL;
  CUresult r = CALL(cuMemHostAlloc_fn, "cuMemHostAlloc", &word, 64,
                    HOST_ALLOC_PORTABLE | HOST_ALLOC_DEVICEMAP);
  if (r == CUDA_SUCCESS)
    r = CALL(cuMemHostGetDevicePointer_fn, "cuMemHostGetDevicePointer_v2", &gate_address, word, 0);
  gate = word;
  /* Closed until the gate thread has looked, so that the first launch cannot slip past a hold. */
  if (gate != NULL) STORE(gate, 1u);
  if (r == CUDA_SUCCESS) r = queue_gate_wait(s);
  if (r != CUDA_SUCCESS) {
    smslice_debug("interference guard: no stream waits (%d); holding launches on the thread",
                  (int)r);
    return 0;
  }
  if (!start_thread(keep_gate)) {
    smslice_error("interference guard: no gate thread; holding launches on the thread");
    return 0;
  }
  marks[mark_of(s)].left = allowed_in_flight() - 1;
  return 1;
}

/* Best-effort: at its first launch, how it holds: on the GPU where the file allows it and that
 * can be set up, else on its launching threads. Caller holds lock. */
static void choose_hold_mode(CUstream stream, int per_thread) {
  hold_mode = LOAD(AT(file, GUARD_BE_HOLD_OFFSET, int32_t)) == GUARD_HOLD_STREAM &&
                      start_gate(wait_stream(stream, per_thread))
                  ? GUARD_HOLD_STREAM
                  : GUARD_HOLD_THREAD;
  if (own_slot()) STORE(AT(slot, GUARD_SLOT_HOLD_MODE, int32_t), hold_mode);
}

/* Best-effort, holding on the GPU: queues a wait for the gate ahead of this launch when its
 * stream has queued as many launches as the bound allows since its last one, so a closed gate
 * stops the stream after at most that much of its work. 0 when the stream could not be given a
 * wait (a stream of another context, say: then this launch is held on the thread). At each wait
 * it also ends the launches that have completed, so that the estimate learns from them though
 * no launch ever waits for one. */
static int gate_stream(CUstream stream, int per_thread) {
  CUstream s = wait_stream(stream, per_thread);
  pthread_mutex_lock(&lock);
  int m = mark_of(s);
  int due = marks[m].left == 0;
  if (!due) marks[m].left--;
  if (due) complete_finished();
  uint64_t every = allowed_in_flight();
  pthread_mutex_unlock(&lock);
  if (!due) return 1;
  if (queue_gate_wait(s) != CUDA_SUCCESS) return 0;
  pthread_mutex_lock(&lock);
  if (marks[m].stream == s) marks[m].left = every - 1;
  pthread_mutex_unlock(&lock);
  return 1;
}

static int capturing(CUstream stream) {
  int status = 0;
  return CALL(cuStreamIsCapturing_fn, "cuStreamIsCapturing", stream, &status) == CUDA_SUCCESS &&
         status != 0;
}

guard_ticket guard_before(CUstream stream, int per_thread) {
  int r = active_role();
  if (r == ROLE_NONE || capturing(stream)) return (guard_ticket){0};
  if (r == GUARD_ROLE_BEST_EFFORT) {
    int chosen = 0;
    if (LOAD(&hold_mode) == 0) {
      pthread_mutex_lock(&lock);
      if (hold_mode == 0) chosen = 1, choose_hold_mode(stream, per_thread);
      pthread_mutex_unlock(&lock);
    }
    /* The launch that chose the mode has its stream's first wait queued already. */
    if (LOAD(&hold_mode) == GUARD_HOLD_STREAM && (chosen || gate_stream(stream, per_thread)))
      return (guard_ticket){1};
    bound_depth();
    if (hold()) {
      /* What ran out during the hold must not count as in flight: this launch is not behind it. */
      pthread_mutex_lock(&lock);
      complete_finished();
      pthread_mutex_unlock(&lock);
    }
  }
  return (guard_ticket){1};
}

/* An event of the current context, reused when one is spare. Caller holds lock. */
static CUevent event_for(CUcontext ctx) {
  for (int i = 0; i < spare_count; i++) {
    if (spare[i].ctx == ctx) {
      CUevent e = spare[i].event;
      spare[i] = spare[--spare_count];
      return e;
    }
  }
  CUevent e = NULL;
  /* Best-effort events are timed: the time bound learns from them. */
  unsigned flags = EVENT_BLOCKING_SYNC | (role == GUARD_ROLE_BEST_EFFORT ? 0 : EVENT_DISABLE_TIMING);
  CALL(cuEventCreate_fn, "cuEventCreate", &e, flags);
  return e;
}

void guard_after(guard_ticket ticket, CUstream stream, CUresult launched) {
  if (!ticket.track || launched != CUDA_SUCCESS) return;
  pthread_mutex_lock(&lock);
  launches++;
  STORE(AT(slot, GUARD_SLOT_LAUNCHED, int64_t), launches);
  if (role == GUARD_ROLE_BEST_EFFORT && ++pending < launches_per_event()) {
    pthread_mutex_unlock(&lock);
    return;
  }
  uint32_t count = role == GUARD_ROLE_BEST_EFFORT ? (uint32_t)pending : 1;
  pending = 0;
  /* Whether the stream may still be busy: then the event before this one times what is between. */
  int behind = role == GUARD_ROLE_BEST_EFFORT && head != tail && CALL(cuEventQuery_fn, "cuEventQuery",
                                    ring[(tail - 1) % RING].event) == 600 /* not ready */;
  pthread_mutex_unlock(&lock);
  CUcontext ctx = NULL;
  CALL(cuCtxGetCurrent_fn, "cuCtxGetCurrent", &ctx);
  pthread_mutex_lock(&lock);
  while (tail - head >= RING) {
    if (role == GUARD_ROLE_LATENCY_CRITICAL)
      pthread_cond_wait(&changed, &lock); /* the tracker makes room */
    else
      drain_oldest();
  }
  CUevent event = event_for(ctx);
  if (event == NULL || CALL(cuEventRecord_fn, "cuEventRecord", event, stream) != CUDA_SUCCESS) {
    /* A stream of another context: this launch is not tracked (the event is kept for reuse). */
    if (event != NULL) keep_spare((tracked){.event = event, .ctx = ctx});
    completions += count; /* not waited for: counted as ended */
    pthread_mutex_unlock(&lock);
    return;
  }
  ring[tail % RING] = (tracked){event, ctx, behind, count, LOAD(&waits_queued), LOAD(&gate_flips)};
  tail++;
  covered += count;
  if (role == GUARD_ROLE_LATENCY_CRITICAL) {
    if (tail - head == 1) publish_busy(1);
    if (!tracker_started) {
      tracker_started = start_thread(track_completions);
      if (!tracker_started)
        smslice_error("interference guard: no thread to track completions; not publishing");
    }
    pthread_cond_broadcast(&changed);
  }
  pthread_mutex_unlock(&lock);
}

/* The child's slot, events and thread are not the parent's: it opens the guard afresh. */
static void forget_in_child(void) {
  pthread_mutex_init(&lock, NULL);
  pthread_cond_init(&changed, NULL);
  if (file != NULL) munmap(file, GUARD_FILE_BYTES);
  /* The parent's lock was not inherited; its descriptor goes too. */
  if (fd >= 0) close(fd);
  fd = -1;
  file = slot = NULL;
  opened = role = tracker_started = spare_count = 0;
  head = tail = covered = pending = 0;
  launches = completions = 0;
  window_start = held_in_window = accrued_at = 0;
  holders = 0;
  last_done = (tracked){0};
  launch_nanos = checked_at = 0;
  hold_mode = next_mark = 0;
  gate = NULL; /* the parent's mapped memory is not the child's driver's */
  gate_address = 0;
  waits_queued = gate_flips = 0;
  memset(marks, 0, sizeof marks);
  idle_since = frame_start = frame_period = frame_phase = off_schedule = 0;
  intervals_seen = 0;
}

__attribute__((constructor)) static void guard_at_load(void) {
  pthread_atfork(NULL, NULL, forget_in_child);
}

/* ---- the guarded entry points ---- */

/* per_thread: an entry point whose NULL stream is the thread's own (the _ptsz ones). */
#define GUARDED(id, fn_type, stream, per_thread, ...)                        \
  do {                                                                       \
    guard_ticket ticket_ = guard_before(stream, per_thread);                 \
    fn_type real_ = (fn_type)real_of(id);                                    \
    CUresult r_ = real_ == NULL ? CUDA_ERROR_NOT_SUPPORTED : real_(__VA_ARGS__); \
    guard_after(ticket_, stream, r_);                                        \
    return r_;                                                               \
  } while (0)

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*graph_fn)(CUgraphExec, CUstream);
typedef CUresult (*copy_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*dtoh_fn)(void *, CUdeviceptr, size_t, CUstream);

static CUstream config_stream(const CUlaunchConfig *config) {
  return config == NULL ? NULL : config->hStream;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shmem, CUstream s, void **p, void **e) {
  GUARDED(H_LAUNCH_KERNEL, launch_fn, s, 0, f, gx, gy, gz, bx, by, bz, shmem, s, p, e);
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shmem, CUstream s, void **p,
                             void **e) {
  GUARDED(H_LAUNCH_KERNEL_PTSZ, launch_fn, s, 1, f, gx, gy, gz, bx, by, bz, shmem, s, p, e);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **e) {
  GUARDED(H_LAUNCH_KERNEL_EX, launch_ex_fn, config_stream(c), 0, c, f, p, e);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **p, void **e) {
  GUARDED(H_LAUNCH_KERNEL_EX_PTSZ, launch_ex_fn, config_stream(c), 1, c, f, p, e);
}
CUresult cuGraphLaunch(CUgraphExec g, CUstream s) { GUARDED(H_GRAPH_LAUNCH, graph_fn, s, 0, g, s); }
CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s) {
  GUARDED(H_GRAPH_LAUNCH_PTSZ, graph_fn, s, 1, g, s);
}
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_ASYNC, copy_fn, s, 0, d, src, n, s);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_ASYNC_PTSZ, copy_fn, s, 1, d, src, n, s);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_HTOD_ASYNC, htod_fn, s, 0, d, src, n, s);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_HTOD_ASYNC_PTSZ, htod_fn, s, 1, d, src, n, s);
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_DTOH_ASYNC, dtoh_fn, s, 0, d, src, n, s);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_DTOH_ASYNC_PTSZ, dtoh_fn, s, 1, d, src, n, s);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_DTOD_ASYNC, copy_fn, s, 0, d, src, n, s);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  GUARDED(H_MEMCPY_DTOD_ASYNC_PTSZ, copy_fn, s, 1, d, src, n, s);
}
