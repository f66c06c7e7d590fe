package io.refresher.spring.cache;

import java.lang.reflect.Type;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Values as JSON text, the form the service's sources produce too (a SQL source's row as a JSON
 * object, an HTTP source's body): written with the application's {@link JsonMapper}, read back
 * into the type the cached method returns.
 */
public final class JsonValues {

  private final JsonMapper mapper;

  public JsonValues(JsonMapper mapper) {
    this.mapper = mapper;
  }

  public String write(Object value) {
    return mapper.writeValueAsString(value);
  }

  public Object read(String json, JavaType type) {
    return mapper.readValue(json, type);
  }

  public JavaType type(Type type) {
    return mapper.constructType(type);
  }
}
