package io.refresher.spring.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/** The starter's sample: a product catalog cached with {@code @Cacheable}, nothing else to set up. */
@SpringBootApplication
@EnableCaching
public class SampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
