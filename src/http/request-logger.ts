// Each request's logger (request.log, reply.log), made on its first line at an enabled level.
// Fastify gives every request a child of the app's logger bound to its reqId, and pino builds a
// child at once: with redaction paths that start with a wildcard (logger.ts), it runs every one of
// them over the bindings, 18% of what a one-product read allocates. At LOG_LEVEL=info every
// request logs and gets its child; at warn, most requests never make one.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type Options = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Pino = FastifyBaseLogger & { levels: { values: Record<string, number> } };
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class RequestLogger {
  readonly #parent: Pino;
  readonly #bindings: Bindings;
  readonly #options: Options;
  #child: FastifyBaseLogger | undefined;
  #level: string;
  #threshold: number;

  constructor(parent: Pino, bindings: Bindings, options: Options) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
    this.#level = options.level || parent.level;
    this.#threshold = parent.levels.values[this.#level] ?? 0;
  }

  get level(): string {
    return this.#level;
  }

  set level(level: string) {
    this.#level = level;
    this.#threshold = this.#parent.levels.values[level] ?? 0;
    if (this.#child) this.#child.level = level;
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, { ...this.#options, level: this.#level });
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#parent.levels.values[level] < this.#threshold) return;
    (this.#made()[level] as (...args: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: Options): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory. */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: Options,
): FastifyBaseLogger {
  return new RequestLogger(logger as Pino, bindings, options) as unknown as FastifyBaseLogger;
}
