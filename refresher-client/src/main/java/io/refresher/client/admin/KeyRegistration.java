package io.refresher.client.admin;

/** A registered key, as the service lists it. */
public record KeyRegistration(String key, KeySpec spec) {}
