#ifndef HAP_ARGUMENTS_H
#define HAP_ARGUMENTS_H

// The process's arguments for Swift's `CommandLine`, as glibc hands them to constructors.
//
// Swift's runtime finds argv on Linux in a constructor of its own (ArgvGrabber, in its
// CommandLine.cpp) that reads /proc/self/maps line by line with sscanf to find the stack, then
// walks back from `environ`: 25-60 us at every start of every command, most of it the kernel
// writing out the maps. This target defines the two functions that object provides, so the
// static link never takes it from libswiftCore.a, and its constructor never runs; glibc calls
// constructors with (argc, argv, envp), and ours keeps the first two. If a newer runtime needed
// that object for another symbol, the static link would fail with a duplicate definition: it
// cannot silently run both: a toolchain whose Swift.o calls a third function of that object
// (swiftlang/swift's main adds `_swift_stdlib_copyExecutablePath`) needs it defined here too,
// as the runtime defines it. In a build against the shared runtime these are unused (the
// runtime calls its own); with a C library other than glibc they are not compiled. Only the
// hap program depends on this target, not HapKit. No header declares them to Swift: the
// runtime alone calls them.

#endif
