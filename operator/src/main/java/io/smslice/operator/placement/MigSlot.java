package io.smslice.operator.placement;

/** A MIG instance the administrator created; a Memory claim takes a whole one. */
public record MigSlot(String profile, String uuid, int sms, long memoryBytes) {}
