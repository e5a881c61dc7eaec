// `npm run test:reliability`: the process-level suite (several instances, faults, kill -9). It
// needs PostgreSQL and Redis on 127.0.0.1; without them it says so and exits 0 with a skip line.
import { spawn } from 'node:child_process';
import { ROOT } from './harness.ts';
import { missingServices } from './services.ts';

const missing = await missingServices();
if (missing) {
  process.stdout.write(
    `reliability suite skipped: ${missing} (start them, or set RELIABILITY_DATABASE_URL / RELIABILITY_REDIS_URL)\n`,
  );
  process.stdout.write('reliability: 0 passed, 0 failed, 1 skipped\n');
  process.exit(0);
}

const child = spawn(
  process.execPath,
  ['--test', '--test-reporter=spec', '--test-concurrency=1', 'test/reliability/*.reliability.ts'],
  { cwd: ROOT, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
