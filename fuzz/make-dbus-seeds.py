#!/usr/bin/env python3
"""Writes the seeds of the fuzzer's `dbus` target (fuzz/seeds/dbus/): the method calls
`hap serve --dbus` answers, each in D-Bus's wire form, made by libdbus itself
(dbus_message_marshal), so that the fuzzer starts from valid messages of every kind.
Run from the repository's root: python3 fuzz/make-dbus-seeds.py"""
import ctypes
import os

lib = ctypes.CDLL("libdbus-1.so.3")
lib.dbus_message_new_method_call.restype = ctypes.c_void_p
lib.dbus_message_new_method_call.argtypes = [ctypes.c_char_p] * 4
lib.dbus_message_iter_init_append.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.dbus_message_iter_append_basic.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
lib.dbus_message_iter_open_container.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p]
lib.dbus_message_iter_close_container.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.dbus_message_set_serial.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
lib.dbus_message_set_sender.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.dbus_message_marshal.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int)]
lib.dbus_free.argtypes = [ctypes.c_void_p]

PATH = b"/org/sigxcpu/Feedback"
FEEDBACK = b"org.sigxcpu.Feedback"
HAPTIC = b"org.sigxcpu.Feedback.Haptic"
PROPERTIES = b"org.freedesktop.DBus.Properties"


def iterator():
    return ctypes.create_string_buffer(128)


def append(it, kind, value):
    if kind == "s":
        holder = ctypes.c_char_p(value)
    elif kind in "ub":
        holder = ctypes.c_uint32(value)
    elif kind == "i":
        holder = ctypes.c_int32(value)
    elif kind == "d":
        holder = ctypes.c_double(value)
    assert lib.dbus_message_iter_append_basic(it, ord(kind), ctypes.byref(holder))


def variant(it, kind, value):
    inner = iterator()
    lib.dbus_message_iter_open_container(it, ord("v"), kind.encode(), inner)
    append(inner, kind, value)
    lib.dbus_message_iter_close_container(it, inner)


def hints(it, pairs):
    array = iterator()
    lib.dbus_message_iter_open_container(it, ord("a"), b"{sv}", array)
    for key, kind, value in pairs:
        entry = iterator()
        lib.dbus_message_iter_open_container(array, ord("e"), None, entry)
        append(entry, "s", key)
        variant(entry, kind, value)
        lib.dbus_message_iter_close_container(array, entry)
    lib.dbus_message_iter_close_container(it, array)


def vibration(it, parts):
    array = iterator()
    lib.dbus_message_iter_open_container(it, ord("a"), b"(du)", array)
    for amplitude, ms in parts:
        pair = iterator()
        lib.dbus_message_iter_open_container(array, ord("r"), None, pair)
        append(pair, "d", amplitude)
        append(pair, "u", ms)
        lib.dbus_message_iter_close_container(array, pair)
    lib.dbus_message_iter_close_container(it, array)


def call(name, interface, member, fill, path=PATH):
    message = lib.dbus_message_new_method_call(b"org.sigxcpu.Feedback", path, interface, member)
    lib.dbus_message_set_serial(message, 7)
    lib.dbus_message_set_sender(message, b":1.42")
    it = iterator()
    lib.dbus_message_iter_init_append(message, it)
    fill(it)
    out, size = ctypes.c_void_p(), ctypes.c_int()
    assert lib.dbus_message_marshal(message, ctypes.byref(out), ctypes.byref(size))
    with open(os.path.join("fuzz/seeds/dbus", name), "wb") as f:
        f.write(ctypes.string_at(out, size.value))
    lib.dbus_free(out)


def trigger(app, event, pairs, timeout):
    def fill(it):
        append(it, "s", app)
        append(it, "s", event)
        hints(it, pairs)
        append(it, "i", timeout)
    return fill


os.makedirs("fuzz/seeds/dbus", exist_ok=True)
call("trigger.bin", FEEDBACK, b"TriggerFeedback", trigger(b"org.example.App", b"button-pressed", [], -1))
call("trigger-hints.bin", FEEDBACK, b"TriggerFeedback", trigger(
    b"org.example.App", b"message-new-email",
    [(b"profile", "s", b"quiet"), (b"important", "b", 1), (b"sound-file", "s", b"/tmp/s.oga")], 5))
call("trigger-bad-hint.bin", FEEDBACK, b"TriggerFeedback", trigger(b"a", b"e", [(b"important", "s", b"yes")], 0))
call("trigger-no-interface.bin", None, b"TriggerFeedback", trigger(b"a", b"timeout", [(b"profile", "s", b"loud")], -1))
call("end.bin", FEEDBACK, b"EndFeedback", lambda it: append(it, "u", 3))
call("vibrate.bin", HAPTIC, b"Vibrate", lambda it: (append(it, "s", b"org.example.Game"),
                                                    vibration(it, [(1.0, 200), (0.0, 50), (0.5, 300)])))
# Clamped as feedbackd clamps, never refused: 13 pairs (the first 10 play), 20,000 ms, amplitudes out of 0..1.
call("vibrate-clamped.bin", HAPTIC, b"Vibrate", lambda it: (append(it, "s", b"g"), vibration(
    it, [(2.5, 20000), (-0.5, 10), (float("nan"), 10), (float("inf"), 5)] + [(0.25, 1)] * 9)))
call("vibrate-no-app.bin", HAPTIC, b"Vibrate", lambda it: (append(it, "s", b""), vibration(it, [])))
call("get.bin", PROPERTIES, b"Get", lambda it: (append(it, "s", FEEDBACK), append(it, "s", b"Profile")))
call("get-all.bin", PROPERTIES, b"GetAll", lambda it: append(it, "s", HAPTIC))
call("set.bin", PROPERTIES, b"Set", lambda it: (append(it, "s", FEEDBACK), append(it, "s", b"Profile"),
                                                variant(it, "s", b"silent")))
call("set-wrong-type.bin", PROPERTIES, b"Set", lambda it: (append(it, "s", FEEDBACK), append(it, "s", b"Profile"),
                                                           variant(it, "u", 1)))
call("introspect-root.bin", b"org.freedesktop.DBus.Introspectable", b"Introspect", lambda it: None, path=b"/")
call("ping.bin", b"org.freedesktop.DBus.Peer", b"Ping", lambda it: None)
call("unknown.bin", FEEDBACK, b"Frobnicate", lambda it: append(it, "s", b"\x1b[31mred"))
