// How a failed command is reported: a user's mistake by its message alone, anything else as an
// internal failure with its message; never a stack trace, never a database error's parameters.
import { ImportError } from '../import/import.ts';
import { CommandError } from './commands.ts';

/** `problems`: a rejected import's list, one line each (the CLI's --json prints them). */
type Failure = { kind: 'user' | 'internal'; message: string; problems?: string[] };

export function describeFailure(err: unknown): Failure {
  if (err instanceof ImportError) return { kind: 'user', message: err.message, problems: err.issues };
  if (err instanceof CommandError || err instanceof SyntaxError) {
    return { kind: 'user', message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'internal', message };
}

/** A failure that came back over the admin channel, thrown again in the CLI. */
export class RemoteFailure extends Error {
  readonly kind: Failure['kind'];
  readonly problems?: string[];

  constructor(failure: Failure) {
    super(failure.message);
    this.kind = failure.kind;
    this.problems = failure.problems;
  }
}
