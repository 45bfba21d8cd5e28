/*
 * The reference clocks of bench/check-timing.ts, for the check types whose usual tools do not time finely
 * enough: a TCP connect (nping and hping3 print whole milliseconds or need raw sockets) and a DNS query
 * (dig prints whole milliseconds). Each measurement is taken around the system calls alone, as a tight C
 * client sees the network: CLOCK_MONOTONIC just before connect()/send() and just after connect() returns
 * or recv() has the answer. Prints one figure in milliseconds per line. Loopback targets only: the bench
 * passes 127.0.0.1.
 *
 *   reference tcp ADDRESS PORT COUNT
 *   reference dns ADDRESS PORT NAME COUNT      (an A query with recursion desired, over UDP)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int address(const char *ip, int port, struct sockaddr_in *sa) {
  memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_port = htons((unsigned short)port);
  return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static int tcp(const struct sockaddr_in *sa, int count) {
  for (int i = 0; i < count; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { perror("socket"); return 1; }
    double t0 = now_ms();
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) != 0) { perror("connect"); close(fd); return 1; }
    double t1 = now_ms();
    close(fd);
    printf("%.4f\n", t1 - t0);
  }
  return 0;
}

/* A DNS query for NAME, type A, class IN, id `id`: header, then the name as labels. */
static int query(const char *name, unsigned short id, unsigned char *out, size_t room) {
  size_t n = 0;
  unsigned char header[12] = { id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0 };
  if (room < sizeof header + strlen(name) + 6) return -1;
  memcpy(out, header, sizeof header);
  n = sizeof header;
  for (const char *p = name; *p;) {
    const char *dot = strchr(p, '.');
    size_t len = dot ? (size_t)(dot - p) : strlen(p);
    if (len == 0 || len > 63) return -1;
    out[n++] = (unsigned char)len;
    memcpy(out + n, p, len);
    n += len;
    p += len + (dot ? 1 : 0);
  }
  out[n++] = 0;
  out[n++] = 0; out[n++] = 1; /* A */
  out[n++] = 0; out[n++] = 1; /* IN */
  return (int)n;
}

static int dns(const struct sockaddr_in *sa, const char *name, int count) {
  unsigned char q[300], answer[1500];
  for (int i = 0; i < count; i++) {
    int len = query(name, (unsigned short)(i + 1), q, sizeof q);
    if (len < 0) { fprintf(stderr, "bad name: %s\n", name); return 1; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof *sa) != 0) { perror("socket"); return 1; }
    struct timeval tv = { 2, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    double t0 = now_ms();
    if (send(fd, q, (size_t)len, 0) != len) { perror("send"); close(fd); return 1; }
    ssize_t got = recv(fd, answer, sizeof answer, 0);
    double t1 = now_ms();
    close(fd);
    if (got < 12 || answer[0] != q[0] || answer[1] != q[1]) { fprintf(stderr, "no answer\n"); return 1; }
    printf("%.4f\n", t1 - t0);
  }
  return 0;
}

int main(int argc, char **argv) {
  struct sockaddr_in sa;
  if (argc == 5 && strcmp(argv[1], "tcp") == 0 && address(argv[2], atoi(argv[3]), &sa) == 0) {
    return tcp(&sa, atoi(argv[4]));
  }
  if (argc == 6 && strcmp(argv[1], "dns") == 0 && address(argv[2], atoi(argv[3]), &sa) == 0) {
    return dns(&sa, argv[4], atoi(argv[5]));
  }
  fprintf(stderr, "usage: reference tcp ADDRESS PORT COUNT | reference dns ADDRESS PORT NAME COUNT\n");
  return 2;
}
