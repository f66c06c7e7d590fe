package io.refresher.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Sources must be wired consistently: a valid name, an existing datasource, and declared
 * parameters that are exactly the {@code :named} parameters of their SQL.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = WiredSourcesValidator.class)
public @interface WiredSources {
  String message() default "sources are not wired consistently";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
