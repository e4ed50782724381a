package io.blackboard.platform.security;

import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Role tokens (comma-separated in BLACKBOARD_WORKER_TOKENS, BLACKBOARD_ENGINE_TOKENS,
 * BLACKBOARD_OPERATOR_TOKENS, BLACKBOARD_OJS_WORKER_TOKENS) and the request body cap.
 */
@Validated
@ConfigurationProperties("blackboard.security")
public record SecurityProperties(List<String> workerTokens, List<String> engineTokens, List<String> operatorTokens,
        List<String> ojsWorkerTokens, DataSize maxBodySize, @Min(1) int maxJsonDepth, @Min(1) int maxJsonStringLength) {

    public SecurityProperties {
        workerTokens = clean(workerTokens);
        engineTokens = clean(engineTokens);
        operatorTokens = clean(operatorTokens);
        ojsWorkerTokens = clean(ojsWorkerTokens);
        maxBodySize = maxBodySize == null ? DataSize.ofMegabytes(1) : maxBodySize;
    }

    private static List<String> clean(List<String> tokens) {
        return tokens == null ? List.of() : tokens.stream().map(String::trim).filter(t -> !t.isEmpty()).toList();
    }
}
