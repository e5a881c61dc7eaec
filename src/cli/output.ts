// How the CLI speaks: results as JSON on stdout with --json, as text otherwise; errors as one
// line on stderr with a non-zero exit, never a stack trace.
import { CommandError } from '../admin/commands.ts';
import { describeFailure, RemoteFailure } from '../admin/failure.ts';
import { ConfigError } from '../config.ts';
import type { ImportProgress } from '../import/import.ts';
import { EnvFileError } from '../lib/env-file.ts';

export type OutputOptions = { json?: boolean };

export function print<T>(options: OutputOptions, result: T, human: (result: T) => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${human(result)}\n`);
}

/**
 * A reader that stops early (`comanda export --restaurant 1 | head`) closes the pipe: the rest of
 * the output goes nowhere and the command ends as it would have, without a stack trace.
 */
export function quietOnClosedStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    process.exitCode = fail(err);
  });
}

/** Wraps a commander action: every failure becomes `error: ...` on stderr and an exit code. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (err) {
      process.exitCode = fail(err);
    }
  };
}

export function fail(err: unknown): number {
  if (err instanceof ConfigError || err instanceof EnvFileError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    return 2;
  }
  const failure =
    err instanceof RemoteFailure ? { kind: err.kind, message: err.message } : describeFailure(err);
  const { code, syscall, path } = err as NodeJS.ErrnoException;
  if (syscall === 'listen' || syscall === 'bind') {
    // net's error for a server that cannot take its address: the port taken, or one refused.
    failure.message = `cannot listen: ${failure.message}`;
  } else if ((code === 'EACCES' || code === 'EPERM') && syscall && path) {
    failure.message = `cannot ${syscall} ${path}: ${code}`;
  } else if (failure.kind === 'internal' && !(err instanceof CommandError)) {
    failure.message = `unexpected failure: ${failure.message}`;
  }
  process.stderr.write(`error: ${failure.message}\n`);
  return 1;
}

/** Told when another comanda process holds the data folder and this one waits for it. */
export function waiting(holder: { pid: number; role: string; command?: string }): void {
  const what =
    holder.role === 'server'
      ? `the comanda server (pid ${holder.pid}) to open its admin channel`
      : `comanda ${holder.command ?? ''} (pid ${holder.pid}) to finish with the data folder`;
  process.stderr.write(`waiting for ${what}...\n`);
}

/** A one-line progress display per collection, on a terminal only. */
export function progressDisplay(stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) return undefined;
  let shownAt = 0;
  return (p: ImportProgress) => {
    const done = p.done >= p.total;
    if (!done && Date.now() - shownAt < 80) return;
    shownAt = Date.now();
    const width = 24;
    const filled = Math.round((p.done / Math.max(p.total, 1)) * width);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    stream.write(`\r\x1b[K  ${p.collection.padEnd(22)} [${bar}] ${p.done}/${p.total}${done ? '\n' : ''}`);
  };
}

/** Counts as aligned lines, leaving out what the file did not have. */
export function countsText(counts: Record<string, number>): string {
  const lines = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `  ${name.padEnd(22)} ${n}`);
  return lines.length ? lines.join('\n') : '  (nothing)';
}

/** Rows under a header, each column as wide as its widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
