// arc4random for the static hap (make static), so that it runs on glibc 2.35 (Ubuntu 22.04).
//
// make static links GCC's libstdc++.a into hap (issue 44: loading libstdc++.so at every start
// cost a quarter of hap --version's time). Its random.o, which Swift's runtime pulls in through
// std::__throw_bad_alloc → logic_error → the COW string → std::random_device, refers to
// arc4random, which glibc has only from 2.36 (Debian 12's): linked against glibc's, hap would ask
// for GLIBC_2.36 and refuse to start on 2.35. This definition, linked into hap only (not a
// package target: an app linking HapKit keeps glibc's), satisfies that reference instead.
// Nothing in hap calls it: std::random_device is never made.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

uint32_t arc4random(void) {
  uint32_t value;
  size_t done = 0;
  while (done < sizeof value) {
    ssize_t n = getrandom((char *)&value + done, sizeof value - done, 0);
    if (n > 0) {
      done += (size_t)n;
    } else if (n < 0 && errno != EINTR) {
      abort();  // getrandom(2) cannot fail on Linux 3.17+ with a valid buffer
    }
  }
  return value;
}
