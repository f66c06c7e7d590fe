/**
 * The client's logging: any console-compatible object (console, pino, winston...). Quiet by
 * default except for warnings and errors, which go to the console.
 */
const silent = () => {};

export const DEFAULT_LOGGER = Object.freeze({
  debug: silent,
  info: silent,
  warn: (...args) => console.warn('[refresher-client]', ...args),
  error: (...args) => console.error('[refresher-client]', ...args),
});

/** A logger with all four levels, missing ones silent. */
export function loggerOf(logger) {
  if (logger === undefined || logger === null) {
    return DEFAULT_LOGGER;
  }
  const level = (name) => (typeof logger[name] === 'function' ? logger[name].bind(logger) : silent);
  return { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') };
}
