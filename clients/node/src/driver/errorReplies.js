/**
 * Redis's error replies that it gives instead of running a command, by their first word: a call
 * answered with one of them surely did not run. (ERR and a script's own errors are not among
 * them: a script may have written before failing.) The same list as the Java client's.
 */
const REFUSED_WITHOUT_RUNNING = new Set([
  'OOM', 'READONLY', 'LOADING', 'BUSY', 'CLUSTERDOWN', 'TRYAGAIN', 'MASTERDOWN', 'NOAUTH',
  'WRONGPASS', 'NOPERM', 'NOSCRIPT', 'MOVED', 'ASK', 'NOREPLICAS', 'MISCONF',
]);

/** The first word of an error reply's message, upper-cased (node-redis keeps Redis's text as the message). */
function codeOf(message) {
  const trimmed = String(message).trim();
  const space = trimmed.indexOf(' ');
  return (space < 0 ? trimmed : trimmed.substring(0, space)).toUpperCase();
}

/** Whether an error reply with this message means "not run". */
export function refusedWithoutRunning(message) {
  return message != null && REFUSED_WITHOUT_RUNNING.has(codeOf(message));
}

/** Whether the reply says Redis does not have the script (EVAL it instead). */
export function isNoScript(message) {
  return message != null && String(message).trim().toUpperCase().startsWith('NOSCRIPT');
}
