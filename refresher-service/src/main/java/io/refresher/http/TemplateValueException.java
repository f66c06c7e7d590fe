package io.refresher.http;

/**
 * A parameter's value cannot go where its placeholder stands (a line break into a header, an empty
 * path segment). The message names the parameter and the place, never the value: a refusal is
 * shown in the key's status and logs.
 */
final class TemplateValueException extends Exception {

  private static final long serialVersionUID = 1L;

  TemplateValueException(String message) {
    super(message);
  }
}
