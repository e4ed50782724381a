package io.blackboard;

import org.springframework.boot.SpringApplication;

/** Runs the server against the test database: {@code ./mvnw spring-boot:test-run}. */
public class TestBlackboardApplication {

    public static void main(String[] args) {
        SpringApplication.from(BlackboardApplication::main).with(TestDatabase.class).run(args);
    }
}
