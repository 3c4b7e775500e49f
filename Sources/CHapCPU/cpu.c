// See include/CHapCPU.h.
#include "CHapCPU.h"

#if defined(__x86_64__)
#include <cpuid.h>

// CPUID leaf 1's ECX and leaf 7's EBX where the system saves the YMM registers, else zeros.
static void usable_features(unsigned int *leaf1ecx, unsigned int *leaf7ebx) {
  unsigned int a, b, c, d;
  *leaf1ecx = 0;
  *leaf7ebx = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  if (!osxsave || !avx) return;
  unsigned int xcr0, xcr0High;
  __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
  if ((xcr0 & 6) != 6) return;  // the XMM and YMM state
  *leaf1ecx = c;
  if (__get_cpuid_max(0, 0) < 7) return;
  __cpuid_count(7, 0, a, b, c, d);
  *leaf7ebx = b;
}

int32_t hap_cpu_has_avx2(void) {
  unsigned int leaf1, leaf7;
  usable_features(&leaf1, &leaf7);
  return (leaf7 >> 5) & 1;
}

int32_t hap_cpu_has_avx2_fma(void) {
  unsigned int leaf1, leaf7;
  usable_features(&leaf1, &leaf7);
  return ((leaf7 >> 5) & 1) && ((leaf1 >> 12) & 1);
}
#else
int32_t hap_cpu_has_avx2(void) { return 0; }
int32_t hap_cpu_has_avx2_fma(void) { return 0; }
#endif
