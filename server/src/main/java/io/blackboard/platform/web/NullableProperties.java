package io.blackboard.platform.web;

import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JavaType;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.oas.models.media.Schema;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springdoc.core.customizers.PropertyCustomizer;
import tools.jackson.databind.JsonNode;

/**
 * What a property may hold: fields serialized with {@code @JsonRawValue} hold JSON as stored,
 * documented as any JSON; and every property that is not a primitive nor required
 * ({@code @NotNull}, {@code @NotBlank}, {@code @NotEmpty}) may be null, as the server writes
 * nulls and reads a null as an absent field. Items of lists and values of maps never are.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class NullableProperties implements PropertyCustomizer {

    @Override
    public Schema customize(Schema schema, AnnotatedType type) {
        if (schema == null) {
            return null;
        }
        Annotation[] annotations = type.getCtxAnnotations() == null ? new Annotation[0] : type.getCtxAnnotations();
        if (Arrays.stream(annotations).anyMatch(JsonRawValue.class::isInstance)) {
            return OpenApiConfig.anyJson().description("JSON, passed through as stored");
        }
        if (isJsonNode(type.getType())) {
            return OpenApiConfig.anyJson();
        }
        // the items of lists and the values of maps are never null, whatever the list
        if (schema.getItems() != null) {
            notNull(schema.getItems());
        }
        if (schema.getAdditionalProperties() instanceof Schema<?> values) {
            notNull(values);
        }
        boolean required = Arrays.stream(annotations).anyMatch(a -> a instanceof NotNull || a instanceof NotBlank
                || a instanceof NotEmpty || a instanceof JsonUnwrapped);
        return required || primitive(type.getType()) ? schema : nullable(schema);
    }

    private static boolean isJsonNode(Type type) {
        Class<?> raw = type instanceof Class<?> c ? c : type instanceof JavaType javaType ? javaType.getRawClass() : null;
        return raw != null && JsonNode.class.isAssignableFrom(raw);
    }

    private static boolean primitive(Type type) {
        return type instanceof Class<?> c ? c.isPrimitive() : type instanceof JavaType javaType && javaType.isPrimitive();
    }

    private static void notNull(Schema<?> schema) {
        if (schema.getTypes() != null && schema.getTypes().contains("null")) {
            Set<String> types = new LinkedHashSet<>(schema.getTypes());
            types.remove("null");
            schema.setTypes(types);
        }
        if (schema.getEnum() != null) {
            schema.getEnum().remove(null);
        }
    }

    private static Schema nullable(Schema schema) {
        if (schema.get$ref() != null) {
            return new Schema<>().anyOf(List.of(schema, new Schema<>().types(Set.of("null"))));
        }
        Set<String> types = schema.getTypes() != null ? new LinkedHashSet<>(schema.getTypes())
                : schema.getType() != null ? new LinkedHashSet<>(Set.of(schema.getType())) : null;
        if (types == null) {
            return schema; // no type: null is allowed already
        }
        types.add("null");
        schema.setTypes(types);
        if (schema.getEnum() != null && !schema.getEnum().contains(null)) {
            List values = new ArrayList<>(schema.getEnum());
            values.add(null);
            schema.setEnum(values);
        }
        return schema;
    }
}
