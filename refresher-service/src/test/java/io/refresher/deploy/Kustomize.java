package io.refresher.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders a kustomization directory the way {@code kubectl kustomize} does, for the subset of
 * kustomize that deploy/ uses: {@code resources} (files and directories), {@code components},
 * {@code replicas}, {@code images} and strategic-merge {@code patches}. Anything else in a
 * kustomization (a generator, a JSON patch, a namespace...) fails the rendering instead of being
 * ignored, so the tests never check something other than what kubectl would apply; extend this
 * class when the manifests start using it. {@code RenderedManifestsTest} compares the result with
 * {@code kubectl kustomize} where kubectl is installed.
 */
final class Kustomize {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> SUPPORTED =
      Set.of("apiVersion", "kind", "resources", "components", "replicas", "images", "patches");

  /**
   * Merge keys of the lists the strategic merge patch merges element by element (from the
   * Kubernetes API's patchMergeKey); every other list is replaced by the patch's.
   */
  private static final Map<String, List<String>> MERGE_KEYS =
      Map.of(
          "containers", List.of("name"),
          "initContainers", List.of("name"),
          "env", List.of("name"),
          "volumes", List.of("name"),
          "volumeMounts", List.of("mountPath"),
          "ports", List.of("containerPort", "port"),
          "imagePullSecrets", List.of("name"),
          "topologySpreadConstraints", List.of("topologyKey", "whenUnsatisfiable"));

  private Kustomize() {}

  /** The resources of the kustomization in {@code dir}, transformed. */
  static List<ObjectNode> build(Path dir) throws IOException {
    return build(dir, "Kustomization");
  }

  private static List<ObjectNode> build(Path dir, String expectedKind) throws IOException {
    ObjectNode kustomization = (ObjectNode) YAML.readTree(dir.resolve("kustomization.yaml").toFile());
    String kind = kustomization.path("kind").asText("Kustomization");
    require(kind.equals(expectedKind), dir + ": kind " + kind + ", expected " + expectedKind);
    kustomization.fieldNames().forEachRemaining(
        field -> require(SUPPORTED.contains(field), dir + ": kustomization field '" + field + "' is not supported by this renderer"));

    List<ObjectNode> resources = new ArrayList<>();
    for (JsonNode entry : kustomization.path("resources")) {
      Path path = dir.resolve(entry.asText()).normalize();
      if (Files.isDirectory(path)) {
        resources.addAll(build(path, "Kustomization"));
      } else {
        resources.addAll(readDocuments(path));
      }
    }
    return transform(dir, kustomization, resources);
  }

  private static List<ObjectNode> transform(Path dir, ObjectNode kustomization, List<ObjectNode> resources)
      throws IOException {
    for (JsonNode entry : kustomization.path("components")) {
      Path componentDir = dir.resolve(entry.asText()).normalize();
      ObjectNode component = (ObjectNode) YAML.readTree(componentDir.resolve("kustomization.yaml").toFile());
      require("Component".equals(component.path("kind").asText()), componentDir + " is not a Component");
      component.fieldNames().forEachRemaining(
          field -> require(SUPPORTED.contains(field), componentDir + ": field '" + field + "' is not supported by this renderer"));
      for (JsonNode resource : component.path("resources")) {
        resources.addAll(readDocuments(componentDir.resolve(resource.asText()).normalize()));
      }
      resources = transform(componentDir, withoutComponents(component), resources);
    }
    for (JsonNode patch : kustomization.path("patches")) {
      applyPatch(dir, patch, resources);
    }
    for (JsonNode replica : kustomization.path("replicas")) {
      String name = replica.path("name").asText();
      List<ObjectNode> targets = resources.stream()
          .filter(r -> Set.of("Deployment", "StatefulSet", "ReplicaSet").contains(r.path("kind").asText()))
          .filter(r -> name.equals(r.path("metadata").path("name").asText()))
          .toList();
      require(!targets.isEmpty(), dir + ": replicas names " + name + ", which is not among the resources");
      targets.forEach(r -> ((ObjectNode) r.path("spec")).put("replicas", replica.path("count").asInt()));
    }
    for (JsonNode image : kustomization.path("images")) {
      resources.forEach(resource -> setImages(resource, image));
    }
    return resources;
  }

  private static ObjectNode withoutComponents(ObjectNode component) {
    ObjectNode copy = component.deepCopy();
    copy.remove("components");
    copy.remove("resources");
    return copy;
  }

  private static List<ObjectNode> readDocuments(Path file) throws IOException {
    List<ObjectNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNext()) {
        JsonNode document = it.next();
        if (document != null && !document.isNull() && !document.isMissingNode()) {
          documents.add((ObjectNode) document);
        }
      }
    }
    return documents;
  }

  private static void applyPatch(Path dir, JsonNode entry, List<ObjectNode> resources) throws IOException {
    String text = entry.has("path") ? Files.readString(dir.resolve(entry.path("path").asText())) : entry.path("patch").asText();
    JsonNode patch = YAML.readTree(text);
    require(patch.isObject(), dir + ": only strategic merge patches are supported (a JSON patch is a list)");
    JsonNode target = entry.path("target");
    String kind = target.path("kind").asText(patch.path("kind").asText());
    String name = target.path("name").asText(patch.path("metadata").path("name").asText());
    List<ObjectNode> matched = resources.stream()
        .filter(r -> kind.equals(r.path("kind").asText()) && name.equals(r.path("metadata").path("name").asText()))
        .toList();
    require(!matched.isEmpty(), dir + ": a patch targets " + kind + "/" + name + ", which is not among the resources");
    for (ObjectNode resource : matched) {
      ObjectNode body = (ObjectNode) patch.deepCopy();
      // The patch's own identity fields never rename the target.
      body.remove("apiVersion");
      body.remove("kind");
      if (body.path("metadata").isObject()) {
        ((ObjectNode) body.path("metadata")).remove("name");
      }
      mergeObject(resource, body);
    }
  }

  private static void mergeObject(ObjectNode target, ObjectNode patch) {
    Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = field.getKey();
      JsonNode value = field.getValue();
      require(!key.startsWith("$"), "patch directive " + key + " is not supported by this renderer");
      JsonNode existing = target.get(key);
      if (value.isNull()) {
        target.remove(key);
      } else if (value.isObject() && existing != null && existing.isObject()) {
        mergeObject((ObjectNode) existing, (ObjectNode) value);
      } else if (value.isArray() && existing != null && existing.isArray()) {
        target.set(key, mergeList(key, (ArrayNode) existing, (ArrayNode) value));
      } else {
        target.set(key, stripReplaceDirective(value.deepCopy()));
      }
    }
  }

  /**
   * Elements of a list with a merge key merge with the element of the same key; new elements go
   * first, as kustomize puts them. A {@code {$patch: replace}} element makes the patch's list
   * replace the original.
   */
  private static ArrayNode mergeList(String field, ArrayNode original, ArrayNode patch) {
    List<JsonNode> items = new ArrayList<>();
    patch.forEach(items::add);
    boolean replace = items.removeIf(item -> item.isObject() && item.size() == 1 && "replace".equals(item.path("$patch").asText()));
    ArrayNode result = original.arrayNode();
    if (replace) {
      items.forEach(item -> result.add(item.deepCopy()));
      return result;
    }
    List<String> keys = MERGE_KEYS.get(field);
    if (keys == null || !items.stream().allMatch(JsonNode::isObject)) {
      items.forEach(item -> result.add(item.deepCopy()));
      return result;
    }
    ArrayNode merged = original.deepCopy();
    for (JsonNode item : items) {
      ObjectNode match = null;
      for (JsonNode candidate : merged) {
        if (sameKey(candidate, item, keys)) {
          match = (ObjectNode) candidate;
          break;
        }
      }
      if (match != null) {
        mergeObject(match, (ObjectNode) item);
      } else {
        result.add(item.deepCopy());
      }
    }
    merged.forEach(result::add);
    return result;
  }

  private static boolean sameKey(JsonNode a, JsonNode b, List<String> keys) {
    boolean any = false;
    for (String key : keys) {
      if (a.has(key) || b.has(key)) {
        any = true;
        if (!a.path(key).equals(b.path(key))) {
          return false;
        }
      }
    }
    return any;
  }

  private static JsonNode stripReplaceDirective(JsonNode value) {
    if (value.isArray()) {
      ArrayNode array = (ArrayNode) value;
      for (int i = array.size() - 1; i >= 0; i--) {
        if ("replace".equals(array.get(i).path("$patch").asText())) {
          array.remove(i);
        }
      }
    }
    return value;
  }

  /** kustomize's image transformer: by image name, in every container of a pod template. */
  private static void setImages(ObjectNode resource, JsonNode image) {
    JsonNode podSpec = resource.path("spec").path("template").path("spec");
    for (String list : List.of("containers", "initContainers")) {
      for (JsonNode container : podSpec.path(list)) {
        String current = container.path("image").asText();
        if (!imageName(current).equals(image.path("name").asText())) {
          continue;
        }
        String name = image.has("newName") ? image.path("newName").asText() : imageName(current);
        String reference;
        if (image.has("digest")) {
          reference = name + "@" + image.path("digest").asText();
        } else if (image.has("newTag")) {
          reference = name + ":" + image.path("newTag").asText();
        } else {
          reference = name + current.substring(imageName(current).length());
        }
        ((ObjectNode) container).put("image", reference);
      }
    }
  }

  /** The image reference without its tag or digest. */
  static String imageName(String reference) {
    String withoutDigest = reference.contains("@") ? reference.substring(0, reference.indexOf('@')) : reference;
    int slash = withoutDigest.lastIndexOf('/');
    int colon = withoutDigest.lastIndexOf(':');
    return colon > slash ? withoutDigest.substring(0, colon) : withoutDigest;
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalStateException(message);
    }
  }
}
