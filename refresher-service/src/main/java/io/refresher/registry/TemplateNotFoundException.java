package io.refresher.registry;

/** No template has the name. */
public class TemplateNotFoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String name;

  public TemplateNotFoundException(String name) {
    super("template '" + name + "' does not exist");
    this.name = name;
  }

  public String name() {
    return name;
  }
}
