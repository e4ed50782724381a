package io.blackboard.platform.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpEntity;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.stereotype.Component;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Refuses a request whose answer the caller would not accept (406) before its handler runs.
 * Spring MVC picks the answer's media type when it writes the answer, after the handler has done
 * its work: a poll sent with {@code Accept: text/html} claimed its jobs and was answered 406, so
 * the claims went to nobody (the jobs stayed with the worker until their leases ran out); a create
 * wrote its job, a push landed. Here the {@code Accept} lines are resolved by Spring MVC's own
 * content negotiation (an unreadable one, or one of more types than it sorts, is 406 too) and
 * compared with the media types the handler's answer can be written in, also as Spring MVC finds
 * them. The 406 comes before any other refusal of the handler's (a 404, 409, 429, 503). Only
 * Blackboard's own handlers with a body to answer; {@link IgnoresAccept} ones answer in their own
 * type whatever the caller accepts.
 */
@Component
class AcceptFirst implements HandlerInterceptor, WebMvcConfigurer {

    private final ObjectProvider<RequestMappingHandlerAdapter> adapter;
    private final ObjectProvider<ContentNegotiationManager> negotiation;
    /** Per handler (bean type and method): the types its answer can be written in; empty: nothing to check. */
    private final Map<List<Object>, List<MediaType>> producible = new ConcurrentHashMap<>();

    AcceptFirst(ObjectProvider<RequestMappingHandlerAdapter> adapter,
            @Qualifier("mvcContentNegotiationManager") ObjectProvider<ContentNegotiationManager> negotiation) {
        this.adapter = adapter;
        this.negotiation = negotiation;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(this);
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws HttpMediaTypeNotAcceptableException {
        if (!(handler instanceof HandlerMethod method)) {
            return true;
        }
        List<MediaType> answers = producible.computeIfAbsent(List.of(method.getBeanType(), method.getMethod()),
                key -> producible(method));
        if (answers.isEmpty()) {
            return true;
        }
        // as Spring MVC resolves them when it writes the answer: an unreadable Accept, or one of
        // more types than it sorts, throws the 406 here
        List<MediaType> accepted = negotiation.getObject().resolveMediaTypes(new ServletWebRequest(request));
        for (MediaType type : accepted) {
            for (MediaType answer : answers) {
                if (type.isCompatibleWith(answer)) {
                    return true;
                }
            }
        }
        throw new HttpMediaTypeNotAcceptableException(answers);
    }

    private List<MediaType> producible(HandlerMethod method) {
        Class<?> bean = method.getBeanType();
        if (!bean.getPackageName().startsWith("io.blackboard") || bean.isAnnotationPresent(IgnoresAccept.class)) {
            return List.of();
        }
        MethodParameter returned = method.getReturnType();
        ResolvableType type = ResolvableType.forMethodParameter(returned);
        if (HttpEntity.class.isAssignableFrom(returned.getParameterType())) {
            type = type.as(HttpEntity.class).getGeneric(0);
        }
        Class<?> body = type.resolve(Object.class);
        if (body == void.class || body == Void.class) {
            return List.of(); // no body, nothing to negotiate
        }
        Set<MediaType> types = new LinkedHashSet<>();
        for (HttpMessageConverter<?> converter : adapter.getObject().getMessageConverters()) {
            if (converter.canWrite(body, null)) {
                types.addAll(converter.getSupportedMediaTypes(body));
            }
        }
        return new ArrayList<>(types);
    }
}
