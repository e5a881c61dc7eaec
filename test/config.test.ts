// The configuration parser: defaults, and an error naming the variable for each invalid value.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { ConfigError, parseConfig } from '../src/config.ts';

const INVALID: [string, string, RegExp][] = [
  ['PORT', '70000', /^PORT must be a whole number from 0 to 65535 \(got "70000"\)$/],
  ['PORT', '3000abc', /^PORT must be a whole number/],
  ['HOST', 'http://0.0.0.0', /^HOST must be an IP address or a host name \(got "http:\/\/0.0.0.0"\)$/],
  ['HOST', '0.0.0.0:3000', /^HOST must be an IP address or a host name/],
  ['HOST', 'my host', /^HOST must be an IP address or a host name/],
  [
    'DATABASE_URL',
    'mysql://root:hunter2@db/comanda',
    /^DATABASE_URL must be a postgres:\/\/ URL or memory:\/\//,
  ],
  ['REDIS_URL', 'http://127.0.0.1:6379', /^REDIS_URL must use redis: or rediss: \(got "http:"\)$/],
  ['REDIS_URL', 'not a url', /^REDIS_URL must be a URL/],
  ['FISCAL_PROVIDER_URL', 'ftp://provider', /^FISCAL_PROVIDER_URL must use http: or https:/],
  ['FISCAL_TIMEOUT_MS', '20000', /^FISCAL_TIMEOUT_MS must be a whole number from 1 to 15000/],
  ['FISCAL_TOKEN_KEY', 'short', /^FISCAL_TOKEN_KEY must be at least 32 characters$/],
  ['ACCESS_TOKEN_TTL_SECONDS', '0', /^ACCESS_TOKEN_TTL_SECONDS must be a whole number from 1 to 86400/],
  ['REFRESH_IDLE_TTL_SECONDS', '-5', /^REFRESH_IDLE_TTL_SECONDS must be a whole number/],
  ['REFRESH_ABSOLUTE_TTL_SECONDS', '1.5', /^REFRESH_ABSOLUTE_TTL_SECONDS must be a whole number/],
  ['RESTAURANT_SESSION_SECRET', 'too-short', /^RESTAURANT_SESSION_SECRET must be at least 32 characters$/],
  ['RATE_LIMIT_PER_MINUTE', 'lots', /^RATE_LIMIT_PER_MINUTE must be a whole number/],
  ['TOKEN_RATE_LIMIT_PER_MINUTE', '0', /^TOKEN_RATE_LIMIT_PER_MINUTE must be a whole number/],
  ['NFE_DETAIL_WORKERS', '0', /^NFE_DETAIL_WORKERS must be a whole number from 1 to 32 \(got "0"\)$/],
  ['NFE_DETAIL_WORKERS', '33', /^NFE_DETAIL_WORKERS must be a whole number from 1 to 32/],
  [
    'LOG_LEVEL',
    'verbose',
    /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)$/,
  ],
  ['DATABASE_POOLER', 'session', /^DATABASE_POOLER must be "transaction" or "none" \(got "session"\)$/],
  ['MIGRATION_DATABASE_URL', 'mysql://db/x', /^MIGRATION_DATABASE_URL must use postgres: or postgresql:/],
  ['TRUST_PROXY', 'true', /^TRUST_PROXY must be a hop count .* \(got "true"\)$/],
  ['TRUST_PROXY', '10.0.0.0/33', /^TRUST_PROXY must be a hop count .* \(got "10.0.0.0\/33"\)$/],
  ['TRUST_PROXY', '127.0.0.1, proxy.internal', /^TRUST_PROXY .* \(got "proxy.internal"\)$/],
  ['TRUST_PROXY', '11', /^TRUST_PROXY .* at most 10 hops\)$/],
  ['EVENTS_RETENTION_DAYS', '0', /^EVENTS_RETENTION_DAYS must be a whole number from 1 to 3650 \(got "0"\)$/],
  ['WEBHOOK_ALLOW_PRIVATE', 'yes', /^WEBHOOK_ALLOW_PRIVATE must be 1 or 0 \(got "yes"\)$/],
  ['MENU_CACHE_MB', '64MB', /^MENU_CACHE_MB must be a whole number from 0 to 65536/],
  ['LISTING_CACHE_MB', '-1', /^LISTING_CACHE_MB must be a whole number/],
];

test('the configuration', async (t) => {
  await t.test('an empty environment gives the documented defaults', () => {
    assert.deepEqual(parseConfig({}), {
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databasePooler: undefined,
      migrationDatabaseUrl: undefined,
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 5000,
      shutdownTimeoutMs: 10000,
      dataDir: './data',
      redisUrl: undefined,
      fiscalProviderUrl: 'https://api.focusnfe.com.br',
      fiscalProviderUrlSet: false,
      fiscalTimeoutMs: 15000,
      fiscalTokenKey: undefined,
      nfeDetailWorkers: Math.max(1, Math.min(4, availableParallelism() - 1)),
      accessTokenTtlSeconds: 900,
      refreshIdleTtlSeconds: 2592000,
      refreshAbsoluteTtlSeconds: 7776000,
      restaurantSessionSecret: undefined,
      rateLimitPerMinute: 600,
      tokenRateLimitPerMinute: 60,
      logLevel: 'info',
      trustProxy: false,
      idempotencyTtlSeconds: 86400,
      eventsRetentionDays: 30,
      webhookAllowPrivate: false,
      cacheBytes: {
        menu: 64 * 2 ** 20,
        listing: 32 * 2 ** 20,
        cashFlows: 8 * 2 ** 20,
        nfeList: 16 * 2 ** 20,
        eventFeed: 8 * 2 ** 20,
        compressedMenus: 8 * 2 ** 20,
        menuBoundaries: 2 * 2 ** 20,
      },
    });
  });

  await t.test('the cache budgets are set in MiB, each on its own', () => {
    const { cacheBytes } = parseConfig({
      MENU_CACHE_MB: '128',
      NFE_LIST_CACHE_MB: '0',
      COMPRESSED_MENU_CACHE_MB: '2',
      MENU_BOUNDARY_CACHE_MB: '1',
    });
    assert.deepEqual(cacheBytes, {
      menu: 128 * 2 ** 20,
      listing: 32 * 2 ** 20,
      cashFlows: 8 * 2 ** 20,
      nfeList: 0,
      eventFeed: 8 * 2 ** 20,
      compressedMenus: 2 * 2 ** 20,
      menuBoundaries: 2 ** 20,
    });
  });

  await t.test(
    'WEBHOOK_ALLOW_PRIVATE=1 allows private receivers and EVENTS_RETENTION_DAYS sets the retention',
    () => {
      const config = parseConfig({ WEBHOOK_ALLOW_PRIVATE: '1', EVENTS_RETENTION_DAYS: '7' });
      assert.equal(config.webhookAllowPrivate, true);
      assert.equal(config.eventsRetentionDays, 7);
    },
  );

  await t.test("TRUST_PROXY takes a hop count or the proxies' addresses and CIDRs", () => {
    assert.equal(parseConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.equal(parseConfig({ TRUST_PROXY: '0' }).trustProxy, false);
    assert.deepEqual(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ]);
  });

  await t.test('HOST takes an IP address or a host name', () => {
    for (const host of ['0.0.0.0', '::', '::1', 'localhost', 'api-1.internal']) {
      assert.equal(parseConfig({ HOST: host }).host, host);
    }
  });

  await t.test('set variables are parsed and typed; an empty value means unset', () => {
    const config = parseConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://app@db:5432/comanda',
      DATA_DIR: '/var/lib/comanda',
      REDIS_URL: 'redis://cache:6379/',
      FISCAL_PROVIDER_URL: 'https://homologacao.focusnfe.com.br/',
      ACCESS_TOKEN_TTL_SECONDS: '600',
      RESTAURANT_SESSION_SECRET: 's'.repeat(32),
      FISCAL_TOKEN_KEY: '',
      NFE_DETAIL_WORKERS: '3',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://app@db:5432/comanda');
    assert.equal(config.dataDir, '/var/lib/comanda');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.fiscalProviderUrl, 'https://homologacao.focusnfe.com.br');
    assert.equal(config.fiscalProviderUrlSet, true);
    assert.equal(config.accessTokenTtlSeconds, 600);
    assert.equal(config.restaurantSessionSecret, 's'.repeat(32));
    assert.equal(config.fiscalTokenKey, undefined);
    assert.equal(config.nfeDetailWorkers, 3);
    assert.equal(parseConfig({ DATABASE_URL: 'memory://' }).databaseUrl, 'memory://');
  });

  for (const [name, value, message] of INVALID) {
    await t.test(`${name}=${JSON.stringify(value)} is refused with a message naming ${name}`, () => {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  await t.test('a refused value with a line break or a terminal escape is shown escaped, on one line', () => {
    const odd = 'x\n\u001b[2Jy\r';
    for (const name of [
      'PORT',
      'HOST',
      'LOG_LEVEL',
      'TRUST_PROXY',
      'DATABASE_POOLER',
      'WEBHOOK_ALLOW_PRIVATE',
      'REDIS_URL',
      'DATABASE_URL',
    ]) {
      assert.throws(
        () => parseConfig({ [name]: odd }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, new RegExp(`^${name} `));
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused here
          assert.doesNotMatch(err.message, /[\u0000-\u001f\u007f]/, name);
          return true;
        },
      );
    }
  });

  await t.test("a DATABASE_URL that PostgreSQL's driver cannot read is refused naming the variable", () => {
    assert.throws(
      () => parseConfig({ DATABASE_URL: 'postgres://app:hunter2/x@db/comanda' }),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /^DATABASE_URL /);
        assert.doesNotMatch(err.message, /hunter2/);
        return true;
      },
    );
  });

  await t.test('no refused connection string echoes its password', () => {
    for (const [name, value] of [
      ['REDIS_URL', 'redis://:hunter2/x@cache:6379'],
      ['REDIS_URL', 'redis://:hunter2@cache:637900'],
      ['MIGRATION_DATABASE_URL', 'postgres://app:hunter2#x@db/comanda'],
      ['DATABASE_URL', 'host=db user=app password=hunter2 dbname=comanda'],
    ]) {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, new RegExp(`^${name} must`));
          assert.doesNotMatch(err.message, /hunter2/, name);
          return true;
        },
      );
    }
  });

  await t.test('a refused DATABASE_URL does not echo its password', () => {
    assert.throws(
      () => parseConfig({ DATABASE_URL: 'mysql://root:hunter2@db/comanda' }),
      (err: Error) => {
        assert.doesNotMatch(err.message, /hunter2/);
        return true;
      },
    );
  });
});
