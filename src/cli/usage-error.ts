/** A mistake in how the CLI was called; printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The user pressed Ctrl-C at a prompt; what to do next has been printed already. Exit code 130, as for SIGINT. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}
