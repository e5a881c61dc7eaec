// The administrative commands of `comanda`, as plain functions `(ctx, args) => result`. The CLI
// runs them on its own database handle, or asks the running server (admin-channel.ts) to run
// them on the server's: one implementation for both paths. Results are JSON.
import type { Db } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { ExportError, exportRestaurant } from '../import/export.ts';
import { checkImport, ImportError, importData } from '../import/import.ts';
import { checkScopes, listApiKeys, revokeApiKey, storeApiKey } from '../modules/auth/api-keys.ts';
import { signSession } from '../modules/auth/session-token.ts';
import { createStaffUser, StaffInputError } from '../modules/console/staff-service.ts';
import { summarizeEndpoints } from '../modules/webhooks/endpoint-repository.ts';
import { mapEndpoint } from '../modules/webhooks/endpoint-service.ts';
import { type CommandContext, CommandError } from './command-context.ts';
import { loadDemoWithAccount } from './demo-load.ts';
import { rotateFiscalKey } from './rotate-fiscal-key.ts';
import { userCommands } from './user-commands.ts';

export { type CommandContext, CommandError };

type Args = Record<string, unknown>;

const MAX_SESSION_TTL = 31 * 86400;

/** A number as given, or a string of decimal digits (never hex, an exponent or a fraction). */
const whole = (value: unknown) =>
  typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;

function ids(value: unknown, what: string): number[] {
  const list = Array.isArray(value) ? value : [value];
  const parsed = list.map(whole);
  if (!list.length || parsed.some((n) => !Number.isInteger(n) || n < 1 || n > 2147483647)) {
    throw new CommandError(`${what} must be positive whole numbers (got ${list.join(', ') || 'none'})`);
  }
  return [...new Set(parsed)];
}

async function requireRestaurants(db: Db, restaurantIds: number[]): Promise<void> {
  const found = await db.selectFrom('restaurants').select('id').where('id', 'in', restaurantIds).execute();
  const missing = restaurantIds.filter((id) => !found.some((r) => r.id === id));
  if (missing.length) throw new CommandError(`restaurant ${missing.join(', ')} does not exist`);
}

export const COMMANDS: Record<string, (ctx: CommandContext, args: Args) => Promise<unknown>> = {
  migrate: async (ctx) => ({ applied: [...(ctx.applied ?? []), ...(await migrate(ctx.db))] }),

  import: async (ctx, args) => {
    try {
      const options = { fiscalTokenKey: ctx.secrets.fiscalTokenKey, onProgress: ctx.onProgress };
      return { counts: await importData(ctx.db, args.data, options) };
    } catch (err) {
      if (err instanceof ImportError) throw err;
      // The transaction rolled back: a constraint the checks did not foresee, or a lost connection.
      throw new CommandError(`import failed, nothing was written: ${(err as Error).message}`);
    }
  },

  export: async (ctx, args) => {
    const [restaurantId] = ids(args.restaurant_id, '--restaurant');
    const includeSecrets = args.include_secrets === true;
    try {
      return await exportRestaurant(ctx.db, restaurantId, {
        includeSecrets,
        fiscalTokenKey: ctx.secrets.fiscalTokenKey,
      });
    } catch (err) {
      throw err instanceof ExportError ? new CommandError(err.message) : err;
    }
  },

  'import check': async (ctx, args) => ({ problems: await checkImport(ctx.db, args.data) }),

  demo: (ctx, args) =>
    loadDemoWithAccount(ctx.db, {
      fiscalTokenKey: ctx.secrets.fiscalTokenKey,
      replace: args.replace === true,
    }),

  'api-key create': async (ctx, args) => {
    const restaurantIds = ids(args.restaurant_ids, '--restaurant');
    let scopes: string[];
    try {
      scopes = checkScopes((Array.isArray(args.scopes) ? args.scopes : []).map(String));
    } catch (err) {
      throw new CommandError(`--scope: ${(err as Error).message}`);
    }
    await requireRestaurants(ctx.db, restaurantIds);
    const name = typeof args.name === 'string' && args.name.trim() ? args.name.trim() : 'API key';
    const key = await storeApiKey(ctx.db, {
      name,
      restaurantIds,
      scopes,
      environment: args.test ? 'test' : 'live',
    });
    return { id: key.id, api_key: key.api_key, restaurant_ids: key.restaurant_ids, scopes: key.scopes };
  },

  'api-key list': async (ctx) => ({ api_keys: await listApiKeys(ctx.db) }),

  'api-key revoke': async (ctx, args) => {
    const [id] = ids(args.id, 'the API key id');
    const key = await ctx.db
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!key) throw new CommandError(`API key ${id} does not exist`);
    const revoked = await revokeApiKey(ctx.db, id);
    return { id, revoked: true, already_revoked: !revoked };
  },

  'session create': async (ctx, args) => {
    const [restaurantId] = ids(args.restaurant_id, '--restaurant');
    const ttl = whole(args.ttl ?? 8 * 3600);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_SESSION_TTL) {
      throw new CommandError(`--ttl must be a whole number of seconds from 1 to ${MAX_SESSION_TTL}`);
    }
    await requireRestaurants(ctx.db, [restaurantId]);
    const now = Date.now();
    const token = signSession(restaurantId, ttl, ctx.secrets.sessionSecret, now);
    const expiresAt = new Date((Math.floor(now / 1000) + ttl) * 1000).toISOString();
    return { session_token: token, restaurant_id: restaurantId, expires_at: expiresAt };
  },

  'webhooks list': async (ctx, args) => {
    const restaurantId = args.restaurant_id === undefined ? null : ids(args.restaurant_id, '--restaurant')[0];
    const rows = await summarizeEndpoints(ctx.db, restaurantId);
    return {
      webhook_endpoints: rows.map((row) => ({
        ...mapEndpoint(row),
        restaurant_id: row.restaurant_id,
        pending_deliveries: row.pending,
        failed_deliveries: row.failed,
        last_delivery_at: row.last_delivery_at?.toISOString() ?? null,
      })),
    };
  },

  'secrets rotate-fiscal-key': rotateFiscalKey,

  ...userCommands,

  'user create': async (ctx, args) => {
    const restaurantIds = ids(args.restaurant_ids, '--restaurant');
    const password = typeof args.password === 'string' ? args.password : undefined;
    try {
      return await createStaffUser(ctx.db, { email: String(args.email ?? ''), restaurantIds, password });
    } catch (err) {
      throw err instanceof StaffInputError ? new CommandError(err.message) : err;
    }
  },
};

/** The command of that name; undefined for any other, `constructor` and `__proto__` included. */
export function commandNamed(
  name: string,
): ((ctx: CommandContext, args: Args) => Promise<unknown>) | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}
