package io.blackboard.operator;

import io.swagger.v3.oas.models.media.Schema;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The history's series hold null for a bucket with nothing rolled up ({@link History}), where
 * the items of every other list are never null: their items say so in the OpenAPI document.
 */
@Configuration(proxyBeanMethods = false)
class HistoryApiDocs {

    /** The component names springdoc gives History's nested records. */
    private static final List<String> SERIES = List.of("Jobs", "Percentiles", "Workers", "QueueDepth");

    @Bean
    OpenApiCustomizer nullableSeriesValues() {
        return openApi -> SERIES.forEach(name -> {
            Schema<?> schema = openApi.getComponents().getSchemas().get(name);
            if (schema != null && schema.getProperties() != null) {
                schema.getProperties().values().stream().map(Schema::getItems)
                        .filter(items -> items != null && items.getTypes() != null
                                && (items.getTypes().contains("integer") || items.getTypes().contains("number")))
                        .forEach(items -> {
                            Set<String> types = new LinkedHashSet<>(items.getTypes());
                            types.add("null");
                            items.setTypes(types);
                        });
            }
        });
    }
}
