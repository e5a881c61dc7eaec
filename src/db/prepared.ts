// Statements that run on nearly every request (the token check, the restaurant's versions, a
// product by id), written out once at load: no query is built per request, and on PostgreSQL each
// pool connection prepares them once (a named statement) instead of parsing and planning them on
// every run, which halved what a product read cost the database. PGlite runs them as they are.
import { CompiledQuery, type QueryResult } from 'kysely';
import pg from 'pg';
import type { Db } from './types.ts';

/** Statement text -> its name on every connection. */
const names = new Map<string, string>();

export type Prepared<Row> = (db: Db, parameters: readonly unknown[]) => Promise<QueryResult<Row>>;

/**
 * A constant statement; its parameters are $1, $2... Make each once: at module level, or on first
 * use when its text comes from a Kysely query (nfe-repository.ts's findNote); every call names one.
 */
export function prepared<Row>(text: string): Prepared<Row> {
  if (!names.has(text)) names.set(text, `comanda_${names.size + 1}`);
  const template = CompiledQuery.raw(text);
  return (db, parameters) => db.executeQuery({ ...template, parameters } as CompiledQuery<Row>);
}

type QueryArguments = Parameters<pg.Client['query']>;

/** The pool's client: runs the statements declared with prepared() as named statements. */
export class PreparingClient extends pg.Client {
  // One signature for pg's overloads: what Kysely sends is (text, values); the rest passes through.
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    const name = typeof text === 'string' ? names.get(text) : undefined;
    if (name === undefined) return super.query(...(args as QueryArguments)) as never;
    const config = { name, text: text as string, values: values as unknown[] };
    return (
      typeof callback === 'function' ? super.query(config, callback as never) : super.query(config)
    ) as never;
  }
}
