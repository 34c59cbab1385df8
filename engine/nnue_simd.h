/* The network's inner loops, compiled for more than one instruction set and
 * chosen when the module loads (engine/nnue.pyx).
 *
 * The same plain C loops are compiled three times: for the base instruction
 * set of the target (SSE2 on any x86-64, NEON on aarch64: the portable
 * path), and on x86-64 with GCC or Clang also for AVX2 and for AVX-512BW,
 * whose wider registers the compiler uses for the same loops. The widest the
 * processor has is taken (__builtin_cpu_supports); tuong_simd_select() can
 * force another, so that a test compares every path's evaluations and a
 * benchmark their speeds. Integer arithmetic in a fixed order: every path
 * gives the same numbers.
 */
#ifndef TUONG_NNUE_SIMD_H
#define TUONG_NNUE_SIMD_H

#include <stdint.h>
#include <string.h>

#define TUONG_MAX_HIDDEN 512     /* engine/accumulator.pxd's NN_MAX_HIDDEN */

#define TUONG_LOOPS(SUFFIX, ATTRIBUTE)                                                   \
static ATTRIBUTE void tuong_update2_##SUFFIX(int16_t* d, const int16_t* s,              \
        const int16_t* add, const int16_t* sub, int n) {                                \
    for (int i = 0; i < n; i++) d[i] = (int16_t)(s[i] + add[i] - sub[i]);               \
}                                                                                        \
static ATTRIBUTE void tuong_update3_##SUFFIX(int16_t* d, const int16_t* s,              \
        const int16_t* add, const int16_t* sub, const int16_t* cap, int n) {            \
    for (int i = 0; i < n; i++) d[i] = (int16_t)(s[i] + add[i] - sub[i] - cap[i]);      \
}                                                                                        \
static ATTRIBUTE void tuong_add_##SUFFIX(int16_t* d, const int16_t* column, int n) {    \
    for (int i = 0; i < n; i++) d[i] = (int16_t)(d[i] + column[i]);                     \
}                                                                                        \
static ATTRIBUTE int32_t tuong_clipped_dot_##SUFFIX(const int16_t* a, const int16_t* w, \
        int n, int16_t ceiling) {                                                        \
    int32_t total = 0;                                                                   \
    for (int i = 0; i < n; i++) {                                                        \
        int16_t x = a[i];                                                                \
        x = x < 0 ? 0 : x;                                                               \
        x = x > ceiling ? ceiling : x;                                                   \
        total += (int32_t)x * (int32_t)w[i];                                             \
    }                                                                                    \
    return total;                                                                        \
}                                                                                        \
/* The hidden layer: z[j] = bias[j] + sum_i clamp(x_i, 0, ceiling) * w[j][i] over both  \
   perspectives' n values (us, then them). The inputs are clamped once. The loader      \
   (engine/network.py) refuses a unit whose sum could leave 32 bits, so no partial sum, \
   in whatever order a path adds, can overflow: every path gives the same numbers. */   \
static ATTRIBUTE void tuong_layer_##SUFFIX(const int16_t* us, const int16_t* them,      \
        const int16_t* w, const int32_t* bias, int n, int m, int16_t ceiling,            \
        int32_t* z) {                                                                    \
    int16_t x[2 * TUONG_MAX_HIDDEN];                                                     \
    for (int i = 0; i < n; i++) {                                                        \
        int16_t a = us[i];                                                               \
        a = a < 0 ? 0 : a;                                                               \
        x[i] = a > ceiling ? ceiling : a;                                                \
    }                                                                                    \
    for (int i = 0; i < n; i++) {                                                        \
        int16_t b = them[i];                                                             \
        b = b < 0 ? 0 : b;                                                               \
        x[n + i] = b > ceiling ? ceiling : b;                                            \
    }                                                                                    \
    for (int j = 0; j < m; j++) {                                                        \
        const int16_t* row = w + (long)j * 2 * n;                                        \
        int32_t total = bias[j];                                                         \
        for (int i = 0; i < 2 * n; i++) total += (int32_t)x[i] * (int32_t)row[i];       \
        z[j] = total;                                                                    \
    }                                                                                    \
}

TUONG_LOOPS(portable, )

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TUONG_X86 1
TUONG_LOOPS(avx2, __attribute__((target("avx2"))))
TUONG_LOOPS(avx512, __attribute__((target("avx512f,avx512bw"))))
#else
#define TUONG_X86 0
#endif

typedef struct {
    const char* name;
    void (*update2)(int16_t*, const int16_t*, const int16_t*, const int16_t*, int);
    void (*update3)(int16_t*, const int16_t*, const int16_t*, const int16_t*,
                    const int16_t*, int);
    void (*add)(int16_t*, const int16_t*, int);
    int32_t (*clipped_dot)(const int16_t*, const int16_t*, int, int16_t);
    void (*layer)(const int16_t*, const int16_t*, const int16_t*, const int32_t*, int, int,
                  int16_t, int32_t*);
} TuongLoops;

static TuongLoops tuong_loops = {
    "portable", tuong_update2_portable, tuong_update3_portable, tuong_add_portable,
    tuong_clipped_dot_portable, tuong_layer_portable};

/* Whether the processor runs a path: 0 portable (always), 1 AVX2, 2 AVX-512BW. */
static int tuong_simd_available(int path) {
    if (path == 0) return 1;
#if TUONG_X86
    __builtin_cpu_init();
    if (path == 1) return __builtin_cpu_supports("avx2");
    if (path == 2) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    return 0;
}

/* Use a path (0, 1, 2 as above) if the processor has it; 0 if taken, -1 if not. */
static int tuong_simd_select(int path) {
    if (!tuong_simd_available(path)) return -1;
    if (path == 0) {
        TuongLoops loops = {"portable", tuong_update2_portable, tuong_update3_portable,
                            tuong_add_portable, tuong_clipped_dot_portable,
                            tuong_layer_portable};
        tuong_loops = loops;
    }
#if TUONG_X86
    if (path == 1) {
        TuongLoops loops = {"avx2", tuong_update2_avx2, tuong_update3_avx2, tuong_add_avx2,
                            tuong_clipped_dot_avx2, tuong_layer_avx2};
        tuong_loops = loops;
    }
    if (path == 2) {
        TuongLoops loops = {"avx512", tuong_update2_avx512, tuong_update3_avx512,
                            tuong_add_avx512, tuong_clipped_dot_avx512, tuong_layer_avx512};
        tuong_loops = loops;
    }
#endif
    return 0;
}

#endif
