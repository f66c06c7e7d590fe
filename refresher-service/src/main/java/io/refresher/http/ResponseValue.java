package io.refresher.http;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import io.refresher.source.SourceException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * What an accepted response's body becomes as the stored value.
 *
 * <ul>
 *   <li>Without a pointer, the body as-is, as text: decoded with the charset its {@code
 *       Content-Type} names, UTF-8 when it names none, and stored (like every value) as UTF-8.
 *       Bytes that are not valid text in that charset fail the refresh ({@code ERROR}) rather than
 *       being stored with replacement characters: a value is served exactly or not at all.
 *   <li>With a JSON Pointer ({@code /data/items/0}), the body is read as JSON (UTF-8, -16 or -32 as
 *       RFC 8259 allows, whatever the {@code Content-Type} says) and the value is the node at the
 *       pointer: a string as its text, anything else as compact JSON, numbers exactly as sent ({@code
 *       1.10} stays {@code 1.10}). A pointer that matches nothing, or JSON {@code null}, is {@code
 *       NO_VALUE}; a body that is not one JSON document is {@code ERROR}, and so is one with a
 *       key twice in an object (which of the two would the pointer pick?).
 * </ul>
 */
final class ResponseValue {

  private final ObjectMapper json;
  private final ObjectReader reader;
  private final JsonPointer pointer;

  /** @param pointer the JSON Pointer; null or empty for the body as-is */
  ResponseValue(ObjectMapper json, String pointer) {
    this.json = json;
    this.reader =
        json.reader()
            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);
    this.pointer = pointer == null || pointer.isEmpty() ? null : JsonPointer.compile(pointer);
  }

  /**
   * @param charset the {@code charset} parameter of the response's {@code Content-Type}; null when none
   * @param label names the source and request, for messages
   */
  String of(byte[] body, String charset, String label) throws SourceException {
    if (pointer == null) {
      return text(body, charset, label);
    }
    JsonNode root;
    try {
      root = reader.readTree(body);
    } catch (JsonProcessingException e) {
      // The parser's message quotes the body ("Unrecognized token 'ann'"): the log's only.
      throw new SourceException(
          SourceException.Kind.ERROR, label + " answered a body that is not JSON (its pointer needs JSON)", e.getOriginalMessage(), e, null);
    } catch (IOException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, label + " answered a body that could not be read as JSON", e.getMessage(), e, null);
    }
    if (root == null || root.isMissingNode()) {
      throw new SourceException(SourceException.Kind.ERROR, label + " answered an empty body (its pointer needs JSON)");
    }
    JsonNode node = root.at(pointer);
    if (node.isMissingNode()) {
      throw new SourceException(SourceException.Kind.NO_VALUE, label + ": JSON Pointer " + pointer + " matches nothing in the response");
    }
    if (node.isNull()) {
      throw new SourceException(SourceException.Kind.NO_VALUE, label + ": JSON Pointer " + pointer + " matches null");
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    try {
      return json.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, label + ": the JSON at " + pointer + " could not be written", e.getOriginalMessage(), e, null);
    }
  }

  private static String text(byte[] body, String charsetName, String label) throws SourceException {
    Charset charset;
    try {
      charset = charsetName == null ? StandardCharsets.UTF_8 : Charset.forName(charsetName);
    } catch (IllegalArgumentException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, label + " answered in charset '" + charsetName + "', which this service does not know");
    }
    try {
      return charset
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(body))
          .toString();
    } catch (CharacterCodingException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, label + " answered a body that is not valid " + charset.name() + " text", e);
    }
  }
}
