package io.blackboard.platform.web;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An example for every request body and success answer that has none written by hand, built
 * from its schema: the examples its properties give, else their defaults, first allowed values
 * or least values, so that it is valid against the schema it illustrates.
 */
final class ApiExamples {

    private static final int DEPTH = 8;

    private ApiExamples() {
    }

    static void fill(OpenAPI openApi) {
        Map<String, Schema> components = openApi.getComponents().getSchemas();
        openApi.getPaths().values().forEach(item -> item.readOperations().forEach(operation -> {
            if (operation.getRequestBody() != null) {
                fill(operation.getRequestBody().getContent(), components);
            }
            operation.getResponses().forEach((code, response) -> {
                if (code.startsWith("2")) {
                    fill(response.getContent(), components);
                }
            });
        }));
    }

    private static void fill(Content content, Map<String, Schema> components) {
        if (content == null) {
            return;
        }
        for (MediaType media : content.values()) {
            boolean given = media.getExample() != null || (media.getExamples() != null && !media.getExamples().isEmpty());
            if (!given && media.getSchema() != null) {
                media.setExample(sample(media.getSchema(), components, 0));
            }
        }
    }

    private static Object sample(Schema<?> schema, Map<String, Schema> components, int depth) {
        if (schema.get$ref() != null) {
            Schema<?> target = components.get(schema.get$ref().substring(schema.get$ref().lastIndexOf('/') + 1));
            return target == null || depth > DEPTH ? Map.of() : sample(target, components, depth + 1);
        }
        if (schema.getExample() != null) {
            return schema.getExample();
        }
        if (schema.getDefault() != null) {
            return schema.getDefault();
        }
        if (schema.getEnum() != null && !schema.getEnum().isEmpty()) {
            return schema.getEnum().getFirst();
        }
        if (schema.getOneOf() != null && !schema.getOneOf().isEmpty()) {
            return sample(schema.getOneOf().getFirst(), components, depth + 1);
        }
        if (schema.getAnyOf() != null && !schema.getAnyOf().isEmpty()) {
            return sample(schema.getAnyOf().getFirst(), components, depth + 1);
        }
        return switch (type(schema)) {
            case "object" -> object(schema, components, depth);
            case "array" -> schema.getItems() == null || depth > DEPTH ? List.of()
                    : List.of(sample(schema.getItems(), components, depth + 1));
            case "string" -> string(schema);
            case "integer" -> schema.getMinimum() != null ? schema.getMinimum().toBigInteger()
                    : schema.getMaximum() != null && schema.getMaximum().signum() < 1 ? schema.getMaximum().toBigInteger() : 1;
            case "number" -> schema.getMinimum() != null ? schema.getMinimum() : 1.0;
            case "boolean" -> false;
            default -> Map.of(); // any JSON
        };
    }

    private static Map<String, Object> object(Schema<?> schema, Map<String, Schema> components, int depth) {
        Map<String, Object> object = new LinkedHashMap<>();
        if (schema.getProperties() != null && depth <= DEPTH) {
            schema.getProperties().forEach((name, property) -> object.put(name, sample(property, components, depth + 1)));
        }
        if (schema.getAllOf() != null) {
            schema.getAllOf().forEach(part -> {
                if (sample(part, components, depth + 1) instanceof Map<?, ?> map) {
                    map.forEach((key, value) -> object.put(key.toString(), value));
                }
            });
        }
        return object;
    }

    private static String type(Schema<?> schema) {
        if (schema.getType() != null) {
            return schema.getType();
        }
        Set<String> types = schema.getTypes();
        if (types != null) {
            return types.stream().filter(type -> !"null".equals(type)).findFirst().orElse("null");
        }
        return schema.getProperties() != null || schema.getAllOf() != null ? "object" : "any";
    }

    private static String string(Schema<?> schema) {
        String format = schema.getFormat() == null ? "" : schema.getFormat();
        return switch (format) {
            case "uuid" -> "01a20125-34eb-7000-8a3e-3c1f5e0b9d21";
            case "date-time" -> "2026-11-26T09:30:00Z";
            case "date" -> "2026-11-26";
            case "uri", "uri-reference" -> "/problems/invalid-request";
            default -> schema.getMinLength() != null && schema.getMinLength() > 6
                    ? "x".repeat(schema.getMinLength()) : "string";
        };
    }
}
