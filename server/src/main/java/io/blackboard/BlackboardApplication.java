package io.blackboard;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;

/**
 * Callers authenticate with bearer tokens only (SecurityConfiguration): there are no users and
 * passwords, so Spring Boot's generated in-memory user, and its startup warning, are left out.
 */
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
@ConfigurationPropertiesScan
public class BlackboardApplication {

    public static void main(String[] args) {
        SpringApplication.run(BlackboardApplication.class, args);
    }
}
