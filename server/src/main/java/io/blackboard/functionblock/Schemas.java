package io.blackboard.functionblock;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * JSON Schema checks for function-block contracts: schemas are proven valid at registration;
 * params and results are validated against them. Remote references are never fetched.
 * Compiled schemas are cached by their text: a function block's contract never changes.
 */
@Component
public class Schemas {

    private static final int MAX_CACHED = 10_000;
    private static final int MAX_REPORTED = 10;

    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaLoader(loader -> loader.fetchRemoteResources(false)));
    private final Map<String, Schema> compiled = new ConcurrentHashMap<>();

    /** What is wrong with a declared schema; empty when it is a valid JSON Schema. */
    List<String> problemsOf(JsonNode schema) {
        if (schema.isBoolean()) {
            return List.of();
        }
        if (!schema.isObject()) {
            return List.of("must be a JSON Schema (an object or a boolean)");
        }
        String dialect = schema.path("$schema").isString() ? schema.get("$schema").asString()
                : SpecificationVersion.DRAFT_2020_12.getDialectId();
        if (SpecificationVersion.fromDialectId(dialect).isEmpty()) {
            return List.of("$schema '" + dialect + "' is not a JSON Schema dialect this server knows "
                    + "(draft-04, -06, -07, 2019-09, 2020-12)");
        }
        try {
            List<String> problems = describe(registry.getSchema(SchemaLocation.of(dialect)).validate(schema));
            if (problems.isEmpty()) {
                registry.getSchema(schema.toString()).validate(schema); // compiles every keyword once
            }
            return problems;
        } catch (SchemaException | IllegalArgumentException e) {
            return List.of(explain(e));
        }
    }

    /** Where and why {@code instance} breaks {@code schemaJson}; empty when it conforms or there is no schema. */
    public List<String> violations(Optional<String> schemaJson, JsonNode instance) {
        if (schemaJson.isEmpty()) {
            return List.of();
        }
        Schema schema = compiled.get(schemaJson.get());
        if (schema == null) {
            if (compiled.size() >= MAX_CACHED) {
                compiled.clear();
            }
            schema = compiled.computeIfAbsent(schemaJson.get(), registry::getSchema);
        }
        return describe(schema.validate(instance));
    }

    /** A compile failure in the caller's terms, without the library's exception names. */
    private static String explain(RuntimeException e) {
        String message = String.valueOf(e.getMessage()).replaceAll("[\\w.$]+(Exception|Error): ", "");
        if (message.startsWith("http://") || message.startsWith("https://") || e.getCause() instanceof IOException) {
            return "reference " + message + " cannot be resolved: remote schemas are never fetched; "
                    + "put the definitions in the schema itself ($defs)";
        }
        return message;
    }

    private static List<String> describe(List<Error> errors) {
        return errors.stream().limit(MAX_REPORTED)
                .map(error -> error.getInstanceLocation() + ": " + error.getMessage()).toList();
    }
}
