package io.smslice.gpu;

/** One group of a GPU's SM split. */
public record SplitGroup(int id, int sms) {}
