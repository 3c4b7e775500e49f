// libdbus-1 through dlopen/dlsym (loaded at run time, as libasound is): the few calls hap's
// feedbackd-compatible service makes, wrapped so that Swift sees plain C types. Building needs
// no libdbus-1-dev: the prototypes are declared in cdbus.c, from libdbus's own headers.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Loads `library` (libdbus-1.so.3); 0, or -1 with dlerror's reason in `message`.
int hap_dbus_load(const char *library, char *message, size_t size);

/// A private connection to the session bus: the one at `address`, or with NULL the one libdbus
/// finds ($DBUS_SESSION_BUS_ADDRESS of the process, else its default); NULL with the reason.
void *hap_dbus_connect_session(const char *address, char *message, size_t size);
/// Asks for `name` (never queued); the bus's answer (1: owner now, 3: another process owns
/// it, 4: already ours), or -1 with the reason.
int hap_dbus_request_name(void *connection, const char *name, char *message, size_t size);
/// Adds a match rule; 0, or -1 with the reason.
int hap_dbus_add_match(void *connection, const char *rule, char *message, size_t size);
/// The connection's socket, to poll; -1 when it has none.
int hap_dbus_fd(void *connection);
/// Reads what the socket holds without blocking and writes what is queued; 0 once the
/// connection is closed.
int hap_dbus_read(void *connection);
/// The next message read (NULL: none); released with hap_dbus_unref.
void *hap_dbus_pop(void *connection);
void hap_dbus_unref(void *message);
void hap_dbus_flush(void *connection);
void hap_dbus_close(void *connection);

/// The message whose wire form is `bytes` (libdbus's dbus_message_demarshal, for the fuzzer);
/// NULL when they are not one valid message or the library is not loaded. Released with
/// hap_dbus_unref.
void *hap_dbus_demarshal(const uint8_t *bytes, size_t count);

/// 1 method call, 2 method return, 3 error, 4 signal.
int hap_dbus_kind(void *message);
/// The message's header fields ("" when absent).
const char *hap_dbus_interface(void *message);
const char *hap_dbus_member(void *message);
const char *hap_dbus_path(void *message);
const char *hap_dbus_sender(void *message);
const char *hap_dbus_signature(void *message);

/// The first `count` arguments, all strings (the caller checked the signature).
int hap_dbus_read_strings(void *message, const char **strings, int count);
/// The first argument, a uint32 (signature "u").
int hap_dbus_read_u32(void *message, uint32_t *value);

/// TriggerFeedback's arguments ("ssa{sv}i") and the hints hap reads.
typedef struct {
  const char *app_id;
  const char *event;
  int32_t timeout;
  /// NULL when absent.
  const char *profile;
  const char *sound_file;
  int important;
  /// A hint hap reads given with another type than its own: its key (else NULL).
  const char *bad_hint;
} hap_dbus_trigger;
int hap_dbus_read_trigger(void *message, hap_dbus_trigger *trigger);

/// Vibrate's arguments ("sa(du)"): the array's first pairs, at most `capacity`, are stored
/// and counted in `count` (the rest are not read).
int hap_dbus_read_vibrate(
  void *message, const char **app_id, double *amplitudes, uint32_t *durations, int capacity, int *count);

/// Properties.Set's arguments ("ssv"): the variant's type ('s' gives `value`).
int hap_dbus_read_set(void *message, const char **interface, const char **property, char *type, const char **value);

/// Replies: `type` 0 (no value), 'u', 'b' (uint32 0/1 in `number`) or 's' (`text`); a variant
/// holding a string; a dictionary {key: <string>}; an error. 0, or -1 when out of memory.
int hap_dbus_reply(void *connection, void *call, char type, uint32_t number, const char *text);
int hap_dbus_reply_variant(void *connection, void *call, const char *text);
int hap_dbus_reply_dictionary(void *connection, void *call, const char *key, const char *text);
int hap_dbus_reply_error(void *connection, void *call, const char *name, const char *text);
/// Signals: (u, u) and PropertiesChanged(s, {key: <string>}, []).
int hap_dbus_signal_two_u32(
  void *connection, const char *path, const char *interface, const char *member, uint32_t first, uint32_t second);
int hap_dbus_signal_property(
  void *connection, const char *path, const char *interface, const char *key, const char *text);
