# hap: build, run, test and benchmark. On a fresh Debian machine each target installs
# what it needs (apt-get) or says exactly what to install.

PREFIX ?= /usr/local
# A leading ~ is the home folder: sh, dash and zsh pass 'PREFIX=~/.local' on with the ~ as it is.
ifeq ($(firstword $(subst /, ,$(PREFIX))),~)
override PREFIX := $(HOME)$(patsubst ~%,%,$(PREFIX))
endif
SWIFT_DIR ?= /opt/swift/usr/bin
export PATH := $(SWIFT_DIR):$(PATH)
SWIFT := swift
# The hap that make run, make install and make bench use: linked statically with the Swift
# runtime and FoundationEssentials (no full Foundation, so no ICU), so it starts about twice as
# fast (no dynamic loading of the Swift libraries) and runs where no Swift toolchain is installed; and as a position-
# dependent executable (-no-pie): a PIE this size applies 75,000 relative relocations at every
# start, writing to about 200 pages; without them `hap --version` takes 251 page faults instead
# of 462, and `hap play` reaches the device about 1.5 ms sooner. The price is that the binary's
# own code is not placed at a random address (shared libraries still are).
HAP := .build/static/release/hap
# The same code linked dynamically: the real-time probe needs it (it interposes swift_retain,
# which a static link of the Swift runtime resolves inside the binary).
DYNAMIC_HAP := .build/release/hap
# The simulated exciter (an ALSA ioplug plugin) for tests and machines without sound hardware.
SIM_DIR := .build/sim
SIM_PLUGIN := $(SIM_DIR)/libasound_module_pcm_hapsim.so
export HAP_SIM_PLUGIN := $(abspath $(SIM_PLUGIN))
# The device `make run` plays on. Named (DEVICE=hw:1,0, or $HAP_DEVICE), it must open, or
# make run fails with the reason; unnamed, ALSA's default, else the simulated exciter.
DEVICE ?=
# The pattern `make run` plays.
PATTERN ?= patterns/correct.json
# Where the shared test corpus lives (tests skip it, with a notice, when it is missing).
export HAP_CORPUS ?= $(abspath ../shared/corpus)

APT_GET := $(shell command -v apt-get 2>/dev/null)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build static run test bench install uninstall dist dist-check clean rules plot-docs golden format lint deps bench-deps sim fuzz studio-screenshots

all: build

# The Swift 6 toolchain cannot come from apt; everything else can.
deps:
	@command -v $(SWIFT) >/dev/null || { echo "error: swift not found. Install the Swift 6 toolchain from https://www.swift.org/install/linux/ (into /opt/swift, or set SWIFT_DIR=/path/to/usr/bin)."; exit 2; }
	@command -v python3 >/dev/null || $(MAKE) --no-print-directory apt PKGS=python3
	@command -v cc >/dev/null || $(MAKE) --no-print-directory apt PKGS=gcc
	@# ALSA's headers are needed to build (hap loads libasound at run time; it does not link it).
	@printf '#include <alsa/asoundlib.h>\n#include <alsa/pcm_ioplug.h>\n' | cc -E -x c - >/dev/null 2>&1 || $(MAKE) --no-print-directory apt PKGS="libasound2-dev"

bench-deps: deps
	@command -v jq >/dev/null || $(MAKE) --no-print-directory apt PKGS=jq
	@command -v sox >/dev/null || $(MAKE) --no-print-directory apt PKGS=sox
	@command -v aplay >/dev/null || $(MAKE) --no-print-directory apt PKGS=alsa-utils
	@# Real sound effects for hap convert (Ogg, read through libsndfile).
	@[ -d /usr/share/sounds/freedesktop/stereo ] || $(MAKE) --no-print-directory apt PKGS=sound-theme-freedesktop
	@ldconfig -p | grep -q 'libsndfile\.so\.1' || $(MAKE) --no-print-directory apt PKGS=libsndfile1
	@# Sounds at another rate than the output are resampled with libsoxr (loaded at run time).
	@ldconfig -p | grep -q 'libsoxr\.so\.0' || $(MAKE) --no-print-directory apt PKGS=libsoxr0
	@# hap studio's figures: libmicrohttpd serves it, headless chromium measures the page.
	@ldconfig -p | grep -q 'libmicrohttpd\.so\.12' || $(MAKE) --no-print-directory apt PKGS=libmicrohttpd12
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && /usr/bin/python3 -c 'import selenium' 2>/dev/null \
	  || $(MAKE) --no-print-directory apt PKGS="chromium chromium-driver python3-selenium"

# Some images cannot run gpgv as apt's sandbox user; retry the update as root then.
apt:
	@if [ -n "$(APT_GET)" ]; then echo "installing $(PKGS) with apt-get"; \
	  $(SUDO) apt-get update -qq >/dev/null 2>&1 || $(SUDO) apt-get -o APT::Sandbox::User=root update -qq >/dev/null; \
	  $(SUDO) apt-get install -y -qq $(PKGS) >/dev/null; \
	else echo "error: please install: $(PKGS)"; exit 2; fi

# The static hap alone: what make run and make install use, built once (one release build).
# Without SwiftPM's $ORIGIN run path (at every start the loader looked for each of libc, libm,
# libstdc++ and libgcc_s in a dozen folders beside the binary: 48 failed opens and stats),
# without DWARF, without a dynamic symbol table (nothing looks hap's symbols up) and without
# its data symbols: its functions' symbols kept, which is what a backtrace names. It must hold
# no ICU: no module it links imports full Foundation (issue 44; BoundaryTests).
#
# C++'s runtime linked in too (issue 44): Swift's runtime asks for -lstdc++ and -lgcc_s, and the
# loader bringing in libstdc++.so and libgcc_s.so at every start cost 0.45 ms of hap --version's
# 1.6 ms. The linker looks in .build/static/link first, where the archives stand under those
# names (GCC's libstdc++.a, and libgcc_eh.a, the unwinder gcc -static-libgcc links): libm and
# libc stay shared. The recipe fails if the binary still needs either library, or asks for a
# glibc newer than GLIBC_FLOOR, docs/ci.md's (tools/static-link/arc4random.c says why it is
# linked in).
STATIC_HAP := .build/static/release/hap
STATIC_LINK := .build/static/link
# The code a command runs as it starts, put together by the linker (gold) so that it faults in
# fewer pages: written by scripts/startup-order.py (every function seen running in a few common
# commands); a name that no longer exists is skipped. Each function in a section of its own.
# A generic type's metadata is made by its accessor, not from its mangled name: the runtime
# demangles the name and, for a requirement (Set<String>: String is Hashable), scans every
# protocol conformance in the binary, about 100,000 instructions each (a third of `hap render`'s
# start), for 90 KB of code.
STARTUP_ORDER := tools/static-link/startup-order.txt
GLIBC_FLOOR := 2.35
# The newest glibc symbol version binary $(1) asks for (2.35): the recipe's check, the dist README.
newest_glibc = objdump -T $(1) | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -n 1
static: deps
	@mkdir -p $(STATIC_LINK)
	@for pair in libstdc++.a:libstdc++.a libgcc_eh.a:libgcc_s.a; do \
	  archive=$$(cc -print-file-name=$${pair%%:*}); \
	  [ -f "$$archive" ] || { echo "error: cc finds no $${pair%%:*} (Debian: apt install libstdc++-12-dev)"; exit 2; }; \
	  ln -sf "$$archive" $(STATIC_LINK)/$${pair##*:}; done
	cc -O2 -Wall -c tools/static-link/arc4random.c -o $(STATIC_LINK)/arc4random.o
	@# SwiftPM relinks only when a source changes: a newer start-up order needs the old binary gone.
	@[ ! -f $(STATIC_HAP) ] || [ $(STATIC_HAP) -nt $(STARTUP_ORDER) ] || rm -f $(STATIC_HAP)
	$(SWIFT) build -c release --product hap --scratch-path .build/static --disable-local-rpath \
	  -Xswiftc -static-stdlib -Xlinker -no-pie -Xlinker --strip-debug -Xlinker --no-export-dynamic \
	  -Xlinker -L$(abspath $(STATIC_LINK)) -Xlinker $(abspath $(STATIC_LINK))/arc4random.o \
	  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	  -Xlinker --section-ordering-file=$(abspath $(STARTUP_ORDER)) \
	  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
	@! readelf -d $(STATIC_HAP) | grep -qE 'NEEDED.*(libstdc\+\+|libgcc_s)' \
	  || { echo "error: $(STATIC_HAP) still loads libstdc++ or libgcc_s"; exit 1; }
	@newest=$$($(call newest_glibc,$(STATIC_HAP))); \
	  [ "$$(printf '%s\n%s\n' "$$newest" $(GLIBC_FLOOR) | sort -V | tail -n 1)" = $(GLIBC_FLOOR) ] \
	  || { echo "error: $(STATIC_HAP) asks for glibc $$newest, newer than $(GLIBC_FLOOR) (docs/ci.md)"; exit 1; }
	@! nm $(STATIC_HAP) | grep -qE ' (icudt[0-9]+_dat|swift_ucol_open)$$' || { echo "error: ICU is linked into $(STATIC_HAP)"; exit 1; }
	@# Two constructors every start would pay: the runtime's search of /proc/self/maps for argv
	@# (CHapArguments stands in for it) and the compiler's CPU model (CHapCPU asks CPUID instead).
	@! nm $(STATIC_HAP) | grep -qE ' (_GLOBAL__sub_I_CommandLine\.cpp|__cpu_indicator_init)$$' \
	  || { echo "error: $(STATIC_HAP) runs the runtime's argv search or the CPU model at start (docs/building.md)"; exit 1; }
	nm --defined-only $(STATIC_HAP) | awk '$$2 ~ /^[tTwW]$$/ { sub(/^[^ ]+ [^ ]+ /, ""); if (index($$0, " ") == 0) print }' \
	  > .build/static/functions.txt
	objcopy --strip-unneeded --keep-symbols=.build/static/functions.txt $(STATIC_HAP)

# Both releases: the static hap, and the dynamic build of every product (make bench's
# hap-bench and hapkit-bench, and the dynamic hap it compares).
build: static
	$(SWIFT) build -c release

# The main job: feel $(PATTERN) (default patterns/correct.json) on $(DEVICE); with no device
# named and no playback device, on the simulated exciter (-D sim, in real time), showing the
# statistics and where the signal was captured.
run: static sim
	@$(HAP) validate --quiet "$(PATTERN)"
	@sh scripts/run-play.sh "$(HAP)" "$(DEVICE)" "$(PATTERN)"
	@# Where hap is, and how to type 'hap' anywhere (make install PREFIX=~/.local, ~/.local/bin on PATH).
	@sh scripts/run-where.sh "$(abspath $(HAP))"

sim: deps $(SIM_PLUGIN)

$(SIM_PLUGIN): tools/sim-exciter/hap_sim_exciter.c tools/sim-exciter/build.sh
	@sh tools/sim-exciter/build.sh $(SIM_DIR) >/dev/null

# Where `make test` records each launch of the binary by the tests, and how many it allows:
# issue 43's 100 (90 today, from 2,620; what still launches needs a process of its own: the
# real-time probe, a process's descriptors and signals; docs/testing.md).
LAUNCH_LOG := .build/test-launches.log
LAUNCH_LIMIT := 100

test: deps sim
	@command -v strace >/dev/null || $(MAKE) --no-print-directory apt PKGS=strace
	@# The man page test runs groff (and zsh -n, fish -n where those shells are installed).
	@command -v groff >/dev/null || $(MAKE) --no-print-directory apt PKGS=groff-base
	@# ResamplerTests measure libsoxr (loaded at run time; under CI a missing one fails).
	@ldconfig -p | grep -q 'libsoxr\.so\.0' || $(MAKE) --no-print-directory apt PKGS=libsoxr0
	@# PerceptualMetricsTests compare with vibromaf (PyPI), installed with pip where python3 lacks it.
	@python3 -m pip --version >/dev/null 2>&1 || $(MAKE) --no-print-directory apt PKGS=python3-pip
	@# Convert's and the sound search's libsndfile tests (FLAC, MP3, a text file named .flac) are
	@# skipped without it (loaded at run time).
	@ldconfig -p | grep -q 'libsndfile\.so\.1' || $(MAKE) --no-print-directory apt PKGS=libsndfile1
	@# KotlinCompileTests compile `hap convert`'s Kotlin (kotlinc) and measure its methods (javap).
	@command -v kotlinc >/dev/null && command -v javac >/dev/null && command -v javap >/dev/null \
	  || $(MAKE) --no-print-directory apt PKGS="kotlin default-jdk-headless"
	@# hap serve --dbus: a private bus and feedbackd's own clients (fbcli, libfeedback from Python, gdbus).
	@command -v dbus-daemon >/dev/null && command -v dbus-monitor >/dev/null && command -v fbcli >/dev/null \
	  && command -v gdbus >/dev/null && ls /usr/lib/*/girepository-1.0/Lfb-0.0.typelib >/dev/null 2>&1 \
	  && /usr/bin/python3 -c 'import gi' 2>/dev/null \
	  || $(MAKE) --no-print-directory apt PKGS="dbus-daemon dbus-bin feedbackd gir1.2-lfb-0.0 python3-gi libglib2.0-bin libdbus-1-3"
	@# ReportFormatTests check validate's SARIF and JUnit reports against their schemas.
	@/usr/bin/python3 -c 'import jsonschema, lxml' 2>/dev/null || $(MAKE) --no-print-directory apt PKGS="python3-jsonschema python3-lxml"
	@# hap studio: libmicrohttpd (loaded at run time) serves it; StudioBrowserTests drive the page in
	@# Debian's headless chromium through its chromedriver and python3-selenium (nothing downloaded).
	@ldconfig -p | grep -q 'libmicrohttpd\.so\.12' || $(MAKE) --no-print-directory apt PKGS=libmicrohttpd12
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && /usr/bin/python3 -c 'import selenium' 2>/dev/null \
	  || $(MAKE) --no-print-directory apt PKGS="chromium chromium-driver python3-selenium"
	python3 scripts/gen-rules.py --check
	@# No function over 60 lines in Sources unless a 'long-function:' comment says why.
	python3 scripts/long-functions.py --check >/dev/null
	$(SWIFT) build
	sh scripts/plot-docs.sh .build/debug/hap --check
	@# Most CLI tests run hap in process; each launch of the binary is recorded, and more than
	@# LAUNCH_LIMIT fail the run (scripts/launch-count.sh; docs/testing.md).
	@# The completions and the man page the install tests install, written before they run (by
	@# the build's binary, as 'make install' writes them): two installs at once then write none.
	$(MAKE) --no-print-directory $(DEBUG_DOCS) NO_BUILD=1 HAP=.build/debug/hap
	rm -f $(LAUNCH_LOG)
	HAP_TEST_LAUNCH_LOG=$(abspath $(LAUNCH_LOG)) $(SWIFT) test
	sh scripts/launch-count.sh $(LAUNCH_LOG) $(LAUNCH_LIMIT)
	@# No reference counting per period is a property of the optimised build: prove it there too.
	$(SWIFT) build -c release --product hap
	$(SWIFT) build -c release --product hapkit-bench
	HAP_BIN=$(abspath $(DYNAMIC_HAP)) $(SWIFT) test --skip-build --filter RealTimeContractTests

bench: build bench-deps sim
	python3 scripts/bench.py

# The binary, the simulated exciter's plugin (lib/hap, where 'hap play -D sim' finds it; when
# it is built), the bundled vocabulary (share/hap/patterns) and the systemd user unit, whose
# ExecStart names the installed binary and vocabulary (contrib/hap.service's %h/.local paths
# rewritten to PREFIX). NO_BUILD=1 HAP=PATH installs a binary built elsewhere (the tests do).
# systemd's user manager looks in /usr/lib, /usr/local/lib and ~/.config/systemd/user: for a
# home install, give SYSTEMD_USER_DIR=$HOME/.config/systemd/user.
SYSTEMD_USER_DIR ?= $(PREFIX)/lib/systemd/user
UNIT_DIR = $(DESTDIR)$(SYSTEMD_USER_DIR)
# Also the shell completions and the manual page hap.1, both written by the binary from its own
# option tables (`hap completion SHELL`, `hap help --man`).
COMPLETIONS = $(DESTDIR)$(PREFIX)/share
BASH_COMPLETION = $(COMPLETIONS)/bash-completion/completions/hap
ZSH_COMPLETION = $(COMPLETIONS)/zsh/site-functions/_hap
FISH_COMPLETION = $(COMPLETIONS)/fish/vendor_completions.d/hap.fish
MAN_PAGE = $(DESTDIR)$(PREFIX)/share/man/man1/hap.1
DBUS_SERVICES = $(DESTDIR)$(PREFIX)/share/dbus-1/services
# Written once per binary, beside it (HAP_DOCS), and copied by each install: a second install
# of the same binary (the dist target's, the tests') does not run it again. Each is written to a
# file of its own and renamed, so two makes at once never leave a half-written one.
HAP_DOCS = $(dir $(HAP))generated
DOC_NAMES = hap.bash _hap hap.fish hap.1
GENERATED_DOCS = $(addprefix $(HAP_DOCS)/,$(DOC_NAMES))
DEBUG_DOCS = $(addprefix .build/debug/generated/,$(DOC_NAMES))
$(HAP_DOCS)/hap.bash: $(HAP) ; @mkdir -p $(@D) && $(HAP) completion bash > $@.$$$$ && mv $@.$$$$ $@
$(HAP_DOCS)/_hap: $(HAP) ; @mkdir -p $(@D) && $(HAP) completion zsh > $@.$$$$ && mv $@.$$$$ $@
$(HAP_DOCS)/hap.fish: $(HAP) ; @mkdir -p $(@D) && $(HAP) completion fish > $@.$$$$ && mv $@.$$$$ $@
$(HAP_DOCS)/hap.1: $(HAP) ; @mkdir -p $(@D) && $(HAP) help --man > $@.$$$$ && mv $@.$$$$ $@
# Every path quoted: PREFIX and DESTDIR may hold spaces (the unit's and the D-Bus file's paths are
# quoted for systemd and D-Bus by contrib/dist/unit-paths.sh); a double quote, a backslash, a
# dollar sign or a backquote in them is refused.
INSTALL_PATHS = $(DESTDIR)$(PREFIX)$(SYSTEMD_USER_DIR)
# Checked by make itself, not by a shell line holding the paths (a quote in them would break it).
UNQUOTABLE = $(findstring ",$(INSTALL_PATHS))$(findstring \,$(INSTALL_PATHS))$(findstring $$,$(INSTALL_PATHS))$(findstring `,$(INSTALL_PATHS))
UNQUOTABLE_SAID = echo "error: PREFIX, DESTDIR and SYSTEMD_USER_DIR cannot hold a double quote, a backslash, a dollar sign or a backquote"; exit 2
CHECK_PATHS = $(if $(UNQUOTABLE),$(UNQUOTABLE_SAID),true)
install: $(if $(NO_BUILD),,static sim)
	@$(CHECK_PATHS)
	$(MAKE) --no-print-directory $(GENERATED_DOCS) NO_BUILD=1 HAP=$(HAP)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/hap/patterns" "$(DESTDIR)$(PREFIX)/share/hap/desktop" "$(UNIT_DIR)"
	install -m 755 $(HAP) "$(DESTDIR)$(PREFIX)/bin/hap"
	[ ! -f $(SIM_PLUGIN) ] || install -D -m 644 $(SIM_PLUGIN) "$(DESTDIR)$(PREFIX)/lib/hap/$(notdir $(SIM_PLUGIN))"
	install -m 644 patterns/*.json "$(DESTDIR)$(PREFIX)/share/hap/patterns/"
	install -m 644 desktop/*.json "$(DESTDIR)$(PREFIX)/share/hap/desktop/"
	@# DBUS_ACTIVATION=1: the session bus starts 'hap serve --dbus' for feedbackd's clients.
	[ -z "$(DBUS_ACTIVATION)" ] || { install -d "$(DBUS_SERVICES)" && \
	  sh contrib/dist/unit-paths.sh "$(PREFIX)" contrib/org.sigxcpu.Feedback.service "$(DBUS_SERVICES)/org.sigxcpu.Feedback.service"; }
	sh contrib/dist/unit-paths.sh "$(PREFIX)" contrib/hap.service "$(UNIT_DIR)/hap.service.tmp"
	chmod 644 "$(UNIT_DIR)/hap.service.tmp" && mv "$(UNIT_DIR)/hap.service.tmp" "$(UNIT_DIR)/hap.service"
	install -d "$(COMPLETIONS)/bash-completion/completions" "$(COMPLETIONS)/zsh/site-functions" \
	  "$(COMPLETIONS)/fish/vendor_completions.d" "$(DESTDIR)$(PREFIX)/share/man/man1"
	install -m 644 $(HAP_DOCS)/hap.bash "$(BASH_COMPLETION)"
	install -m 644 $(HAP_DOCS)/_hap "$(ZSH_COMPLETION)"
	install -m 644 $(HAP_DOCS)/hap.fish "$(FISH_COMPLETION)"
	install -m 644 $(HAP_DOCS)/hap.1 "$(MAN_PAGE)"

uninstall:
	@$(CHECK_PATHS)
	rm -f "$(DESTDIR)$(PREFIX)/bin/hap" "$(UNIT_DIR)/hap.service" "$(DESTDIR)$(PREFIX)/lib/hap/$(notdir $(SIM_PLUGIN))"
	rm -f "$(BASH_COMPLETION)" "$(ZSH_COMPLETION)" "$(FISH_COMPLETION)" "$(MAN_PAGE)" "$(DBUS_SERVICES)/org.sigxcpu.Feedback.service"
	-rmdir "$(DESTDIR)$(PREFIX)/lib/hap" 2>/dev/null
	rm -rf "$(DESTDIR)$(PREFIX)/share/hap/patterns" "$(DESTDIR)$(PREFIX)/share/hap/desktop"
	-rmdir "$(DESTDIR)$(PREFIX)/share/hap" 2>/dev/null

# A tarball for machines without Swift: dist/hap-VERSION-linux-ARCH.tar.gz (and its .sha256),
# one folder hap-VERSION-linux-ARCH/ laid out by `make install` (bin/hap, lib/hap/ with the
# simulated exciter's plugin, share/hap/patterns, the completions, the man page; the systemd user
# unit as in contrib/, its %h/.local paths rewritten by install.sh), with contrib/dist's README
# and install.sh (`./install.sh [--prefix DIR]`) and the D-Bus activation file in contrib/
# (`./install.sh --dbus-activation`). The system libraries hap loads at run time (libasound2,
# libsndfile1, libsoxr0, libdbus-1-3) are not bundled: install.sh names the missing ones.
# VERSION is `hap --version`'s. Reproducible as far as the binary is: names sorted, owner root,
# every mtime the last commit's time (or $SOURCE_DATE_EPOCH), gzip without name or time stamp.
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/hap/CLI/HapCommandLine.swift)
ARCH := $(shell uname -m)
DIST_NAME := hap-$(VERSION)-linux-$(ARCH)
DIST_TARBALL := dist/$(DIST_NAME).tar.gz
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || date +%s)
dist: static sim
	@[ -n "$(VERSION)" ] || { echo "error: no version in Sources/hap/CLI/HapCommandLine.swift"; exit 2; }
	rm -rf dist/stage && mkdir -p dist/stage
	$(MAKE) --no-print-directory install NO_BUILD=1 DESTDIR=$(abspath dist/stage) PREFIX=/$(DIST_NAME) \
	  SYSTEMD_USER_DIR=/$(DIST_NAME)/lib/systemd/user DBUS_ACTIVATION= >/dev/null
	install -m 644 contrib/hap.service dist/stage/$(DIST_NAME)/lib/systemd/user/hap.service
	install -D -m 644 contrib/org.sigxcpu.Feedback.service dist/stage/$(DIST_NAME)/contrib/org.sigxcpu.Feedback.service
	install -m 755 contrib/dist/install.sh dist/stage/$(DIST_NAME)/install.sh
	install -m 755 contrib/dist/unit-paths.sh dist/stage/$(DIST_NAME)/unit-paths.sh
	@# The README names the newest glibc symbol version the binary asks for.
	glibc=$$($(call newest_glibc,$(HAP))); \
	sed "s/@VERSION@/$(VERSION)/g; s/@ARCH@/$(ARCH)/g; s/@GLIBC@/$$glibc/g" \
	  contrib/dist/README.md > dist/stage/$(DIST_NAME)/README.md
	chmod 644 dist/stage/$(DIST_NAME)/README.md
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) --mode=u+rwX,go+rX,go-w \
	  -C dist/stage -cf dist/stage.tar $(DIST_NAME)
	gzip -n -9 -c dist/stage.tar > $(DIST_TARBALL).tmp && mv $(DIST_TARBALL).tmp $(DIST_TARBALL)
	cd dist && sha256sum $(DIST_NAME).tar.gz > $(DIST_NAME).tar.gz.sha256
	rm -rf dist/stage dist/stage.tar
	@echo "$(DIST_TARBALL): $$(du -h $(DIST_TARBALL) | cut -f1)"

# Unpack the tarball and prove it needs no Swift: in a mount namespace with /opt/swift hidden, the
# unpacked hap links no Swift library, plays on -D sim (with the tarball's plugin), validates the
# shared corpus exactly as $(HAP) does and the bundled vocabulary cleanly, and install.sh installs
# a hap that runs (scripts/dist-check.sh; root, or unprivileged user namespaces, needed).
dist-check: dist
	sh scripts/dist-check.sh $(DIST_TARBALL) $(HAP)

# Regenerate Validate/RuleCatalog.generated.swift and docs/rules.md from the rules' doc comments.
rules:
	python3 scripts/gen-rules.py

# Regenerate docs/plot-winner.svg, the README's picture (make test fails when it is stale).
plot-docs: deps
	$(SWIFT) build --product hap
	sh scripts/plot-docs.sh .build/debug/hap

# The studio's pictures in docs/ (studio-spawn.png, studio-winner.png, which the README and
# docs/studio.md show): StudioBrowserTests takes them in headless chromium into
# .build/studio-screenshots/ on every run; HAP_STUDIO_SCREENSHOTS_TO_DOCS=1 copies them to docs/.
studio-screenshots: deps sim
	@ldconfig -p | grep -q 'libmicrohttpd\.so\.12' || $(MAKE) --no-print-directory apt PKGS=libmicrohttpd12
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && /usr/bin/python3 -c 'import selenium' 2>/dev/null \
	  || $(MAKE) --no-print-directory apt PKGS="chromium chromium-driver python3-selenium"
	$(SWIFT) build --build-tests
	HAP_STUDIO_SCREENSHOTS_TO_DOCS=1 $(SWIFT) test --skip-build --filter 'StudioBrowserTests/screenshots'
	@ls -l docs/studio-spawn.png docs/studio-winner.png

# Re-record the golden renders (Tests/HapCLITests/Golden/) after an intended change to the
# rendering model; review the diff of the printed summary before committing.
golden: deps
	HAP_RECORD_GOLDEN=1 $(SWIFT) test --filter GoldenRenderTests

# Fuzz with libFuzzer, FUZZ_SECONDS (default 60) per target, one target after another:
#   pattern  the AHAP parser, decoder, validator, renderer, info's summary and diff;
#   request  the service's request lines (a parse is written back and parses the same);
#   control  control stream lines (`hap play --control`; values in range, written back the same);
#   haptic   the .haptic reader and `hap convert` of a clip both ways (passes hap's own checks);
#   wav      the WAV reader and the audio analysis of `hap convert` (finite samples, valid AHAP);
#   acf      Meta's actuator configuration files (a profile that reads renders finite samples);
#   theme    feedbackd themes (a theme that reads is a vocabulary of valid, finite patterns);
#   dbus     D-Bus method calls to `hap serve --dbus`, in their wire form (fuzz/make-dbus-seeds.py).
# FUZZ_TARGET=NAME picks one. Each starts from its seeds (fuzz/seeds/NAME; for pattern the
# bundled patterns and the shared corpus's AHAP, for haptic also its clips, for acf its device
# files, for theme Debian's feedbackd theme when installed) and the regression
# inputs (fuzz/regressions/, NAME/ for all but pattern), and the corpus a long run kept
# (fuzz/corpus/NAME: libFuzzer's -merge=1 of a 15-minute run, the inputs that each reached code
# the others did not); what it finds is kept in .build/fuzz-corpus/NAME. An input that breaks a promise is written to .build/fuzz-artifacts/NAME/:
# add it to fuzz/regressions/ (make test replays them) and fix the defect. A target that breaks a
# promise stops the run (later targets are not run).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := pattern request control haptic wav acf theme dbus settings studio
FUZZ_TARGET ?= $(FUZZ_TARGETS)
fuzz: deps
	@for t in $(FUZZ_TARGET); do case " $(FUZZ_TARGETS) " in *" $$t "*) ;; *) echo "error: FUZZ_TARGET=$$t: the targets are $(FUZZ_TARGETS)"; exit 2;; esac; done
	cd fuzz && $(SWIFT) build -c debug --sanitize=fuzzer -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
	@for t in $(FUZZ_TARGET); do \
	  mkdir -p .build/fuzz-corpus/$$t .build/fuzz-artifacts/$$t; \
	  case $$t in \
	    pattern) cp patterns/*.json .build/fuzz-corpus/pattern/; (cp $(HAP_CORPUS)/ahap/*/*.ahap .build/fuzz-corpus/pattern/ 2>/dev/null || true); \
	      find fuzz/regressions -maxdepth 1 -type f ! -name README.md -exec cp {} .build/fuzz-corpus/pattern/ \; ;; \
	    *) cp fuzz/seeds/$$t/* .build/fuzz-corpus/$$t/; [ ! -d fuzz/regressions/$$t ] || cp fuzz/regressions/$$t/* .build/fuzz-corpus/$$t/; \
      [ ! -d fuzz/corpus/$$t ] || cp fuzz/corpus/$$t/* .build/fuzz-corpus/$$t/;; \
	  esac; \
	  [ $$t != haptic ] || (find $(HAP_CORPUS)/haptic -name '*.haptic' -size -8k -exec cp {} .build/fuzz-corpus/haptic/ \; 2>/dev/null || true); \
	  [ $$t != acf ] || (cp $(HAP_CORPUS)/acf/*.acf .build/fuzz-corpus/acf/ 2>/dev/null || true); \
	  [ $$t != theme ] || (cp /usr/share/feedbackd/themes/*.json .build/fuzz-corpus/theme/ 2>/dev/null || true); \
	  echo "== fuzzing $$t for $(FUZZ_SECONDS) s"; \
	  HAP_FUZZ_TARGET=$$t SWIFT_BACKTRACE=enable=no fuzz/.build/debug/HapFuzz .build/fuzz-corpus/$$t -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=8192 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=.build/fuzz-artifacts/$$t/ || exit 1; \
	done

# Format with `swift format` (.swift-format); the generated rule catalogue is left as generated.
FORMATTED = $(filter-out %.generated.swift,$(shell find Sources Tests -name '*.swift')) Package.swift

format: deps
	$(SWIFT) format --in-place $(FORMATTED)

lint: deps
	$(SWIFT) format lint $(FORMATTED)

clean:
	rm -rf .build bench/out dist
