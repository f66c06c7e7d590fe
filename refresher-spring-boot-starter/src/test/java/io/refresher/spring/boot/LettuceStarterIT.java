package io.refresher.spring.boot;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The starter on Lettuce, Spring Boot's default client. */
class LettuceStarterIT extends StarterContract {

  @Override
  protected String clientType() {
    return "lettuce";
  }

  @Override
  protected Class<? extends RedisConnectionFactory> factoryType() {
    return LettuceConnectionFactory.class;
  }
}
