package io.refresher.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceException;

/** Computes values of HTTP sources. STUB: to be built. */
public final class HttpValueLoader implements ValueLoader {

  public HttpValueLoader(SourceCatalog catalog, HttpEndpoints endpoints, ObjectMapper json, long maxValueBytes) {}

  @Override
  public String load(Registration registration) throws SourceException {
    throw new SourceException(SourceException.Kind.ERROR, "HTTP sources are not built yet");
  }
}
