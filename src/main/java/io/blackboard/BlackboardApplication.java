package io.blackboard;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class BlackboardApplication {

    public static void main(String[] args) {
        SpringApplication.run(BlackboardApplication.class, args);
    }
}
