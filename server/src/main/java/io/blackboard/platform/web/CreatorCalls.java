package io.blackboard.platform.web;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.ValueInstantiators;
import tools.jackson.databind.deser.std.StdValueInstantiator;
import tools.jackson.databind.introspect.AnnotatedConstructor;

/**
 * Jackson builds a record (every request body is one) through its constructor's method handle
 * with {@code invokeWithArguments}, which makes a new spreading handle on every call: 2-3% of
 * the server's CPU on the push + next round trip (a JFR profile, BENCHMARKS.md). Here each
 * constructor with arguments gets one spreading handle, made once, called exactly. What Jackson
 * decides is unchanged (which constructor, the arguments it passes, how a constructor's exception
 * is reported): only the call is.
 */
@Configuration(proxyBeanMethods = false)
class CreatorCalls {

    @Bean
    JsonMapperBuilderCustomizer spreadConstructorCalls() {
        return builder -> builder.addModule(new Module());
    }

    static final class Module extends JacksonModule {

        @Override
        public String getModuleName() {
            return "blackboard-creator-calls";
        }

        @Override
        public tools.jackson.core.Version version() {
            return tools.jackson.core.Version.unknownVersion();
        }

        @Override
        public void setupModule(SetupContext context) {
            context.addValueInstantiators(new Spread());
        }
    }

    /** Swaps Jackson's own instantiator for one that calls a property-based constructor through {@link Spreading}. */
    static final class Spread extends ValueInstantiators.Base {

        @Override
        public ValueInstantiator modifyValueInstantiator(DeserializationConfig config,
                BeanDescription.Supplier beanDescRef, ValueInstantiator instantiator) {
            if (instantiator.getClass() != StdValueInstantiator.class
                    || !(instantiator.getWithArgsCreator() instanceof AnnotatedConstructor creator)
                    || !(creator.getAnnotated() instanceof Constructor<?> constructor)
                    || constructor.getParameterCount() == 0 || constructor.isVarArgs()) {
                return instantiator;
            }
            try {
                MethodHandle handle = MethodHandles.lookup().unreflectConstructor(constructor)
                        .asType(MethodType.genericMethodType(constructor.getParameterCount()))
                        .asSpreader(Object[].class, constructor.getParameterCount());
                return new Spreading((StdValueInstantiator) instantiator, handle);
            } catch (IllegalAccessException | RuntimeException e) {
                return instantiator; // Jackson's own call, as before
            }
        }
    }

    /** Jackson's instantiator, its constructor called through a spreading handle made once. */
    static final class Spreading extends StdValueInstantiator {

        private final MethodHandle constructor;

        Spreading(StdValueInstantiator source, MethodHandle constructor) {
            super(source);
            this.constructor = constructor;
        }

        @Override
        public Object createFromObjectWith(DeserializationContext ctxt, Object[] args) throws JacksonException {
            try {
                return constructor.invokeExact(args);
            } catch (Error e) {
                throw e; // as Jackson's: errors are not a value's problem
            } catch (Throwable e) {
                // as Jackson's own call: a constructor's exception is the value's problem, reported as one
                return ctxt.handleInstantiationProblem(_valueClass, args, rewrapCtorProblem(ctxt, e));
            }
        }
    }
}
