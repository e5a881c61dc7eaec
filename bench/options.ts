// Command line of `npm run bench` (`node bench/run.ts`).
import { parseArgs } from 'node:util';

const USAGE = `npm run bench -- [options]
  --pglite              embedded PGlite (a folder under .cache/) instead of PostgreSQL (DATABASE_URL,
                        default postgres://postgres@127.0.0.1:5432/test; database comanda_bench)
  --quick               smoke run: 1 s warm-up, 2 s windows, no scaling rows, 100,000 cash-flow entries;
                        writes bench/results/quick.md (--only: partial.md; --pglite: *-pglite.md)
  --all                 also the cash-flow filter rows
  --only <regex>        only the scenarios whose id matches (ids are listed in the report)
  --seconds <n>         throughput window, 32 connections (default 5)
  --warmup <n>          warm-up before it (default 2)
  --latency-seconds <n> one-client latency window (default 3)
  --connections <n>     (default 32)
  --cpu-prof            run the server with --cpu-prof and print its top self-time functions`;

export type Options = {
  pglite: boolean;
  quick: boolean;
  all: boolean;
  only?: RegExp;
  seconds: number;
  warmup: number;
  latencySeconds: number;
  connections: number;
  cpuProf: boolean;
  output: string;
};

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      pglite: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      only: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      'latency-seconds': { type: 'string' },
      connections: { type: 'string', default: '32' },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick;
  const number = (raw: string | undefined, normal: number, short: number) => {
    const value = Number(raw ?? (quick ? short : normal));
    if (!(value > 0)) throw new Error(`not a positive number: ${raw}\n${USAGE}`);
    return value;
  };
  return {
    pglite: values.pglite,
    quick,
    all: values.all,
    only: values.only ? new RegExp(values.only) : undefined,
    seconds: number(values.seconds, 5, 2),
    warmup: number(values.warmup, 2, 1),
    latencySeconds: number(values['latency-seconds'], 3, 1),
    connections: number(values.connections, 32, 32),
    cpuProf: values['cpu-prof'],
    // Only a full run on PostgreSQL is `latest`: a partial or smoke run never overwrites it.
    output: `${quick ? 'quick' : values.only ? 'partial' : 'latest'}${values.pglite ? '-pglite' : ''}`,
  };
}
