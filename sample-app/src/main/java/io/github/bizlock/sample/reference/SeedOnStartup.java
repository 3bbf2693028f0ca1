package io.github.bizlock.sample.reference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

@Component
class SeedOnStartup implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(SeedOnStartup.class);

    private final ReferenceDataSeeder seeder;

    SeedOnStartup(ReferenceDataSeeder seeder) {
        this.seeder = seeder;
    }

    @Override
    public void run(ApplicationArguments args) {
        Boolean seeded = seeder.seedIfEmpty();
        log.info(
                "reference data: {}",
                seeded == null ? "another replica is seeding it" : seeded ? "seeded by this replica" : "already there");
    }
}
