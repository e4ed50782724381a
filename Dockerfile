# syntax=docker/dockerfile:1
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY server/pom.xml server/pom.xml
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -q -f server/pom.xml dependency:go-offline -DnoEmbeddedPostgres
COPY server/src server/src
# the same build .ci/run proves, without re-running the tests, and without the embedded
# PostgreSQL's binaries: the image always runs on a real database (the production profile)
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -q -f server/pom.xml package -DskipTests -DnoEmbeddedPostgres \
    && java -Djarmode=tools -jar server/target/blackboard-*.jar extract --destination /app \
    && mv /app/blackboard-*.jar /app/blackboard.jar

FROM eclipse-temurin:25-jre
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home blackboard
# the jar extracted (its libraries beside it, as the JVM's ahead-of-time cache wants them)
COPY --from=build /app /app
# The JVM the benchmark measures (BENCHMARKS.md): a 256 MB heap holds 1,000 parked long polls;
# the serial collector, two malloc arenas and giving freed native memory back every 5 s
# (TrimNativeHeapInterval: about 35 MB less RSS) keep the footprint small. An OutOfMemoryError can end
# Tomcat's acceptor thread, leaving a replica that accepts nothing: exit instead, and let the
# restart policy bring it back. Override with -e JAVA_TOOL_OPTIONS=...
ENV JAVA_TOOL_OPTIONS="-Xmx256m -XX:+UseSerialGC -XX:MetaspaceSize=128m -XX:MaxMetaspaceSize=192m -XX:TrimNativeHeapInterval=5000 -XX:+ExitOnOutOfMemoryError" \
    MALLOC_ARENA_MAX=2
# Start-up in seconds (docs/operations.md): the context's ahead-of-time processed bean definitions
# (spring.aot.enabled) and the JVM's ahead-of-time cache of the classes a start loads and links,
# written here by a training run that starts the context and exits. It needs no database (it
# migrates none) and runs on this image's own JVM with the options above, as the cache requires; a
# JVM started with other options (another collector) runs without the cache, only slower to start.
RUN SPRING_DATASOURCE_URL=jdbc:postgresql://127.0.0.1:1/none java -XX:AOTCacheOutput=/app/blackboard.aot \
      -Dspring.aot.enabled=true -Dspring.context.exit=onRefresh -jar /app/blackboard.jar >/tmp/training.log 2>&1 \
    || { tail -n 40 /tmp/training.log; exit 1; }; rm -f /tmp/training.log
USER 10001
EXPOSE 8080
# The production profile refuses the embedded development database: set SPRING_DATASOURCE_URL.
ENV SPRING_PROFILES_ACTIVE=production
HEALTHCHECK --interval=5s --timeout=3s --start-period=15s --retries=3 \
    CMD curl -fsS http://localhost:8080/actuator/health/readiness || exit 1
ENTRYPOINT ["java", "-XX:AOTCache=/app/blackboard.aot", "-Dspring.aot.enabled=true", "-jar", "/app/blackboard.jar"]
