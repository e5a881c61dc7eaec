// The GET /v1/menu rows of the benchmark (bench/run.ts: scenarios-menu.ts), with run.ts's options:
// `node bench/menu.ts [--pglite] [--quick] [--seconds 10] ...`; writes bench/results/partial.md.
process.argv.splice(2, 0, '--only', '^menu-');
await import('./run.ts');
