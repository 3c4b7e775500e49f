// libdbus-1 through dlopen/dlsym; the prototypes and the two structures are libdbus's own
// (dbus/dbus-*.h, 1.14), declared here so that no development package is needed to build.
#include "CDBus.h"

#include <CHapLibrary.h>
#include <stdio.h>
#include <string.h>

typedef uint32_t hap_dbus_bool;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

// DBusError: two strings, five one-bit flags, a pointer.
typedef struct {
  const char *name;
  const char *message;
  unsigned int dummy;
  void *padding;
} hap_dbus_error;

// DBusMessageIter is 72 bytes on LP64 (two pointers, a uint32, nine ints, two pointers):
// this is larger and as aligned, and libdbus writes only its own size.
typedef struct {
  void *opaque[16];
} hap_dbus_iter;

enum {
  BUS_SESSION = 0,
  NAME_FLAG_DO_NOT_QUEUE = 4,
  TYPE_INVALID = 0,
  TYPE_STRING = 's',
  TYPE_UINT32 = 'u',
  TYPE_INT32 = 'i',
  TYPE_BOOLEAN = 'b',
  TYPE_DOUBLE = 'd',
  TYPE_ARRAY = 'a',
  TYPE_VARIANT = 'v',
  TYPE_STRUCT = 'r',
  TYPE_DICT_ENTRY = 'e',
};

static void (*p_error_init)(hap_dbus_error *);
static void (*p_error_free)(hap_dbus_error *);
static hap_dbus_bool (*p_error_is_set)(const hap_dbus_error *);
static DBusConnection *(*p_bus_get_private)(int, hap_dbus_error *);
static DBusConnection *(*p_connection_open_private)(const char *, hap_dbus_error *);
static hap_dbus_bool (*p_bus_register)(DBusConnection *, hap_dbus_error *);
static void (*p_set_exit_on_disconnect)(DBusConnection *, hap_dbus_bool);
static int (*p_bus_request_name)(DBusConnection *, const char *, unsigned int, hap_dbus_error *);
static void (*p_bus_add_match)(DBusConnection *, const char *, hap_dbus_error *);
static hap_dbus_bool (*p_get_unix_fd)(DBusConnection *, int *);
static hap_dbus_bool (*p_read_write)(DBusConnection *, int);
static DBusMessage *(*p_pop_message)(DBusConnection *);
static hap_dbus_bool (*p_send)(DBusConnection *, DBusMessage *, uint32_t *);
static void (*p_flush)(DBusConnection *);
static void (*p_close)(DBusConnection *);
static void (*p_connection_unref)(DBusConnection *);
static int (*p_message_get_type)(DBusMessage *);
static const char *(*p_get_interface)(DBusMessage *);
static const char *(*p_get_member)(DBusMessage *);
static const char *(*p_get_path)(DBusMessage *);
static const char *(*p_get_sender)(DBusMessage *);
static const char *(*p_get_signature)(DBusMessage *);
static DBusMessage *(*p_new_method_return)(DBusMessage *);
static DBusMessage *(*p_new_error)(DBusMessage *, const char *, const char *);
static DBusMessage *(*p_new_signal)(const char *, const char *, const char *);
static void (*p_message_unref)(DBusMessage *);
static hap_dbus_bool (*p_iter_init)(DBusMessage *, hap_dbus_iter *);
static void (*p_iter_init_append)(DBusMessage *, hap_dbus_iter *);
static int (*p_iter_get_arg_type)(hap_dbus_iter *);
static void (*p_iter_get_basic)(hap_dbus_iter *, void *);
static hap_dbus_bool (*p_iter_next)(hap_dbus_iter *);
static void (*p_iter_recurse)(hap_dbus_iter *, hap_dbus_iter *);
static hap_dbus_bool (*p_iter_append_basic)(hap_dbus_iter *, int, const void *);
static hap_dbus_bool (*p_iter_open_container)(hap_dbus_iter *, int, const char *, hap_dbus_iter *);
static hap_dbus_bool (*p_iter_close_container)(hap_dbus_iter *, hap_dbus_iter *);

// Optional: only the fuzzer's reading of a message's wire form needs it (a library without it
// still serves; hap_dbus_demarshal then returns NULL).
static DBusMessage *(*p_demarshal)(const char *, int, hap_dbus_error *);

static const hap_library_symbol symbols[] = {
    {"dbus_error_init", (void **)&p_error_init, 0},
    {"dbus_error_free", (void **)&p_error_free, 0},
    {"dbus_error_is_set", (void **)&p_error_is_set, 0},
    {"dbus_bus_get_private", (void **)&p_bus_get_private, 0},
    {"dbus_connection_open_private", (void **)&p_connection_open_private, 0},
    {"dbus_bus_register", (void **)&p_bus_register, 0},
    {"dbus_connection_set_exit_on_disconnect", (void **)&p_set_exit_on_disconnect, 0},
    {"dbus_bus_request_name", (void **)&p_bus_request_name, 0},
    {"dbus_bus_add_match", (void **)&p_bus_add_match, 0},
    {"dbus_connection_get_unix_fd", (void **)&p_get_unix_fd, 0},
    {"dbus_connection_read_write", (void **)&p_read_write, 0},
    {"dbus_connection_pop_message", (void **)&p_pop_message, 0},
    {"dbus_connection_send", (void **)&p_send, 0},
    {"dbus_connection_flush", (void **)&p_flush, 0},
    {"dbus_connection_close", (void **)&p_close, 0},
    {"dbus_connection_unref", (void **)&p_connection_unref, 0},
    {"dbus_message_get_type", (void **)&p_message_get_type, 0},
    {"dbus_message_get_interface", (void **)&p_get_interface, 0},
    {"dbus_message_get_member", (void **)&p_get_member, 0},
    {"dbus_message_get_path", (void **)&p_get_path, 0},
    {"dbus_message_get_sender", (void **)&p_get_sender, 0},
    {"dbus_message_get_signature", (void **)&p_get_signature, 0},
    {"dbus_message_new_method_return", (void **)&p_new_method_return, 0},
    {"dbus_message_new_error", (void **)&p_new_error, 0},
    {"dbus_message_new_signal", (void **)&p_new_signal, 0},
    {"dbus_message_unref", (void **)&p_message_unref, 0},
    {"dbus_message_iter_init", (void **)&p_iter_init, 0},
    {"dbus_message_iter_init_append", (void **)&p_iter_init_append, 0},
    {"dbus_message_iter_get_arg_type", (void **)&p_iter_get_arg_type, 0},
    {"dbus_message_iter_get_basic", (void **)&p_iter_get_basic, 0},
    {"dbus_message_iter_next", (void **)&p_iter_next, 0},
    {"dbus_message_iter_recurse", (void **)&p_iter_recurse, 0},
    {"dbus_message_iter_append_basic", (void **)&p_iter_append_basic, 0},
    {"dbus_message_iter_open_container", (void **)&p_iter_open_container, 0},
    {"dbus_message_iter_close_container", (void **)&p_iter_close_container, 0},
    {"dbus_message_demarshal", (void **)&p_demarshal, 1},
};
static hap_library dbus = HAP_LIBRARY_INITIALIZER;

int hap_dbus_load(const char *library, char *message, size_t size) {
  return hap_library_load(&dbus, library, symbols, HAP_LIBRARY_COUNT(symbols), NULL, NULL, message, size);
}

/// Copies a set error's message into `message` and frees it.
static void take_error(hap_dbus_error *error, char *message, size_t size) {
  snprintf(message, size, "%s", error->message ? error->message : (error->name ? error->name : "unknown error"));
  p_error_free(error);
}

// The session bus libdbus finds ($DBUS_SESSION_BUS_ADDRESS, else its default), or the bus at
// `address` opened and registered as dbus_bus_get does with the address it reads.
static DBusConnection *open_bus(const char *address, hap_dbus_error *error) {
  if (address == NULL) return p_bus_get_private(BUS_SESSION, error);
  DBusConnection *connection = p_connection_open_private(address, error);
  if (connection == NULL) return NULL;
  if (!p_bus_register(connection, error)) {
    p_close(connection);
    p_connection_unref(connection);
    return NULL;
  }
  return connection;
}

void *hap_dbus_connect_session(const char *address, char *message, size_t size) {
  hap_dbus_error error;
  p_error_init(&error);
  DBusConnection *connection = open_bus(address, &error);
  if (!connection) {
    if (p_error_is_set(&error)) take_error(&error, message, size);
    else snprintf(message, size, "no connection");
    return NULL;
  }
  p_set_exit_on_disconnect(connection, 0);
  return connection;
}

int hap_dbus_request_name(void *connection, const char *name, char *message, size_t size) {
  hap_dbus_error error;
  p_error_init(&error);
  int answer = p_bus_request_name(connection, name, NAME_FLAG_DO_NOT_QUEUE, &error);
  if (p_error_is_set(&error)) {
    take_error(&error, message, size);
    return -1;
  }
  return answer;
}

int hap_dbus_add_match(void *connection, const char *rule, char *message, size_t size) {
  hap_dbus_error error;
  p_error_init(&error);
  p_bus_add_match(connection, rule, &error);
  if (p_error_is_set(&error)) {
    take_error(&error, message, size);
    return -1;
  }
  return 0;
}

int hap_dbus_fd(void *connection) {
  int fd = -1;
  return p_get_unix_fd(connection, &fd) ? fd : -1;
}

int hap_dbus_read(void *connection) { return p_read_write(connection, 0) ? 1 : 0; }
void *hap_dbus_pop(void *connection) { return p_pop_message(connection); }
void hap_dbus_unref(void *message) { p_message_unref(message); }
void hap_dbus_flush(void *connection) { p_flush(connection); }

void hap_dbus_close(void *connection) {
  p_close(connection);
  p_connection_unref(connection);
}

void *hap_dbus_demarshal(const uint8_t *bytes, size_t count) {
  if (!hap_library_is_loaded(&dbus) || !p_demarshal || count > 0x7fffffff) return NULL;
  hap_dbus_error error;
  p_error_init(&error);
  DBusMessage *message = p_demarshal((const char *)bytes, (int)count, &error);
  if (p_error_is_set(&error)) p_error_free(&error);
  return message;
}

int hap_dbus_kind(void *message) { return p_message_get_type(message); }

static const char *or_empty(const char *text) { return text ? text : ""; }
const char *hap_dbus_interface(void *message) { return or_empty(p_get_interface(message)); }
const char *hap_dbus_member(void *message) { return or_empty(p_get_member(message)); }
const char *hap_dbus_path(void *message) { return or_empty(p_get_path(message)); }
const char *hap_dbus_sender(void *message) { return or_empty(p_get_sender(message)); }
const char *hap_dbus_signature(void *message) { return or_empty(p_get_signature(message)); }

int hap_dbus_read_strings(void *message, const char **strings, int count) {
  hap_dbus_iter iter;
  if (!p_iter_init(message, &iter)) return count == 0 ? 0 : -1;
  for (int k = 0; k < count; k++) {
    if (p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
    p_iter_get_basic(&iter, &strings[k]);
    if (k + 1 < count && !p_iter_next(&iter)) return -1;
  }
  return 0;
}

int hap_dbus_read_u32(void *message, uint32_t *value) {
  hap_dbus_iter iter;
  if (!p_iter_init(message, &iter) || p_iter_get_arg_type(&iter) != TYPE_UINT32) return -1;
  p_iter_get_basic(&iter, value);
  return 0;
}

/// One hint of a{sv}: the key and the variant's value, when hap reads that key.
static void read_hint(hap_dbus_iter *entry, hap_dbus_trigger *trigger) {
  const char *key = NULL;
  if (p_iter_get_arg_type(entry) != TYPE_STRING) return;
  p_iter_get_basic(entry, &key);
  if (!p_iter_next(entry) || p_iter_get_arg_type(entry) != TYPE_VARIANT) return;
  hap_dbus_iter value;
  p_iter_recurse(entry, &value);
  int type = p_iter_get_arg_type(&value);
  if (strcmp(key, "profile") == 0 || strcmp(key, "sound-file") == 0) {
    if (type != TYPE_STRING) {
      trigger->bad_hint = key;
      return;
    }
    p_iter_get_basic(&value, key[0] == 'p' ? &trigger->profile : &trigger->sound_file);
  } else if (strcmp(key, "important") == 0) {
    if (type != TYPE_BOOLEAN) {
      trigger->bad_hint = key;
      return;
    }
    hap_dbus_bool important = 0;
    p_iter_get_basic(&value, &important);
    trigger->important = important ? 1 : 0;
  }
}

int hap_dbus_read_trigger(void *message, hap_dbus_trigger *trigger) {
  memset(trigger, 0, sizeof *trigger);
  hap_dbus_iter iter;
  if (!p_iter_init(message, &iter) || p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
  p_iter_get_basic(&iter, &trigger->app_id);
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
  p_iter_get_basic(&iter, &trigger->event);
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_ARRAY) return -1;
  hap_dbus_iter hints;
  p_iter_recurse(&iter, &hints);
  while (p_iter_get_arg_type(&hints) == TYPE_DICT_ENTRY) {
    hap_dbus_iter entry;
    p_iter_recurse(&hints, &entry);
    read_hint(&entry, trigger);
    if (!p_iter_next(&hints)) break;
  }
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_INT32) return -1;
  p_iter_get_basic(&iter, &trigger->timeout);
  return 0;
}

int hap_dbus_read_vibrate(
  void *message, const char **app_id, double *amplitudes, uint32_t *durations, int capacity, int *count) {
  *count = 0;
  hap_dbus_iter iter;
  if (!p_iter_init(message, &iter) || p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
  p_iter_get_basic(&iter, app_id);
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_ARRAY) return -1;
  hap_dbus_iter pairs;
  p_iter_recurse(&iter, &pairs);
  // The first `capacity` pairs alone (feedbackd plays the first 10): the rest are not walked.
  while (*count < capacity && p_iter_get_arg_type(&pairs) == TYPE_STRUCT) {
    hap_dbus_iter pair;
    p_iter_recurse(&pairs, &pair);
    double amplitude = 0;
    uint32_t duration = 0;
    if (p_iter_get_arg_type(&pair) != TYPE_DOUBLE) return -1;
    p_iter_get_basic(&pair, &amplitude);
    if (!p_iter_next(&pair) || p_iter_get_arg_type(&pair) != TYPE_UINT32) return -1;
    p_iter_get_basic(&pair, &duration);
    amplitudes[*count] = amplitude;
    durations[*count] = duration;
    *count += 1;
    if (!p_iter_next(&pairs)) break;
  }
  return 0;
}

int hap_dbus_read_set(void *message, const char **interface, const char **property, char *type, const char **value) {
  hap_dbus_iter iter;
  *value = NULL;
  if (!p_iter_init(message, &iter) || p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
  p_iter_get_basic(&iter, interface);
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
  p_iter_get_basic(&iter, property);
  if (!p_iter_next(&iter) || p_iter_get_arg_type(&iter) != TYPE_VARIANT) return -1;
  hap_dbus_iter variant;
  p_iter_recurse(&iter, &variant);
  *type = (char)p_iter_get_arg_type(&variant);
  if (*type == TYPE_STRING) p_iter_get_basic(&variant, value);
  return 0;
}

/// Sends `message` (and releases it); 0, or -1 when out of memory.
static int send_and_release(void *connection, DBusMessage *message) {
  if (!message) return -1;
  int result = p_send(connection, message, NULL) ? 0 : -1;
  p_message_unref(message);
  return result;
}

int hap_dbus_reply(void *connection, void *call, char type, uint32_t number, const char *text) {
  DBusMessage *reply = p_new_method_return(call);
  if (!reply) return -1;
  hap_dbus_iter iter;
  p_iter_init_append(reply, &iter);
  hap_dbus_bool flag = number ? 1 : 0;
  int ok = 1;
  if (type == TYPE_UINT32) ok = p_iter_append_basic(&iter, TYPE_UINT32, &number);
  else if (type == TYPE_BOOLEAN) ok = p_iter_append_basic(&iter, TYPE_BOOLEAN, &flag);
  else if (type == TYPE_STRING) ok = p_iter_append_basic(&iter, TYPE_STRING, &text);
  if (!ok) {
    p_message_unref(reply);
    return -1;
  }
  return send_and_release(connection, reply);
}

/// Appends a variant holding the string `text`.
static int append_variant(hap_dbus_iter *iter, const char *text) {
  hap_dbus_iter variant;
  if (!p_iter_open_container(iter, TYPE_VARIANT, "s", &variant)) return 0;
  if (!p_iter_append_basic(&variant, TYPE_STRING, &text)) return 0;
  return p_iter_close_container(iter, &variant);
}

/// Appends {key: <text>} as an a{sv}.
static int append_dictionary(hap_dbus_iter *iter, const char *key, const char *text) {
  hap_dbus_iter array, entry;
  if (!p_iter_open_container(iter, TYPE_ARRAY, "{sv}", &array)) return 0;
  if (!p_iter_open_container(&array, TYPE_DICT_ENTRY, NULL, &entry)) return 0;
  if (!p_iter_append_basic(&entry, TYPE_STRING, &key) || !append_variant(&entry, text)) return 0;
  if (!p_iter_close_container(&array, &entry)) return 0;
  return p_iter_close_container(iter, &array);
}

int hap_dbus_reply_variant(void *connection, void *call, const char *text) {
  DBusMessage *reply = p_new_method_return(call);
  if (!reply) return -1;
  hap_dbus_iter iter;
  p_iter_init_append(reply, &iter);
  if (!append_variant(&iter, text)) {
    p_message_unref(reply);
    return -1;
  }
  return send_and_release(connection, reply);
}

int hap_dbus_reply_dictionary(void *connection, void *call, const char *key, const char *text) {
  DBusMessage *reply = p_new_method_return(call);
  if (!reply) return -1;
  hap_dbus_iter iter;
  p_iter_init_append(reply, &iter);
  if (!append_dictionary(&iter, key, text)) {
    p_message_unref(reply);
    return -1;
  }
  return send_and_release(connection, reply);
}

int hap_dbus_reply_error(void *connection, void *call, const char *name, const char *text) {
  return send_and_release(connection, p_new_error(call, name, text));
}

int hap_dbus_signal_two_u32(
  void *connection, const char *path, const char *interface, const char *member, uint32_t first, uint32_t second) {
  DBusMessage *signal = p_new_signal(path, interface, member);
  if (!signal) return -1;
  hap_dbus_iter iter;
  p_iter_init_append(signal, &iter);
  if (!p_iter_append_basic(&iter, TYPE_UINT32, &first) || !p_iter_append_basic(&iter, TYPE_UINT32, &second)) {
    p_message_unref(signal);
    return -1;
  }
  return send_and_release(connection, signal);
}

int hap_dbus_signal_property(
  void *connection, const char *path, const char *interface, const char *key, const char *text) {
  DBusMessage *signal = p_new_signal(path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
  if (!signal) return -1;
  hap_dbus_iter iter, invalidated;
  p_iter_init_append(signal, &iter);
  int ok = p_iter_append_basic(&iter, TYPE_STRING, &interface) && append_dictionary(&iter, key, text)
    && p_iter_open_container(&iter, TYPE_ARRAY, "s", &invalidated) && p_iter_close_container(&iter, &invalidated);
  if (!ok) {
    p_message_unref(signal);
    return -1;
  }
  return send_and_release(connection, signal);
}
