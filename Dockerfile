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
    && cp server/target/blackboard-*.jar /blackboard.jar

FROM eclipse-temurin:25-jre
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home blackboard
COPY --from=build /blackboard.jar /app/blackboard.jar
USER 10001
EXPOSE 8080
# The production profile refuses the embedded development database: set SPRING_DATASOURCE_URL.
ENV SPRING_PROFILES_ACTIVE=production
HEALTHCHECK --interval=10s --timeout=3s --start-period=40s --retries=3 \
    CMD curl -fsS http://localhost:8080/actuator/health/readiness || exit 1
# The JVM the benchmark measures (BENCHMARKS.md): a 256 MB heap holds 1,000 parked long polls;
# the serial collector, two malloc arenas and giving freed native memory back every 5 s
# (TrimNativeHeapInterval: about 35 MB less RSS) keep the footprint small. An OutOfMemoryError can end
# Tomcat's acceptor thread, leaving a replica that accepts nothing: exit instead, and let the
# restart policy bring it back. Override with -e JAVA_TOOL_OPTIONS=...
ENV JAVA_TOOL_OPTIONS="-Xmx256m -XX:+UseSerialGC -XX:MetaspaceSize=128m -XX:MaxMetaspaceSize=192m -XX:TrimNativeHeapInterval=5000 -XX:+ExitOnOutOfMemoryError" \
    MALLOC_ARENA_MAX=2
ENTRYPOINT ["java", "-jar", "/app/blackboard.jar"]
