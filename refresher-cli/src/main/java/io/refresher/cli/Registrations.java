package io.refresher.cli;

import io.refresher.client.admin.KeySpec;
import io.refresher.client.admin.TemplateSpec;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** What a registrations file says the registry holds: templates by name, keys by key. */
record Registrations(SortedMap<String, TemplateSpec> templates, SortedMap<String, KeySpec> keys) {

  Registrations {
    templates = new TreeMap<>(templates);
    keys = new TreeMap<>(keys);
  }

  static Registrations of(Map<String, TemplateSpec> templates, Map<String, KeySpec> keys) {
    return new Registrations(new TreeMap<>(templates), new TreeMap<>(keys));
  }
}
