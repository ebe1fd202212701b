/** Messages for unexpected errors in CLI output and logs: one line, and never a query's parameters. */

/**
 * A one-line description of an unexpected error. Drizzle's query errors carry the SQL and its
 * parameters (which may include password hashes) in their message; the driver's own message,
 * their `cause`, is used instead.
 * @param err - anything thrown.
 */
export function safeErrorMessage(err: unknown): string {
  const cause = (err as { cause?: unknown })?.cause;
  const source = cause instanceof Error ? cause : err instanceof Error ? err : new Error(String(err));
  const firstLine = source.message.split('\n')[0] ?? '';
  return firstLine.startsWith('Failed query:') ? 'a database query failed' : firstLine;
}

/**
 * Whether a database error is a unique-constraint violation (SQLSTATE 23505), on either driver,
 * wrapped by Drizzle or not.
 * @param err - anything thrown.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (e: unknown) => (e as { code?: unknown } | undefined)?.code;
  return code(err) === '23505' || code((err as { cause?: unknown })?.cause) === '23505';
}
