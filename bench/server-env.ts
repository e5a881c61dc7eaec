// What the server under test and the in-process probe app are configured with: fixed secrets (the
// NF-e data set stores its fiscal token encrypted with this key), rate limits high enough never to
// answer 429 under load, and warnings-only logging (request logs would measure the log pipe).
export const BENCH_SECRETS = {
  sessionSecret: 'bench-session-secret-of-32-characters!!',
  fiscalTokenKey: 'bench-fiscal-key-of-at-least-32-chars!!',
};

export function serverEnv(
  database: { DATABASE_URL: string } | { DATA_DIR: string },
  fiscalProviderUrl: string,
  port = 0,
): Record<string, string> {
  return {
    ...database,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    FISCAL_PROVIDER_URL: fiscalProviderUrl,
    RESTAURANT_SESSION_SECRET: BENCH_SECRETS.sessionSecret,
    FISCAL_TOKEN_KEY: BENCH_SECRETS.fiscalTokenKey,
  };
}
