package io.refresher.refresh;

/**
 * One change notification as the listener received it.
 *
 * @param channel the channel it was sent on
 * @param payload its payload (may be empty)
 */
public record ChangeNotification(String channel, String payload) {}
