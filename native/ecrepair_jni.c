/*
 * JNI bridge from io.ecrepair.gf.IsalNative to Intel ISA-L. Each function is a thin
 * wrapper: resolve buffer addresses, call ISA-L once (or, for the thread's nice, the system once). Java has checked the arguments
 * (counts, offsets, lengths) already; only the limits ISA-L itself has are checked here.
 */
#include <errno.h>
#include <jni.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <isa-l/erasure_code.h>
#include "io_ecrepair_gf_IsalNative.h"

#define MAX_REGIONS 256

static void throw_iae(JNIEnv *env, const char *msg) {
  jclass c = (*env)->FindClass(env, "java/lang/IllegalArgumentException");
  if (c != NULL) {
    (*env)->ThrowNew(env, c, msg);
  }
}

static int check_counts(JNIEnv *env, jint k, jint rows, jint len) {
  if (k < 1 || k > MAX_REGIONS || rows < 1 || rows > MAX_REGIONS || len < 0) {
    throw_iae(env, "ec-repair native: need 1..256 inputs and outputs and a non-negative length");
    return 0;
  }
  return 1;
}

/* out = M*in, or out ^= M*in one input at a time. */
static void encode(jint len, jint k, jint rows, unsigned char *g, unsigned char **in,
                   unsigned char **out, jboolean accumulate) {
  if (len == 0) {
    return;
  }
  if (!accumulate) {
    ec_encode_data(len, k, rows, g, in, out);
    return;
  }
  for (int i = 0; i < k; i++) {
    ec_encode_data_update(len, k, rows, i, g, in[i], out);
  }
}

static void xor_region(const unsigned char *src, unsigned char *dst, jint len) {
  jint i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t a, b;
    memcpy(&a, src + i, 8);
    memcpy(&b, dst + i, 8);
    b ^= a;
    memcpy(dst + i, &b, 8);
  }
  for (; i < len; i++) {
    dst[i] ^= src[i];
  }
}

JNIEXPORT jint JNICALL Java_io_ecrepair_gf_IsalNative_abiVersion(JNIEnv *env, jclass cls) {
  (void) env;
  (void) cls;
  return io_ecrepair_gf_IsalNative_ABI_VERSION; /* the version of the Java class this was built against */
}

JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_initTables(
    JNIEnv *env, jclass cls, jint k, jint rows, jbyteArray matrix, jobject tables) {
  (void) cls;
  if (!check_counts(env, k, rows, 0)) {
    return;
  }
  unsigned char a[MAX_REGIONS * MAX_REGIONS];
  (*env)->GetByteArrayRegion(env, matrix, 0, k * rows, (jbyte *) a);
  unsigned char *g = (*env)->GetDirectBufferAddress(env, tables);
  if ((*env)->ExceptionCheck(env) || g == NULL) {
    throw_iae(env, "ec-repair native: tables must be a direct buffer");
    return;
  }
  ec_init_tables(k, rows, a, g);
}

static int direct_addresses(JNIEnv *env, jobjectArray bufs, jintArray offs, jint n,
                            unsigned char **addr) {
  jint off[MAX_REGIONS];
  (*env)->GetIntArrayRegion(env, offs, 0, n, off);
  for (jint i = 0; i < n; i++) {
    jobject b = (*env)->GetObjectArrayElement(env, bufs, i);
    unsigned char *p = (*env)->GetDirectBufferAddress(env, b);
    (*env)->DeleteLocalRef(env, b);
    if (p == NULL) {
      throw_iae(env, "ec-repair native: expected a direct buffer");
      return 0;
    }
    addr[i] = p + off[i];
  }
  return 1;
}

JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_encodeDirect(
    JNIEnv *env, jclass cls, jobject tables, jint k, jint rows, jint len,
    jobjectArray in, jintArray inOff, jobjectArray out, jintArray outOff, jboolean accumulate) {
  (void) cls;
  if (!check_counts(env, k, rows, len)) {
    return;
  }
  unsigned char *data[MAX_REGIONS];
  unsigned char *coding[MAX_REGIONS];
  unsigned char *g = (*env)->GetDirectBufferAddress(env, tables);
  if (g == NULL || !direct_addresses(env, in, inOff, k, data) ||
      !direct_addresses(env, out, outOff, rows, coding)) {
    return;
  }
  encode(len, k, rows, g, data, coding, accumulate);
}

JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_encodeArrays(
    JNIEnv *env, jclass cls, jobject tables, jint k, jint rows, jint len,
    jobjectArray in, jintArray inOff, jobjectArray out, jintArray outOff, jboolean accumulate) {
  (void) cls;
  if (!check_counts(env, k, rows, len)) {
    return;
  }
  unsigned char *g = (*env)->GetDirectBufferAddress(env, tables);
  if (g == NULL) {
    throw_iae(env, "ec-repair native: tables must be a direct buffer");
    return;
  }
  jint ioff[MAX_REGIONS], ooff[MAX_REGIONS];
  jbyteArray iarr[MAX_REGIONS], oarr[MAX_REGIONS];
  unsigned char *data[MAX_REGIONS], *coding[MAX_REGIONS];
  (*env)->GetIntArrayRegion(env, inOff, 0, k, ioff);
  (*env)->GetIntArrayRegion(env, outOff, 0, rows, ooff);
  /* All JNI look-ups first: no JNI call may come between Get and Release...Critical. */
  for (jint i = 0; i < k; i++) {
    iarr[i] = (*env)->GetObjectArrayElement(env, in, i);
  }
  for (jint r = 0; r < rows; r++) {
    oarr[r] = (*env)->GetObjectArrayElement(env, out, r);
  }
  jint pinned_in = 0, pinned_out = 0;
  for (; pinned_in < k; pinned_in++) {
    unsigned char *p = (*env)->GetPrimitiveArrayCritical(env, iarr[pinned_in], NULL);
    if (p == NULL) break;
    data[pinned_in] = p + ioff[pinned_in];
  }
  if (pinned_in == k) {
    for (; pinned_out < rows; pinned_out++) {
      unsigned char *p = (*env)->GetPrimitiveArrayCritical(env, oarr[pinned_out], NULL);
      if (p == NULL) break;
      coding[pinned_out] = p + ooff[pinned_out];
    }
  }
  int ok = pinned_in == k && pinned_out == rows;
  if (ok) {
    encode(len, k, rows, g, data, coding, accumulate);
  }
  /* Release in reverse; inputs without copy-back so an aliased output copy is not undone. */
  for (jint r = pinned_out - 1; r >= 0; r--) {
    (*env)->ReleasePrimitiveArrayCritical(env, oarr[r], coding[r] - ooff[r], 0);
  }
  for (jint i = pinned_in - 1; i >= 0; i--) {
    (*env)->ReleasePrimitiveArrayCritical(env, iarr[i], data[i] - ioff[i], JNI_ABORT);
  }
  if (!ok && !(*env)->ExceptionCheck(env)) {
    throw_iae(env, "ec-repair native: could not pin a heap array");
  }
}

JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_xorDirect(
    JNIEnv *env, jclass cls, jobject src, jint srcOff, jobject dst, jint dstOff, jint len) {
  (void) cls;
  unsigned char *s = (*env)->GetDirectBufferAddress(env, src);
  unsigned char *d = (*env)->GetDirectBufferAddress(env, dst);
  if (s == NULL || d == NULL) {
    throw_iae(env, "ec-repair native: expected direct buffers");
    return;
  }
  xor_region(s + srcOff, d + dstOff, len);
}

JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_xorArrays(
    JNIEnv *env, jclass cls, jbyteArray src, jint srcOff, jbyteArray dst, jint dstOff, jint len) {
  (void) cls;
  unsigned char *s = (*env)->GetPrimitiveArrayCritical(env, src, NULL);
  if (s == NULL) {
    return;
  }
  unsigned char *d = (*env)->GetPrimitiveArrayCritical(env, dst, NULL);
  if (d != NULL) {
    xor_region(s + srcOff, d + dstOff, len);
    (*env)->ReleasePrimitiveArrayCritical(env, dst, d, 0);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, src, s, JNI_ABORT);
}

/*
 * A whole LinearProgram in one call: code = [steps, then per step: k, rows, tableOffset, width,
 * k x (buffer, unit), rows x (buffer, unit)]; region (b, u) starts at
 * address(buffers[b]) + bases[b] + u * unit and is width * unit bytes long. Java checked
 * every region against its buffer.
 */
JNIEXPORT void JNICALL Java_io_ecrepair_gf_IsalNative_runProgram(
    JNIEnv *env, jclass cls, jobject tables, jintArray code, jobjectArray buffers, jintArray bases,
    jint unit) {
  (void) cls;
  jsize nbuf = (*env)->GetArrayLength(env, buffers);
  jsize ncode = (*env)->GetArrayLength(env, code);
  unsigned char *g = (*env)->GetDirectBufferAddress(env, tables);
  if (g == NULL || nbuf > 4096) {
    throw_iae(env, "ec-repair native: bad program tables or too many buffers");
    return;
  }
  unsigned char *addr[4096];
  jint base[4096];
  (*env)->GetIntArrayRegion(env, bases, 0, nbuf, base);
  for (jsize b = 0; b < nbuf; b++) {
    jobject buf = (*env)->GetObjectArrayElement(env, buffers, b);
    addr[b] = buf == NULL ? NULL : (*env)->GetDirectBufferAddress(env, buf);
    if (buf != NULL) {
      (*env)->DeleteLocalRef(env, buf);
    }
  }
  jint *c = (*env)->GetIntArrayElements(env, code, NULL);
  if (c == NULL) {
    return;
  }
  unsigned char *in[MAX_REGIONS], *out[MAX_REGIONS];
  jint p = 1;
  const char *error = NULL;
  for (jint step = 0; step < c[0] && error == NULL; step++) {
    if (p + 4 > ncode) {
      error = "ec-repair native: truncated program";
      break;
    }
    jint k = c[p], rows = c[p + 1], toff = c[p + 2], width = c[p + 3];
    p += 4;
    if (k < 1 || k > MAX_REGIONS || rows < 1 || rows > MAX_REGIONS || width < 1 || p + 2 * (k + rows) > ncode) {
      error = "ec-repair native: malformed program step";
      break;
    }
    for (jint i = 0; i < k + rows; i++, p += 2) {
      jint b = c[p], u = c[p + 1];
      if (b < 0 || b >= nbuf || addr[b] == NULL) {
        error = "ec-repair native: program names a missing or non-direct buffer";
        break;
      }
      unsigned char *r = addr[b] + base[b] + (size_t) u * unit;
      if (i < k) {
        in[i] = r;
      } else {
        out[i - k] = r;
      }
    }
    if (error == NULL) {
      ec_encode_data(width * unit, k, rows, g + toff, in, out);
    }
  }
  (*env)->ReleaseIntArrayElements(env, code, c, JNI_ABORT);
  if (error != NULL) {
    throw_iae(env, error);
  }
}

/*
 * On Linux a thread id names one thread for getpriority/setpriority, so these read and set the
 * calling thread's nice alone, not its process's.
 */
JNIEXPORT jint JNICALL Java_io_ecrepair_gf_IsalNative_threadNice(JNIEnv *env, jclass cls) {
  (void) env;
  (void) cls;
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid));
  return nice == -1 && errno != 0 ? INT32_MIN : nice;
}

JNIEXPORT jint JNICALL Java_io_ecrepair_gf_IsalNative_setThreadNice(JNIEnv *env, jclass cls, jint nice) {
  (void) env;
  (void) cls;
  return setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), nice) == 0 ? 0 : errno;
}
