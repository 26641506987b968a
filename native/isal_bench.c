/*
 * isal-bench: raw Intel ISA-L Reed-Solomon throughput, the ceiling our JNI path is measured
 * against. Same matrix (systematic Cauchy), same buffer sizes, same MB (10^6 bytes of data
 * per second) as `ec-repair bench coder`. Prints one JSON object.
 *
 *   isal-bench --k 10 --m 4 --cell 1048576 --op encode|decode [--erasures E]
 *              [--seconds S] [--threads T]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <isa-l/erasure_code.h>

typedef struct {
  int k, m, cell, erasures, decode;
  double seconds;
  double bytes; /* out: data bytes processed */
  double elapsed;
} job_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *alloc_region(int len) {
  void *p = NULL;
  if (posix_memalign(&p, 64, len) != 0) {
    fprintf(stderr, "isal-bench: out of memory\n");
    exit(2);
  }
  return p;
}

static void *run(void *arg) {
  job_t *j = arg;
  int k = j->k, m = j->m, n = k + m, e = j->erasures;
  unsigned char *gen = malloc(n * k), *g = malloc(32 * k * m);
  unsigned char *buf[256];
  gf_gen_cauchy1_matrix(gen, n, k);
  for (int i = 0; i < n; i++) {
    buf[i] = alloc_region(j->cell);
    for (int b = 0; b < j->cell; b++) buf[i][b] = (unsigned char) rand();
  }
  unsigned char *in[256], *out[256];
  int rows;
  if (!j->decode) {
    ec_init_tables(k, m, gen + k * k, g);
    for (int i = 0; i < k; i++) in[i] = buf[i];
    for (int r = 0; r < m; r++) out[r] = buf[k + r];
    rows = m;
  } else {
    /* Lose data units 0..e-1; decode from the next k survivors. */
    unsigned char sub[256 * 256], inv[256 * 256], dec[256 * 256];
    for (int i = 0; i < k; i++) {
      memcpy(sub + i * k, gen + (e + i) * k, k);
      in[i] = buf[e + i];
    }
    if (gf_invert_matrix(sub, inv, k) != 0) {
      fprintf(stderr, "isal-bench: singular decode matrix\n");
      exit(2);
    }
    for (int r = 0; r < e; r++) {
      memcpy(dec + r * k, inv + r * k, k);
      out[r] = alloc_region(j->cell);
    }
    ec_init_tables(k, e, dec, g);
    rows = e;
  }
  long iters = 0;
  double start = now(), t = start;
  while (t - start < j->seconds) {
    for (int rep = 0; rep < 8; rep++) {
      ec_encode_data(j->cell, k, rows, g, in, out);
    }
    iters += 8;
    t = now();
  }
  j->elapsed = t - start;
  j->bytes = (double) iters * k * j->cell;
  return NULL;
}

int main(int argc, char **argv) {
  job_t proto = {10, 4, 1 << 20, 1, 0, 2.0, 0, 0};
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--k")) proto.k = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--m")) proto.m = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--cell")) proto.cell = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--erasures")) proto.erasures = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds")) proto.seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--op")) proto.decode = !strcmp(argv[i + 1], "decode");
    else {
      fprintf(stderr, "isal-bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (proto.k < 1 || proto.m < 1 || proto.k + proto.m > 255 || proto.cell < 1 || threads < 1 ||
      threads > 256 || proto.erasures < 1 || proto.erasures > proto.m) {
    fprintf(stderr, "isal-bench: bad parameters\n");
    return 2;
  }
  job_t jobs[256];
  pthread_t tid[256];
  for (int t = 0; t < threads; t++) {
    jobs[t] = proto;
    pthread_create(&tid[t], NULL, run, &jobs[t]);
  }
  double mbps = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(tid[t], NULL);
    mbps += jobs[t].bytes / jobs[t].elapsed / 1e6;
  }
  printf("{\"impl\":\"isal-c\",\"k\":%d,\"m\":%d,\"op\":\"%s\",\"erasures\":%d,\"threads\":%d,"
         "\"cellBytes\":%d,\"mbPerSec\":%.1f}\n",
         proto.k, proto.m, proto.decode ? "decode" : "encode", proto.decode ? proto.erasures : 0,
         threads, proto.cell, mbps);
  return 0;
}
