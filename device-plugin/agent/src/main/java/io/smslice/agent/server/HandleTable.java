package io.smslice.agent.server;

import io.smslice.protocol.Status;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * One session's objects of one kind. Handles are looked up only in the owning session's table, so
 * another session's handle (or a made-up one) is simply not found.
 */
final class HandleTable<T> {
  private final String kind;
  private final Map<Long, T> entries = new HashMap<>();
  private long next = 1;

  HandleTable(String kind) {
    this.kind = kind;
  }

  long add(T entry) {
    long handle = next++;
    entries.put(handle, entry);
    return handle;
  }

  T get(long handle) throws ProtocolException {
    T entry = entries.get(handle);
    if (entry == null) {
      throw new ProtocolException(
          Status.NOT_FOUND, "no " + kind + " " + handle + " in this session");
    }
    return entry;
  }

  T remove(long handle) throws ProtocolException {
    T entry = get(handle);
    entries.remove(handle);
    return entry;
  }

  Collection<T> values() {
    return entries.values();
  }

  Map<Long, T> entries() {
    return entries;
  }

  void clear() {
    entries.clear();
  }
}
