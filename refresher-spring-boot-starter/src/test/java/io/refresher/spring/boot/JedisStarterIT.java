package io.refresher.spring.boot;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/** The starter on Jedis, chosen with {@code spring.data.redis.client-type=jedis}. */
class JedisStarterIT extends StarterContract {

  @Override
  protected String clientType() {
    return "jedis";
  }

  @Override
  protected Class<? extends RedisConnectionFactory> factoryType() {
    return JedisConnectionFactory.class;
  }
}
