#include "registration.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

enum { FAILURE_STATUS = 75, DEFAULT_WAIT_S = 60, FIRST_DELAY_MS = 100, MAX_DELAY_MS = 2000 };
enum { MAX_REREGISTER_DELAY_MS = 5000, STEADY_S = 10 };

/* Held over every ATTACH exchange and every change of the descriptor, so that a fork never
 * copies a connection in the making into the child. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static dev_t fd_dev;
static ino_t fd_ino;
static attach_answer first;
static int keeper_tid; /* the thread that keeps the registration, once it runs */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_us(long us) {
  struct timespec left = {us / 1000000, (us % 1000000) * 1000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

static void sleep_ms(long ms) {
  struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

static double wait_limit_s(void) {
  const char *text = secure_getenv("SMSLICE_ATTACH_TIMEOUT");
  if (text == NULL || text[0] == '\0') return DEFAULT_WAIT_S;
  char *end;
  double s = strtod(text, &end);
  if (*end != '\0' || s < 0 || s != s) {
    smslice_error("SMSLICE_ATTACH_TIMEOUT=%.40s is not a number of seconds; waiting %d s",
                  text, DEFAULT_WAIT_S);
    return DEFAULT_WAIT_S;
  }
  return s;
}

/* fstat without glibc's fstat symbol, which exists only since glibc 2.33 (x86-64's struct stat
 * is the kernel's). */
static int stat_fd(int n, struct stat *st) { return (int)syscall(SYS_fstat, n, st); }

/* Whether the descriptor number still names the registration's socket: the program may have
 * closed it and reused the number for a file of its own, which must never be read or closed. */
static int still_ours(int n) {
  struct stat st;
  return n >= 0 && stat_fd(n, &st) == 0 && st.st_dev == fd_dev && st.st_ino == fd_ino;
}

/* One ATTACH; on success the connection becomes the registration, read without a timeout. */
static int attach_once(attach_answer *answer, char *why, size_t why_len, int *transient) {
  pthread_mutex_lock(&lock);
  int made = agent_attach(answer, why, why_len, transient);
  if (made >= 0) {
    struct timeval forever = {0, 0};
    struct stat st;
    setsockopt(made, SOL_SOCKET, SO_RCVTIMEO, &forever, sizeof forever);
    stat_fd(made, &st);
    fd = made, fd_dev = st.st_dev, fd_ino = st.st_ino;
  }
  pthread_mutex_unlock(&lock);
  return made;
}

static int same_slice(const attach_answer *a, const attach_answer *b) {
  return strcmp(a->gpu_uuid, b->gpu_uuid) == 0 && a->min_partition == b->min_partition &&
         a->split_entries == b->split_entries && a->group_count == b->group_count &&
         a->sms == b->sms &&
         memcmp(a->groups, b->groups, sizeof a->groups[0] * (size_t)a->group_count) == 0;
}

/* Waits, without reading anything, until the registration ends. A blocked recv holds the socket
 * open even if the program closes the descriptor number meanwhile (os.closerange, daemons). */
static int wait_for_end(int n) {
  if (!still_ours(n)) return 0;
  char byte;
  ssize_t r;
  do r = recv(n, &byte, 1, MSG_PEEK);
  while (r < 0 && errno == EINTR);
  return 1;
}

static void *keep_registered(void *unused) {
  (void)unused;
  __atomic_store_n(&keeper_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
  long delay = FIRST_DELAY_MS; /* grows while registrations end soon after they are made */
  for (;;) {
    pthread_mutex_lock(&lock);
    int n = fd;
    pthread_mutex_unlock(&lock);
    double since = now_s();
    int was_ours = wait_for_end(n);
    pthread_mutex_lock(&lock);
    int agent_ended = was_ours && still_ours(n);
    if (agent_ended) close(n);
    fd = -1;
    pthread_mutex_unlock(&lock);
    if (now_s() - since > STEADY_S) delay = FIRST_DELAY_MS;
    smslice_error("%s; registering again (work already in the slice goes on)",
                  agent_ended ? "the agent ended this process's registration (agent restarted or "
                                "claim released)"
                              : "this process closed its registration's descriptor");
    for (;;) {
      sleep_ms(delay);
      delay = delay * 2 > MAX_REREGISTER_DELAY_MS ? MAX_REREGISTER_DELAY_MS : delay * 2;
      attach_answer answer;
      char why[600];
      int transient;
      if (attach_once(&answer, why, sizeof why, &transient) >= 0) {
        if (!same_slice(&answer, &first))
          smslice_error("registered again, but the claim's groups changed: this process keeps "
                        "the slice it started with until it restarts");
        else
          smslice_error("registered again with the agent");
        break;
      }
      if (!transient) {
        smslice_error("%s; this process is no longer registered with its claim", why);
        return NULL;
      }
    }
  }
}

/* A detached thread with every signal blocked, so it never takes a signal meant for the program. */
static void start_keeping(void) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  if (pthread_create(&thread, &attr, keep_registered, NULL) != 0)
    smslice_error("no thread to keep the registration: the agent will not see it again if it "
                  "restarts");
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Until the keeping thread waits in recv, the socket is open only by its number: a program that
 * closes every descriptor right after CUDA starts (a daemon) would end the registration. So the
 * first registration returns once /proc shows that thread in recvfrom (syscall 45 on x86-64), or
 * after 200 ms. */
static void wait_until_kept(void) {
  for (int i = 0; i < 2000; i++) {
    int tid = __atomic_load_n(&keeper_tid, __ATOMIC_ACQUIRE);
    if (tid != 0) {
      char path[64], text[32] = "";
      snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
      FILE *f = fopen(path, "re");
      if (f == NULL) return;
      int got = fgets(text, sizeof text, f) != NULL;
      fclose(f);
      if (!got || strncmp(text, "45 ", 3) == 0) return;
    }
    sleep_us(100);
  }
}

int registration_open(attach_answer *answer, char *why, size_t why_len) {
  double limit = wait_limit_s(), start = now_s();
  long delay = FIRST_DELAY_MS;
  int told = 0;
  for (;;) {
    int transient;
    if (attach_once(answer, why, why_len, &transient) >= 0) {
      first = *answer;
      if (told) smslice_error("registered with the agent after %.1f s", now_s() - start);
      return 0;
    }
    double waited = now_s() - start;
    if (!transient || waited + (double)delay / 1000 > limit) {
      if (told) {
        size_t n = strlen(why);
        snprintf(why + n, why_len - n, " (still after %.1f s)", waited);
      }
      return -1;
    }
    if (!told)
      smslice_error("%s; waiting up to %g s for the agent (SMSLICE_ATTACH_TIMEOUT)", why, limit);
    told = 1;
    sleep_ms(delay);
    delay = delay * 2 > MAX_DELAY_MS ? MAX_DELAY_MS : delay * 2;
  }
}

void registration_keep(void) {
  start_keeping();
  wait_until_kept();
}

void registration_failed(const char *why) {
  const char *mode = secure_getenv("SMSLICE_ATTACH_FAILURE");
  if (mode != NULL && strcmp(mode, "refuse") == 0) {
    smslice_error("%s; CUDA is refused in this process so that it never runs outside its "
                  "claim's SMs", why);
    return;
  }
  smslice_error("%s; the process exits with status %d rather than run outside its claim's SMs "
                "or without the GPU (SMSLICE_ATTACH_FAILURE=refuse makes CUDA calls fail "
                "instead)", why, FAILURE_STATUS);
  _exit(FAILURE_STATUS);
}

void registration_before_fork(void) { pthread_mutex_lock(&lock); }

void registration_after_fork_parent(void) { pthread_mutex_unlock(&lock); }

void registration_after_fork_child(void) {
  pthread_mutex_init(&lock, NULL);
  keeper_tid = 0;
  if (still_ours(fd)) close(fd);
  fd = -1;
}
