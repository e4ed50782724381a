package io.blackboard.platform.web;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * A JSON value of the wrong type is a 400, as the OpenAPI document says, never coerced: a number
 * or boolean where a string goes, a string (a blank one too) where a number or boolean goes. ContractTest found
 * {@code {"hostname": -1}} registered as "-1" and {@code {"correlationId": 1.5}} taken as "1.5".
 */
@Configuration(proxyBeanMethods = false)
class JsonTypes {

    @Bean
    JsonMapperBuilderCustomizer noScalarCoercion() {
        return builder -> builder.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                // nor a blank or empty string (a NUL counts as blank) taken as null where a value goes
                .withCoercionConfigDefaults(config -> config.setAcceptBlankAsEmpty(false)
                        .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
                .withCoercionConfig(LogicalType.Textual, config -> config
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
    }
}
