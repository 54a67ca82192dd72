#include "agent_attach.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "tenant_env.h"

enum { OP_ATTACH = 18, MAX_ANSWER = 64 * 1024 };
#define ANSWER_TIMEOUT_S 30
#define STR2(x) #x
#define STR(x) STR2(x)
enum { ST_OK = 0, ST_BAD_REQUEST = 1, ST_UNAUTHORIZED = 2, ST_UNAVAILABLE = 10 };

#define DEFAULT_SOCKET "/run/smslice/claim/agent.sock"

typedef struct {
  unsigned char *data;
  size_t len, cap;
} buffer;

static int put(buffer *b, const void *bytes, size_t n) {
  if (b->len + n > b->cap) return -1;
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
  return 0;
}

static int put_int(buffer *b, uint32_t v) {
  unsigned char be[4] = {v >> 24, v >> 16, v >> 8, v};
  return put(b, be, 4);
}

static int put_string(buffer *b, const char *s, size_t max) {
  size_t n = strnlen(s, max);
  unsigned char be[2] = {n >> 8, n};
  return put(b, be, 2) || put(b, s, n);
}

/* First line of a /proc file, at most max bytes, without the newline. */
static void read_first_line(const char *path, char *out, size_t max) {
  out[0] = '\0';
  FILE *f = fopen(path, "re");
  if (f == NULL) return;
  if (fgets(out, (int)max, f) != NULL) out[strcspn(out, "\n")] = '\0';
  fclose(f);
}

/* send, not write: an agent that closes first (over its connection limit, or stopping) must give
 * EPIPE here, not a SIGPIPE that kills the program. */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

typedef struct {
  const unsigned char *p;
  size_t left;
} reader;

static int get_int(reader *r, int *v) {
  if (r->left < 4) return -1;
  *v = (int)((uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3]);
  r->p += 4;
  r->left -= 4;
  return 0;
}

static int get_string(reader *r, char *out, size_t cap) {
  if (r->left < 2) return -1;
  size_t n = (size_t)r->p[0] << 8 | r->p[1];
  if (r->left - 2 < n || n >= cap) return -1;
  memcpy(out, r->p + 2, n);
  out[n] = '\0';
  r->p += 2 + n;
  r->left -= 2 + n;
  return 0;
}

static const char *status_name(int status) {
  switch (status) {
    case ST_BAD_REQUEST: return "BAD_REQUEST";
    case ST_UNAUTHORIZED: return "UNAUTHORIZED";
    case ST_UNAVAILABLE: return "UNAVAILABLE";
    default: return "an error";
  }
}

/* Checks the OK payload's shape: every field present, counts within the split, nothing after. */
static int parse_answer(const unsigned char *payload, size_t len, attach_answer *a) {
  reader r = {payload, len};
  if (get_string(&r, a->gpu_uuid, sizeof a->gpu_uuid) || get_int(&r, &a->min_partition) ||
      get_int(&r, &a->split_entries) || get_int(&r, &a->group_count))
    return -1;
  if (a->min_partition <= 0 || a->split_entries <= 0 || a->group_count <= 0 ||
      a->group_count > SMSLICE_MAX_GROUPS || a->split_entries > SMSLICE_MAX_GROUPS)
    return -1;
  for (int i = 0; i < a->group_count; i++) {
    if (get_int(&r, &a->groups[i]) || a->groups[i] < 0 || a->groups[i] >= a->split_entries)
      return -1;
    for (int j = 0; j < i; j++)
      if (a->groups[j] == a->groups[i]) return -1;
  }
  if (get_int(&r, &a->sms) || a->sms <= 0 || r.left != 0) return -1;
  return 0;
}

static int fail(int fd, char *why, size_t why_len, const char *fmt, const char *detail) {
  snprintf(why, why_len, fmt, detail);
  if (fd >= 0) close(fd);
  return -1;
}

/* A failure that a later attempt may not meet: the agent not up yet, restarting, busy. */
static int again(int fd, int *transient, char *why, size_t why_len, const char *fmt,
                 const char *detail) {
  *transient = 1;
  return fail(fd, why, why_len, fmt, detail);
}

int agent_attach(attach_answer *answer, char *why, size_t why_len, int *transient) {
  const char *path = tenant_setting("SMSLICE_SOCKET");
  const char *claim = tenant_setting("SMSLICE_CLAIM");
  const char *token = tenant_setting("SMSLICE_TOKEN");
  *transient = 0;
  if (path == NULL) path = DEFAULT_SOCKET;
  if (claim == NULL) return fail(-1, why, why_len, "%s", "SMSLICE_CLAIM is not set");
  if (token == NULL) return fail(-1, why, why_len, "%s", "SMSLICE_TOKEN is not set");

  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path)
    return fail(-1, why, why_len, "socket path too long: %s", path);
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(-1, why, why_len, "socket(): %s", strerror(errno));
  struct timeval timeout = {.tv_sec = ANSWER_TIMEOUT_S};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  /* Interrupted by a signal, the socket's state is unknown: the caller tries again on a new one. */
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    char detail[200];
    snprintf(detail, sizeof detail, "%.150s: %s", path, strerror(errno));
    return again(fd, transient, why, why_len, "cannot reach the agent at %s", detail);
  }

  char cgroup[1025], comm[65];
  read_first_line("/proc/self/cgroup", cgroup, sizeof cgroup);
  read_first_line("/proc/self/comm", comm, sizeof comm);
  unsigned char frame[4096];
  buffer b = {frame, 0, sizeof frame};
  unsigned char op = OP_ATTACH;
  if (put_int(&b, 0) || put(&b, &op, 1) || put_string(&b, claim, 1024) ||
      put_string(&b, token, 1024) || put_int(&b, (uint32_t)getpid()) ||
      put_string(&b, cgroup, 1024) || put_string(&b, comm, 64))
    return fail(fd, why, why_len, "%s", "ATTACH request too large");
  uint32_t length = (uint32_t)b.len - 4;
  frame[0] = length >> 24, frame[1] = length >> 16, frame[2] = length >> 8, frame[3] = length;
  if (write_all(fd, frame, b.len) != 0)
    return again(fd, transient, why, why_len, "cannot send ATTACH to the agent: %s",
                 strerror(errno));

  unsigned char head[4];
  errno = 0;
  if (read_all(fd, head, 4) != 0) {
    int timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
    return again(fd, transient, why, why_len, "%s",
                 timed_out ? "the agent sent no answer within " STR(ANSWER_TIMEOUT_S) " s"
                           : "the agent closed the connection without an answer");
  }
  uint32_t answer_len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 |
                        (uint32_t)head[2] << 8 | head[3];
  if (answer_len < 1 || answer_len > MAX_ANSWER)
    return fail(fd, why, why_len, "%s", "malformed answer from the agent (bad length)");
  unsigned char *body = malloc(answer_len);
  if (body == NULL) return fail(fd, why, why_len, "%s", "out of memory");
  if (read_all(fd, body, answer_len) != 0) {
    free(body);
    return again(fd, transient, why, why_len, "%s", "the agent's answer was cut short");
  }
  int status = body[0];
  if (status != ST_OK) {
    char message[512];
    int n = snprintf(message, sizeof message, "the agent refused ATTACH with %s: ",
                     status_name(status));
    size_t room = sizeof message - (size_t)n - 1;
    size_t mlen = answer_len - 1 < room ? answer_len - 1 : room;
    memcpy(message + n, body + 1, mlen);
    message[n + mlen] = '\0';
    free(body);
    *transient = status == ST_UNAVAILABLE;
    return fail(fd, why, why_len, "%s", message);
  }
  int bad = parse_answer(body + 1, answer_len - 1, answer);
  free(body);
  if (bad) return fail(fd, why, why_len, "%s", "malformed ATTACH answer from the agent");
  return fd;
}
