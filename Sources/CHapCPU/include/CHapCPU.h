#ifndef HAP_CPU_H
#define HAP_CPU_H

#include <stdint.h>

// What this CPU runs, for the kernels compiled twice (CHapKernels, CHapScan) to pick their
// variant. Asked of CPUID when first needed, not through __builtin_cpu_supports: that links the
// compiler's CPU model, whose constructor runs a dozen CPUID instructions at every start of
// every command, where a VM traps each one (3.5 us here: 60 us of `hap --version`'s start).

/// 1 where the CPU has AVX2 and the system saves the YMM registers (OSXSAVE, and XCR0's SSE
/// and AVX state), as the compiler's CPU model checks; else 0.
int32_t hap_cpu_has_avx2(void);

/// 1 where `hap_cpu_has_avx2` and the CPU has FMA too; else 0.
int32_t hap_cpu_has_avx2_fma(void);

#endif
