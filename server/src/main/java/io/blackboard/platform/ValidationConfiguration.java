package io.blackboard.platform;

import jakarta.validation.Path;
import jakarta.validation.TraversableResolver;
import java.lang.annotation.ElementType;
import org.springframework.boot.validation.autoconfigure.ValidationConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bean Validation checks request records only, never lazily loaded entities. With JPA on the
 * class path, Hibernate Validator asks JPA whether each property is loaded, for every property
 * of every request: a few percent of the claim path's CPU (BENCHMARKS.md). Nothing here is lazy.
 */
@Configuration(proxyBeanMethods = false)
class ValidationConfiguration {

    @Bean
    ValidationConfigurationCustomizer everyPropertyReachable() {
        return configuration -> configuration.traversableResolver(new TraversableResolver() {
            @Override
            public boolean isReachable(Object bean, Path.Node property, Class<?> root, Path path, ElementType type) {
                return true;
            }

            @Override
            public boolean isCascadable(Object bean, Path.Node property, Class<?> root, Path path, ElementType type) {
                return true;
            }
        });
    }
}
