package io.blackboard.platform.web;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI document as {@link ContractTest} reads it: its operations, their parameters and
 * bodies, the answers each documents, and a check of a body against a documented schema. Nothing
 * about an operation is known here but what the document says.
 */
final class OpenApiContract {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    /** One operation: a path and a method, with its node of the document. */
    record Operation(String method, String path, JsonNode node) {

        String name() {
            return method + " " + path;
        }

        List<JsonNode> parameters(String in) {
            List<JsonNode> found = new ArrayList<>();
            node.path("parameters").forEach(p -> {
                if (p.path("in").asString().equals(in)) {
                    found.add(p);
                }
            });
            return found;
        }

        /** The media types the document accepts a body in; empty when it describes no body. */
        Set<String> requestMediaTypes() {
            Set<String> types = new LinkedHashSet<>();
            node.at("/requestBody/content").propertyNames().forEach(types::add);
            return types;
        }

        boolean bodyRequired() {
            return node.at("/requestBody/required").asBoolean(false);
        }

        JsonNode jsonRequestSchema() {
            return node.at("/requestBody/content").path("application/json").path("schema");
        }

        /** The documented answer for a status: exact, then its class ({@code 4XX}), then {@code default}. */
        JsonNode response(int status) {
            JsonNode responses = node.path("responses");
            for (String key : List.of(String.valueOf(status), status / 100 + "XX", "default")) {
                if (responses.has(key)) {
                    return responses.get(key);
                }
            }
            return null;
        }

        Set<String> documentedStatuses() {
            Set<String> statuses = new LinkedHashSet<>();
            node.path("responses").propertyNames().forEach(statuses::add);
            return statuses;
        }
    }

    private final JsonNode document;
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaLoader(loader -> loader.fetchRemoteResources(false)));
    private final Map<String, Schema> compiled = new HashMap<>();

    OpenApiContract(JsonNode document) {
        this.document = document;
    }

    /** Every operation of the document, in its order. */
    List<Operation> operations() {
        List<Operation> operations = new ArrayList<>();
        document.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            if (METHODS.contains(op.getKey())) {
                operations.add(new Operation(op.getKey().toUpperCase(Locale.ROOT), path.getKey(), op.getValue()));
            }
        }));
        return operations;
    }

    /** Whether the operation needs credentials: its own security requirement, else the document's. */
    boolean secured(Operation operation) {
        JsonNode security = operation.node().has("security") ? operation.node().get("security")
                : document.path("security");
        return security.isArray() && !security.isEmpty();
    }

    /** The schema itself where it is a {@code $ref} into this document, followed to its end. */
    JsonNode resolve(JsonNode schema) {
        for (int hops = 0; schema != null && schema.has("$ref") && hops < 20; hops++) {
            String ref = schema.get("$ref").asString();
            if (!ref.startsWith("#")) {
                return schema;
            }
            schema = document.at(ref.substring(1));
        }
        return schema;
    }

    /** Where and why {@code instance} breaks {@code schema} (a schema of this document); empty when it conforms. */
    List<String> violations(JsonNode schema, JsonNode instance) {
        if (!schema.isObject()) {
            return List.of();
        }
        ObjectNode root = ((ObjectNode) schema).deepCopy();
        // the document's own references (#/components/schemas/X) resolve against the validated root
        root.set("components", document.path("components"));
        Schema compiledSchema = compiled.computeIfAbsent(root.toString(), registry::getSchema);
        return compiledSchema.validate(instance).stream().limit(5)
                .map(error -> error.getInstanceLocation() + ": " + error.getMessage()).toList();
    }
}
