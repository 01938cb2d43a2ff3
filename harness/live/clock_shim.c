/* lockstep's clock shim for live redis-servers (docs/live.md): preloaded into redis-server
 * (LD_PRELOAD) to give the node the clock a scenario asks for — an offset, a drift, jumps —
 * changed by lockstep while the server runs.
 *
 * Why not libfaketime: Debian's redis-server is linked with jemalloc, which calls clock_gettime()
 * while libfaketime initialises itself; libfaketime then fails every call (libfaketime issue 130,
 * open, no fix on either side). This shim needs no initialisation: it reads the real time with
 * the clock_gettime system call and adds what the control file says.
 *
 * The control file ($LOCKSTEP_CLOCK_FILE, mapped shared) holds four int64: a sequence number (odd
 * while lockstep writes), the offset in µs at the reference time, the drift in ppm, and the
 * reference (real CLOCK_REALTIME µs). The node's wall clock at real time r is
 *   r + offset + drift * (r - reference) / 1e6.
 * Only the wall clock is shifted (CLOCK_REALTIME, gettimeofday, time): Redis reads it for key
 * expiry and MONITOR timestamps; its monotonic clock, which times its event loop, stays real. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t* g_control; /* seq, offset_us, drift_ppm, reference_us */

__attribute__((constructor)) static void lockstep_clock_init(void) {
  const char* path = getenv("LOCKSTEP_CLOCK_FILE");
  if (path == NULL) return;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  void* m = mmap(NULL, 4 * sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (m != MAP_FAILED) g_control = (volatile int64_t*)m;
}

static int64_t shift_us(int64_t real_us) {
  if (g_control == NULL) return 0;
  for (;;) {
    int64_t seq = __atomic_load_n(&g_control[0], __ATOMIC_ACQUIRE);
    if (seq & 1) continue; /* lockstep is writing */
    int64_t offset = g_control[1], drift = g_control[2], reference = g_control[3];
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&g_control[0], __ATOMIC_RELAXED) != seq) continue;
    return offset + (int64_t)((__int128)drift * (real_us - reference) / 1000000);
  }
}

int clock_gettime(clockid_t id, struct timespec* ts) {
  long r = syscall(SYS_clock_gettime, id, ts);
  if (r != 0 || (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE)) return (int)r;
  int64_t us = (int64_t)ts->tv_sec * 1000000 + ts->tv_nsec / 1000;
  int64_t ns = (int64_t)ts->tv_nsec % 1000;
  us += shift_us(us);
  ts->tv_sec = us / 1000000;
  ts->tv_nsec = (us % 1000000) * 1000 + ns;
  if (ts->tv_nsec < 0) {
    ts->tv_nsec += 1000000000;
    ts->tv_sec -= 1;
  }
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  (void)tz;
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
  if (tv != NULL) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return 0;
}

time_t time(time_t* out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}
