/* Programs whose life tests the registration and the interposer's locks: one that holds on, one
 * that closes every inherited descriptor, one that forks while ATTACH is in progress and one that
 * loads a library whose constructor calls CUDA while another thread builds the slice. */
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "program_support.h"

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void attach_and_launch(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  line("setup", runtime_thread_setup(0), "ok");
  launch_on("launch", NULL, 0);
}

/* hold MS: registered and confined, then alive for MS milliseconds. */
static void hold(long ms) {
  attach_and_launch();
  sleep_ms(ms);
  launch_on("launch-after-hold", NULL, 0);
}

/* Closes every descriptor above stderr, as daemons and os.closerange do, takes the lowest number
 * for a pipe of its own, and checks after WAIT ms that the pipe carries all of its data. */
static void close_fds(long wait) {
  attach_and_launch();
  syscall(SYS_close_range, 3u, ~0u, 0u);
  int p[2];
  if (pipe(p) != 0) return;
  char seen[32];
  snprintf(seen, sizeof seen, "pipe=%d", p[0]);
  line("closed-fds", 0, seen);
  sleep_ms(wait);
  if (write(p[1], "ABCDEFGH", 8) != 8) return;
  sleep_ms(200);
  char got[16] = {0};
  ssize_t n = read(p[0], got, 8);
  line("pipe-read", n == 8 ? 0 : 1, got);
  launch_on("launch-after-close", NULL, 0);
  sleep_ms(500);
  line("done", 0, "ok");
}

static void *attach_thread(void *unused) {
  (void)unused;
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  return NULL;
}

/* Forks DELAY ms into a slow ATTACH; the child lives on for 3 s, the parent exits. */
static void fork_during_attach(long delay) {
  pthread_t t;
  pthread_create(&t, NULL, attach_thread, NULL);
  sleep_ms(delay);
  pid_t child = fork();
  if (child == 0) {
    sleep_ms(3000);
    _exit(0);
  }
  pthread_join(t, NULL);
  char seen[32];
  snprintf(seen, sizeof seen, "%d", (int)getpid());
  line("parent-exiting", 0, seen);
  fflush(stdout);
  _exit(0);
}

static void *build_thread(void *unused) {
  (void)unused;
  line("setup", runtime_thread_setup(0), "ok");
  return NULL;
}

/* Another thread builds the slice (the fake driver is slow at it) while this one is inside
 * dlopen of a library whose constructor calls CUDA. */
static void loader_deadlock(void) {
  PROC(cuInit_fn, "cuInit")(0);
  pthread_t t;
  pthread_create(&t, NULL, build_thread, NULL);
  sleep_ms(100);
  void *lib = dlopen("libctor_cuda.so", RTLD_NOW);
  line("dlopen", lib != NULL ? 0 : 1, "ok");
  pthread_join(t, NULL);
  launch_on("launch", NULL, 0);
}

int main(int argc, char **argv) {
  if (argc < 2 || open_driver() != 0) return 2;
  long n = argc > 2 ? atol(argv[2]) : 0;
  if (strcmp(argv[1], "hold") == 0) hold(n);
  else if (strcmp(argv[1], "close-fds") == 0) close_fds(n);
  else if (strcmp(argv[1], "fork-during-attach") == 0) fork_during_attach(n);
  else if (strcmp(argv[1], "loader-deadlock") == 0) loader_deadlock();
  else return 2;
  return 0;
}
