package io.refresher.client.admin;

/** A template, as the service lists it. */
public record TemplateRegistration(String name, TemplateSpec spec) {}
