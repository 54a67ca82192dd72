package io.smslice.node.dra.kubelet;

/** A DRA device's health as the kubelet hears it. */
public record DeviceCondition(String pool, String device, boolean healthy, String message) {}
