package io.refresher.wiring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.JdbiChangeLog;
import io.refresher.persistence.JdbiRegistrationRepository;
import io.refresher.registry.ChangeLog;
import io.refresher.persistence.JdbiTemplateRepository;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.Registry;
import io.refresher.registry.RegistrationValidator;
import io.refresher.registry.TemplateCatalog;
import io.refresher.registry.Templates;
import io.refresher.source.SourceCatalog;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is registered: keys and templates in PostgreSQL, the templates compiled in memory and
 * re-read every {@link #TEMPLATE_RELOAD} (they change through any replica), and the resolver that
 * answers "which registration covers this key".
 */
record RegistryWiring(
    JdbiRegistrationRepository repository,
    TemplateCatalog templateCatalog,
    Templates templates,
    KeyResolver resolver,
    Registry registry,
    ChangeLog changes) {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryWiring.class);

  /** Templates changed through another replica become visible here within this. */
  private static final Duration TEMPLATE_RELOAD = Duration.ofSeconds(2);

  static RegistryWiring wire(
      RefresherConfiguration config,
      Environment environment,
      DatabaseWiring database,
      SourceCatalog sources,
      InstantSource clock) {
    ObjectMapper json = environment.getObjectMapper();
    JdbiRegistrationRepository repository = new JdbiRegistrationRepository(database.registry(), json);
    JdbiTemplateRepository templateRepository = new JdbiTemplateRepository(database.registry(), json);
    TemplateCatalog templateCatalog = new TemplateCatalog(templateRepository, sources);
    templateCatalog.reload();
    RegistrationValidator validator = new RegistrationValidator(sources, config.getAdmin().registrationLimits());

    ScheduledExecutorService reloads =
        environment.lifecycle().scheduledExecutorService("template-reload-%d").threads(1).build();
    Runnable reload =
        new FailureStreakLog(LOG, "template reload", FailureStreakLog.REPEAT, clock).around(templateCatalog::reload);
    environment.lifecycle().manage(
        Lifecycles.atStart(
            "template reload",
            () -> reloads.scheduleWithFixedDelay(
                reload, TEMPLATE_RELOAD.toMillis(), TEMPLATE_RELOAD.toMillis(), TimeUnit.MILLISECONDS)));

    return new RegistryWiring(
        repository,
        templateCatalog,
        new Templates(templateRepository, validator, sources, templateCatalog, clock),
        new KeyResolver(repository, templateCatalog, clock),
        new Registry(repository, validator, clock),
        new JdbiChangeLog(database.registry(), json));
  }
}
