package io.blackboard;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.modulith.core.ApplicationModules;
import org.springframework.web.bind.annotation.RestController;

/**
 * The house rules of docs/architecture.md, as tests: feature packages without cycles, reaching
 * only into the platform's named sub-packages; SQL only in stores; controllers never at a store;
 * the platform depends on no feature.
 */
class ModularityTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // the ahead-of-time processing's generated bean definitions (X__BeanDefinitions):
            // they name every bean's dependencies, which are the rules' business in X itself
            .withImportOption(location -> !location.contains("__"))
            .importPackages("io.blackboard");

    /**
     * A store, one of its nested records, or what shares its work: {@code JobRows} maps the job
     * table's rows for every job store; {@code JobNotifications} and its listener hold the NOTIFY
     * and LISTEN connections; {@code DeadlineDataSource} wraps the pool (it hands connections out,
     * runs no SQL); {@code CastParams} makes the stores' untyped parameters (it runs no SQL either).
     */
    private static final DescribedPredicate<JavaClass> IN_A_STORE = DescribedPredicate.describe("a store",
            type -> {
                JavaClass outer = type;
                while (outer.getEnclosingClass().isPresent()) {
                    outer = outer.getEnclosingClass().get();
                }
                String name = outer.getSimpleName();
                return name.endsWith("Store") || name.equals("JobRows") || name.startsWith("JobNotification")
                        || name.equals("DeadlineDataSource") || name.equals("CastParams");
            });

    @Test
    void featurePackagesHaveNoDependencyCyclesAndUseOnlyWhatOthersExpose() {
        ApplicationModules.of(BlackboardApplication.class).verify();
    }

    /**
     * A store runs a table's SQL and maps its rows; nothing else talks to the database. The
     * exceptions hold a connection of their own for a reason: LISTEN/NOTIFY, and the embedded
     * development database.
     */
    @Test
    void onlyStoresRunSql() {
        noClasses().that().resideInAPackage("io.blackboard..")
                .and(not(IN_A_STORE))
                .and().resideOutsideOfPackage("io.blackboard.platform.embedded..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework.jdbc.core..")
                .orShould().dependOnClassesThat().belongToAnyOf(DataSource.class, Connection.class, Statement.class,
                        ResultSet.class, DriverManager.class)
                .because("SQL lives in the feature's *Store (docs/architecture.md)")
                .check(SERVER);
    }

    @Test
    void controllersNeverCallAStore() {
        noClasses().that().areAnnotatedWith(RestController.class)
                .should().dependOnClassesThat(IN_A_STORE)
                .because("a controller calls its feature's service, which owns the rules and the transaction")
                .check(SERVER);
    }

    @Test
    void thePlatformDependsOnNoFeature() {
        noClasses().that().resideInAPackage("io.blackboard.platform..")
                .should().dependOnClassesThat().resideInAnyPackage("io.blackboard.worker..", "io.blackboard.job..",
                        "io.blackboard.functionblock..", "io.blackboard.operator..")
                .check(SERVER);
    }
}
