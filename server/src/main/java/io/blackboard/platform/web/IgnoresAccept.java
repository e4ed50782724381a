package io.blackboard.platform.web;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The controller answers in a media type it sets itself, whatever the request's {@code Accept}
 * (as the OJS binding's spec has it): {@link AcceptFirst} does not refuse its requests up front.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface IgnoresAccept {
}
